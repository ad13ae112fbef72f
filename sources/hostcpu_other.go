//go:build !linux

package sources

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

// Host CPU time is read from Linux's /proc/stat; other systems keep it
// elsewhere (host_processor_info on Darwin, sysctl kern.cp_times on the
// BSDs), which this package does not read yet.

// ReadHostCPU fails, wrapping errors.ErrUnsupported, off Linux.
func ReadHostCPU() (HostCPU, error) {
	return HostCPU{}, fmt.Errorf("host CPU time: %w: /proc/stat is read on Linux only (this is %s/%s)", errors.ErrUnsupported, runtime.GOOS, runtime.GOARCH)
}

// ProcessCPU fails, wrapping errors.ErrUnsupported, off Linux.
func ProcessCPU() (time.Duration, error) {
	return 0, fmt.Errorf("process CPU time: %w: implemented for Linux only (this is %s/%s)", errors.ErrUnsupported, runtime.GOOS, runtime.GOARCH)
}
