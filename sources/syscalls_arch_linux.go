//go:build linux && (386 || amd64 || arm || arm64 || loong64 || mips || mips64 || mips64le || mipsle || ppc64 || ppc64le || riscv64 || s390x)

package sources

import (
	"syscall"
	"unsafe"
)

// The system calls package syscall numbers but has no function for, on the
// architectures whose perf ABI this package defines (perfabi_*_linux.go).
// Each takes its arguments in registers of the native word size, so one
// definition serves every one of them; package syscall supplies the numbers.

// perfEventOpen is perf_event_open(2).
func perfEventOpen(attr *perfEventAttr, pid, cpu, groupFD, flags int) (int, error) {
	fd, _, e := syscall.Syscall6(syscall.SYS_PERF_EVENT_OPEN, uintptr(unsafe.Pointer(attr)), uintptr(pid), uintptr(cpu), uintptr(groupFD), uintptr(flags), 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// ioctlSetInt is ioctl(2) with an integer argument.
func ioctlSetInt(fd int, req uint, arg int) error {
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	return errnoErr(e)
}

// perfEventID returns the id of the perf event fd (PERF_EVENT_IOC_ID).
func perfEventID(fd int) (uint64, error) {
	var id uint64
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(perfEventIOCID), uintptr(unsafe.Pointer(&id)))
	if e != 0 {
		return 0, e
	}
	return id, nil
}

// sysMincore is mincore(2).
func sysMincore(addr unsafe.Pointer, length uintptr, vec *byte) error {
	_, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(addr), length, uintptr(unsafe.Pointer(vec)))
	return errnoErr(e)
}
