package analysis

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/internal/timingtest"
	"github.com/benchsup/benchsup/rundoc"
)

// synthetic returns points of model m over values, with coefficient c and
// multiplicative lognormal noise of sigma (in natural-log units) drawn
// from rng.
func synthetic(m rundoc.Model, c float64, values []int64, sigma float64, rng *rand.Rand) []rundoc.SweepPoint {
	var g func(float64) float64
	for _, sm := range sweepModels {
		if sm.model == m {
			g = sm.logG
		}
	}
	pts := make([]rundoc.SweepPoint, len(values))
	for i, v := range values {
		x := math.Log(float64(v))
		noise := 0.0
		if rng != nil {
			noise = sigma * rng.NormFloat64()
		}
		pts[i] = rundoc.SweepPoint{Value: float64(v), ValueExact: big.NewInt(v).String(),
			Name: fmt.Sprintf("BenchmarkX/n=%d", v), MedianNs: c * math.Exp(g(x)+noise)}
	}
	return pts
}

func geometric(start, factor int64, n int) []int64 {
	out := make([]int64, n)
	v := start
	for i := range out {
		out[i] = v
		v *= factor
	}
	return out
}

// calibrationLayouts are the value sets of the calibration: the shapes
// sweeps take in Go code (powers of two, of four, of ten, the demo's KiB
// steps, a narrow one).
var calibrationLayouts = []struct {
	name   string
	values []int64
}{
	{"4 points ×2 (1..8)", geometric(1, 2, 4)},
	{"6 points ×2 (1..32)", geometric(1, 2, 6)},
	{"11 points ×2 (1..1Ki)", geometric(1, 2, 11)},
	{"5 points ×4 (16..4Ki)", geometric(16, 4, 5)},
	{"4 points ×4 (1Ki..64Ki)", geometric(1024, 4, 4)},
	{"4 points ×10 (10..10K)", geometric(10, 10, 4)},
	{"7 points ×10 (1..1M)", geometric(1, 10, 7)},
	{narrowLayout, []int64{100, 126, 159, 200}},
}

const narrowLayout = "4 points 100..200 (narrow)"

// TestTimingSweepCalibration measures, on synthetic sweeps of every model
// under this host's between-process noise, how often a sweep called fitted
// selects a wrong model (the false-selection rate the ambiguity rule
// bounds), how often a right model is called a poor fit, and how often
// each true model is recovered. The seeds are fixed: the numbers are
// those docs/design.md#sweeps quotes. A Monte Carlo, so in the timing
// suite (docs/repository.md); TestSweepCalibration is its small version.
func TestTimingSweepCalibration(t *testing.T) {
	timingtest.Require(t)
	sweepCalibration(t, 300)
}

// TestSweepCalibration is TestTimingSweepCalibration on a fifth of the
// sweeps (its bounds hold there too, with the same fixed seeds).
func TestSweepCalibration(t *testing.T) { sweepCalibration(t, 60) }

