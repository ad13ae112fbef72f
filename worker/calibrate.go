package worker

import (
	"errors"
	"fmt"
	"sort"

	"github.com/benchsup/benchsup/protocol"
)

// Calibration chooses, once per identity, the N every process of it then
// measures: one sample of N iterations should take about the target time
// (RequestConfig.MinSampleNs). It ramps up as testing does, to a sixteenth
// of the target, then runs that N twice more and scales the median time per
// iteration of the three runs to the target, so one disturbed run cannot
// set N for every process.
//
// Some benchmarks pay a large cost once per run, whatever N: testing
// forces a garbage collection before every run, which empties sync.Pools,
// so a benchmark whose iterations reuse pooled buffers re-creates them in
// every run. Scaling the time per iteration of a short run then picks an N
// far too small (a 60 ms first call and 3 ms after it make N = 3 for a
// 200 ms sample), and a heap that grows back after the collection makes
// the first iterations slow too. So calibration checks N with whole-sample
// runs and, where a run's cost has a part that does not grow with N of
// more than a twentieth of the sample, lengthens the sample (from the
// default target, to go test's 1 s run, which amortizes it; see
// calibrateFull, withFixedCost).

// maxIterations is testing's own cap on b.N.
const maxIterations = 1e9

// confirmRuns is how many runs at the final ramp N calibration takes the
// median of.
const confirmRuns = 3

// maxSampleNs is the sample a large fixed cost per run lengthens to: go
// test's default run of 1 s carries the same fixed cost, so a sample of
// that length carries go test's own share of it.
const maxSampleNs = int64(1e9)

// zeroTimeAfter is the iteration count from which a run that reports no
// elapsed time at all is taken to report none (ns/op replaced by 0 through
// b.ReportMetric, or missing) rather than to be fast: a thousand iterations
// of any code take more than a nanosecond.
const zeroTimeAfter = 1000

// errNoTime is the calibration failure of a benchmark that reports no time.
var errNoTime = errors.New("reports no elapsed time")

// rampGoal is the time a ramp run aims at: a sixteenth of the target, so
// that ramping and confirming cost a quarter of a sample.
func rampGoal(targetNs int64) int64 { return max(targetNs/16, 1) }

// nextN predicts the iterations of the next ramp run from the last one, as
// testing's predictN does: aim 20% past the goal, grow by at least one
// iteration and at most 100-fold, never beyond maxIterations. A last run
// that took no time grows 100-fold.
func nextN(goalNs, lastN, lastNs int64) int64 {
	lastNs = max(lastNs, 1)
	n := goalNs * lastN / lastNs
	if goalNs > 0 && lastN > 0 && goalNs > (1<<62)/lastN { // goalNs*lastN overflowed
		n = maxIterations
	}
	n += n / 5
	n = min(n, 100*lastN)
	n = max(n, lastN+1)
	return min(n, maxIterations)
}

// rampDone reports whether a ramp run of n iterations that took ns ends the
// ramp, and fails for a benchmark that reports no time.
func rampDone(goalNs, n, ns int64) (bool, error) {
	if ns <= 0 && n >= zeroTimeAfter {
		return false, fmt.Errorf("%w for %d iterations (ns/op 0 or missing: replaced through b.ReportMetric?); nothing to scale by", errNoTime, n)
	}
	return ns >= goalNs || n >= maxIterations, nil
}

// fit is calibration's model of one run: fixed plus n times perIter
// nanoseconds.
type fit struct {
	fixedNs, perIterNs float64
}

// withFixedCost chooses N and the sample time for a benchmark whose runs
// carry a fixed cost of more than a twentieth of the target: the sample
// is five times the target (go test's run, maxSampleNs, from the default
// target) or twenty times the fixed part where that is longer, at most
// maxSampleNs, and N fills what the fit says remains of it (the target
// itself where the fixed part is a twentieth of it or less). Not a sample just long enough for the fitted fixed part to be a
// twentieth of it: what the fit calls fixed is often a warm-up spread
// over many iterations (pools refilling, the heap growing back, the
// garbage collector's pacing after testing's forced collection), which a
// fit through two runs underestimates. fastjson's canada/fastjson fitted
// 20 ms fixed and 6 ms per iteration through checks of 6 and 21
// iterations; samples of the 404 ms that fit asked for measured 4.3 ms
// per iteration, and go test's 1 s run, about 400 iterations, 2.5 ms.
// A sample as long as go test's run carries go test's share of it.
func withFixedCost(targetNs int64, f fit) (n, sampleNs int64) {
	sampleNs = targetNs
	if 20*f.fixedNs > float64(targetNs) {
		// Five times the asked sample, which from the default 200 ms is
		// go test's run, and at least twenty times the fixed part; at most
		// that run, never shorter than asked (--bench-min-time=1ms asks
		// for short samples and gets milliseconds, not a second).
		lengthened := max(5*float64(targetNs), 20*f.fixedNs)
		sampleNs = max(targetNs, min(int64(lengthened), maxSampleNs))
	}
	nf := (float64(sampleNs) - f.fixedNs) / f.perIterNs
	switch {
	case nf < 1:
		return 1, sampleNs
	case nf > maxIterations:
		return maxIterations, sampleNs
	}
	return int64(nf + 0.5), sampleNs
}

