//go:build linux

package worker

import (
	"bytes"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// capturePipe is the pipe os.Stdout points into while the worker reads
// testing's output (captureOutput). Its read end is kept out of the
// runtime's poller, and nothing waits on it while output flows: a
// descriptor with a waiter makes every write wake a thread, so a benchmark
// that prints a line per write would pay a wake-up per line that it does
// not pay under go test, which hands the test binary its own stdout
// (a flood of 300,000 lines: 0.93 s of CPU through a polled pipe, 0.52 s
// through this one, 0.56 s into a file). The reader reads what the pipe
// holds; when it is empty, it sleeps floodPause if the last wait found
// output of the code's (a flood is then read a pause's worth at a time)
// and waits in ppoll(2) if not or if the output held a line of testing's
// (the first line after a quiet spell, and the one after testing's "===
// RUN", are read at once).
type capturePipe struct {
	fd      int    // the read end, non-blocking
	wake    [2]int // a pipe; closing wake[1] ends a wait in ppoll
	stopped atomic.Bool
	once    sync.Once // closes wake[1]
	got     bool      // output read since the last wait
	framed  bool      // of it, a line of testing's own (frameMarker)
	// idle, when set, is called on the reader's goroutine each time it
	// has read everything written so far.
	idle func()
}

// floodPause is how long the reader lets output gather after a wait that
// found some. It bounds how late a line written during a flood is read.
const floodPause = time.Millisecond

// pipeSize is asked of the kernel for the capture pipe, so that a writer
// runs on through the reader's pause (where it is refused, the default
// 64 KiB serves, with shorter runs).
const pipeSize = 1 << 20

const (
	fSetPipeSz = 1031 // F_SETPIPE_SZ
	pollIn     = 0x1
)

type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

// newCapturePipe returns the reader and the write end, an ordinary
// blocking file, as a test binary's stdout is under go test.
func newCapturePipe() (*capturePipe, *os.File, error) {
	var p, wake [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := syscall.Pipe2(wake[:], syscall.O_CLOEXEC); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := syscall.SetNonblock(p[0], true); err != nil {
		for _, fd := range []int{p[0], p[1], wake[0], wake[1]} {
			syscall.Close(fd)
		}
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), fSetPipeSz, pipeSize)
	return &capturePipe{fd: p[0], wake: wake}, os.NewFile(uintptr(p[1]), "|1"), nil
}

// Read returns what the pipe holds, waiting as the type's comment says;
// io.EOF once every write end is closed or stop was called.
func (p *capturePipe) Read(b []byte) (int, error) {
	for {
		if p.stopped.Load() {
			return 0, io.EOF
		}
		n, err := syscall.Read(p.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
		case err != nil:
			return 0, os.NewSyscallError("read", err)
		case n == 0:
			return 0, io.EOF
		default:
			p.got = true
			p.framed = p.framed || bytes.IndexByte(b[:n], frameMarker) >= 0
			return n, nil
		}
		if p.idle != nil {
			p.idle()
		}
		// After testing's own lines ("=== RUN   BenchmarkX/case"), the
		// next is waited for at once: a sub-benchmark that panics right
		// after its run line ends the process within microseconds, and
		// the line must have been read by then to name the row. Only
		// the code's own output is let gather.
		if p.got && !p.framed {
			p.got = false
			time.Sleep(floodPause)
			continue
		}
		p.got, p.framed = false, false
		if err := p.wait(); err != nil {
			return 0, err
		}
	}
}

// wait blocks until the pipe is readable or has no writer left, or stop
// was called.
func (p *capturePipe) wait() error {
	fds := [2]pollFd{{fd: int32(p.fd), events: pollIn}, {fd: int32(p.wake[0]), events: pollIn}}
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0, 0, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		default:
			return os.NewSyscallError("ppoll", e)
		}
	}
}

// stop makes Read return io.EOF, now or from its current wait; any
// goroutine may call it.
func (p *capturePipe) stop() {
	p.stopped.Store(true)
	p.once.Do(func() { syscall.Close(p.wake[1]) })
}

// close releases the descriptors, once the reader returned.
func (p *capturePipe) close() {
	p.once.Do(func() { syscall.Close(p.wake[1]) })
	syscall.Close(p.wake[0])
	syscall.Close(p.fd)
}
