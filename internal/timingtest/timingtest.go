// Package timingtest marks the tests of benchsup's timing suite: the tests
// whose verdict depends on elapsed time or on a quiet host (statistical
// comparisons that must call a difference, A/A runs, sweeps, the
// interference watch, the quiescence preflight, the precision of
// deadlines, Monte Carlo calibration of the statistics). `go test ./...`
// skips them, so that it checks behaviour only and passes on a busy or
// cold machine; the timing suite runs them when asked:
//
//	BENCHSUP_TIMING=1 go test -p 1 -run '^TestTiming' ./...
//
// (.ci/run does, after the README's test command; docs/repository.md says
// which suite holds what and why). -p 1: the timing tests of one package
// must not share the host with another package's.
//
// Tests only. It decides nothing about how a test measures: each timing
// test still sizes its own deadlines and samples.
package timingtest

import (
	"os"
	"testing"
)

// Env is the environment variable that runs the timing suite: "1" (any
// value but "" and "0").
const Env = "BENCHSUP_TIMING"

// Enabled reports whether the timing suite was asked for.
func Enabled() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Require skips t unless the timing suite was asked for, saying how to
// ask. A timing test calls it first; its name starts with TestTiming, so
// that the suite's -run pattern selects it.
func Require(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skip("timing suite (depends on elapsed time or a quiet host): run with " + Env + "=1 go test -p 1 -run '^TestTiming' ./...")
	}
}
