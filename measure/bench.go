package measure

import (
	"strings"
	"testing"
)

// Iter measures f as the benchmark: everything else in the benchmark
// function is setup. Under plain `go test -bench` it is exactly
//
//	b.ResetTimer()
//	for i := 0; i < b.N; i++ { f() }
//
// Under benchsup the worker owns the loop: it calibrates, samples and counts
// f itself, so counters bracket exactly f (in batches of about a
// millisecond; --perf-batch pins the batch) instead of a whole testing run.
func Iter(b *testing.B, f func()) {
	b.Helper()
	loop(b, f, nil)
}

// Case runs one case of a matrix benchmark as the sub-benchmark
// name/key=value/... (labels in the order given, as benchstat reads them).
// Each iteration calls timed, then after with timed's result to verify or
// release it; an error from after fails this case alone, which becomes one
// error row while the other cases measure. Under benchsup after is untimed
// and outside every counter bracket. Under plain `go test -bench` it is an
// ordinary sub-benchmark and after is timed with the call: stopping
// testing's timer around every call reads the runtime's memory statistics
// each time, which costs more than most calls and lets b.N grow without
// bound.
func Case[T any](b *testing.B, name string, labels []Label, timed func() T, after func(T) error) {
	b.Helper()
	full := name
	for _, l := range labels {
		full += "/" + l.Key + "=" + l.Value
	}
	b.Run(strings.TrimPrefix(full, "/"), func(b *testing.B) {
		var last T
		check := func() error { return nil }
		if after != nil {
			check = func() error { return after(last) }
		}
		loop(b, func() { last = timed() }, check)
	})
}

// Label is one key=value dimension of a Case.
type Label struct{ Key, Value string }

// loop is Iter with an optional untimed hook after each call.
func loop(b *testing.B, timed func(), after func() error) {
	if r := currentRunner(); r != nil {
		if lr, ok := r.(LoopRunner); ok && lr.Loop(b, timed, after) {
			return
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		timed()
		if after != nil {
			if err := after(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// MetricMode says how a client metric relates to time.
type MetricMode int

const (
	// Level reports the amount per iteration as is, in unit.
	Level MetricMode = iota
	// Rate reports the amount per iteration divided by the time per
	// iteration, in unit/s.
	Rate
)

// ReportMetric reports a client metric of the benchmark: amount per
// iteration in unit (Level), or as a rate in unit/s (Rate). Call it after
// the measured loop (Iter). Under plain `go test -bench` it goes through
// b.ReportMetric; under benchsup every sample gets its own value.
func ReportMetric(b *testing.B, unit string, amount float64, mode MetricMode) {
	b.Helper()
	if r := currentRunner(); r != nil {
		if lr, ok := r.(LoopRunner); ok && lr.Metric(b, unit, amount, mode) {
			return
		}
	}
	if mode == Rate {
		if s := b.Elapsed().Seconds(); s > 0 && b.N > 0 {
			b.ReportMetric(amount*float64(b.N)/s, unit+"/s")
		}
		return
	}
	b.ReportMetric(amount, unit)
}

// BlackBox returns x through a call the compiler cannot see through, so a
// measured result is not optimized away and a constant input is not folded
// into the code under measurement.
//
//go:noinline
func BlackBox[T any](x T) T {
	return x
}

// LoopRunner is the part of a Runner that owns benchmark loops. benchsup's
// worker implements it; user code never does.
type LoopRunner interface {
	// Loop measures timed (with after untimed after each call) for the
	// benchmark b; false means run it as plain testing would.
	Loop(b *testing.B, timed func(), after func() error) bool
	// Metric records a client metric for b's measurement; false means
	// report it through testing.
	Metric(b *testing.B, unit string, amount float64, mode MetricMode) bool
}
