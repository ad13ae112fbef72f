//go:build !linux

package sources

import (
	"fmt"
	"runtime"
)

// The window readers are Linux-only for now: thread-scoped CPU and run-queue
// time, PSI and cgroup pressure all come from Linux interfaces. Elsewhere
// each reports its absence, so that a window says what it could not
// measure; it never returns zeros as if they were readings.

func windowUnsupported(what string) error {
	return fmt.Errorf("%s is implemented for Linux only (this is %s/%s)", what, runtime.GOOS, runtime.GOARCH)
}

// ReadThreadTimes reads the calling thread's accounting; here it is absent.
func ReadThreadTimes() (ThreadTimes, error) {
	return ThreadTimes{}, windowUnsupported("thread-scoped CPU accounting")
}

// ReadProcessTimes reads the process's accounting; here it is absent.
func ReadProcessTimes() (ProcessTimes, error) {
	return ProcessTimes{}, windowUnsupported("process accounting for windows")
}

// ReadSystemPressure reads the host's PSI totals; PSI is Linux's.
func ReadSystemPressure() (Pressure, error) {
	return Pressure{}, windowUnsupported("PSI (pressure stall information)")
}

// ReadCgroupIOPressure reads this process's cgroup io.pressure; cgroup2 is
// Linux's.
func ReadCgroupIOPressure() (some, full int64, ok bool, reason string) {
	return 0, 0, false, windowUnsupported("cgroup io.pressure").Error()
}

func cgroupIOPressurePath() (path, why string) {
	return "", windowUnsupported("cgroup io.pressure").Error()
}

func readCgroupIOSome(path string) (some int64, ok bool, why string) {
	return 0, false, windowUnsupported("cgroup io.pressure").Error()
}
