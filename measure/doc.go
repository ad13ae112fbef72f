// Package measure is the API Go users write benchsup-aware benchmarks and
// workloads with. Everything it exports is for benchmark authors.
//
// Workload measures code that runs once (a build, a load, a burst of I/O)
// as windows: W.Window measures a closure, W.Files prepares a page-cache
// Regime (Cold, Warm, Steady) for the next window, and Reps repeats the
// measured work inside one window. Iter, Case, ReportMetric and BlackBox
// write ordinary benchmarks whose loop benchsup owns.
//
// # Under plain go test
//
// All of it behaves as ordinary test code, so a benchmark written with it
// runs under `go test -bench` as its hand-written equivalent would: Iter is
// a b.N loop after b.ResetTimer, Case is a sub-benchmark, ReportMetric goes through
// b.ReportMetric, a workload's body runs as its test or benchmark would, no
// file is touched and nothing is measured beyond what testing measures.
//
// # Under benchsup
//
// benchsup's worker, linked into the test binary, takes over what this
// package hands it: it calibrates, samples and counts the loops of Iter and
// Case itself, gives every sample its own ReportMetric value, and measures a
// workload's windows on the workload's goroutine locked to one OS thread,
// reading that thread's own accounting: on-CPU user and kernel time
// (getrusage RUSAGE_THREAD) and run-queue wait (/proc/thread-self/schedstat)
// are then times of one thread over one wall interval, which is the only
// scope in which wall = user + kernel + run-queue + disk + other is
// arithmetically meaningful for Go, whose goroutines otherwise move between
// threads. CPU burned by other threads of the process during the window is
// disclosed beside the decomposition, from the process-wide reading; it is
// never folded in.
//
// # What it deliberately does not do
//
// It measures nothing itself: it starts no process, reads no counter,
// computes no statistics and writes no output. Under benchsup the worker
// measures and the supervisor summarizes (the process is the unit: samples
// of different processes are never pooled; see docs/design.md, section
// Statistics). It exports no hook for the worker and no statistics type:
// those are benchsup's internals (internal/hooks, internal/stats), outside
// any compatibility promise. It, and everything it imports, uses only the
// standard library.
package measure
