// Package measure holds benchsup's measurement models and their statistics,
// and the API Go users write benchsup-aware benchmarks and workloads with.
//
// # Models and statistics
//
// Samples are stored as raw totals; per-process summaries give the median,
// median absolute deviation, min and max of ns/op; the across-process
// summary (Combine) treats each fresh process as one unit of variance; a
// window's wall time is split by Decompose. Every such function is pure: it
// takes numbers and returns numbers, so it is tested with fixed inputs, and
// rates are derived in methods that guard a zero iteration count and say
// "not available" instead of returning 0.
//
// # The user-facing API
//
// Workload measures code that runs once (a build, a load, a burst of I/O)
// as windows: W.Window measures a closure, W.Files prepares a page-cache
// regime for the next window. Iter, Case, ReportMetric and BlackBox write
// ordinary benchmarks whose loop benchsup owns. Under plain `go test` all of
// it behaves as ordinary test code: a workload's body runs as its test or
// benchmark would, no file is touched, nothing is measured.
//
// Under benchsup, the worker measures a window on the workload's goroutine
// locked to one OS thread, and reads that thread's own accounting: on-CPU
// user and kernel time (getrusage RUSAGE_THREAD) and run-queue wait
// (/proc/thread-self/schedstat) are then times of one thread over one wall
// interval, which is the only scope in which wall = user + kernel +
// run-queue + disk + other is arithmetically meaningful for Go, whose
// goroutines otherwise move between threads. CPU burned by other threads of
// the process during the window is disclosed beside the decomposition, from
// the process-wide reading; it is never folded in.
//
// # What it deliberately does not do
//
// It runs no child process, reads no counter itself, and never pools
// samples of different processes into one stream (rule 5 of DESIGN.md): the
// across-process summary is computed from per-process medians only.
package measure
