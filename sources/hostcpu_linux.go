//go:build linux

package sources

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// ReadHostCPU reads /proc/stat, with Tick from the kernel's AT_CLKTCK.
func ReadHostCPU() (HostCPU, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return HostCPU{}, fmt.Errorf("host CPU time: %w", err)
	}
	h, err := ParseProcStat(data)
	if err != nil {
		return HostCPU{}, err
	}
	h.Tick = tick()
	return h, nil
}

// tick is USER_HZ's tick, read once: the auxiliary vector is fixed for the
// life of the process, and the interference watch reads the host at every
// sample edge.
var tick = sync.OnceValue(readTick)

// atClkTck is AT_CLKTCK in the auxiliary vector: USER_HZ, the unit of
// /proc/stat, which sysconf(_SC_CLK_TCK) reports to C programs.
const atClkTck = 17

// readTick reads USER_HZ from /proc/self/auxv (native-endian pairs of
// words), falling back to DefaultTick when it cannot.
func readTick() int64 {
	auxv, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return DefaultTick
	}
	word := int(unsafe.Sizeof(uintptr(0)))
	get := func(b []byte) uint64 {
		if word == 4 {
			return uint64(binary.NativeEndian.Uint32(b))
		}
		return binary.NativeEndian.Uint64(b)
	}
	for i := 0; i+2*word <= len(auxv); i += 2 * word {
		key, val := get(auxv[i:]), get(auxv[i+word:])
		if key == atClkTck && val > 0 && val <= uint64(time.Second) {
			return int64(time.Second) / int64(val)
		}
		if key == 0 {
			break
		}
	}
	return DefaultTick
}

// ProcessCPU returns the CPU time, user plus system, this process and all
// its threads have used so far (getrusage(RUSAGE_SELF)); child processes
// are not included. The kernel accounts it at finer grain than /proc/stat's
// ticks.
func ProcessCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage(RUSAGE_SELF): %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
