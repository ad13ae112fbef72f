//go:build linux

package record

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// mapShared maps the region whose descriptor EnvFD names: nil and why
// not when the variable is absent or the region unusable. A recorder
// without it runs as it does outside benchsup.
func mapShared() (*region, string) {
	v, ok := os.LookupEnv(EnvFD)
	if !ok {
		return nil, "no supervisor: " + EnvFD + " is not set"
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 0 {
		return nil, fmt.Sprintf("%s=%q is not a descriptor", EnvFD, v)
	}
	mem, err := syscall.Mmap(fd, 0, RegionSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Sprintf("mapping %s=%d: %v", EnvFD, fd, err)
	}
	r, err := openRegion(mem)
	if err != nil {
		_ = syscall.Munmap(mem)
		return nil, err.Error()
	}
	return r, ""
}
