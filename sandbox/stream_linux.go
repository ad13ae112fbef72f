//go:build linux

package sandbox

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// stream drains one of the child's output pipes (stdout or stderr) from
// Start until end-of-file or the drain deadline, so that a child that writes
// without end delays no deadline and grows no memory. It keeps the tail of
// everything and, once marked, the head of what follows the mark.
type stream struct {
	f    *os.File        // the read end (non-blocking, in the poller); closed by finish
	rc   syscall.RawConn // f's descriptor, read under mu
	done chan struct{}   // closed when run returns
	tee  io.Writer       // receives a copy of every byte read; nil: none

	// mu is held across each read(2) and the accounting of its bytes, so
	// that mark finds every byte the child wrote before it either counted
	// or still in the pipe. It guards everything below.
	mu   sync.Mutex
	tail *tailBuffer
	head *headBuffer // nil until mark
	cut  bool        // the drain deadline, not end-of-file, ended the reading
}

// startStream starts draining f, keeping its last limit bytes and
// copying every byte to tee when it is not nil.
func startStream(f *os.File, limit int, tee io.Writer) *stream {
	s := &stream{f: f, tail: newTailBuffer(limit), done: make(chan struct{}), tee: tee}
	rc, err := f.SyscallConn()
	if err != nil {
		// Only a closed file has no descriptor: nothing to read.
		close(s.done)
		return s
	}
	s.rc = rc
	go s.run()
	return s
}

func (s *stream) run() {
	defer close(s.done)
	buf := make([]byte, 64<<10) // a pipe's default capacity
	for {
		var n int
		var rerr error
		err := s.rc.Read(func(fd uintptr) bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			for {
				n, rerr = unix.Read(int(fd), buf)
				if rerr != unix.EINTR {
					break
				}
			}
			if rerr == unix.EAGAIN {
				return false // wait until readable, or the deadline
			}
			if n > 0 {
				s.accept(buf[:n])
			}
			return true
		})
		if n > 0 && s.tee != nil {
			// Outside the lock: a slow terminal delays the copy, never
			// mark. A write error is the terminal's business, not the child's.
			_, _ = s.tee.Write(buf[:n])
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			s.mu.Lock()
			s.cut = !s.takeQueued(buf)
			s.mu.Unlock()
			return
		case err != nil, rerr != nil, n == 0: // n == 0: end-of-file
			return
		}
	}
}

// takeQueued reads, without waiting, what the pipe held when the drain
// deadline passed, and reports whether the pipe then ended. A supervisor
// slowed past the deadline (a loaded host) would otherwise lose output the
// child wrote before it exited, and name a holder that does not exist. Only
// the bytes queued at the deadline are read: a holder that escaped and
// writes on cannot keep the reading going. s.mu is held.
func (s *stream) takeQueued(buf []byte) (ended bool) {
	_ = s.rc.Control(func(fd uintptr) {
		queued, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ)
		if err != nil {
			return
		}
		for {
			want := min(len(buf), queued)
			if queued == 0 {
				want = 1 // one more: end-of-file, or a holder still there
			}
			n, err := unix.Read(int(fd), buf[:want])
			switch {
			case err == unix.EINTR:
				continue
			case err != nil:
				return // EAGAIN: a holder keeps the pipe open
			case n == 0:
				ended = true
				return
			}
			s.accept(buf[:n])
			if queued == 0 {
				return // a holder wrote after the deadline
			}
			queued = max(queued-n, 0)
		}
	})
	return ended
}

// accept keeps what one read returned. s.mu is held.
func (s *stream) accept(b []byte) {
	off := s.tail.total
	s.tail.Write(b)
	if s.head != nil {
		s.head.writeAt(off, b)
	}
}

// mark starts the head: from now on, the first limit bytes the child writes
// are kept apart. Bytes still in the pipe were written before the mark and
// are not the head's. Only the first mark counts.
func (s *stream) mark(limit int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head != nil {
		return
	}
	pending := 0
	if s.rc != nil {
		_ = s.rc.Control(func(fd uintptr) {
			// TIOCINQ is FIONREAD: the bytes waiting in the pipe.
			if n, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
				pending = n
			}
		})
	}
	s.head = newHeadBuffer(limit, s.tail.total+int64(pending))
}

// finish lets the stream read until end-of-file or until by, whichever
// comes first, then closes the pipe.
func (s *stream) finish(by time.Time) {
	if err := s.f.SetReadDeadline(by); err != nil {
		// Not pollable (cannot happen for os.Pipe on Linux): closing
		// below ends the read.
		t := time.NewTimer(time.Until(by))
		select {
		case <-s.done:
		case <-t.C:
			s.mu.Lock()
			s.cut = true
			s.mu.Unlock()
		}
		t.Stop()
		s.f.Close()
		return
	}
	<-s.done
	s.f.Close()
}

// capture returns the tail, the head (zero unless marked) and whether the
// drain deadline cut the reading short.
func (s *stream) capture() (Capture, Stacks, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st Stacks
	if s.head != nil {
		st = s.head.stacks()
	}
	return s.tail.Capture(), st, s.cut
}
