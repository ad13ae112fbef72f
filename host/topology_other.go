//go:build !linux

package host

import (
	"errors"
	"fmt"
	"runtime"
)

// OnlineCPUs fails, wrapping errors.ErrUnsupported, off Linux.
func OnlineCPUs() ([]int, error) {
	return nil, fmt.Errorf("online CPUs: %w: read from /sys on Linux only (this is %s)", errors.ErrUnsupported, runtime.GOOS)
}

// Siblings fails, wrapping errors.ErrUnsupported, off Linux.
func Siblings(cpu int) ([]int, error) {
	return nil, fmt.Errorf("SMT siblings of CPU %d: %w: read from /sys on Linux only (this is %s)", cpu, errors.ErrUnsupported, runtime.GOOS)
}
