package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrUnavailable is wrapped by the error of a Usage that could read
// nothing: the child has exited, or neither its cgroup nor /proc can be
// read. The error says why.
var ErrUnavailable = errors.New("sandbox: usage unavailable")

// Where a Usage's figures come from.
const (
	// UsageCgroup: the child's own cgroup v2 (cpu.stat usage_usec,
	// memory.current), which holds every process it started.
	UsageCgroup = "cgroup"
	// UsageCgroupV1: the child's cgroup v1 memory cgroup
	// (memory.usage_in_bytes), where a hybrid host accounts memory.
	UsageCgroupV1 = "cgroup v1"
	// UsageProcessGroup: the sum over the child's process group of
	// /proc/PID/stat utime+stime (and cutime+cstime: the descendants it
	// reaped), in clock ticks. A process that left the group is missed.
	UsageProcessGroup = "process group (/proc, clock ticks)"
	// UsageRootProcess: the root's VmRSS in /proc/PID/status, the root
	// process only: what it started is not counted.
	UsageRootProcess = "root process only (/proc VmRSS)"
)

// Usage is one reading of a running child's resource use. A figure whose
// source is "" was not measured; its note says why.
type Usage struct {
	At time.Time // when it was read

	// CPU is the cumulative CPU time, user plus system, of the child and
	// its descendants, as CPUSource accounts it.
	CPU       time.Duration
	CPUSource string // UsageCgroup, UsageProcessGroup or "" (not measured)
	CPUNote   string // why CPUSource is "" or the cgroup's was not used

	// Memory is the resident memory in bytes: the cgroup's charge
	// (memory.current or v1 memory.usage_in_bytes: anonymous and page
	// cache) or the root's VmRSS.
	Memory       int64
	MemorySource string // UsageCgroup, UsageCgroupV1, UsageRootProcess or "" (not measured)
	MemoryNote   string // why MemorySource is "" or the cgroup's was not used
}

// userHZ is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// architecture Go supports on Linux.
const userHZ = 100

// parseCPUStat returns usage_usec of a cgroup v2 cpu.stat file.
func parseCPUStat(data []byte) (time.Duration, error) {
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
			us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || us < 0 {
				return 0, fmt.Errorf("cpu.stat: usage_usec %q is not a count", strings.TrimSpace(v))
			}
			return time.Duration(us) * time.Microsecond, nil
		}
	}
	return 0, errors.New("cpu.stat has no usage_usec line")
}

// parseMemoryCurrent returns the bytes of a cgroup v2 memory.current (or
// v1 memory.usage_in_bytes) file.
func parseMemoryCurrent(data []byte) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("memory.current %q is not a byte count", strings.TrimSpace(string(data)))
	}
	return v, nil
}

// parseProcStatCPU returns utime+stime+cutime+cstime (proc(5) fields 14 to
// 17) of a /proc/PID/stat file. The command name, between the first "("
// and the last ")", may itself hold spaces and parentheses.
func parseProcStatCPU(data []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, errors.New("/proc/PID/stat: no command name")
	}
	f := strings.Fields(string(data[end+1:])) // field 3 (state) onwards
	const utime = 14 - 3
	if len(f) < utime+4 {
		return 0, fmt.Errorf("/proc/PID/stat: %d fields", len(f)+2)
	}
	var ticks int64
	for _, s := range f[utime : utime+4] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("/proc/PID/stat: time %q is not a count", s)
		}
		ticks += v
	}
	return time.Duration(ticks) * (time.Second / userHZ), nil
}

// parseVmRSS returns the VmRSS of a /proc/PID/status file in bytes.
func parseVmRSS(data []byte) (int64, error) {
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) != 2 || f[1] != "kB" {
				return 0, fmt.Errorf("/proc/PID/status: VmRSS %q is not in kB", strings.TrimSpace(v))
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil || kb < 0 {
				return 0, fmt.Errorf("/proc/PID/status: VmRSS %q is not a count", f[0])
			}
			return kb << 10, nil
		}
	}
	// A zombie's status has no VmRSS line.
	return 0, errors.New("/proc/PID/status has no VmRSS line (the process has exited)")
}
