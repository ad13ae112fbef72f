//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

// Child is one started child process. Hello, Send and Receive drive the
// exchange from one goroutine; Wait may be called from any goroutine, any
// number of times. The child is terminated at its deadlines and reaped
// whether or not anyone is calling these methods, but only Wait releases the
// protocol endpoint: always call it.
//
// A Child is assembled from parts with one job each: the process (signals,
// observing the exit, reaping: process_linux.go), the exchange on the
// endpoint (exchange_linux.go), one stream per output pipe
// (stream_linux.go), the deadlines and the verdict that records why the
// child is being ended (deadlines.go), and the monitor that ends and tears
// down (monitor_linux.go).
type Child struct {
	d              deadlines // fixed at Start
	end            endPolicy // fixed at Start
	base           Outcome   // the facts fixed at Start: pid, containment, environment
	v              *verdict  // why the child is being ended
	p              *process
	ex             *exchange
	stdout, stderr *stream
	done           chan struct{} // closed by the monitor once the root was reaped and the streams closed
	memV1          string        // the cgroup v1 memory directory, for Usage; "" when none

	// Written by the monitor before done is closed, read after.
	quitSent bool       // SIGQUIT was sent for the stacks
	notes    []string   // what went wrong with the cgroup at teardown
	left     []leftProc // what the root left running when it exited, killed at teardown
	escaped  int        // of left, those the shim found outside the group and cgroup
	// shimStopped is the signal that stopped the shim itself (code under
	// test can stop its parent), which the monitor then ended the child for.
	shimStopped syscall.Signal

	program bool // Config.Program

	waitOnce sync.Once
	outcome  Outcome
}

// endPolicy is how a child is ended, from the resolved Config.
type endPolicy struct {
	quitGrace   time.Duration // from SIGQUIT to SIGTERM, at a timeout
	grace       time.Duration // from SIGTERM to SIGKILL
	drainWindow time.Duration // from reaping to closing the streams and the endpoint
	stacksLimit int           // bytes of the stacks' head kept: the stderr limit
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
	sp, err := spawnChild(r)
	if err != nil {
		return nil, err
	}
	d := newDeadlines(t0, r.startupTimeout, r.totalTimeout)
	v := &verdict{}
	p := newProcess(sp.proc, sp.cg, sp.lim, sp.shim)
	c := &Child{
		d: d,
		end: endPolicy{
			quitGrace:   r.quitGrace,
			grace:       r.grace,
			drainWindow: r.drainWindow,
			stacksLimit: r.stderrLimit,
		},
		base: Outcome{
			PID:             sp.programPID,
			ExitCode:        -1,
			Containment:     sp.containment,
			ContainmentNote: sp.note,
			EnvPolicy:       r.envDesc,
			EnvNamesHash:    r.envHash,
		},
		v:      v,
		p:      p,
		ex:     newExchange(sp.sock, d, v, p),
		stdout: startStream(sp.stdout, r.stdoutLimit, r.stdoutTee),
		stderr: startStream(sp.stderr, r.stderrLimit, r.stderrTee),
		done:   make(chan struct{}),
	}
	if sp.cg != nil {
		c.base.Cgroup = sp.cg.dir
	}
	if sp.lim.mem != nil && sp.lim.res.Memory == CgroupV1 {
		c.memV1 = sp.lim.mem.dir
	}
	if r.program {
		// No Hello will come: the startup deadline is met from the start.
		v.hello(t0)
		c.program = true
	}
	go p.watchExit()
	go c.monitor(ctx)
	return c, nil
}

// PID returns the program's process id (under a shim, not the shim's).
func (c *Child) PID() int { return c.base.PID }

// Hello returns the child's first message, waiting for it until the startup
// deadline. It is checked by a protocol.Checker: another protocol version is
// a *protocol.VersionError and any other first message an error wrapping
// protocol.ErrMalformed; either kills the child at once. A child that closes
// its endpoint first yields ErrNoHello, a deadline a *TimeoutError. Once it
// has arrived, Hello returns it again.
func (c *Child) Hello() (protocol.Hello, error) { return c.ex.helloMessage() }

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
	return c.ex.send(req)
}

