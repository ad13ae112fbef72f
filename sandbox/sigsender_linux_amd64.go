//go:build linux && amd64

package sandbox

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// os/signal delivers a signal's number and nothing else; the sender's pid
// is in the siginfo the kernel hands the handler. WatchSender puts a few
// instructions in front of the Go runtime's handler (sigsender_linux_amd64.s)
// that record the sender and then run the runtime's handler as before.

var (
	senderPID     [65]int32
	senderCode    [65]int32
	senderFwd     [65]uintptr
	watchMu       sync.Mutex
	senderWatched [65]bool
)

// senderTramp is the handler itself; only the assembly refers to it.
//
//lint:ignore U1000 referenced from sigsender_linux_amd64.s (senderTrampAddr)
func senderTramp()
func senderTrampAddr() uintptr

// kernelSigaction is struct sigaction as rt_sigaction(2) takes it on amd64.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

const saSiginfo = 0x4

// WatchSender makes SignalSender report who sent sig to this process. Call
// it after signal.Notify for sig, whose handler (the Go runtime's) it
// wraps; once per signal is enough, more calls do nothing.
func WatchSender(sig syscall.Signal) error {
	if sig <= 0 || sig > 64 || sig == syscall.SIGKILL || sig == syscall.SIGSTOP {
		return fmt.Errorf("sandbox: cannot watch the sender of %v", sig)
	}
	watchMu.Lock()
	defer watchMu.Unlock()
	if senderWatched[sig] {
		return nil
	}
	var old kernelSigaction
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
		return fmt.Errorf("sandbox: rt_sigaction(%v): %w", sig, e)
	}
	if old.flags&saSiginfo == 0 || old.handler <= 1 {
		return errors.New("sandbox: the signal has no Go handler to wrap (call signal.Notify first)")
	}
	senderFwd[sig] = old.handler
	wrapped := old
	wrapped.handler = senderTrampAddr()
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&wrapped)), 0, 8, 0, 0); e != 0 {
		return fmt.Errorf("sandbox: rt_sigaction(%v): %w", sig, e)
	}
	senderWatched[sig] = true
	return nil
}

// SignalSender returns the sender of the last sig this process received:
// its pid (0 when the kernel sent it, as a terminal's ^C) and the siginfo
// code (SI_USER 0 for kill(2), SI_KERNEL 0x80), and false when sig is not
// watched (see WatchSender) or none has arrived.
func SignalSender(sig syscall.Signal) (pid int, code int, ok bool) {
	if sig <= 0 || sig > 64 {
		return 0, 0, false
	}
	watchMu.Lock()
	w := senderWatched[sig]
	watchMu.Unlock()
	if !w {
		return 0, 0, false
	}
	return int(atomic.LoadInt32(&senderPID[sig])), int(atomic.LoadInt32(&senderCode[sig])), true
}

// SenderReadable says whether WatchSender can work on this platform.
const SenderReadable = true
