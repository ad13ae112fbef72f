//go:build linux

package worker

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// capturePipe is the pipe os.Stdout points into while the worker reads
// testing's output (captureOutput). Nothing waits on its read end while
// output flows: a descriptor with a waiter makes every write wake a
// thread, so a benchmark that prints a line per write would pay a wake-up
// per line that it does not pay under go test, which hands the test binary
// its own stdout (a flood of 300,000 lines: 0.93 s of CPU through a polled
// pipe, 0.52 s through this one, 0.56 s into a file). The reader reads what
// the pipe holds; when it is empty, it sleeps floodPause if the last wait
// found output of the code's (a flood is then read a pause's worth at a
// time) and waits if not or if the output held a line of testing's (the
// first line after a quiet spell, and the one after testing's "=== RUN",
// are read at once).
//
// The wait goes through the runtime's poller (pollWait), not a blocking
// ppoll(2): a goroutine in a blocking system call keeps its P until sysmon
// takes it back, up to 10 ms later, and with GOMAXPROCS=1 (a child
// confined to one CPU) the code under test stood still meanwhile: under
// taskset -c 0, 22 of 30 fresh processes of a 900 ns/op benchmark measured
// 1.43-1.51 µs/op, 0.79-0.93 µs/op once the wait went through the poller
// (TestTimingCaptureLeavesTheCPU).
type capturePipe struct {
	fd      int // the read end, non-blocking
	stopped atomic.Bool
	mu      sync.Mutex
	waiting *os.File // the descriptor pollWait waits on, while it does
	got     bool     // output read since the last wait
	framed  bool     // of it, a line of testing's own (frameMarker)
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

const fSetPipeSz = 1031 // F_SETPIPE_SZ

// newCapturePipe returns the reader and the write end, an ordinary
// blocking file, as a test binary's stdout is under go test.
func newCapturePipe() (*capturePipe, *os.File, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := syscall.SetNonblock(p[0], true); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), fSetPipeSz, pipeSize)
	return &capturePipe{fd: p[0]}, os.NewFile(uintptr(p[1]), "|1"), nil
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
			p.took(b[:n])
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
		if p.framed {
			// The line after testing's may come at once and be the
			// process's last (a sub-benchmark that panics right after
			// its run line): it is looked for a while before the wait,
			// which a loaded host may wake late. Each look yields to
			// the code under test.
			p.framed = false
			if n := p.spin(b, framedSpin); n > 0 {
				p.took(b[:n])
				return n, nil
			}
		}
		p.got, p.framed = false, false
		n, err = p.pollWait(b)
		if n > 0 || err != nil {
			if n > 0 {
				p.took(b[:n])
			}
			return n, err
		}
	}
}

// took notes what a read returned: output, and whether it held a line of
// testing's.
func (p *capturePipe) took(b []byte) {
	p.got = true
	p.framed = p.framed || bytes.IndexByte(b, frameMarker) >= 0
}

// framedSpin is how long the reader looks for more output after a line of
// testing's before it waits.
const framedSpin = 2 * time.Millisecond

// spin reads the pipe without waiting for up to d, yielding between
// looks; it returns what it read, or 0.
func (p *capturePipe) spin(b []byte, d time.Duration) int {
	for end := time.Now().Add(d); time.Now().Before(end) && !p.stopped.Load(); {
		n, err := syscall.Read(p.fd, b)
		if err == nil && n > 0 {
			return n
		}
		if err == nil || err != syscall.EAGAIN && err != syscall.EINTR {
			return 0 // the end of the output, or an error: Read sees it again
		}
		runtime.Gosched()
	}
	return 0
}

// pollWait reads the pipe once it holds output or has no writer left,
// waiting in the runtime's poller, which parks the goroutine and leaves its
// P to the code under test. The pipe is registered with the poller only for
// the wait, through a duplicate closed after it: registered for good, every
// write of a flood would wake a thread. It returns 0 and no error when the
// wait ended without output (a signal, or stop).
func (p *capturePipe) pollWait(b []byte) (int, error) {
	dup, err := syscall.Dup(p.fd)
	if err != nil {
		return 0, os.NewSyscallError("dup", err)
	}
	syscall.CloseOnExec(dup)
	f := os.NewFile(uintptr(dup), "|1 (read)") // non-blocking: the poller takes it
	defer func() {
		p.mu.Lock()
		p.waiting = nil
		p.mu.Unlock()
		f.Close()
	}()
	p.mu.Lock()
	if p.stopped.Load() {
		p.mu.Unlock()
		return 0, io.EOF
	}
	p.waiting = f
	p.mu.Unlock()
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, rerr = syscall.Read(int(fd), b)
		return rerr != syscall.EAGAIN
	})
	switch {
	case p.stopped.Load():
		return 0, io.EOF
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, nil
	case err != nil:
		return 0, err
	case rerr == syscall.EINTR:
		return 0, nil
	case rerr != nil:
		return 0, os.NewSyscallError("read", rerr)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// stop makes Read return io.EOF, now or from its current wait; any
// goroutine may call it.
func (p *capturePipe) stop() {
	p.stopped.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting != nil {
		_ = p.waiting.SetReadDeadline(time.Unix(1, 0)) // ends the wait
	}
}

// close releases the read end, once the reader returned.
func (p *capturePipe) close() { syscall.Close(p.fd) }
