package sources

import "syscall"

// fadvDontneed is POSIX_FADV_DONTNEED (include/uapi/linux/fadvise.h).
const fadvDontneed = 4

// fadvise is posix_fadvise(2). On arm the system call is arm_fadvise64_64,
// whose advice comes second: the EABI passes a 64-bit argument in an
// even/odd register pair, and moving advice up lets offset and length fill
// r2/r3 and r4/r5 with no padding register. Each is split low word first.
func fadvise(fd int, offset, length int64, advice int) error {
	_, _, e := syscall.Syscall6(syscall.SYS_ARM_FADVISE64_64, uintptr(fd), uintptr(advice),
		uintptr(offset), uintptr(offset>>32), uintptr(length), uintptr(length>>32))
	return errnoErr(e)
}
