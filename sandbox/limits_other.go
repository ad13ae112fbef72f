//go:build !linux

package sandbox

import "runtime"

// ProbeLimits reports that resource limits need Linux cgroups: neither
// controller is available here.
func ProbeLimits() LimitSupport {
	note := "resource limits need Linux cgroups, not " + runtime.GOOS
	return LimitSupport{MemoryNote: note, PidsNote: note}
}
