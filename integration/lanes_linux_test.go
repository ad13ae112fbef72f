package integration

import (
	"fmt"
	"runtime"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/sandbox"
)

// laneCPUs are the lanes' CPUs (lanes_test.go): the first CPU of each
// core this process may use (two CPUs of one core would slow each other's
// children). A core's other CPUs are left idle, so a lane's SMT sibling
// carries no other lane's load.
func laneCPUs() ([]int, error) {
	allowed, err := sandbox.AllowedCPUs()
	if err != nil {
		return nil, err
	}
	var lanes, taken []int
	for _, c := range allowed {
		if slices.Contains(taken, c) {
			continue
		}
		sib, err := host.Siblings(c)
		if err != nil {
			sib = []int{c} // no topology: every CPU its own core
		}
		lanes = append(lanes, c)
		taken = append(taken, sib...)
	}
	return lanes, nil
}

// pinThread confines the calling goroutine, and every process it starts
// from now on, to cpu: it locks the goroutine to its OS thread and sets
// that thread's affinity, which a forked child inherits (os/exec forks on
// the calling thread; the runtime starts no thread of its own from a
// locked one). unpin restores the thread's mask and unlocks it; when the
// restore fails the thread stays locked, and the runtime ends it with its
// goroutine, so no other goroutine inherits the mask.
func pinThread(cpu int) (unpin func(), err error) {
	runtime.LockOSThread()
	var saved unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("pinning to cpu%d: %w", cpu, err)
	}
	return func() {
		if unix.SchedSetaffinity(0, &saved) == nil {
			runtime.UnlockOSThread()
		}
	}, nil
}
