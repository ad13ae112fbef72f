package main

import (
	"os"
	"sync"
	"syscall"
	"testing"
)

func threads(t *testing.T) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skipf("no /proc/self/task: %v", err)
	}
	return len(tasks)
}

// TestReserveThreads: the threads reserveThreads starts stay, and
// goroutines blocked in system calls at once, which each hold a thread,
// run on them: no thread is created then, when a host at its task limit
// would refuse it (see reserveThreads).
func TestReserveThreads(t *testing.T) {
	const n, blocked = 12, 8
	before := threads(t)
	reserveThreads(n)
	reserved := threads(t)
	// n held at once, and the one this goroutine ran on meanwhile.
	if reserved < n+1 {
		t.Fatalf("%d threads after reserving %d (%d before)", reserved, n, before)
	}
	var wg sync.WaitGroup
	for range blocked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A raw blocking call: the runtime hands its P to another
			// thread while it sleeps.
			ts := syscall.Timespec{Nsec: 100e6}
			syscall.Nanosleep(&ts, nil)
		}()
	}
	wg.Wait()
	if after := threads(t); after > reserved {
		t.Errorf("%d goroutines blocked at once made %d new threads despite %d reserved (%d before, %d reserved)", blocked, after-reserved, n, before, reserved)
	}
}
