package rundoc

// Skip reasons of a package row for a package that runs nothing, worded
// as go test prints them.
const (
	NoTestFiles       = "no test files"
	NoTestsToRun      = "no tests to run"
	NoBenchmarksToRun = "no benchmarks to run"
)
