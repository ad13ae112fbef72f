package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrAffinity is wrapped by every *AffinityError.
var ErrAffinity = errors.New("sandbox: CPU affinity not honored")

// maxAffinityCPU bounds a CPU number in Config.CPUs: the affinity mask this
// package hands the kernel (glibc's and x/sys/unix's cpu_set_t) holds CPUs
// 0-1023.
const maxAffinityCPU = 1024

// AffinityError reports a placement (Config.CPUs) that could not be made
// exactly as asked: the kernel refused or narrowed the mask (a cpuset cgroup
// or taskset narrower than the list, an offline CPU), or this platform has
// no strict affinity at all (errors.ErrUnsupported). No child runs with a
// placement other than the one asked for: a child already spawned is
// killed and reaped before the error is returned.
type AffinityError struct {
	CPUs   []int  // the CPUs asked for
	Reason string // what happened, in words
	Err    error  // the underlying error, if any
}

func (e *AffinityError) Error() string {
	s := "sandbox: cannot pin children: " + e.Reason
	if len(e.CPUs) > 0 {
		s = fmt.Sprintf("sandbox: cannot pin to CPUs %s: %s", formatCPUs(e.CPUs), e.Reason)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns ErrAffinity and the underlying error.
func (e *AffinityError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrAffinity}
	}
	return []error{ErrAffinity, e.Err}
}

// checkCPUs validates Config.CPUs and returns them ascending without
// duplicates.
func checkCPUs(cpus []int) ([]int, error) {
	for i, c := range cpus {
		if c < 0 || c >= maxAffinityCPU {
			return nil, &ConfigError{Field: fmt.Sprintf("CPUs[%d]", i), Reason: fmt.Sprintf("CPU %d is outside 0-%d, what an affinity mask holds", c, maxAffinityCPU-1)}
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(cpus))), nil
}

// formatCPUs writes ascending CPUs in the kernel's list format ("0-2,5").
// (host.FormatCPUList does the same; the sandbox does not depend on host.)
func formatCPUs(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		p := strconv.Itoa(cpus[i])
		if j > i {
			p += "-" + strconv.Itoa(cpus[j])
		}
		parts = append(parts, p)
		i = j + 1
	}
	return strings.Join(parts, ",")
}
