package integration

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive lock on dir, without waiting; locked is
// false when another process holds it. The lock ends with the process.
func lockDir(dir string) (release func(), locked bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