// sweepCalibration fits reps synthetic sweeps of every model, layout and
// noise, and fails t where the rates pass their bounds.
func sweepCalibration(t *testing.T, reps int) {
	sigmas := []float64{0.02, 0.05, 0.10, 0.15}
	type tally struct{ total, fitted, wrong, right, poor, ambiguous int }
	bySigma := map[float64]*tally{}
	byModel := map[rundoc.Model]*tally{}
	byLayout := map[string]*tally{}
	all := &tally{}
	seed := uint64(0)
	for _, l := range calibrationLayouts {
		layout, values := l.name, l.values
		byLayout[layout] = &tally{}
		for _, sigma := range sigmas {
			if bySigma[sigma] == nil {
				bySigma[sigma] = &tally{}
			}
			for _, m := range rundoc.AllModels {
				if byModel[m] == nil {
					byModel[m] = &tally{}
				}
				seed++
				rng := rand.New(rand.NewPCG(seed, 23))
				for range reps {
					c := math.Exp(rng.Float64()*10 - 3)
					sw := FitSweep(synthetic(m, c, values, sigma, rng))
					for _, tl := range []*tally{all, bySigma[sigma], byModel[m], byLayout[layout]} {
						tl.total++
						switch sw.Status {
						case rundoc.SweepFitted:
							tl.fitted++
							if *sw.Selected == m {
								tl.right++
							} else {
								tl.wrong++
							}
						case rundoc.SweepPoorFit:
							tl.poor++
						case rundoc.SweepAmbiguous:
							tl.ambiguous++
						default:
							t.Fatalf("%s σ=%v %s: %s (%s)", layout, sigma, m, sw.Status, sw.Reason)
						}
					}
				}
			}
		}
	}
	rate := func(a, b int) float64 { return 100 * float64(a) / math.Max(float64(b), 1) }
	report := func(name string, tl *tally) string {
		return fmt.Sprintf("%-28s sweeps %6d  fitted %5.1f%%  wrong among fitted %5.2f%%  recovered %5.1f%%  ambiguous %5.1f%%  poor-fit %5.2f%%",
			name, tl.total, rate(tl.fitted, tl.total), rate(tl.wrong, tl.fitted), rate(tl.right, tl.total), rate(tl.ambiguous, tl.total), rate(tl.poor, tl.total))
	}
	var lines []string
	lines = append(lines, report("all", all))
	for _, s := range sigmas {
		lines = append(lines, report(fmt.Sprintf("σ=%.0f%%", s*100), bySigma[s]))
	}
	for _, m := range rundoc.AllModels {
		lines = append(lines, report("true "+string(m), byModel[m]))
	}
	for _, l := range calibrationLayouts {
		lines = append(lines, report(l.name, byLayout[l.name]))
	}
	t.Log("\n" + strings.Join(lines, "\n"))

	if r := rate(all.wrong, all.fitted); r > 1 {
		t.Errorf("false selections %.2f%% of fitted sweeps, want at most 1%%", r)
	}
	for _, s := range sigmas {
		if r := rate(bySigma[s].wrong, bySigma[s].fitted); r > 2 {
			t.Errorf("σ=%v: false selections %.2f%% of fitted sweeps, want at most 2%%", s, r)
		}
	}
	if r := rate(all.poor, all.total); r > 1 {
		t.Errorf("%.2f%% of sweeps of a true model called poor fits, want at most 1%%", r)
	}
	if r := rate(bySigma[0.02].right, bySigma[0.02].total); r < 70 {
		t.Errorf("at 2%% noise only %.1f%% recovered: the rule refuses what the data can tell", r)
	}
	if r := rate(byLayout[narrowLayout].wrong, byLayout[narrowLayout].fitted); r > 2 {
		t.Errorf("narrow range: %.2f%% wrong among fitted", r)
	}
}

// TestSweepMisspecified: a fixed cost plus a linear term, both weighing
// over the range, is none of the six models; it must not be called a fit
// (it is a poor fit: a trend or residuals the best model leaves over).
func TestSweepMisspecified(t *testing.T) {
	for _, fixed := range []float64{10, 100} {
		t.Run(fmt.Sprintf("fixed=%v", fixed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(fixed), 5))
			fitted := map[rundoc.Model]int{}
			const reps = 500
			for range reps {
				pts := synthetic(rundoc.ModelLinear, 1, geometric(1, 2, 11), 0.05, rng)
				for i := range pts {
					pts[i].MedianNs += fixed * math.Exp(0.05*rng.NormFloat64())
				}
				if sw := FitSweep(pts); sw.Status == rundoc.SweepFitted {
					fitted[*sw.Selected]++
				}
			}
			n := 0
			for _, c := range fitted {
				n += c
			}
			if n > reps/100 {
				t.Errorf("fixed cost %v + n: %d of %d fitted (%v), want at most 1%%", fixed, n, reps, fitted)
			}
		})
	}
}