// chooseN returns the N for a sample of targetNs from runs of the same
// iteration count: the target divided by the median time per iteration,
// at least 1 and at most maxIterations.
func chooseN(targetNs int64, runs []protocol.Sample) (int64, error) {
	var perOp []float64
	for _, r := range runs {
		if r.Iterations > 0 {
			perOp = append(perOp, float64(r.ElapsedNs)/float64(r.Iterations))
		}
	}
	if len(perOp) == 0 {
		return 0, errors.New("no calibration run")
	}
	sort.Float64s(perOp)
	med := perOp[len(perOp)/2]
	if len(perOp)%2 == 0 {
		med = (perOp[len(perOp)/2-1] + med) / 2
	}
	if med <= 0 {
		return 0, fmt.Errorf("%w for %d iterations", errNoTime, runs[len(runs)-1].Iterations)
	}
	n := float64(targetNs) / med
	switch {
	case n < 1:
		return 1, nil
	case n > maxIterations:
		return maxIterations, nil
	}
	return int64(n + 0.5), nil
}

// calibration is calibrate's choice: N, the sample time it was chosen
// for (the target, or longer for a large fixed cost per run), and the runs
// it was chosen from.
type calibration struct {
	n        int64
	sampleNs int64
	runs     []protocol.Sample
	fixed    *fit // the fixed cost that lengthened the sample, if one did
}

// calibrate ramps and confirms with run, which measures one run of n
// iterations (nil with a nil error: the identity ended, a failure or skip
// was reported). It returns N and the runs it was chosen from.
func calibrate(targetNs int64, run func(n int64) (*protocol.Sample, error)) (int64, []protocol.Sample, error) {
	c, err := calibrateFull(targetNs, run)
	return c.n, c.runs, err
}

// calibrateFull is calibrate with the sample time and the fit.
//
// The ramp's runs are short, and the first iterations after testing's
// forced garbage collection can cost far more than later ones (the heap
// grows back, pools refill), so the N they predict is checked with runs of
// a whole sample, as go test's own ramp ends on a run of its full time:
// up to maxVerify runs, the first rescaled by the ratio, the next by the
// secant through the last two, until one lands within verifyTolerance of
// the target. The last two runs, long ones, then show any part of a run's
// cost that does not grow with N; when it is more than a twentieth of the
// sample, the sample is lengthened (withFixedCost) and N filled from the
// fit.
func calibrateFull(targetNs int64, run func(n int64) (*protocol.Sample, error)) (calibration, error) {
	c := calibration{sampleNs: targetNs}
	goal := rampGoal(targetNs)
	n := int64(1)
	for {
		s, err := run(n)
		if s == nil || err != nil {
			return c, err
		}
		c.runs = append(c.runs, *s)
		if len(c.runs) == 1 && s.Iterations == 1 && s.ElapsedNs >= targetNs {
			c.n = 1 // one iteration fills a sample: N cannot be smaller
			return c, nil
		}
		done, err := rampDone(goal, n, s.ElapsedNs)
		if err != nil {
			return c, err
		}
		if done {
			break
		}
		n = nextN(goal, n, s.ElapsedNs)
	}
	for i := 1; i < confirmRuns; i++ {
		s, err := run(n)
		if s == nil || err != nil {
			return c, err
		}
		c.runs = append(c.runs, *s)
	}
	var err error
	if c.n, err = chooseN(targetNs, c.runs[len(c.runs)-confirmRuns:]); err != nil {
		return c, err
	}
	ramp := c.runs[len(c.runs)-confirmRuns:] // the short runs N was scaled from
	var checked []protocol.Sample            // runs at a candidate N
	landed := false
	for i := 0; i < maxVerify && !landed; i++ {
		s, err := run(c.n)
		if s == nil || err != nil {
			return c, err
		}
		c.runs = append(c.runs, *s)
		checked = append(checked, *s)
		landed = within(s.ElapsedNs, targetNs, verifyTolerance) || c.n >= maxIterations
		if !landed && i < maxVerify-1 {
			c.n = nextCandidate(targetNs, checked)
		}
	}
	if !landed {
		// No check landed near the target: on a busy host the whole
		// samples were disturbed unevenly. An N no run checked could be
		// anything (a secant through two disturbed runs can point below
		// one iteration), so N is the target over the median time per
		// iteration of the checked runs, which one disturbed run cannot
		// move far.
		if c.n, err = chooseN(targetNs, checked); err != nil {
			return c, err
		}
	}
	if len(checked) >= 2 {
		if f, ok := fitTwo(checked[len(checked)-2], checked[len(checked)-1]); ok && f.explains(ramp) {
			if n, sampleNs := withFixedCost(targetNs, f); sampleNs > targetNs {
				c.n, c.sampleNs, c.fixed = n, sampleNs, &f
			}
		}
	}
	return c, nil
}

