//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

// drainWindow bounds how long, after the child was reaped and its group and
// cgroup killed, the pipes and the socket are still read before they are
// closed. Only a process that escaped containment can keep them open that
// long; normally they reach end-of-file at once.
var drainWindow = 250 * time.Millisecond

// Seams for tests.
var (
	// testHookBeforeReap, when set, runs just before the root is reaped.
	testHookBeforeReap func(pid int)
	// cloneIntoCgroup false skips clone3 CLONE_INTO_CGROUP, to exercise
	// the fallback.
	cloneIntoCgroup = true
)

// Child is one started child process. Hello, Send and Receive drive the
// exchange from one goroutine; Wait may be called from any goroutine, any
// number of times. The child is terminated at its deadlines and reaped
// whether or not anyone is calling these methods, but only Wait releases the
// protocol endpoint: always call it.
type Child struct {
	pid   int
	proc  *os.Process
	t0    time.Time // Start was entered; both deadlines count from here
	sock  *os.File  // the supervisor's end of the socketpair, non-blocking
	rw    *countingFile
	conn  *protocol.Conn
	out   *drain
	errs  *drain
	cg    *cgroup // nil: process group only
	grace time.Duration

	startupLimit, totalLimit       time.Duration
	startupDeadline, totalDeadline time.Time

	envDesc, envHash string

	exited chan struct{} // closed when the root's exit was observed (not yet reaped)
	done   chan struct{} // closed when the root was reaped and the streams closed

	recvMu  sync.Mutex // one reader of conn at a time; guards eof and recvErr
	eof     bool       // the stream ended, or the reader gave up on it after teardown
	recvErr error      // sticky error of the reading side

	checkMu sync.Mutex // guards checker and what it accepted
	checker protocol.Checker
	hello   *protocol.Hello
	skip    *protocol.Skip
	failure *protocol.Failure

	mu           sync.Mutex // guards everything below
	helloAt      time.Time
	readDeadline time.Time
	killing      bool // a kill was decided; later deadlines do not reclassify
	timeout      *TimeoutError
	canceled     error
	protoErr     error
	ioErr        error
	lost         bool      // reaped by someone else: the pid is not ours any more
	reaped       bool      // Process.Wait was called: never signal the pid again
	drainBy      time.Time // set at teardown: reads end by then
	containment  Containment
	note         string
	cgroupDir    string
	status       exitStatus
	reapedAt     time.Time

	waitOnce sync.Once
	outcome  Outcome
}

// Start validates cfg and starts the child. The clock for both deadlines
// starts on entry. Errors are a *ConfigError (nothing was spawned) or an
// *IOError.
func Start(cfg Config) (*Child, error) { return StartContext(context.Background(), cfg) }

// StartContext is Start with a context: when ctx is done before the child
// exits, the child is terminated (SIGTERM, Grace, SIGKILL) and classified
// ClassCanceled. An already-done ctx spawns nothing. ctx must not be nil.
func StartContext(ctx context.Context, cfg Config) (*Child, error) {
	t0 := time.Now()
	r, err := cfg.resolve(os.Environ())
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, canceledError(ctx)
	}
	cloexecOnce.Do(func() { cloexecErr = markInheritedCloexec() })
	if cloexecErr != nil {
		return nil, &IOError{Op: "close-on-exec", Err: cloexecErr}
	}
	c := &Child{
		t0:           t0,
		grace:        r.grace,
		startupLimit: min(r.startupTimeout, r.totalTimeout),
		totalLimit:   r.totalTimeout,
		envDesc:      r.envDesc,
		envHash:      r.envHash,
		exited:       make(chan struct{}),
		done:         make(chan struct{}),
	}
	c.startupDeadline = t0.Add(c.startupLimit)
	c.totalDeadline = t0.Add(c.totalLimit)
	if err := c.spawn(r); err != nil {
		return nil, err
	}
	go c.waitExit()
	go c.monitor(ctx)
	return c, nil
}

func canceledError(ctx context.Context) error {
	return fmt.Errorf("%w: %w", ErrCanceled, context.Cause(ctx))
}

