package measure

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/benchsup/benchsup/internal/hooks"
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
	loop(b, iterLoop{f}, f, nil)
}

// Case runs one case of a matrix benchmark as the sub-benchmark
// name/key=value/... (labels in the order given, as benchstat reads them).
// Each iteration calls timed, then after with timed's result to verify or
// release it; an error from after fails this case alone, which becomes one
// error row while the other cases measure.
//
// Under benchsup after is untimed, its allocations are not counted, and it
// runs outside every counter bracket: the worker calls timed for a chunk of
// iterations with the clock running, keeping each result, then stops the
// clock and calls after on each result in order. A chunk is long enough
// that reading the clock and the allocation counters around it costs under
// 1% of it, and short enough that the results it keeps stay small (about a
// MiB).
//
// Under plain `go test -bench` it is an ordinary sub-benchmark and after is
// timed with the call: stopping testing's timer around every call reads the
// runtime's memory statistics each time, which costs more than most calls
// and lets b.N grow without bound.
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
		loop(b, &caseLoop[T]{timed: timed, after: after}, func() { last = timed() }, check)
	})
}

// Label is one key=value dimension of a Case.
type Label struct{ Key, Value string }

// loop runs body under the installed loop runner (the worker), or else as
// plain testing would: timed then the optional untimed hook after, b.N
// times.
func loop(b *testing.B, body hooks.LoopBody, timed func(), after func() error) {
	if lr := hooks.CurrentLoopRunner(); lr != nil && lr.Loop(b, body) {
		return
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

// iterLoop is Iter's body (a hooks.LoopBody): calls with no result and no
// hook.
type iterLoop struct{ f func() }

func (l iterLoop) Timed(n int) {
	for i := 0; i < n; i++ {
		l.f()
	}
}
func (iterLoop) After() error    { return nil }
func (iterLoop) HasAfter() bool  { return false }
func (iterLoop) Reserve(int) int { return 0 }

// caseLoop is Case's body (a hooks.LoopBody): each result is kept in buf
// for after.
type caseLoop[T any] struct {
	timed func() T
	after func(T) error
	buf   []T
	last  T // without a hook, the last result (as the plain loop keeps it)
}

func (l *caseLoop[T]) Timed(n int) {
	if l.after == nil {
		for i := 0; i < n; i++ {
			l.last = l.timed()
		}
		return
	}
	if cap(l.buf) < n {
		l.buf = make([]T, n)
	}
	l.buf = l.buf[:n]
	for i := range l.buf {
		l.buf[i] = l.timed()
	}
}

func (l *caseLoop[T]) After() error {
	var zero T
	var err error
	for i := range l.buf {
		if err == nil {
			err = l.after(l.buf[i])
		}
		l.buf[i] = zero // released: the garbage collector may take it
	}
	l.buf = l.buf[:0]
	return err
}

func (l *caseLoop[T]) HasAfter() bool { return l.after != nil }

func (l *caseLoop[T]) Reserve(n int) int {
	if l.after == nil {
		return 0
	}
	if cap(l.buf) < n {
		l.buf = make([]T, 0, n)
	}
	var zero T
	return n * int(unsafe.Sizeof(zero))
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
	if lr := hooks.CurrentLoopRunner(); lr != nil && lr.Metric(b, unit, amount, mode == Rate) {
		return
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
