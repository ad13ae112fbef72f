package worker

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/benchsup/benchsup/measure"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// bracketTarget is how long one counter bracket of an owned loop should
// span when --perf-batch does not pin it: long enough that the bracket's
// own cost (an ioctl pair, two /proc reads) is small against it.
const bracketTarget = time.Millisecond

// owned is the measurement of a benchmark whose loop the worker owns
// (measure.Iter, measure.Case).
type owned struct {
	result  protocol.Result
	elapsed []time.Duration // per sample, for rate metrics
	failure *protocol.Failure
}

// Loop implements measure.LoopRunner: for the identity this process
// measures, the worker runs the loop itself.
func (w *session) Loop(b *testing.B, timed func(), after func() error) bool {
	switch w.req.Mode {
	case protocol.ModeDiscover:
		return true // the identity exists; its loop need not run to list it
	case protocol.ModeBenchmark:
		if b.Name() != w.req.Identity.Name || w.owned != nil {
			return false
		}
		w.owned = w.ownLoop(timed, after)
		return true
	}
	return false
}

// Metric implements measure.LoopRunner.
func (w *session) Metric(b *testing.B, unit string, amount float64, mode measure.MetricMode) bool {
	o := w.owned
	if o == nil || b.Name() != w.req.Identity.Name || o.failure != nil {
		return w.req.Mode == protocol.ModeDiscover
	}
	for i := range o.result.Samples {
		s := &o.result.Samples[i]
		m := protocol.Metric{Unit: unit, Value: amount}
		if mode == measure.Rate {
			secs := o.elapsed[i].Seconds()
			if secs <= 0 {
				continue // no time measured: no rate, rather than an infinite one
			}
			m = protocol.Metric{Unit: unit + "/s", Value: amount * float64(s.Iterations) / secs}
		}
		if len(s.Extra) < protocol.MaxExtraPerSample {
			s.Extra = append(s.Extra, m)
		}
	}
	return true
}

// finishOwned sends what the owned loop measured.
func (w *session) finishOwned() error {
	if f := w.owned.failure; f != nil {
		return w.send(*f)
	}
	return w.send(w.owned.result)
}

// ownLoop calibrates, samples and counts timed itself: N doubles from 1
// until a sample takes the minimum time, then every sample runs N
// iterations, each timed with the monotonic clock around timed alone (after
// runs outside the clock). Allocations are the runtime's counters around the
// sample, as testing reads them.
func (w *session) ownLoop(timed func(), after func() error) (o *owned) {
	cfg := w.req.Config
	o = &owned{result: protocol.Result{Identity: w.req.Identity, Repetition: w.req.Repetition, Seed: w.req.Seed}}
	defer func() {
		if r := recover(); r != nil {
			o.failure = &protocol.Failure{Class: protocol.FailurePanic,
				Message: protocol.TruncateText(fmt.Sprint(r), protocol.MaxTextLen),
				Stack:   protocol.TruncateText(string(debug.Stack()), protocol.MaxTextLen)}
		}
	}()
	minSample, samples := w.sampling()
	sample := func(n int64) (protocol.Sample, time.Duration, error) {
		runtime.GC() // as testing does before each run: earlier garbage is not this sample's
		var before, after0 runtime.MemStats
		runtime.ReadMemStats(&before)
		var elapsed time.Duration
		if after == nil {
			t0 := time.Now()
			for i := int64(0); i < n; i++ {
				timed()
			}
			elapsed = time.Since(t0)
		} else {
			for i := int64(0); i < n; i++ {
				t0 := time.Now()
				timed()
				elapsed += time.Since(t0)
				if err := after(); err != nil {
					return protocol.Sample{}, 0, err
				}
			}
		}
		runtime.ReadMemStats(&after0)
		bytes, allocs := after0.TotalAlloc-before.TotalAlloc, after0.Mallocs-before.Mallocs
		return protocol.Sample{Iterations: n, ElapsedNs: int64(elapsed), AllocBytes: &bytes, Allocs: &allocs}, elapsed, nil
	}
	fail := func(err error) *owned {
		o.failure = &protocol.Failure{Class: protocol.FailureFatal, Message: protocol.TruncateText(err.Error(), protocol.MaxTextLen)}
		return o
	}
	n := cfg.Iterations
	if n <= 0 {
		_ = w.phase(protocol.PhaseCalibration, 0, 0)
		for n = 1; ; n *= 2 {
			_, el, err := sample(n)
			if err != nil {
				return fail(err)
			}
			if el >= minSample || n*2 > maxIterations {
				break
			}
		}
	}
	for i := 0; i < samples; i++ {
		_ = w.phase(protocol.PhaseTiming, int64(i), int64(samples))
		s, el, err := sample(n)
		if err != nil {
			return fail(err)
		}
		o.result.Samples = append(o.result.Samples, s)
		o.elapsed = append(o.elapsed, el)
	}
	if err := w.countOwned(timed, after, n, &o.result); err != nil {
		return fail(err)
	}
	return o
}

// countOwned counts the selected metrics over exactly k calls of timed, in
// brackets of batch calls each; after runs outside every bracket (and then
// every bracket holds one call, so that the hook's work is never counted).
func (w *session) countOwned(timed func(), after func() error, timingN int64, result *protocol.Result) error {
	cfg := w.req.Config
	if len(cfg.Metrics) == 0 {
		return nil
	}
	k := cfg.PerfIters
	if k <= 0 {
		k = countIterations(timingN, result.Samples)
	}
	batch := cfg.PerfBatch
	if batch <= 0 {
		batch = 1
		if ns := medianNsPerOp(result.Samples); ns > 0 {
			batch = max(1, int64(float64(bracketTarget)/ns))
		}
	}
	if after != nil {
		batch = 1
	}
	batch = min(batch, k)
	counters := w.openSelected(result)
	defer closeAll(counters)
	for i, c := range counters {
		if err := w.phase(protocol.PhaseCounting, int64(i), int64(len(counters))); err != nil {
			return err
		}
		var readings []sources.Reading
		why := ""
		for done := int64(0); done < k && why == ""; {
			m := min(batch, k-done)
			if err := c.Start(); err != nil {
				why = fmt.Sprintf("cannot start %s: %v", c.Source(), err)
				break
			}
			for j := int64(0); j < m; j++ {
				timed()
			}
			r, err := c.Stop()
			if err != nil {
				why = fmt.Sprintf("cannot read %s: %v", c.Source(), err)
				break
			}
			readings = append(readings, r)
			if after != nil {
				if err := after(); err != nil {
					return err
				}
			}
			done += m
		}
		if why != "" {
			for _, m := range c.Metrics() {
				addAbsence(result, m, why)
			}
			continue
		}
		total := sources.Sum(readings...)
		for _, m := range c.Metrics() {
			addCell(result, m, total, k)
		}
	}
	result.CountIterations = k
	result.CountMethod = fmt.Sprintf("bracketed: %d iterations in brackets of %d", k, batch)
	return nil
}

func medianNsPerOp(samples []protocol.Sample) float64 {
	var xs []float64
	for _, s := range samples {
		if s.Iterations > 0 {
			xs = append(xs, float64(s.ElapsedNs)/float64(s.Iterations))
		}
	}
	if len(xs) == 0 {
		return 0
	}
	st, _ := measure.Summarize(xs)
	return st.Median
}
