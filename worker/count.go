package worker

import (
	"cmp"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// DefaultPerfIters caps the iterations a counting pass attributes its
// totals to when the request does not pin them.
const DefaultPerfIters = 100000

// countRunTarget is how long, at least, a counting run at k iterations
// should take (within DefaultPerfIters): per-run costs that do not cancel
// exactly (a garbage collection more or less) must stay small against what
// k iterations count.
const countRunTarget = 20 * time.Millisecond

// openCounters is sources.Open; tests replace it with a fake source.
var openCounters = sources.Open

// countPasses measures the selected metrics after the timing pass, never
// during it: for each counter, the identity runs at k and at 2k iterations
// under it, three times, and the median difference of the two brackets
// divided by k is the per-iteration value. testing gives the worker no bracket around the
// loop body of an unmodified benchmark, so each bracket spans a whole
// testing.RunBenchmarks call; what both runs share (the parent function's
// setup, testing's run at N=1, its garbage collections) cancels in the
// difference. Each counter gets runs of its own, so one source's reads are
// never inside another's bracket.
func (w *session) countPasses(b testing.InternalBenchmark, pattern string, timingN int64, result *protocol.Result) error {
	cfg := w.req.Config
	if len(cfg.Metrics) == 0 {
		return nil
	}
	k := cfg.PerfIters
	if k <= 0 {
		k = countIterations(timingN, result.Samples)
	}
	counters := w.openSelected(result)
	defer closeAll(counters)
	name := w.req.Identity.Name
	// One unbracketed run first, so that first-touch costs (page faults on
	// a fresh heap, lazy initialization) fall on no bracket.
	if _, err := w.runBenchmark(b, pattern, k, 1, nil); err != nil {
		return err
	}
	for i, c := range counters {
		if err := w.phase(protocol.PhaseCounting, int64(i), int64(len(counters))); err != nil {
			return err
		}
		diffs := make([]sources.Reading, 0, countPairs)
		why := ""
	pairs:
		for p := 0; p < countPairs; p++ {
			var readings [2]sources.Reading
			for j, n := range []int64{k, 2 * k} {
				if err := c.Start(); err != nil {
					why = fmt.Sprintf("cannot start %s: %v", c.Source(), err)
					break pairs
				}
				out, err := w.runBenchmark(b, pattern, n, 1, nil)
				r, stopErr := c.Stop()
				if err != nil {
					return err
				}
				if stopErr != nil {
					why = fmt.Sprintf("cannot read %s: %v", c.Source(), stopErr)
					break pairs
				}
				if len(out.results[name]) != 1 {
					awaitPanic()
					why = "the counting run ended without a result (the benchmark failed or skipped there)"
					break pairs
				}
				readings[j] = r
			}
			diffs = append(diffs, sources.Derive(difference(readings[0], readings[1])))
		}
		if why != "" {
			for _, m := range c.Metrics() {
				addAbsence(result, m, why)
			}
			continue
		}
		diff := medianReading(diffs)
		for _, m := range c.Metrics() {
			addCell(result, m, diff, k)
		}
	}
	result.CountIterations = k
	result.CountMethod = fmt.Sprintf("median of %d differences of runs at %d and %d iterations", countPairs, k, 2*k)
	return nil
}

// countPairs is how many (k, 2k) pairs a counting pass runs per counter; the
// median of their differences resists one disturbed run.
const countPairs = 3

// medianReading combines readings metric by metric: the median value, an
// estimate if any input was, unavailable if any input was.
func medianReading(rs []sources.Reading) sources.Reading {
	out := sources.Reading{Values: map[string]float64{}, Estimated: map[string]bool{}, Unavailable: map[string]string{}}
	vals := map[string][]float64{}
	for _, r := range rs {
		for m, v := range r.Values {
			vals[m] = append(vals[m], v)
		}
		for m, e := range r.Estimated {
			out.Estimated[m] = out.Estimated[m] || e
		}
		for m, why := range r.Unavailable {
			out.Unavailable[m] = why
		}
	}
	for m, vs := range vals {
		if _, ok := out.Unavailable[m]; ok {
			continue
		}
		if len(vs) < len(rs) {
			out.Unavailable[m] = fmt.Sprintf("counted in %d of %d pairs", len(vs), len(rs))
			continue
		}
		sort.Float64s(vs)
		if n := len(vs); n%2 == 1 {
			out.Values[m] = vs[n/2]
		} else {
			out.Values[m] = (vs[n/2-1] + vs[n/2]) / 2
		}
	}
	return out
}

// openSelected opens the sources of the selected metrics and records, in
// result, every metric that cannot be counted here, with the reason.
func (w *session) openSelected(result *protocol.Result) []sources.Counter {
	cfg := w.req.Config
	counters, absences := openCounters(cfg.Metrics, sources.Options{Scaled: cfg.PerfScaled})
	for _, a := range absences {
		for _, m := range a.Metrics {
			addAbsence(result, m, a.Reason)
		}
	}
	return counters
}

func closeAll(counters []sources.Counter) {
	for _, c := range counters {
		c.Close()
	}
}

// countIterations is the default k: at least the timing pass's N, enough
// for a run of about countRunTarget at the measured speed, at most
// DefaultPerfIters.
func countIterations(timingN int64, samples []protocol.Sample) int64 {
	k := timingN
	perOp := make([]float64, 0, len(samples))
	for _, s := range samples {
		if s.Iterations > 0 {
			perOp = append(perOp, float64(s.ElapsedNs)/float64(s.Iterations))
		}
	}
	if len(perOp) > 0 {
		sort.Float64s(perOp)
		if med := perOp[len(perOp)/2]; med > 0 {
			k = max(k, int64(float64(countRunTarget)/med))
		}
	}
	return max(1, min(k, DefaultPerfIters))
}

// difference is the reading of what the second bracket counted beyond the
// first: totals subtract, levels keep the second bracket's value.
func difference(first, second sources.Reading) sources.Reading {
	out := sources.Reading{Values: map[string]float64{}, Estimated: map[string]bool{}, Unavailable: map[string]string{}}
	for m, v := range second.Values {
		if d, ok := sources.Describe(m); ok && d.Unit == "" {
			out.Values[m] = v
			continue
		}
		if v0, ok := first.Values[m]; ok {
			out.Values[m] = v - v0
		}
	}
	for _, r := range []sources.Reading{first, second} {
		for m, e := range r.Estimated {
			out.Estimated[m] = out.Estimated[m] || e
		}
		for m, why := range r.Unavailable {
			out.Unavailable[m] = why
			delete(out.Values, m)
		}
	}
	return out
}

// addCell adds metric m of the difference reading diff to r: divided by k
// for per-iteration metrics, as is for levels and ratios, or as an absence
// with its reason. A negative difference is noise larger than the count
// itself, not a measurement.
func addCell(r *protocol.Result, m string, diff sources.Reading, k int64) {
	if why, ok := diff.Unavailable[m]; ok {
		addAbsence(r, m, why)
		return
	}
	v, ok := diff.Values[m]
	if !ok {
		addAbsence(r, m, "the counter produced no value")
		return
	}
	if d, ok := sources.Describe(m); ok && d.Unit == "/op" {
		if v < 0 {
			addAbsence(r, m, fmt.Sprintf("runs at %d iterations counted less than runs at %d (median of %d pairs): the per-iteration count is below the noise", 2*k, k, countPairs))
			return
		}
		v /= float64(k)
	}
	if len(r.Metrics) < protocol.MaxMetricCells {
		r.Metrics = append(r.Metrics, protocol.MetricCell{Name: protocol.TruncateText(m, protocol.MaxNameLen), Value: v, Estimated: diff.Estimated[m]})
	}
}

func addAbsence(r *protocol.Result, m, why string) {
	if len(r.Absences) < protocol.MaxAbsences {
		r.Absences = append(r.Absences, protocol.Absence{
			Name:   protocol.TruncateText(m, protocol.MaxNameLen),
			Reason: protocol.TruncateText(cmp.Or(why, "no reason given"), protocol.MaxTextLen),
		})
	}
}
