// Command benchsup runs a Go module's tests and benchmarks in fresh,
// isolated child processes: one crash, hang or leak never costs the rest of
// the run, and repetitions in separate processes show the variance a single
// process hides.
//
//	benchsup run ./...                          # tests, crash-contained
//	benchsup run --bench ./...                  # every benchmark, each in fresh processes
//	benchsup run ./codec -bench=Encode -count=5 # go test's flags, before or after the packages
//	benchsup list ./...                         # every test and benchmark identity
//	benchsup help run                           # every flag of run
//
// Exit status: 0 when everything passed or was skipped, 1 when anything
// failed or crashed, 2 for a usage error, 3 when a comparison gate could
// not judge every identity, and 128 plus the signal's number (130 for
// SIGINT, 143 for SIGTERM) when a signal ended the run, after its partial
// results.
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
	if len(os.Args) >= 2 && os.Args[1] == sandbox.ShimArg {
		// This binary started as a child's shim, its parent (see
		// supervisor.Config.Shim).
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
