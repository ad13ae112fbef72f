package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchsup/benchsup/internal/timingtest"
	"github.com/benchsup/benchsup/rundoc"
)

// variantDesign is a synthetic --vs experiment: n variants measured in
// the default rounds, one process each per round, each process's median
// drawn around its variant's true time.
type variantDesign struct {
	name    string
	n       int
	between float64 // process-to-process spread (log scale)
	drift   float64 // per round, shared by the round's processes
	// first slows the first process of a round (a cold cache); slope
	// drifts the processes of a round by position (log scale per place).
	first, slope float64
	rounds       int // 0: the default, VariantRounds(n, 6)
	datasets     int
}

// rows draws one dataset: rows of the group's members, whose
// true times are exp(logTrue[v]), in the schedule's rounds.
func (d variantDesign) rows(rng *rand.Rand, sched [][]int, logTrue []float64) []rundoc.Row {
	ns := make([][]float64, d.n)
	for _, round := range sched {
		shift := rng.NormFloat64() * d.drift
		for pos, v := range round {
			e := shift + float64(pos)*d.slope + rng.NormFloat64()*d.between
			if pos == 0 {
				e += d.first
			}
			ns[v] = append(ns[v], 100*math.Exp(logTrue[v]+e))
		}
	}
	rows := make([]rundoc.Row, d.n)
	for v := range rows {
		rows[v] = benchRow(fmt.Sprintf("BenchmarkX/v=%d", v), 0, ns[v]...)
	}
	return rows
}

// variantStudy measures, over d.datasets datasets, how often every
// contender's interval covered its true ratio (1.05) and how often an A/A
// contender (identical code) got a verdict of faster or slower, and the
// mean confidence the intervals reported.
func variantStudy(t *testing.T, d variantDesign, seed uint64) (coverage, aaVerdicts, aaExcludes1, promised, aaBias float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	rounds := VariantRounds(d.n, 6)
	if d.rounds > 0 {
		rounds = d.rounds
	}
	members := make([]string, d.n)
	for i := range members {
		members[i] = fmt.Sprint(i)
	}
	const trueRatio = 1.05
	var covered, calls, excl, total int
	logSum := make([]float64, d.n) // per contender, the A/A ratios' logs
	for k := range d.datasets {
		sched := VariantSchedule(d.n, rounds, uint64(k))
		vc := rundoc.VariantComparison{Key: "v", Reference: "0", Iterations: "own",
			Groups: []rundoc.VariantGroup{{Group: "BenchmarkX/v=*", Members: members, Schedule: sched}}}
		cfg := CompareConfig{Bootstrap: Bootstrap{Seed: uint64(k)}}
		ab := make([]float64, d.n)
		for v := 1; v < d.n; v++ {
			ab[v] = math.Log(trueRatio)
		}
		for _, aa := range []bool{false, true} {
			logTrue := ab
			if aa {
				logTrue = make([]float64, d.n)
			}
			cs, err := CompareVariants(d.rows(rng, sched, logTrue), vc, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for ci, c := range cs {
				r := c.Rows[0]
				if r.Low == nil {
					t.Fatalf("no interval: %+v", r)
				}
				if aa {
					logSum[ci] += math.Log(*r.Ratio)
					if r.Verdict == rundoc.VerdictFaster || r.Verdict == rundoc.VerdictSlower {
						calls++
					}
					if *r.Low > 1 || *r.High < 1 {
						excl++
					}
					continue
				}
				total++
				promised += *r.Confidence
				if *r.Low <= trueRatio && trueRatio <= *r.High {
					covered++
				}
			}
		}
	}
	for _, l := range logSum {
		aaBias = max(aaBias, math.Abs(math.Expm1(l/float64(d.datasets))))
	}
	n := float64(total)
	return float64(covered) / n, float64(calls) / n, float64(excl) / n, promised / n, aaBias
}

// variantDesigns are the calibration's synthetic --vs experiments, with
// the datasets the full calibration draws.
func variantDesigns() []variantDesign {
	var designs []variantDesign
	for _, n := range []int{2, 3, 4} {
		designs = append(designs,
			variantDesign{name: fmt.Sprintf("%d variants, drift between rounds", n), n: n, between: 0.01, drift: 0.05, datasets: 1500},
			variantDesign{name: fmt.Sprintf("%d variants, first of a round 3%% slower", n), n: n, between: 0.01, drift: 0.05, first: 0.03, datasets: 1500},
			variantDesign{name: fmt.Sprintf("%d variants, 1%% slower per place in a round", n), n: n, between: 0.01, drift: 0.05, slope: 0.01, datasets: 1500},
			variantDesign{name: fmt.Sprintf("%d variants, quiet", n), n: n, between: 0.002, drift: 0.02, datasets: 1500},
		)
	}
	// Many rounds narrow the interval until a bias of the median shows:
	// the schedule must order every two variants each way equally often.
	return append(designs,
		variantDesign{name: "3 variants, 30 rounds, 1% slower per place in a round", n: 3, between: 0.01, drift: 0.05, slope: 0.01, rounds: 30, datasets: 1000},
		variantDesign{name: "4 variants, 32 rounds, 1% slower per place in a round", n: 4, between: 0.01, drift: 0.05, slope: 0.01, rounds: 32, datasets: 1000},
	)
}

// TestTimingCompareVariantsCalibration checks CompareVariants' statistics
// on synthetic rounds with fixed seeds, as TestTimingCompareCalibration
// does --against's pairs: at 2, 3 and 4 variants in the default rounds,
// the intervals cover every contender's true ratio about as often as the
// confidence they report promises, and identical code is called faster or
// slower (at the default 2% threshold) under 5% of the time, also when the
// first process of a round, or every later one, runs slower. A Monte Carlo
// of some 5 s of CPU (17 s on a busy host), so in the timing suite
// (docs/repository.md); TestCompareVariantsCalibration is its small
// version.
func TestTimingCompareVariantsCalibration(t *testing.T) {
	timingtest.Require(t)
	for i, d := range variantDesigns() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			checkVariantCalibration(t, d, uint64(i)+1, 0.015, 0.002)
		})
	}
}

