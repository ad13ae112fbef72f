//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

// exchange is the supervisor's side of the protocol endpoint: it sends the
// Request, reads and checks every message with a protocol.Checker, and keeps
// the ones the Outcome reports. A violation, or a parent-side failure, is
// recorded in the verdict and kills the child at once.
type exchange struct {
	sock *os.File // the supervisor's end of the socketpair, non-blocking; closed by close
	conn *protocol.Conn
	rw   *countingFile // under conn: counts bytes read, to tell a cut frame
	dl   *readDeadline // the endpoint's read deadline
	d    deadlines     // the child's deadlines
	v    *verdict      // where violations and failures are recorded
	p    *process      // killed at once on a violation or a failure
	mu   sync.Mutex    // one reader at a time, held across the read; guards everything below
	chk  protocol.Checker
	// The accepted messages that decide the classification.
	hello   *protocol.Hello
	skip    *protocol.Skip
	failure *protocol.Failure
	eof     bool  // the stream ended, was cut off at the drain deadline, or was closed
	err     error // sticky error of the reading side
	held    bool  // a read was cut off at the drain deadline: something outside the child held the endpoint
}

func newExchange(sock *os.File, d deadlines, v *verdict, p *process) *exchange {
	dl := &readDeadline{sock: sock}
	rw := &countingFile{File: sock, dl: dl}
	return &exchange{
		sock: sock,
		conn: msgpackcodec.NewConn(rw),
		rw:   rw,
		dl:   dl,
		d:    d,
		v:    v,
		p:    p,
	}
}

// helloMessage returns the Hello once it has been accepted, reading it if
// need be.
func (ex *exchange) helloMessage() (protocol.Hello, error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.hello != nil {
		return *ex.hello, nil
	}
	m, err := ex.receiveLocked()
	if err != nil {
		return protocol.Hello{}, err
	}
	return m.(protocol.Hello), nil // the Checker admits nothing else first
}

// send checks req against the exchange so far and sends it.
func (ex *exchange) send(req protocol.Request) error {
	ex.mu.Lock()
	err := ex.chk.Sent(req)
	ex.mu.Unlock()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	_ = ex.sock.SetWriteDeadline(ex.d.total())
	err = ex.conn.Send(req)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET):
		return fmt.Errorf("sandbox: send request: child closed its endpoint: %w", err)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return ex.d.timeout(PhaseExecution)
	}
	ioErr := &IOError{Op: "send", Err: err}
	ex.fail(nil, ioErr)
	return ioErr
}

// receive reads and checks one message.
func (ex *exchange) receive() (protocol.Message, error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.receiveLocked()
}

// receiveLocked reads and checks one message; ex.mu is held.
func (ex *exchange) receiveLocked() (protocol.Message, error) {
	if ex.err != nil {
		return nil, ex.err
	}
	first := ex.hello == nil
	if ex.eof {
		if first {
			return nil, ErrNoHello
		}
		return nil, io.EOF
	}
	// Past a Done the stream is read on, to its end: the package's TestMain
	// may call m.Run again, and the worker then serves the Request once
	// more after a Hello that says so (protocol.Hello.Again).

	ex.dl.arm(func(cutoff time.Time) time.Time { return ex.d.read(!first, cutoff) })
	mark := ex.rw.read
	m, err := ex.conn.Receive()
	if err != nil {
		return nil, ex.readFailed(err, first, ex.rw.read != mark)
	}
	if err := ex.chk.Check(m); err != nil {
		ex.err = err
		ex.fail(err, nil)
		return nil, err
	}
	switch m := m.(type) {
	case protocol.Hello:
		if m.Again != 0 {
			break // a later series: the startup deadline was met long ago
		}
		if !ex.v.hello(time.Now()) {
			// The monitor expired the startup deadline first.
			ex.err = ex.d.timeout(PhaseStartup)
			return nil, ex.err
		}
		ex.hello = &m
	case protocol.Skip:
		ex.skip = &m
	case protocol.Failure:
		ex.failure = &m
	}
	return m, nil
}

// readFailed turns a read error into what the caller sees, and records it
// where it decides the classification. partial says that part of a frame was
// consumed, so the stream cannot be read any further.
func (ex *exchange) readFailed(err error, first, partial bool) error {
	end := func() error {
		ex.eof = true
		if first {
			return ErrNoHello
		}
		return io.EOF
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		// ECONNRESET: the child exited with our request unread in its
		// socket buffer. Its exit explains the rest.
		return end()
	case errors.Is(err, os.ErrDeadlineExceeded):
		if ex.dl.isCut() {
			// Reaped, its group and cgroup killed: only a process that
			// escaped could still hold the endpoint. Past a Done that is
			// no loss: the child said all it had to say.
			ex.held = !ex.chk.Done()
			return end()
		}
		if ex.chk.Done() && !partial {
			// A child alive past its Done at the total deadline: the
			// deadline's own handling classifies it.
			return end()
		}
		te := ex.d.timeout(PhaseExecution)
		if first {
			te = ex.d.timeout(PhaseStartup)
		}
		if partial {
			ex.err = te
		}
		// Otherwise not sticky: a frame that arrives as the child exits
		// at the deadline can still be read, by Wait if not the caller.
		return te
	case errors.Is(err, protocol.ErrMalformed):
		ex.err = err
		ex.fail(err, nil)
		return err
	}
	ex.err = &IOError{Op: "receive", Err: err}
	ex.fail(nil, ex.err)
	return ex.err
}

