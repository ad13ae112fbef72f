package sandbox

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// Class is the classification of a finished child; the package doc lists the
// rules in the order they apply.
type Class int

// The classes. Their order is not their precedence (see the package doc).
const (
	ClassSuccess        Class = iota // Done, exit 0
	ClassSkipped                     // Skip, Done, exit 0
	ClassFailure                     // a Failure message arrived
	ClassExit                        // nonzero exit status
	ClassSignal                      // killed (or stopped) by a signal the sandbox did not send
	ClassStartupTimeout              // no Hello by the startup deadline
	ClassExecTimeout                 // no exit by the total deadline
	ClassMalformed                   // protocol violation, or exit 0 without Done
	ClassInvalidConfig               // refused before spawn
	ClassParentIO                    // the supervisor's side failed
	ClassCanceled                    // the caller's context ended the child
	ClassOutOfMemory                 // the kernel's OOM killer killed the root
)

var classNames = [...]string{
	ClassSuccess:        "ok",
	ClassSkipped:        "skipped",
	ClassFailure:        "benchmark-failure",
	ClassExit:           "exit",
	ClassSignal:         "signal",
	ClassStartupTimeout: "startup-timeout",
	ClassExecTimeout:    "execution-timeout",
	ClassMalformed:      "malformed-protocol",
	ClassInvalidConfig:  "invalid-config",
	ClassParentIO:       "parent-io",
	ClassCanceled:       "canceled",
	ClassOutOfMemory:    "out-of-memory",
}

func (c Class) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// Containment says how a child's processes were held together.
type Containment string

const (
	// ContainmentCgroup: its own cgroup v2 (and its own process group).
	ContainmentCgroup Containment = "cgroup"
	// ContainmentProcessGroup: its own process group only; a descendant
	// that calls setsid or setpgid escapes it.
	ContainmentProcessGroup Containment = "process-group"
)

// Capture is the retained tail of one output stream.
type Capture struct {
	Tail    []byte // the last bytes written, at most the configured limit
	Total   int64  // bytes written in all
	Omitted int64  // bytes not retained: Total - len(Tail), exactly
}

// Stacks is the head of what a child wrote to stderr once it was asked for
// its goroutine stacks (SIGQUIT, at a startup or execution timeout). A Go
// runtime dump puts the goroutine that took the signal first and can be far
// longer than the stderr tail, which would keep its end: the head is kept
// apart. The dump is in Outcome.Stderr too, as far as its tail reaches.
type Stacks struct {
	// Requested says that SIGQUIT was sent. It is false when the child did
	// not time out, or was already being ended for another reason.
	Requested bool
	// Head is the first bytes written to stderr from just before the
	// SIGQUIT on (everything written before it had been read or was still
	// in the pipe is left out), at most the stderr limit. Empty when the
	// child printed nothing: it ignores or handles SIGQUIT, or is not a
	// Go program.
	Head    []byte
	Total   int64 // bytes written to stderr from then on, in all
	Omitted int64 // bytes not retained: Total - len(Head), exactly
}