// Receive returns the next message, waiting for it until the total deadline
// (the startup deadline while the Hello is outstanding: Receive may be used
// instead of Hello). Each message is checked by the protocol.Checker; a
// violation is returned (wrapping protocol.ErrMalformed) and kills the child
// at once. Past Done it reads on (a Hello with Again may follow; anything
// else is a violation). Receive returns io.EOF when the stream ends, and once
// the child has been reaped and nothing more arrived within the drain
// window; a *TimeoutError at a deadline. A violation, an I/O error, or a
// deadline that cut a frame in two ends the stream: Receive keeps returning
// it.
func (c *Child) Receive() (protocol.Message, error) { return c.ex.receive() }

// Wait waits until the child has exited (terminating it at the total
// deadline), killed what was left of its process group and cgroup and been
// reaped; it reads and checks whatever messages are still buffered, releases
// the endpoint and returns the Outcome. It may be called any number of
// times, from any goroutine.
func (c *Child) Wait() Outcome {
	c.waitOnce.Do(func() {
		<-c.done
		c.ex.close()
		c.outcome = c.classify()
	})
	return c.outcome
}

// classify gathers what every part recorded into the Outcome.
func (c *Child) classify() Outcome {
	o := c.base
	var f facts
	stdout, _, stdoutCut := c.stdout.capture()
	stderr, stacks, stderrCut := c.stderr.capture()
	f.stderrTail = tailString(stderr.Tail, errTailLimit)
	hello, endpointHeld := c.ex.record(&f)
	helloAt := c.v.record(&f)
	f.status = c.p.status
	if c.p.shim != nil {
		f.parentSignal = c.parentSignal(f.status, f.stderrTail)
		if f.parentSignal != nil && f.parentSignal.Stopped {
			f.stopped = nil // the stop was the parent's, not the program's
		}
		c.p.shim.mu.Lock()
		f.limits = c.p.shim.limits
		c.p.shim.mu.Unlock()
	}
	if c.program {
		f.program, f.hello = true, true // errors speak of the child, not of a worker that never starts
	}
	f.resources = c.p.resources
	f.resources.ThreadFailure = strings.Contains(string(stderr.Tail), threadFailureText)

	o.Class, o.Err = f.classify()
	o.Hello, o.Skip, o.Failure = hello, f.skip, f.failure
	o.Resources = f.resources
	o.Stdout, o.Stderr = stdout, stderr
	if c.quitSent {
		o.Stacks = stacks
	}
	for _, n := range c.notes {
		if o.ContainmentNote != "" {
			o.ContainmentNote += "; "
		}
		o.ContainmentNote += n
	}
	o.Leftover = leftoverNote(c.left, o.Containment, c.escaped)
	o.DrainNote = drainNote(c.end.drainWindow, stdoutCut, stderrCut, endpointHeld)
	if f.status.known && f.status.exited {
		o.ExitCode = f.status.code
	}
	if f.status.known && !f.status.exited {
		o.Signal = signalName(f.status.signal)
	}
	if !helloAt.IsZero() && !c.program {
		o.StartupDuration = helloAt.Sub(c.d.t0)
	}
	o.Elapsed = c.p.reapedAt.Sub(c.d.t0)
	return o
}

// parentSignal is what the shim's report says of a signal the sandbox did
// not send: one that reached the shim, or the shim's own death.
func (c *Child) parentSignal(st exitStatus, stderrTail string) *ParentSignalError {
	c.p.shim.mu.Lock()
	foreign := slices.Clone(c.p.shim.foreign)
	c.p.shim.mu.Unlock()
	switch {
	case len(foreign) > 0:
		f := foreign[0]
		e := &ParentSignalError{Signal: f.sig, Status: exitStatusText(st), StderrTail: stderrTail, Sender: f.pid, From: f.from}
		if f.pid > 0 {
			e.SenderName = f.comm
		}
		return e
	case c.p.shimLost && st.known && !st.exited:
		return &ParentSignalError{Signal: st.signal, Killed: true, StderrTail: stderrTail}
	case c.shimStopped != 0:
		// A stop signal cannot be caught: who sent it is not known.
		return &ParentSignalError{Signal: c.shimStopped, Stopped: true, Status: exitStatusText(st), StderrTail: stderrTail, Sender: -1}
	}
	return nil
}

// exitStatusText says how a root ended: "exit status 2", "killed by
// SIGKILL", or "" when its status is not known.
func exitStatusText(st exitStatus) string {
	switch {
	case st.known && st.exited:
		return fmt.Sprintf("exit status %d", st.code)
	case st.known:
		return "killed by " + signalName(st.signal)
	}
	return ""
}
