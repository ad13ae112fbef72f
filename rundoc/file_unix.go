//go:build unix

package rundoc

import (
	"os"
	"syscall"
)

// openNonblock opens a FIFO without waiting for a writer.
const openNonblock = syscall.O_NONBLOCK

// clearNonblock puts f's descriptor back in blocking mode.
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
