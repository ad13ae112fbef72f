// Command benchsup runs a Go module's tests and benchmarks in fresh,
// isolated child processes: one crash, hang or leak never costs the rest of
// the run, and repetitions in separate processes show the variance a single
// process hides.
//
//	benchsup run ./...                          # tests, crash-contained
//	benchsup run --bench ./...                  # every benchmark, each in fresh processes
//	benchsup run --bench=Encode --repetitions=5 ./codec
//	benchsup list ./...                         # every test and benchmark identity
//
// Exit status: 0 when everything passed or was skipped, 1 when anything
// failed or crashed, 2 for a usage error.
package main

import (
	"os"

	"github.com/benchsup/benchsup/sandbox"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == sandbox.ReaperArg {
		// This binary started as a run's reaper (see startRun).
		os.Exit(sandbox.ReaperMain(os.Stdin))
	}
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
