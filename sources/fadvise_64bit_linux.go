//go:build linux && (amd64 || arm64 || loong64 || mips64 || mips64le || ppc64 || ppc64le || riscv64)

package sources

import "syscall"

// fadvDontneed is POSIX_FADV_DONTNEED (include/uapi/linux/fadvise.h).
const fadvDontneed = 4

// fadvise is posix_fadvise(2). On 64-bit architectures the system call is
// fadvise64(fd, offset, len, advice), each argument in a register.
func fadvise(fd int, offset, length int64, advice int) error {
	_, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, uintptr(fd), uintptr(offset), uintptr(length), uintptr(advice), 0, 0)
	return errnoErr(e)
}