// TestCompareVariantsCalibration is TestTimingCompareVariantsCalibration on
// a fifth of the datasets, with the slack widened to three standard errors
// of a rate at 95% over the contenders' intervals, and the bound on the A/A
// bias by the square root of five, as its standard error grows. Its seeds
// are fixed, so it passes or fails the same way every time.
func TestCompareVariantsCalibration(t *testing.T) {
	for i, d := range variantDesigns() {
		d.datasets /= 5
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			intervals := float64(d.datasets * (d.n - 1))
			checkVariantCalibration(t, d, uint64(i)+1, 3*math.Sqrt(0.05*0.95/intervals), 0.002*math.Sqrt(5))
		})
	}
}

// checkVariantCalibration runs d with seed and fails t if its coverage or
// how often its A/A intervals exclude 1 is more than slack on the wrong
// side of the confidence reported, if identical code's mean ratio is off 1
// by more than maxBias, or if identical code is called faster or slower
// more than 5% of the time.
func checkVariantCalibration(t *testing.T, d variantDesign, seed uint64, slack, maxBias float64) {
	cov, calls, excl, promised, bias := variantStudy(t, d, seed)
	t.Logf("%s: coverage %.1f%% (reported %.1f%%), A/A verdicts %.1f%%, A/A intervals excluding 1 %.1f%%, A/A mean ratio off 1 by %.2f%% at most (%d datasets)",
		d.name, 100*cov, 100*promised, 100*calls, 100*excl, 100*bias, d.datasets)
	if cov < promised-slack {
		t.Errorf("coverage %.1f%% is more than %.1f points below the %.1f%% reported", 100*cov, 100*slack, 100*promised)
	}
	if excl > 1-promised+slack {
		t.Errorf("A/A intervals excluded 1 %.1f%% of the time, more than %.1f points above the %.1f%% promised", 100*excl, 100*slack, 100*(1-promised))
	}
	// Balanced orders leave the A/A ratio at 1 on average: a
	// position effect does not move it.
	if bias > maxBias {
		t.Errorf("identical code's ratio is off 1 by %.2f%% on average", 100*bias)
	}
	if calls > 0.05 {
		t.Errorf("identical code called faster or slower %.1f%% of the time", 100*calls)
	}
}