// spawn creates the endpoint, the pipes and the cgroup and starts the
// process. On error everything it created is released.
func (c *Child) spawn(r *resolved) (err error) {
	var childSide, parentSide []*os.File
	defer func() {
		for _, f := range childSide {
			f.Close() // the child has its own copies
		}
		if err != nil {
			for _, f := range parentSide {
				f.Close()
			}
		}
	}()

	fds, err := socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return &IOError{Op: "socketpair", Err: err}
	}
	// Non-blocking, so that os.NewFile puts it in the poller and read
	// deadlines work; the child's end stays blocking, as programs expect.
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return &IOError{Op: "socketpair", Err: err}
	}
	sock := os.NewFile(uintptr(fds[0]), "benchsup-protocol")
	childSock := os.NewFile(uintptr(fds[1]), "benchsup-protocol-child")
	parentSide = append(parentSide, sock)
	childSide = append(childSide, childSock)

	stdin, err := os.Open(os.DevNull)
	if err != nil {
		return &IOError{Op: "open " + os.DevNull, Err: err}
	}
	childSide = append(childSide, stdin)
	var pipes [2][2]*os.File // stdout, stderr; read end, write end
	for i := range pipes {
		rd, wr, err := newPipe()
		if err != nil {
			return &IOError{Op: "pipe", Err: err}
		}
		parentSide = append(parentSide, rd)
		childSide = append(childSide, wr)
		pipes[i] = [2]*os.File{rd, wr}
	}

	sys := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	attr := &os.ProcAttr{
		Dir:   r.dir,
		Env:   r.env,
		Files: []*os.File{stdin, pipes[0][1], pipes[1][1], childSock}, // fds 0-3
		Sys:   sys,
	}

	var cg *cgroup
	var note string
	if r.cgroup == CgroupOff {
		note = "cgroup containment is off (CgroupOff)"
	} else if sup := probeCgroup(); sup.parent == "" {
		note = sup.note
	} else if cg, err = newCgroup(sup); err != nil {
		note = fmt.Sprintf("cannot create a cgroup under %s: %v", sup.parent, err)
	}
	if cg != nil {
		// The child may attribute its cgroup's pressure to itself only if
		// it is really in this one: it compares the name with its own.
		attr.Env = append(attr.Env[:len(attr.Env):len(attr.Env)], protocol.EnvCgroup+"="+filepath.Base(cg.dir))
	}
	proc, cg, cgNote, err := spawnContained(r, attr, cg)
	if err != nil {
		return spawnError(err)
	}
	if cgNote != "" {
		note = cgNote
	}
	containment := ContainmentProcessGroup
	if cg != nil {
		containment = ContainmentCgroup
	}

	c.proc, c.pid = proc, proc.Pid
	c.sock, c.rw = sock, &countingFile{File: sock}
	c.conn = msgpackcodec.NewConn(c.rw)
	c.out = startDrain(pipes[0][0], r.stdoutLimit)
	c.errs = startDrain(pipes[1][0], r.stderrLimit)
	c.cg, c.containment, c.note = cg, containment, note
	if cg != nil {
		c.cgroupDir = cg.dir
	}
	return nil
}

