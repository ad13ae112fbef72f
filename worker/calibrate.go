package worker

import (
	"errors"
	"fmt"
	"sort"

	"github.com/benchsup/benchsup/protocol"
)

// Calibration chooses, once per identity, the N every process of it then
// measures: one sample of N iterations should take about the target time
// (RequestConfig.MinSampleNs). It ramps up as testing does, to an eighth of
// the target, then runs that N twice more and scales the median time per
// iteration of the three runs to the target, so one disturbed run cannot
// set N for every process.

// maxIterations is testing's own cap on b.N.
const maxIterations = 1e9

// confirmRuns is how many runs at the final ramp N calibration takes the
// median of.
const confirmRuns = 3

// zeroTimeAfter is the iteration count from which a run that reports no
// elapsed time at all is taken to report none (ns/op replaced by 0 through
// b.ReportMetric, or missing) rather than to be fast: a thousand iterations
// of any code take more than a nanosecond.
const zeroTimeAfter = 1000

// errNoTime is the calibration failure of a benchmark that reports no time.
var errNoTime = errors.New("reports no elapsed time")

// rampGoal is the time a ramp run aims at: an eighth of the target, so
// that ramping and confirming cost about half a sample.
func rampGoal(targetNs int64) int64 { return max(targetNs/8, 1) }

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

// calibrate ramps and confirms with run, which measures one run of n
// iterations (nil with a nil error: the identity ended, a failure or skip
// was reported). It returns N and the runs it was chosen from.
func calibrate(targetNs int64, run func(n int64) (*protocol.Sample, error)) (int64, []protocol.Sample, error) {
	goal := rampGoal(targetNs)
	var runs []protocol.Sample
	n := int64(1)
	for {
		s, err := run(n)
		if s == nil || err != nil {
			return 0, runs, err
		}
		runs = append(runs, *s)
		if s.Iterations == 1 && s.ElapsedNs >= targetNs {
			return 1, runs, nil // one iteration fills a sample: N cannot be smaller
		}
		done, err := rampDone(goal, n, s.ElapsedNs)
		if err != nil {
			return 0, runs, err
		}
		if done {
			break
		}
		n = nextN(goal, n, s.ElapsedNs)
	}
	for i := 1; i < confirmRuns; i++ {
		s, err := run(n)
		if s == nil || err != nil {
			return 0, runs, err
		}
		runs = append(runs, *s)
	}
	N, err := chooseN(targetNs, runs[len(runs)-confirmRuns:])
	return N, runs, err
}