// fail records a protocol violation or a parent-side failure and kills the
// child at once.
func (ex *exchange) fail(protoErr, ioErr error) {
	ex.v.fail(protoErr, ioErr)
	ex.p.signal(syscall.SIGKILL)
}

// close reads and checks the messages the caller left unread (a Done, a
// Skip, a Failure or a violation still counts), then closes the endpoint.
// It runs once the child has been reaped, so every read ends by the drain
// deadline.
func (ex *exchange) close() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	for {
		if _, err := ex.receiveLocked(); err != nil {
			break
		}
	}
	ex.eof = true
	ex.sock.Close()
}

// record copies what the exchange decides into f, and returns the Hello and
// whether the endpoint was held open past the drain deadline.
func (ex *exchange) record(f *facts) (hello *protocol.Hello, held bool) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	f.done, f.skip, f.failure, f.hello = ex.chk.Done(), ex.skip, ex.failure, ex.hello != nil
	return ex.hello, ex.held
}

// readDeadline is the endpoint's read deadline: armed by the reader before
// each read, cut short by the teardown, so that a read waiting on a process
// that escaped containment ends by the drain deadline. Its lock is never
// held across a read.
type readDeadline struct {
	sock   *os.File
	mu     sync.Mutex // guards armed and cutoff, and orders the calls to SetReadDeadline
	armed  time.Time  // the deadline of the current (or last) read
	cutoff time.Time  // the drain deadline; zero until the teardown
}

// arm sets the deadline of the next read to deadline(cutoff).
func (r *readDeadline) arm(deadline func(cutoff time.Time) time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.armed = deadline(r.cutoff)
	_ = r.sock.SetReadDeadline(r.armed)
}

// cut makes every read end by by, the current one included.
func (r *readDeadline) cut(by time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cutoff = by
	if r.armed.IsZero() || by.Before(r.armed) {
		r.armed = by
		_ = r.sock.SetReadDeadline(by)
	}
}

// isCut reports whether the teardown has set the drain deadline.
func (r *readDeadline) isCut() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.cutoff.IsZero()
}

// countingFile counts the bytes read through it, so that a failed read can
// tell whether it left the stream in the middle of a frame. Past the drain
// deadline it still returns what the socket held when the deadline passed:
// a read that finds the deadline past does not look at the socket, and a
// supervisor slowed past it (a loaded host) would otherwise lose the frames
// a child sent before it exited (its Done) and call the exit premature.
type countingFile struct {
	*os.File
	dl *readDeadline
	// Only touched by the holder of exchange.mu.
	read     int64
	late     bool // the bytes queued at the drain deadline were counted
	lateLeft int  // how many of them are still to be read
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && f.dl.isCut() {
		switch m, eof := f.readQueued(p); {
		case m > 0:
			n, err = m, nil
		case eof:
			err = io.EOF
		}
	}
	f.read += int64(n)
	return n, err
}

// readQueued reads, without waiting, up to len(p) of the bytes the socket
// held when a read first found the drain deadline past; once they are read,
// it tells end-of-file (every other end closed) from a holder keeping the
// endpoint open. Only those bytes: a holder that escaped and writes on
// cannot keep the reading going.
func (f *countingFile) readQueued(p []byte) (n int, eof bool) {
	rc, err := f.File.SyscallConn()
	if err != nil || len(p) == 0 {
		return 0, false
	}
	_ = rc.Control(func(fd uintptr) {
		if !f.late {
			f.late = true
			// SIOCINQ: the bytes in a stream socket's receive queue.
			f.lateLeft, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ)
		}
		want := p[:min(len(p), f.lateLeft)]
		if f.lateLeft <= 0 {
			want = p[:1] // end-of-file, or a holder still there
		}
		for {
			m, err := unix.Read(int(fd), want)
			switch {
			case err == unix.EINTR:
				continue
			case err != nil: // EAGAIN: a holder keeps it open
			case m == 0:
				eof = true
			case f.lateLeft > 0:
				n = m
				f.lateLeft -= m
			default:
				// A holder wrote after the deadline: that byte is
				// not the child's, and the stream is cut here.
			}
			return
		}
	})
	return n, eof
}
