//go:build !(linux && amd64)

package sandbox

import (
	"errors"
	"syscall"
)

// WatchSender would make SignalSender report who sent sig; reading a
// signal's sender needs a handler in front of the Go runtime's, written for
// linux/amd64 only.
func WatchSender(sig syscall.Signal) error {
	return errors.New("sandbox: a signal's sender cannot be read on this platform")
}

// SignalSender reports nothing here (see WatchSender).
func SignalSender(sig syscall.Signal) (pid int, code int, ok bool) { return 0, 0, false }

// SenderReadable says whether WatchSender can work on this platform.
const SenderReadable = false