// spawnContained starts the process, in cg when it is not nil. It returns
// the cgroup the process is in (nil if none) and a note when the cgroup was
// not entered as intended. On error, cg has been removed.
func spawnContained(r *resolved, attr *os.ProcAttr, cg *cgroup) (*os.Process, *cgroup, string, error) {
	if cg == nil {
		proc, err := spawn(r.path, r.argv, attr)
		return proc, nil, "", err
	}
	// Enter the cgroup at clone time (clone3 CLONE_INTO_CGROUP), so that
	// not even the child's first instruction runs outside it.
	intoErr := errors.New("disabled")
	if cloneIntoCgroup {
		var fd int
		if fd, intoErr = unix.Open(cg.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); intoErr == nil {
			sys := *attr.Sys
			sys.UseCgroupFD, sys.CgroupFD = true, fd
			into := *attr
			into.Sys = &sys
			proc, err := spawn(r.path, r.argv, &into)
			unix.Close(fd)
			if err == nil {
				return proc, cg, "", nil
			}
			intoErr = err
		}
	}
	// An older kernel, or a seccomp filter refusing clone3: spawn plainly
	// and move the child, which runs outside the cgroup in between.
	proc, err := spawn(r.path, r.argv, attr)
	if err != nil {
		_ = cg.remove()
		return nil, nil, "", err
	}
	if err := cg.addProc(proc.Pid); err != nil {
		_ = cg.remove()
		return proc, nil, fmt.Sprintf("no cgroup: entering it at clone failed (%v), and after spawn (%v)", intoErr, err), nil
	}
	return proc, cg, fmt.Sprintf("cgroup entered after spawn: entering it at clone failed (%v)", intoErr), nil
}

// PID returns the child's process id.
func (c *Child) PID() int { return c.pid }

// Hello returns the child's first message, waiting for it until the startup
// deadline. It is checked by a protocol.Checker: another protocol version is
// a *protocol.VersionError and any other first message an error wrapping
// protocol.ErrMalformed; either kills the child at once. A child that closes
// its endpoint first yields ErrNoHello, a deadline a *TimeoutError. Once it
// has arrived, Hello returns it again.
func (c *Child) Hello() (protocol.Hello, error) {
	c.recvMu.Lock()
	defer c.recvMu.Unlock()
	if h := c.acceptedHello(); h != nil {
		return *h, nil
	}
	m, err := c.receiveLocked()
	if err != nil {
		return protocol.Hello{}, err
	}
	return m.(protocol.Hello), nil // the Checker admits nothing else first
}

// Send sends the request. It must follow Hello and happen once. A Request
// beyond the protocol's bounds is refused without sending anything. A send
// that fails while the child lives kills it (ClassParentIO); one that fails
// because the child closed its end returns an error and leaves the
// classification to the child's exit.
func (c *Child) Send(req protocol.Request) error {
	if _, err := msgpackcodec.AppendFrame(nil, req); err != nil {
		return fmt.Errorf("sandbox: request: %w", err)
	}
	select {
	case <-c.done:
		return errors.New("sandbox: send request: the child has exited")
	default:
	}
	c.checkMu.Lock()
	err := c.checker.Sent(req)
	c.checkMu.Unlock()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	_ = c.sock.SetWriteDeadline(c.totalDeadline)
	err = c.conn.Send(req)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET):
		return fmt.Errorf("sandbox: send request: child closed its endpoint: %w", err)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &TimeoutError{Phase: PhaseExecution, Limit: c.totalLimit}
	}
	ioErr := &IOError{Op: "send", Err: err}
	c.fail(nil, ioErr)
	return ioErr
}

// Receive returns the next message, waiting for it until the total deadline
// (the startup deadline while the Hello is outstanding: Receive may be used
// instead of Hello). Each message is checked by the protocol.Checker; a
// violation is returned (wrapping protocol.ErrMalformed) and kills the child
// at once. Receive returns io.EOF after Done, when the stream ends, and once
// the child has been reaped and nothing more arrived within a short window;
// a *TimeoutError at a deadline. A violation, an I/O error, or a deadline
// that cut a frame in two ends the stream: Receive keeps returning it.
func (c *Child) Receive() (protocol.Message, error) {
	c.recvMu.Lock()
	defer c.recvMu.Unlock()
	return c.receiveLocked()
}

func (c *Child) acceptedHello() *protocol.Hello {
	c.checkMu.Lock()
	defer c.checkMu.Unlock()
	return c.hello
}

