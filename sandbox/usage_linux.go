//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Usage reads the child's resource use now: its cumulative CPU time and its
// memory, from its own cgroup v2 when it has one (Outcome.Containment
// "cgroup"), otherwise from /proc (the process group's CPU ticks, the
// root's VmRSS), each labeled with its source. It may be called from any
// goroutine while the child runs. Once the root has exited it returns an
// error wrapping ErrUnavailable: from then on its pid may be another
// process's. It returns an error wrapping ErrUnavailable when neither
// figure could be read; a Usage with one of them says why the other is
// missing.
func (c *Child) Usage() (Usage, error) {
	if c.exited() {
		return Usage{}, fmt.Errorf("%w: the child has exited", ErrUnavailable)
	}
	u := Usage{At: time.Now()}
	var cpuErr, memErr error
	if dir := c.base.Cgroup; dir != "" {
		if data, err := os.ReadFile(filepath.Join(dir, "cpu.stat")); err == nil {
			if u.CPU, cpuErr = parseCPUStat(data); cpuErr == nil {
				u.CPUSource = UsageCgroup
			}
		} else {
			cpuErr = err
		}
		if data, err := os.ReadFile(filepath.Join(dir, "memory.current")); err == nil {
			if u.Memory, memErr = parseMemoryCurrent(data); memErr == nil {
				u.MemorySource = UsageCgroup
			}
		} else {
			// No memory controller enabled for the child's cgroup.
			memErr = err
		}
	} else {
		cpuErr = fmt.Errorf("no cgroup of its own: %s", c.base.ContainmentNote)
		memErr = cpuErr
	}
	if u.CPUSource == "" {
		u.CPUNote = "cgroup: " + cpuErr.Error()
		if cpu, err := groupCPU(c.p.pid); err == nil {
			u.CPU, u.CPUSource = cpu, UsageProcessGroup
		} else {
			u.CPUNote += "; " + err.Error()
		}
	}
	if u.MemorySource == "" && c.memV1 != "" {
		// A hybrid host: memory is accounted in a v1 hierarchy.
		if data, err := os.ReadFile(filepath.Join(c.memV1, "memory.usage_in_bytes")); err == nil {
			if u.Memory, err = parseMemoryCurrent(data); err == nil {
				u.MemorySource = UsageCgroupV1
			}
		}
	}
	if u.MemorySource == "" {
		u.MemoryNote = "cgroup: " + memErr.Error()
		if data, err := os.ReadFile("/proc/" + strconv.Itoa(c.p.pid) + "/status"); err != nil {
			u.MemoryNote += "; " + err.Error()
		} else if rss, err := parseVmRSS(data); err != nil {
			u.MemoryNote += "; " + err.Error()
		} else {
			u.Memory, u.MemorySource = rss, UsageRootProcess
		}
	}
	// The root unreaped until now: what /proc said was about our processes.
	if c.exited() {
		return Usage{}, fmt.Errorf("%w: the child has exited", ErrUnavailable)
	}
	if u.CPUSource == "" && u.MemorySource == "" {
		return Usage{}, fmt.Errorf("%w: cpu: %s; memory: %s", ErrUnavailable, u.CPUNote, u.MemoryNote)
	}
	return u, nil
}

// exited reports whether the root's exit has been observed. Until then it
// has not been reaped, so its pid and process group id are still its own.
func (c *Child) exited() bool {
	select {
	case <-c.p.exited:
		return true
	default:
		return false
	}
}

// groupCPU sums the CPU time of the processes of process group pgid.
func groupCPU(pgid int) (time.Duration, error) {
	pids := groupProcs(pgid)
	if len(pids) == 0 {
		return 0, fmt.Errorf("/proc: no process in group %d", pgid)
	}
	var sum time.Duration
	read := 0
	for _, pid := range pids {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue // it exited since the scan
		}
		cpu, err := parseProcStatCPU(data)
		if err != nil {
			return 0, err
		}
		sum += cpu
		read++
	}
	if read == 0 {
		return 0, fmt.Errorf("/proc: no process of group %d could be read", pgid)
	}
	return sum, nil
}
