package sources

import "syscall"

// fadvDontneed is POSIX_FADV_DONTNEED (include/uapi/linux/fadvise.h).
const fadvDontneed = 4

// fadvise is posix_fadvise(2). On 386 the system call that takes 64-bit
// offset and length is fadvise64_64, each split across two registers, low
// word first; fadvise64 would take a 32-bit length.
func fadvise(fd int, offset, length int64, advice int) error {
	_, _, e := syscall.Syscall6(syscall.SYS_FADVISE64_64, uintptr(fd),
		uintptr(offset), uintptr(offset>>32), uintptr(length), uintptr(length>>32), uintptr(advice))
	return errnoErr(e)
}
