package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"

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

// goSiblings counts the other children of the go command that runs this
// test binary: under go test ./..., the other packages' test binaries and
// the compilers, linkers and vet runs that build them. ok is false when
// the parent is not the go command (the binary run by hand, or through
// -exec): then nothing here says what else it started.
func goSiblings() (n int, ok bool, err error) {
	parent := os.Getppid()
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", parent))
	if err != nil || filepath.Base(exe) != "go" {
		return 0, false, nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false, err
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if ppid, alive := sandbox.ParentPID(pid); alive && ppid == parent {
			n++
		}
	}
	return n, true, nil
}
