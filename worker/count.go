package worker

import (
	"fmt"
	"testing"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// DefaultPerfIters caps the iterations a counting pass attributes its
// totals to when the request does not pin them.
const DefaultPerfIters = 100000

// openCounters is sources.Open; tests replace it with a fake source.
var openCounters = sources.Open

// countPasses measures the selected metrics after the timing pass, never
// during it: for each counter, the identity runs once at k and once at 2k
// iterations under it, and the difference of the two brackets divided by k
// is the per-iteration value. testing gives the worker no bracket around the
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
		k = min(timingN, DefaultPerfIters)
	}
	counters, absences := openCounters(cfg.Metrics, sources.Options{Scaled: cfg.PerfScaled})
	defer func() {
		for _, c := range counters {
			c.Close()
		}
	}()
	for _, a := range absences {
		for _, m := range a.Metrics {
			addAbsence(result, m, a.Reason)
		}
	}
	name := w.req.Identity.Name
	for i, c := range counters {
		if err := w.phase(protocol.PhaseCounting, int64(i), int64(len(counters))); err != nil {
			return err
		}
		var readings [2]sources.Reading
		var why string
		for j, n := range []int64{k, 2 * k} {
			if err := c.Start(); err != nil {
				why = fmt.Sprintf("cannot start %s: %v", c.Source(), err)
				break
			}
			out, err := w.runBenchmark(b, pattern, n, 1, nil)
			r, stopErr := c.Stop()
			if err != nil {
				return err
			}
			if stopErr != nil {
				why = fmt.Sprintf("cannot read %s: %v", c.Source(), stopErr)
				break
			}
			if len(out.results[name]) != 1 {
				why = "the counting run ended without a result (the benchmark failed or skipped there)"
				break
			}
			readings[j] = r
		}
		if why != "" {
			for _, m := range c.Metrics() {
				addAbsence(result, m, why)
			}
			continue
		}
		diff := sources.Derive(difference(readings[0], readings[1]))
		for _, m := range c.Metrics() {
			addCell(result, m, diff, k)
		}
	}
	result.CountIterations = k
	result.CountMethod = fmt.Sprintf("difference of runs at %d and %d iterations", k, 2*k)
	return nil
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
			addAbsence(r, m, fmt.Sprintf("the run at %d iterations counted less than the run at %d: noise exceeds the count", 2*k, k))
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
			Reason: protocol.TruncateText(orIfEmpty(why, "no reason given"), protocol.MaxTextLen),
		})
	}
}
