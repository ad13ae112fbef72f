package sources

import "syscall"

// fadvDontneed is POSIX_FADV_DONTNEED (include/uapi/linux/fadvise.h).
const fadvDontneed = 4

// fadvise is posix_fadvise(2). On mips (o32) the system call numbered
// fadvise64 takes 64-bit offset and length, each in an aligned pair of
// argument words (so a padding word follows fd), high word first on this
// big-endian architecture. Words past the fourth go on the stack, hence
// Syscall9.
func fadvise(fd int, offset, length int64, advice int) error {
	_, _, e := syscall.Syscall9(syscall.SYS_FADVISE64, uintptr(fd), 0,
		uintptr(offset>>32), uintptr(offset), uintptr(length>>32), uintptr(length), uintptr(advice), 0, 0)
	return errnoErr(e)
}
