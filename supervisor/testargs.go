package supervisor

import "strings"

// reservedTestFlags are the testing flags benchsup sets in its children,
// on the command line (childConfig, run, testChild) or through the worker
// for each of its calls (worker: tests.go, bench.go, fuzz.go): one given
// again after -args would override benchsup's (the flag package keeps the
// last), so it is refused, with the benchsup flag that sets it where there
// is one.
var reservedTestFlags = map[string]string{
	"test.run":          "is set by benchsup (the worker's own test): select tests with -run",
	"test.skip":         "is set by the worker for its own calls: use -skip",
	"test.bench":        "is set by the worker for each benchmark: select benchmarks with -bench",
	"test.benchtime":    "is set by the worker (the calibrated N): use -benchtime",
	"test.benchmem":     "is set by the worker: allocations are always measured",
	"test.count":        "is set by benchsup: use -count",
	"test.v":            "is set by the worker (its framed output): use -v",
	"test.timeout":      "is set by benchsup (the sandbox bounds each child): use -timeout",
	"test.short":        "is set by benchsup: use -short",
	"test.parallel":     "is set by benchsup: use -parallel",
	"test.paniconexit0": "is set by benchsup",
	"test.testlogfile":  "is set by benchsup (its record of what each test reads)",
	"test.gocoverdir":   "is set by benchsup (each child's coverage counters): use -cover or -coverprofile",
	"test.coverprofile": "is the first child's only: use -coverprofile, which merges every child's",
	"test.list":         "is set by the worker: use benchsup list",
	"test.fuzz":         "is set by the worker: benchsup runs the seed corpus as tests",
	"test.shuffle":      "is set by the worker: tests run in source order",
	"test.cpuprofile":   "is set by the worker: profile with go test",
	"test.memprofile":   "is set by the worker: profile with go test",
	"test.blockprofile": "is set by the worker: profile with go test",
	"test.mutexprofile": "is set by the worker: profile with go test",
	"test.trace":        "is set by the worker: trace with go test",
	"test.artifacts":    "is set by the worker",
	"test.cpu":          "sets testing's GOMAXPROCS list, which benchsup reads once: use -cpu",
}

// ReservedTestFlag returns, for one argument of go test's -args, the name
// of the testing flag benchsup sets that it would override and why, or ""
// when the argument is the code under test's own.
func ReservedTestFlag(arg string) (name, reason string) {
	if len(arg) < 2 || arg[0] != '-' || arg == "--" {
		return "", ""
	}
	name, _, _ = strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
	if reason, ok := reservedTestFlags[name]; ok && reason != "" {
		return name, reason
	}
	return "", ""
}

// checkTestArgs returns the first argument of args that ReservedTestFlag
// refuses. The flag package reads flags up to "--" or the first argument
// that is neither a flag nor a flag's value; which arguments are values is
// the code under test's to say, so every argument before "--" is checked.
func checkTestArgs(args []string) (arg, name, reason string) {
	for _, a := range args {
		if a == "--" {
			return "", "", ""
		}
		if name, reason := ReservedTestFlag(a); name != "" {
			return a, name, reason
		}
	}
	return "", "", ""
}
