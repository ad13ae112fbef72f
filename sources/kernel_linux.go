//go:build linux

package sources

import (
	"os"
	"sort"
	"strconv"
	"syscall"
)

// kernel is the package's one door to perf_event_open and to the files the
// sources inspect. Tests replace it (through sys) to stand in for hosts this
// one is not: no PMU, a paranoid kernel, a seccomp filter, a group that
// multiplexes, a mounted tracefs.
type kernel struct {
	perfOpen func(attr *perfEventAttr, pid, cpu, groupFD, flags int) (int, error)
	ioctl    func(fd int, req uint, arg int) error
	eventID  func(fd int) (uint64, error)
	read     func(fd int, p []byte) (int, error)
	close    func(fd int) error
	rusage   func(ru *syscall.Rusage) error

	eventSources string   // the PMUs the kernel registered
	paranoid     string   // perf_event_paranoid
	taskDir      string   // this process's threads
	procIO       string   // this process's I/O accounting
	mounts       string   // this process's mount table
	tracefs      []string // where tracefs may be mounted, in order of preference
}

// sys is the kernel every source uses.
var sys = hostKernel()

func hostKernel() *kernel {
	return &kernel{
		perfOpen: perfEventOpen,
		ioctl:    ioctlSetInt,
		eventID:  perfEventID,
		read:     syscall.Read,
		close:    syscall.Close,
		rusage:   func(ru *syscall.Rusage) error { return getrusage(rusageSelf, ru) },

		eventSources: "/sys/bus/event_source/devices",
		paranoid:     "/proc/sys/kernel/perf_event_paranoid",
		taskDir:      "/proc/self/task",
		procIO:       "/proc/self/io",
		mounts:       "/proc/self/mounts",
		tracefs:      []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"},
	}
}

// threads lists the ids of this process's threads, ascending.
func (k *kernel) threads() ([]int, error) {
	ents, err := os.ReadDir(k.taskDir)
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	sort.Ints(tids)
	return tids, nil
}