// receiveLocked reads and checks one message; c.recvMu is held.
func (c *Child) receiveLocked() (protocol.Message, error) {
	if c.recvErr != nil {
		return nil, c.recvErr
	}
	c.checkMu.Lock()
	first, finished := c.hello == nil, c.checker.Done()
	c.checkMu.Unlock()
	if c.eof || finished {
		if first {
			return nil, ErrNoHello
		}
		return nil, io.EOF
	}

	deadline := c.totalDeadline
	if first {
		deadline = c.startupDeadline
	}
	c.mu.Lock()
	if !c.drainBy.IsZero() && c.drainBy.Before(deadline) {
		deadline = c.drainBy
	}
	c.readDeadline = deadline
	_ = c.sock.SetReadDeadline(deadline)
	c.mu.Unlock()

	mark := c.rw.read
	m, err := c.conn.Receive()
	if err != nil {
		return nil, c.readFailed(err, first, c.rw.read != mark)
	}

	c.checkMu.Lock()
	err = c.checker.Check(m)
	if err == nil {
		switch m := m.(type) {
		case protocol.Skip:
			c.skip = &m
		case protocol.Failure:
			c.failure = &m
		}
	}
	c.checkMu.Unlock()
	if err != nil {
		c.recvErr = err
		c.fail(err, nil)
		return nil, err
	}
	if h, ok := m.(protocol.Hello); ok {
		c.mu.Lock()
		late := c.timeout != nil && c.timeout.Phase == PhaseStartup
		if !late {
			c.helloAt = time.Now()
		}
		c.mu.Unlock()
		if late {
			// The monitor expired the startup deadline first.
			c.recvErr = &TimeoutError{Phase: PhaseStartup, Limit: c.startupLimit}
			return nil, c.recvErr
		}
		c.checkMu.Lock()
		c.hello = &h
		c.checkMu.Unlock()
	}
	return m, nil
}

// readFailed turns a read error into what the caller sees, and records it
// where it decides the classification. partial says that part of a frame was
// consumed, so the stream cannot be read any further.
func (c *Child) readFailed(err error, first, partial bool) error {
	end := func() error {
		c.eof = true
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
		c.mu.Lock()
		tornDown := !c.drainBy.IsZero()
		c.mu.Unlock()
		if tornDown {
			return end() // reaped; only an escaped process could still write
		}
		var te *TimeoutError
		if first {
			te = &TimeoutError{Phase: PhaseStartup, Limit: c.startupLimit}
		} else {
			te = &TimeoutError{Phase: PhaseExecution, Limit: c.totalLimit}
		}
		if partial {
			c.recvErr = te
		}
		// Otherwise not sticky: a frame that arrives as the child exits
		// at the deadline can still be read, by Wait if not the caller.
		return te
	case errors.Is(err, protocol.ErrMalformed):
		c.recvErr = err
		c.fail(err, nil)
		return err
	}
	c.recvErr = &IOError{Op: "receive", Err: err}
	c.fail(nil, c.recvErr)
	return c.recvErr
}

// fail records a protocol violation or a parent I/O failure and kills the
// child at once.
func (c *Child) fail(protoErr, ioErr error) {
	c.mu.Lock()
	if protoErr != nil && c.protoErr == nil {
		c.protoErr = protoErr
	}
	if ioErr != nil && c.ioErr == nil {
		c.ioErr = ioErr
	}
	c.killing = true
	c.mu.Unlock()
	c.signalAll(syscall.SIGKILL)
}

// signalAll sends sig to the child's process group, to the root itself (in
// case it left its group) and to its cgroup, unless the root has been reaped
// (its pid may be reused) or was reaped by someone else.
func (c *Child) signalAll(sig syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reaped {
		return
	}
	if !c.lost {
		_ = unix.Kill(-c.pid, sig) // ESRCH: the group is empty
		_ = c.proc.Signal(sig)     // through a pidfd where the kernel has them
	}
	if c.cg != nil {
		if sig == syscall.SIGKILL {
			_ = c.cg.kill()
		} else {
			c.cg.signal(sig)
		}
	}
}

// waitExit observes the root's exit without reaping it: until it is reaped,
// its pid and process-group id cannot be reused, so the group can still be
// killed safely.
func (c *Child) waitExit() {
	defer close(c.exited)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, c.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			// ECHILD: someone else reaped it.
			c.mu.Lock()
			c.lost = true
			if c.ioErr == nil {
				c.ioErr = &IOError{Op: "wait", Err: fmt.Errorf("%w: waitid: %w", ErrLostChild, err)}
			}
			c.mu.Unlock()
		}
		return
	}
}

