//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// Seams for tests.
var (
	// childAffinity reads a spawned child's affinity; a test makes it lie
	// to exercise the refusal after the spawn.
	childAffinity = unix.SchedGetaffinity
	// setThreadAffinity sets the spawner thread's; a test makes the
	// restore fail. Only the spawner goroutine calls it, after receiving
	// a request: a test's assignment before the spawn is ordered by the
	// queue.
	setThreadAffinity = unix.SchedSetaffinity
)

// AllowedCPUs returns the CPUs this process may run on (its affinity, as
// narrowed by taskset or a cpuset cgroup), ascending: what a placement
// (Config.CPUs) can use at most.
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	// Thread 0 is the calling thread; only the spawner's thread (locked to
	// it, never running anything else) ever has another mask.
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	return cpusOf(&set), nil
}

func cpuSetOf(cpus []int) *unix.CPUSet {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return &set
}

func cpusOf(set *unix.CPUSet) []int {
	var cpus []int
	for c := range maxAffinityCPU {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// spawnerThread is the spawner's OS thread's affinity bookkeeping; only
// the spawner goroutine touches it.
type spawnerThread struct {
	// owed is the mask a failed restore left the thread without: set
	// again before the next spawn, which fails while it cannot be.
	owed *unix.CPUSet
	// owedHome are the v1 cgroups a failed move back left the thread
	// outside of (limits_linux.go): entered again before the next spawn,
	// which fails while they cannot be.
	owedHome []v1Move
	// home is the way back to the thread's own v1 cgroups (limits_linux.go).
	home wayHome
}

// start runs os.StartProcess on the calling thread (the spawner's, locked to
// it for life) with the thread's affinity set to cpus (none: untouched).
//
// The child inherits the affinity of the thread that forks it, and Go forks
// on the calling thread: os.StartProcess -> syscall.forkExec ->
// forkAndExecInChild1, a clone/clone3 with CLONE_VFORK|CLONE_VM made by
// rawVforkSyscall on the current thread (syscall/exec_linux.go), the same
// fact the spawner's Pdeathsig relies on. The mask is set on this one
// thread only: threads the runtime creates later start from its template
// thread, never from a locked one, so nothing else inherits it.
func (t *spawnerThread) start(cpus []int, moves []v1Move, path string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	if t.owedHome != nil {
		if err := t.goHome(t.owedHome); err != nil {
			// Any child forked now would start in an earlier child's
			// cgroups, under its limits.
			return nil, &IOError{Op: "spawn", Err: fmt.Errorf("the spawning thread is still in an earlier child's cgroups and cannot go back to its own: %w", err)}
		}
	}
	if t.owed != nil {
		if err := setThreadAffinity(0, t.owed); err != nil {
			// Any child forked now would inherit the last placement.
			return nil, &AffinityError{CPUs: cpus, Reason: "the spawning thread still has an earlier child's placement and cannot be given back its own", Err: err}
		}
		t.owed = nil
	}
	if len(cpus) == 0 {
		return t.fork(moves, path, argv, attr)
	}
	var saved unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		return nil, &AffinityError{CPUs: cpus, Reason: "reading the spawning thread's affinity", Err: err}
	}
	want := cpuSetOf(cpus)
	if err := setThreadAffinity(0, want); err != nil {
		// EINVAL: none of them is online and allowed here.
		return nil, &AffinityError{CPUs: cpus, Reason: "the kernel refused the mask (none of them online and allowed to this process?)", Err: err}
	}
	var got unix.CPUSet
	err := unix.SchedGetaffinity(0, &got)
	if err != nil || got != *want {
		// The kernel silently drops CPUs outside this thread's cpuset
		// or offline: a narrower placement than asked is not the one
		// asked.
		t.restore(&saved)
		reason := fmt.Sprintf("the kernel narrowed it to %s (offline, or outside this process's cpuset or taskset)", formatCPUs(cpusOf(&got)))
		if err != nil {
			reason = "reading the mask back"
		}
		return nil, &AffinityError{CPUs: cpus, Reason: reason, Err: err}
	}
	proc, err := t.fork(moves, path, argv, attr)
	// The thread stays locked to the spawner either way (its exit would
	// send every child it forked its Pdeathsig), so a failed restore
	// cannot be left to a thread exit, as a goroutine that unlocks
	// could: it is owed, and retried before the next spawn.
	t.restore(&saved)
	return proc, err
}

func (t *spawnerThread) restore(saved *unix.CPUSet) {
	if setThreadAffinity(0, saved) != nil {
		t.owed = saved
	}
}

// verifyAffinity checks that the child pid runs on exactly cpus. It is
// called after the child entered its cgroup (at clone, or moved after the
// spawn), so a cpuset there that narrows the mask is seen. The child has
// only just exec'd: code of its own that changes its affinity (an init
// function) runs later, in the common case.
func verifyAffinity(pid int, cpus []int) error {
	var got unix.CPUSet
	if err := childAffinity(pid, &got); err != nil {
		return &AffinityError{CPUs: cpus, Reason: fmt.Sprintf("reading child %d's affinity", pid), Err: err}
	}
	if have := cpusOf(&got); !slices.Equal(have, cpus) {
		return &AffinityError{CPUs: cpus, Reason: fmt.Sprintf("the child runs on %s (its cgroup's cpuset is narrower than the list?)", formatCPUs(have))}
	}
	return nil
}

// killUnplaced kills and reaps a child started with the wrong placement,
// with its process group and cgroup, before it measured anything.
func killUnplaced(proc *os.Process, cg *cgroup) {
	_ = unix.Kill(-proc.Pid, syscall.SIGKILL)
	_ = proc.Kill()
	if cg != nil {
		_ = cg.kill()
		_ = cg.waitEmpty(cgroupEmptyTimeout)
	}
	_, _ = proc.Wait()
	if cg != nil {
		_ = cg.remove()
	}
}
