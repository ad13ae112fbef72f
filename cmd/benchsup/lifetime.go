package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/benchsup/benchsup/sandbox"
)

// startRun prepares a run's lifetime: it starts the reaper, this same
// binary with sandbox.ReaperArg, which cleans up every process, cgroup and
// file of the run should this process be killed (see sandbox.StartReaper
// and docs/design.md#containment), then removes what earlier runs that died
// left behind (sandbox.RemoveStale): failures always said, removals when
// verbose. It returns the function to call when the run is over.
func startRun(stderr io.Writer, verbose bool) (end func()) {
	reserveThreads(reservedThreads)
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

// reservedThreads is about the most threads a run was seen to use (17 with
// -p 10 in test mode, 10 measuring benchmarks): those it needs later are
// then already there.
const reservedThreads = 16

// reserveThreads has the Go runtime start threads now, until it has n
// besides the caller's, and keep them idle for later. A host whose limit on tasks (a pids cgroup's pids.max, ulimit
// -u) is reached mid-run then refuses benchsup's children, which become
// rows that say so, rather than a thread the runtime needs, which it cannot
// do without: it would abort benchsup, and the results so far with it. The
// runtime never ends an idle thread, so the threads stay reserved.
func reserveThreads(n int) {
	var locked, release sync.WaitGroup
	locked.Add(n)
	release.Add(1)
	for range n {
		go func() {
			// A goroutine locked to its thread keeps it while it waits, so
			// the others each need one of their own.
			runtime.LockOSThread()
			locked.Done()
			release.Wait()
			runtime.UnlockOSThread() // the thread goes back to the runtime, idle
		}()
	}
	locked.Wait()
	release.Done()
}