// monitor enforces the deadlines and the context, then tears down.
func (c *Child) monitor(ctx context.Context) {
	defer close(c.done)
	startup := time.NewTimer(time.Until(c.startupDeadline))
	defer startup.Stop()
	total := time.NewTimer(time.Until(c.totalDeadline))
	defer total.Stop()
	startupC := startup.C
	for c.monitorStep(ctx, startupC, total.C) {
		startupC = nil // the startup deadline passed with the Hello in
	}
	c.teardown()
}

// monitorStep waits for the next event; it returns true to keep waiting.
func (c *Child) monitorStep(ctx context.Context, startup, total <-chan time.Time) bool {
	select {
	case <-c.exited:
		return false
	case <-startup:
		if c.hasExited() {
			return false // it exited as the deadline came: not a timeout
		}
		if !c.expire(false) {
			return true
		}
	case <-total:
		if c.hasExited() {
			return false
		}
		c.expire(true)
	case <-ctx.Done():
		if c.hasExited() {
			return false
		}
		c.mu.Lock()
		if !c.killing {
			c.killing = true
			c.canceled = canceledError(ctx)
		}
		c.mu.Unlock()
	}
	c.terminate()
	return false
}

func (c *Child) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// expire records a timeout at a deadline; at the startup deadline only when
// no Hello has arrived. It reports whether the child is to be terminated.
func (c *Child) expire(total bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.killing {
		return true // already being killed for another reason
	}
	switch {
	case c.helloAt.IsZero():
		c.timeout = &TimeoutError{Phase: PhaseStartup, Limit: c.startupLimit}
	case total:
		c.timeout = &TimeoutError{Phase: PhaseExecution, Limit: c.totalLimit}
	default:
		return false
	}
	c.killing = true
	return true
}

// terminate sends SIGTERM, waits Grace for the root to exit, then SIGKILL,
// and returns once the root's exit has been observed.
func (c *Child) terminate() {
	c.signalAll(syscall.SIGTERM)
	grace := time.NewTimer(c.grace)
	defer grace.Stop()
	select {
	case <-c.exited:
		return
	case <-grace.C:
	}
	c.signalAll(syscall.SIGKILL)
	<-c.exited
}

// teardown runs once the root has exited: it kills what is left of the group
// and the cgroup, reaps the root, removes the cgroup and closes the output
// streams after a bounded drain.
func (c *Child) teardown() {
	c.mu.Lock()
	if !c.lost {
		// The root is an unreaped zombie, so its group id is still ours.
		_ = unix.Kill(-c.pid, syscall.SIGKILL)
	}
	c.mu.Unlock()
	var notes []string
	if c.cg != nil {
		if err := c.cg.kill(); err != nil {
			notes = append(notes, "cgroup kill: "+err.Error())
		}
		if err := c.cg.waitEmpty(cgroupEmptyTimeout); err != nil {
			notes = append(notes, err.Error())
		}
	}

	c.mu.Lock()
	c.reaped = true
	c.mu.Unlock()
	if testHookBeforeReap != nil {
		testHookBeforeReap(c.pid)
	}
	state, err := c.proc.Wait()
	reapedAt := time.Now()
	if err != nil {
		_ = c.proc.Release() // the pidfd, which a failed Wait keeps
	}

	if c.cg != nil {
		if err := c.cg.remove(); err != nil {
			notes = append(notes, err.Error())
		}
	}
	drainBy := reapedAt.Add(drainWindow)

	c.mu.Lock()
	c.reapedAt = reapedAt
	if err != nil {
		c.lost = true
		if c.ioErr == nil {
			c.ioErr = &IOError{Op: "reap", Err: fmt.Errorf("%w: %w", ErrLostChild, err)}
		}
	} else if ws, ok := state.Sys().(syscall.WaitStatus); ok {
		c.status = exitStatus{
			known:      true,
			exited:     ws.Exited(),
			code:       ws.ExitStatus(),
			signal:     ws.Signal(),
			coreDumped: ws.CoreDump(),
		}
	}
	for _, n := range notes {
		if c.note != "" {
			c.note += "; "
		}
		c.note += n
	}
	// Cut short a read that is waiting for a process that escaped.
	c.drainBy = drainBy
	if c.readDeadline.IsZero() || drainBy.Before(c.readDeadline) {
		c.readDeadline = drainBy
		_ = c.sock.SetReadDeadline(drainBy)
	}
	c.mu.Unlock()

	c.out.finish(drainBy)
	c.errs.finish(drainBy)
}

