// Package worker is the child side of benchsup: it is linked into a
// package's test binary, serves exactly one protocol Request per process, and
// owns the clock for what it measures.
//
// benchsup links it into an unmodified module by compiling one generated
// file per test package (through `go test -overlay`): the file registers the
// package's Test and Benchmark functions with RegisterTest and
// RegisterBenchmark and adds the entry point
//
//	func TestBenchsupWorker(t *testing.T) { worker.Serve(t) }
//
// The supervisor starts the binary as `BIN -test.run=^TestBenchsupWorker$`,
// so the user's TestMain (fixtures, setup) runs first, then Serve answers the
// Request and returns, so TestMain's teardown runs too.
//
// # How a benchmark is measured
//
// The worker drives the standard library's own benchmark runner,
// testing.RunBenchmarks, with -test.bench set to the identity's exact path
// (each element quoted and anchored, so "BenchmarkTable/n=10" matches that
// leaf only) and -test.benchtime=Nx, which runs exactly N iterations and
// honors ResetTimer, StopTimer, b.Loop, SetBytes, ReportAllocs and
// ReportMetric exactly as `go test -bench` does. Calibration doubles N from 1
// until one run takes at least the requested minimum; then the requested
// number of samples run at that N, each one RunBenchmarks call. A leaf
// whose parent fails before reaching it when it runs alone (the parent
// checks what an earlier sub-benchmark left) runs after the leaves testing
// runs before it instead, selected exactly too
// (docs/design.md#leaves-that-need-their-siblings).
//
// testing reports a run only as its printed result line, so the worker reads
// that line (captured from os.Stdout during the call) and multiplies the
// per-op values back into totals: a sample's elapsed time carries testing's
// printed resolution (ns/op to at least four significant digits) and its
// allocation totals are B/op and allocs/op (integers, as go test prints them)
// times N. MB/s and b.ReportMetric values travel as reported, per unit.
//
// A panic in a top-level benchmark or test function is reported as a
// Failure (with its stack) before the panic continues and ends the process;
// a panic in a sub-benchmark's goroutine is not recoverable here and ends
// the process, which the supervisor classifies from the exit status and the
// captured stderr.
//
// # What it deliberately does not do
//
// It never decides what to run next (the supervisor does), never retries
// a run that failed (a leaf its parent never reaches alone runs after its
// siblings, as under go test, and a failure there stands), never reseeds
// the code under test's random sources (Request.Seed is echoed for
// provenance), and imports nothing but the standard library and
// benchsup's protocol, sources, internal/hooks and internal/stats (which
// import only the standard library too): it is copied into the measured
// module, and anything else it imported would join that module's build
// list (docs/design.md#injection).
package worker
