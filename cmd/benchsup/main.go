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

	// A re-executed benchsup becomes a child's shim or a run's reaper
	// there, before the packages below are initialized.
	_ "github.com/benchsup/benchsup/cmd/benchsup/internal/reexec"
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
