// Package hooks connects the benchmark author's API (package measure) to
// benchsup's worker: measure calls into whatever Runner is installed, and
// the worker installs one in the child processes it starts. With none
// installed (plain `go test`), measure runs everything itself as ordinary
// test code.
//
// # Contract
//
// Install is called by the worker only, before it runs any test or
// benchmark function and never while one runs; Current is read by measure
// on the goroutine of the test or benchmark that calls it. A Runner may
// also implement LoopRunner to own the loops of measure.Iter and
// measure.Case. Every method is called on the goroutine of the benchmark it
// concerns. A Runner answers "not mine" (nil, false) rather than failing:
// measure then behaves as under plain testing.
//
// The types here mirror measure's own in plain terms (a regime is its
// string, a metric's mode is whether it is a rate), so this package imports
// nothing of benchsup and both measure and worker can import it.
//
// # Why it is internal
//
// These are the worker's hooks, not something a benchmark author calls or
// implements: exported from measure they would be part of the author API
// and its compatibility promise. Under internal/ only benchsup's own
// packages can reach them. The package is part of the worker's closure:
// the supervisor copies it with the worker into the measured module (see
// docs/design.md#injection), so it imports only the standard library and
// compiles at Go 1.22.
package hooks

import "testing"

// Runner measures workloads. benchsup's worker implements it.
type Runner interface {
	// StartWorkload begins measuring the workload tb runs, which repeats
	// its measured work reps times inside one window. It returns the
	// session, or nil and run == false when the body must not run at all
	// (discovery), or nil and run == true to run it unmeasured.
	StartWorkload(tb testing.TB, reps int) (s WorkloadSession, run bool)
}

// WorkloadSession is one workload under measurement (measure.W's
// counterpart in the worker).
type WorkloadSession interface {
	// Rep is called before each repetition of the whole body.
	Rep(i int)
	// Window measures f (reps times) as the window name; see
	// measure.W.Window.
	Window(name string, f func())
	// Files prepares paths in the page-cache regime ("cold", "warm",
	// "steady": measure.Regime's values) for the next window; see
	// measure.W.Files.
	Files(regime string, paths []string)
	// End closes the measurement (the whole-body window when the body
	// opened none).
	End()
}

// LoopRunner is the part of a Runner that owns benchmark loops.
type LoopRunner interface {
	// Loop measures body for the benchmark b; false means run it as
	// plain testing would.
	Loop(b *testing.B, body LoopBody) bool
	// Metric records a client metric for b's measurement: amount per
	// iteration in unit, or, when rate is set, amount per iteration
	// divided by the time per iteration, in unit/s (measure.Rate). False
	// means report it through testing.
	Metric(b *testing.B, unit string, amount float64, rate bool) bool
}

// LoopBody is a benchmark loop the worker may run itself (measure.Iter's,
// measure.Case's): the measured calls, and the untimed hook over their
// results. The worker calls Reserve(n) before Timed(n), outside its clock
// and its allocation count, and After after Timed, outside both too.
type LoopBody interface {
	// Timed calls the measured function n times, keeping each result for
	// After when there is a hook.
	Timed(n int)
	// After calls the untimed hook on each result of the last Timed call,
	// in order, and releases them; the first error stops it (the rest are
	// released unchecked). Without a hook it does nothing.
	After() error
	// HasAfter reports whether there is an untimed hook.
	HasAfter() bool
	// Reserve makes room for the results of n calls, so that Timed(n)
	// allocates nothing of its own, and returns the bytes that room takes.
	Reserve(n int) int
}

var runner Runner

// Install makes r the Runner of this process; nil removes it. benchsup's
// worker calls it in the processes it starts; nothing else should.
func Install(r Runner) { runner = r }

// Current returns the installed Runner, or nil under plain testing.
func Current() Runner { return runner }

// CurrentLoopRunner returns the installed Runner as a LoopRunner, or nil
// when none is installed or it owns no loops.
func CurrentLoopRunner() LoopRunner {
	lr, _ := runner.(LoopRunner)
	return lr
}