// Outcome is what became of one child.
type Outcome struct {
	Class Class
	// Err is nil for ClassSuccess and ClassSkipped, otherwise the typed
	// error of the class (see the package doc).
	Err error
	// PID is the child's process id; zero if none was spawned.
	PID int
	// ExitCode is the exit status, or -1 when the child did not exit
	// normally (signal, not spawned, reaped by someone else).
	ExitCode int
	// Signal names the signal that ended the child ("SIGKILL"), whoever
	// sent it; empty when it exited or was not spawned.
	Signal string

	Hello   *protocol.Hello   // nil if none arrived
	Skip    *protocol.Skip    // nil if none arrived
	Failure *protocol.Failure // nil if none arrived

	Stdout, Stderr Capture
	// Stacks is the head of the goroutine dump asked for at a timeout.
	Stacks Stacks

	Containment Containment
	// ContainmentNote says why there was no cgroup, or what went wrong
	// with it; empty when the cgroup worked or was not tried.
	ContainmentNote string
	// Cgroup is the per-child cgroup directory that was used (and removed
	// again); empty when none.
	Cgroup string
	// Leftover says what the child left running when it exited: the
	// processes still in its process group or cgroup, which of its stdout
	// and stderr they held open, and that they were killed; empty when
	// nothing was left.
	Leftover string
	// DrainNote says which of stdout, stderr and the protocol endpoint were
	// still open Config.DrainWindow after the child was reaped (held by a
	// process that escaped containment) and were closed without reaching
	// their end; empty when every one that was read ended.
	DrainNote string

	// Resources is what the child's resource cgroups recorded: its limits,
	// its peak memory, OOM kills and forks the pids limit refused.
	Resources Resources

	// EnvPolicy names the environment policy: "strict" or "inherit",
	// followed by the names it kept, removed and set.
	EnvPolicy string
	// EnvNamesHash is the first 16 hex digits of the SHA-256 of the sorted
	// names of the child's environment; values never enter it.
	EnvNamesHash string

	// StartupDuration is the time from Start to the Hello (zero if none);
	// Elapsed from Start until the child was reaped. Both monotonic.
	StartupDuration, Elapsed time.Duration
}

// exitStatus is what reaping told about the root.
type exitStatus struct {
	known      bool // reaped by us
	exited     bool
	code       int
	signal     syscall.Signal
	coreDumped bool
}

// facts are what a Child recorded during its life; classify turns them into
// a Class and its error.
type facts struct {
	canceled   error
	timeout    *TimeoutError
	stopped    *StoppedError
	hello      bool // a Hello was accepted: the worker started
	program    bool // a plain program (Config.Program): no worker, no Done
	protoErr   error
	ioErr      error
	status     exitStatus
	done       bool
	failure    *protocol.Failure
	skip       *protocol.Skip
	stderrTail string
	resources  Resources
	limits     []LimitChange // the resource limits the program had lowered when it ended
	// parentSignal: a signal the sandbox did not send reached the shim
	// (which then ended the program), or killed it.
	parentSignal *ParentSignalError
}

// NoDoneError reports a child that exited with status 0 without its
// worker saying it was done. Before the worker's Hello, the worker never
// started: it is a test (TestBenchsupWorker) that m.Run runs, so the
// package's TestMain returned or exited without calling m.Run. After it,
// something in the process ended it early (os.Exit(0) where
// -test.paniconexit0 does not reach). It is a protocol violation
// (errors.Is protocol.ErrMalformed) whose cause is the code, not the wire.
type NoDoneError struct {
	BeforeWorker bool // no Hello arrived
}

func (e *NoDoneError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *NoDoneError) Detail() string {
	if e.BeforeWorker {
		return "the test binary exited with status 0 before benchsup's worker started: " +
			"its TestMain returned, or called os.Exit, without calling m.Run"
	}
	return "the child exited with status 0 before its worker said it was done: " +
		"code it ran called os.Exit(0) or otherwise ended the process"
}

// Is reports protocol.ErrMalformed as matching.
func (e *NoDoneError) Is(target error) bool { return target == protocol.ErrMalformed }

// StoppedError reports a child whose root process was stopped (SIGSTOP,
// SIGTSTP, SIGTTIN or SIGTTOU) and not continued within the stop wait: it
// was continued, asked for its goroutine stacks, and killed, instead of
// being waited for until the total deadline.
type StoppedError struct {
	Signal syscall.Signal
	Wait   time.Duration // how long it had stayed stopped
}

func (e *StoppedError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *StoppedError) Detail() string {
	return fmt.Sprintf("child stopped by %s and not continued within %v: benchsup continued it and killed it",
		signalName(e.Signal), e.Wait)
}

