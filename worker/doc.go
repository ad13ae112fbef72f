// Package worker is the child side of benchsup: it is linked into a
// package's test binary, serves exactly one protocol Request per process, and
// owns the clock for what it measures.
//
// benchsup links it into an unmodified module by compiling one generated
// file per test package (through `go test -overlay`): the file registers the
// package's Test, Benchmark, Fuzz and Example functions (RegisterTest,
// RegisterBenchmark, RegisterFuzz, RegisterExample; for a package with
// fuzz targets also the testing.MainStart call they run under,
// RegisterFuzzMain, generated per toolchain) and adds the entry point
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
// ReportMetric exactly as `go test -bench` does. Calibration (calibrate.go)
// ramps N up as testing's predictN does, to a sixteenth of the requested
// sample time, scales the median of three runs at that N to the target, and
// checks N with whole-sample runs; a run's cost that does not grow with N
// (a fit of fixed + N·per-iteration) lengthens the sample towards go test's
// 1 s run. The requested number of samples then run at that N, each one
// RunBenchmarks call. A leaf
// whose parent fails before reaching it when it runs alone (the parent
// checks what an earlier sub-benchmark left) runs after the leaves testing
// runs before it instead, selected exactly too
// (docs/design.md#leaves-that-need-their-siblings).
//
// A sample's totals are read from the *testing.B itself where testing
// keeps them exact (exact.go: b.N, b.Elapsed(), and, through reflection,
// the allocation totals and b.ReportMetric values). Only when this
// toolchain's B does not hold them as expected (its fields are not API) are
// they rebuilt from the printed result line (captured from os.Stdout during
// the call), per-op values times N: the elapsed time then carries
// testing's printed resolution (ns/op to at least four significant
// digits) and the allocation totals are B/op and allocs/op (integers) times
// N. MB/s and b.ReportMetric values travel as reported, per unit.
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