// Wait waits until the child has exited (terminating it at the total
// deadline), killed what was left of its process group and cgroup and been
// reaped; it reads and checks whatever messages are still buffered, releases
// the endpoint and returns the Outcome. It may be called any number of
// times, from any goroutine.
func (c *Child) Wait() Outcome {
	c.waitOnce.Do(func() {
		<-c.done
		c.recvMu.Lock()
		for {
			// Messages the caller did not read still count: a Done, a
			// Skip, a Failure, or a violation.
			if _, err := c.receiveLocked(); err != nil {
				break
			}
		}
		c.eof = true // the endpoint is closed below
		c.recvMu.Unlock()
		c.sock.Close()
		c.outcome = c.classify()
	})
	return c.outcome
}

func (c *Child) classify() Outcome {
	stdout, stderr := c.out.tail.Capture(), c.errs.tail.Capture()
	f := facts{stderrTail: tailString(stderr.Tail, errTailLimit)}
	c.checkMu.Lock()
	f.done, f.skip, f.failure = c.checker.Done(), c.skip, c.failure
	hello := c.hello
	c.checkMu.Unlock()

	c.mu.Lock()
	defer c.mu.Unlock()
	f.canceled, f.timeout, f.protoErr, f.ioErr, f.status = c.canceled, c.timeout, c.protoErr, c.ioErr, c.status
	o := Outcome{
		PID:             c.pid,
		ExitCode:        -1,
		Hello:           hello,
		Skip:            f.skip,
		Failure:         f.failure,
		Stdout:          stdout,
		Stderr:          stderr,
		Containment:     c.containment,
		ContainmentNote: c.note,
		Cgroup:          c.cgroupDir,
		EnvPolicy:       c.envDesc,
		EnvNamesHash:    c.envHash,
		Elapsed:         c.reapedAt.Sub(c.t0),
	}
	o.Class, o.Err = f.classify()
	if c.status.known && c.status.exited {
		o.ExitCode = c.status.code
	}
	if !c.helloAt.IsZero() {
		o.StartupDuration = c.helloAt.Sub(c.t0)
	}
	return o
}

// drain copies one output pipe into a tailBuffer until end-of-file.
type drain struct {
	f    *os.File
	tail *tailBuffer
	done chan struct{}
}

func startDrain(f *os.File, limit int) *drain {
	d := &drain{f: f, tail: newTailBuffer(limit), done: make(chan struct{})}
	go d.run()
	return d
}

func (d *drain) run() {
	defer close(d.done)
	buf := make([]byte, 64<<10) // a pipe's default capacity
	for {
		n, err := d.f.Read(buf)
		d.tail.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// finish lets the drain read until end-of-file or until by, whichever comes
// first, then closes the pipe.
func (d *drain) finish(by time.Time) {
	if err := d.f.SetReadDeadline(by); err != nil {
		// Not pollable (cannot happen for os.Pipe on Linux): closing
		// below ends the read.
		t := time.NewTimer(time.Until(by))
		select {
		case <-d.done:
		case <-t.C:
		}
		t.Stop()
		d.f.Close()
		return
	}
	<-d.done
	d.f.Close()
}

// countingFile counts the bytes read through it, so that a failed read can
// tell whether it left the stream in the middle of a frame.
type countingFile struct {
	*os.File
	read int64 // only touched by the holder of Child.recvMu
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.read += int64(n)
	return n, err
}
