package sources

import "syscall"

// fadvDontneed is POSIX_FADV_DONTNEED, which is 6 on s390x, not 4
// (include/uapi/linux/fadvise.h).
const fadvDontneed = 6

// fadvise is posix_fadvise(2): fadvise64(fd, offset, len, advice), each
// argument in a register, as on the other 64-bit architectures.
func fadvise(fd int, offset, length int64, advice int) error {
	_, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, uintptr(fd), uintptr(offset), uintptr(length), uintptr(advice), 0, 0)
	return errnoErr(e)
}