// maxVerify bounds the whole-sample runs that check N; verifyTolerance is
// how far from the target one may land and be accepted.
const (
	maxVerify       = 3
	verifyTolerance = 0.2
)

// within reports whether ns is within tol (a fraction) of target.
func within(ns, target int64, tol float64) bool {
	d := float64(ns - target)
	return d <= tol*float64(target) && -d <= tol*float64(target)
}

// nextCandidate is the next N to try for a sample of targetNs: the last
// run's N rescaled by its ratio to the target, or, with two runs of
// different N, the secant through them; at least 1, at most 100 times the
// last N, at most maxIterations.
func nextCandidate(targetNs int64, runs []protocol.Sample) int64 {
	last := runs[len(runs)-1]
	n := float64(last.Iterations) * float64(targetNs) / float64(max(last.ElapsedNs, 1))
	if len(runs) >= 2 {
		prev := runs[len(runs)-2]
		// The secant only where more iterations took more time: two runs
		// disturbed the other way round (the larger N faster) give a
		// slope of the wrong sign, which points anywhere.
		dn, dt := float64(last.Iterations-prev.Iterations), float64(last.ElapsedNs-prev.ElapsedNs)
		if secant := float64(last.Iterations) + (float64(targetNs)-float64(last.ElapsedNs))*dn/dt; dn*dt > 0 && secant >= 1 {
			n = secant
		}
	}
	n = min(n, 100*float64(last.Iterations), maxIterations)
	return max(int64(n+0.5), 1)
}

// explains reports whether the ramp's short runs pay f's fixed part too:
// the median of how far they fall short of f's prediction is within a
// quarter. A real fixed cost is paid by every run, short ones included,
// while one stalled or preempted long run (a busy host) makes a fit whose
// fixed part the short runs never show. Only falling short counts, and
// only at the median, because a real fixed cost varies from run to run
// and mostly upward: fastjson's canada parser pool took 45 to 148 ms to
// re-create in runs of one iteration of one process, a fit through two
// whole-sample checks put it at 31 to 81 ms, and short runs that paid more
// than the fit, or one that paid less, must not veto it.
func (f fit) explains(short []protocol.Sample) bool {
	if len(short) == 0 {
		return false
	}
	shortfalls := make([]float64, len(short))
	for i, s := range short {
		predicted := f.fixedNs + f.perIterNs*float64(s.Iterations)
		shortfalls[i] = max(predicted-float64(s.ElapsedNs), 0) / predicted
	}
	sort.Float64s(shortfalls)
	return shortfalls[(len(shortfalls)-1)/2] <= 0.25
}

// fitTwo fits time = fixed + N·per-iteration through two runs of
// different N: the fixed part, when it is a quarter of the shorter run or
// more, else none. The runs' Ns must differ by half or more: two runs of
// nearly the same N make any noise look like a fixed part (the
// verification that lands a run within 20% of the target often ends on
// such a pair).
func fitTwo(a, b protocol.Sample) (fit, bool) {
	if a.Iterations > b.Iterations {
		a, b = b, a
	}
	dn := float64(b.Iterations - a.Iterations)
	if dn <= 0 || 2*b.Iterations < 3*a.Iterations {
		return fit{}, false
	}
	perIter := float64(b.ElapsedNs-a.ElapsedNs) / dn
	fixed := float64(a.ElapsedNs) - perIter*float64(a.Iterations)
	if perIter <= 0 || fixed < float64(a.ElapsedNs)/4 {
		return fit{}, false
	}
	return fit{fixedNs: fixed, perIterNs: perIter}, true
}
