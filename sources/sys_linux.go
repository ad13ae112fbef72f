//go:build linux

package sources

import (
	"syscall"
)

// Thin wrappers over package syscall for what it offers but spells
// differently from golang.org/x/sys/unix, and the few constants it lacks.
// The system calls it has no function for (perf_event_open, its ioctls,
// mincore, fadvise) are in syscalls_arch_linux.go and fadvise_*.go, built
// per architecture.

// Constants of the Linux ABI that are the same on every architecture.
const (
	atFDCWD      = -100  // AT_FDCWD, include/uapi/linux/fcntl.h
	atEACCESS    = 0x200 // AT_EACCESS, include/uapi/linux/fcntl.h
	wOK          = 2     // W_OK, <unistd.h>
	rusageSelf   = 0     // RUSAGE_SELF, include/uapi/linux/resource.h
	rusageThread = 1     // RUSAGE_THREAD, include/uapi/linux/resource.h
	fadvWillneed = 3     // POSIX_FADV_WILLNEED, include/uapi/linux/fadvise.h
	// POSIX_FADV_DONTNEED is 4, except on s390x: fadvDontneed is defined
	// with fadvise, per architecture.
)

// errnoErr returns e as an error, nil for 0.
func errnoErr(e syscall.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

// gettid returns the calling thread's id.
func gettid() int { return syscall.Gettid() }

// getrusage is getrusage(2); who is rusageSelf or rusageThread.
func getrusage(who int, ru *syscall.Rusage) error { return syscall.Getrusage(who, ru) }

// faccessatEffective is faccessat(2) with AT_EACCESS: whether the
// process's effective ids may access path with mode. Package syscall
// (Go 1.20 and later) implements the flag as golang.org/x/sys/unix does:
// with faccessat2 where the kernel has it (Linux 5.8), else from the
// permission bits fstatat reports, as glibc did.
func faccessatEffective(dirfd int, path string, mode uint32) error {
	return syscall.Faccessat(dirfd, path, mode, atEACCESS)
}