func (f *facts) classify() (Class, error) {
	st := f.status
	switch {
	case f.canceled != nil:
		return ClassCanceled, f.canceled
	case f.timeout != nil && f.timeout.Phase == PhaseStartup:
		return ClassStartupTimeout, f.timeout
	case f.timeout != nil:
		return ClassExecTimeout, f.timeout
	case f.stopped != nil:
		return ClassSignal, f.stopped
	case f.parentSignal != nil && !f.parentSignal.Killed:
		return ClassSignal, f.parentSignal
	case f.protoErr != nil && !f.diedMidFrame():
		return ClassMalformed, f.protoErr
	case st.known && st.exited && st.code == 0 && !f.done && !f.program:
		return ClassMalformed, &NoDoneError{BeforeWorker: !f.hello}
	case f.ioErr != nil:
		return ClassParentIO, f.ioErr
	case !st.known:
		// Not reachable when the Child recorded why; kept so that an
		// unknown status can never read as success.
		return ClassParentIO, &IOError{Op: "reap", Err: ErrLostChild}
	case !st.exited && st.signal == syscall.SIGKILL && f.oomKilled():
		r := f.resources
		return ClassOutOfMemory, &OutOfMemoryError{Limit: r.MemoryLimit, Peak: r.PeakMemory, PeakKnown: r.PeakMemoryKnown,
			Inferred: r.OOMKills < 0, StderrTail: f.stderrTail}
	case f.parentSignal != nil:
		return ClassSignal, f.parentSignal
	case !st.exited:
		return ClassSignal, &SignalError{Signal: st.signal, CoreDumped: st.coreDumped, StderrTail: f.stderrTail, BeforeWorker: !f.hello, Limits: f.limits}
	case f.failure != nil:
		return ClassFailure, &FailureError{Failure: *f.failure}
	case st.code != 0:
		return ClassExit, &ExitError{Code: st.code, StderrTail: f.stderrTail, BeforeWorker: !f.hello, Limits: f.limits}
	case f.skip != nil:
		return ClassSkipped, nil
	}
	return ClassSuccess, nil
}

// oomKilled reports whether the kernel's OOM killer is what sent the
// root's SIGKILL: an OOM kill counted in its memory cgroup, or, where the
// kernel counts none (before Linux 4.13, v1), its limit having been hit.
// The sandbox's own SIGKILLs come with a timeout, a cancellation or a
// violation, which rules before this one.
func (f *facts) oomKilled() bool {
	r := f.resources
	return r.OOMKills > 0 || (r.OOMKills < 0 && r.MemoryLimit > 0 && r.LimitHits > 0)
}

// diedMidFrame reports a stream cut off inside a frame by a child that
// then died abnormally: the death, not the protocol, is what happened.
func (f *facts) diedMidFrame() bool {
	st := f.status
	return errors.Is(f.protoErr, io.ErrUnexpectedEOF) && st.known && (!st.exited || st.code != 0)
}

// startFailure is the Outcome of a Start that returned err.
func startFailure(cfg *Config, err error) Outcome {
	o := Outcome{Err: err, ExitCode: -1, EnvPolicy: cfg.Env.describe()}
	switch {
	case errors.Is(err, ErrInvalidConfig):
		o.Class = ClassInvalidConfig
	case errors.Is(err, ErrCanceled):
		o.Class = ClassCanceled
	default:
		o.Class = ClassParentIO
		var ioe *IOError
		if !errors.As(err, &ioe) {
			o.Err = &IOError{Op: "start", Err: err}
		}
	}
	return o
}

// drainNote is Outcome.DrainNote: which of stdout, stderr and the endpoint
// were still open window after the child was reaped; "" when none was.
func drainNote(window time.Duration, stdout, stderr, endpoint bool) string {
	var held []string
	for _, s := range []struct {
		name string
		held bool
	}{{"stdout", stdout}, {"stderr", stderr}, {"the protocol endpoint", endpoint}} {
		if s.held {
			held = append(held, s.name)
		}
	}
	var list string
	switch len(held) {
	case 0:
		return ""
	case 1:
		list = held[0]
	default:
		list = strings.Join(held[:len(held)-1], ", ") + " and " + held[len(held)-1]
	}
	return fmt.Sprintf("%s still open %v after the child was reaped, held by a process outside its containment: closed without reading to the end", list, window)
}
