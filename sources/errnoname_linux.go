//go:build linux

package sources

import (
	"strconv"
	"syscall"
)

// errnoNames names the errnos that reasons print: those perf_event_open(2)
// documents, which are all its failures can carry, and those the sources
// test for. The keys are package syscall's constants, so the numbers are
// the architecture's (EOPNOTSUPP is 95 on most, 122 on mips). The names are
// the ones golang.org/x/sys/unix's ErrnoName gives, which reasons printed
// before this table replaced it: EOPNOTSUPP, which Linux defines equal to
// ENOTSUP, is named ENOTSUP.
var errnoNames = map[syscall.Errno]string{
	syscall.E2BIG:      "E2BIG",
	syscall.EACCES:     "EACCES",
	syscall.EAGAIN:     "EAGAIN",
	syscall.EBADF:      "EBADF",
	syscall.EBUSY:      "EBUSY",
	syscall.EFAULT:     "EFAULT",
	syscall.EINTR:      "EINTR",
	syscall.EINVAL:     "EINVAL",
	syscall.EMFILE:     "EMFILE",
	syscall.ENFILE:     "ENFILE",
	syscall.ENODEV:     "ENODEV",
	syscall.ENOENT:     "ENOENT",
	syscall.ENOMEM:     "ENOMEM",
	syscall.ENOSPC:     "ENOSPC",
	syscall.ENOSYS:     "ENOSYS",
	syscall.EOPNOTSUPP: "ENOTSUP",
	syscall.EOVERFLOW:  "EOVERFLOW",
	syscall.EPERM:      "EPERM",
	syscall.ESRCH:      "ESRCH",
}

// errnoName returns e's symbolic name, or "errno N" for an errno the table
// does not hold.
func errnoName(e syscall.Errno) string {
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}
