package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/benchsup/benchsup/sandbox"
)

// startRun prepares a run's lifetime: it starts the reaper, this same
// binary with sandbox.ReaperArg, which cleans up every process, cgroup and
// file of the run should this process be killed (see sandbox.StartReaper
// and docs/design.md#containment), then removes what earlier runs that died
// left behind (sandbox.RemoveStale): failures always said, removals when
// verbose. It returns the function to call when the run is over.
func startRun(stderr io.Writer, verbose bool) (end func()) {
	r, err := sandbox.StartReaper(sandbox.ReaperArg)
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		fmt.Fprintf(stderr, "benchsup: %s; if benchsup is killed, processes it started may outlive it\n", oneLine(err.Error()))
	}
	removed, failed := sandbox.RemoveStale()
	if verbose {
		for _, n := range removed {
			fmt.Fprintf(stderr, "benchsup: %s\n", n)
		}
	}
	for _, n := range failed {
		fmt.Fprintf(stderr, "benchsup: cannot remove what a dead run left: %s\n", n)
	}
	return func() {
		if r == nil {
			return
		}
		if err := r.Close(); err != nil {
			fmt.Fprintf(stderr, "benchsup: %s\n", oneLine(err.Error()))
		}
	}
}
