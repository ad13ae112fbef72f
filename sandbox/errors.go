package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// Sentinels for the conditions callers branch on. The typed errors below wrap
// them; test with errors.Is.
var (
	// ErrInvalidConfig is wrapped by every *ConfigError.
	ErrInvalidConfig = errors.New("sandbox: invalid configuration")
	// ErrStartupTimeout is wrapped by a *TimeoutError of PhaseStartup.
	ErrStartupTimeout = errors.New("sandbox: startup timeout")
	// ErrExecTimeout is wrapped by a *TimeoutError of PhaseExecution.
	ErrExecTimeout = errors.New("sandbox: execution timeout")
	// ErrParentIO is wrapped by every *IOError.
	ErrParentIO = errors.New("sandbox: parent I/O failure")
	// ErrCanceled is wrapped by the *CanceledError of a child ended by its
	// context, which holds the context's cause.
	ErrCanceled = errors.New("sandbox: canceled")
	// ErrCallerDeadline, as (or wrapped by) the cause of the context that
	// ends a child (context.WithCancelCause), says the caller's own
	// deadline ended it, as a test's deadline inside a test child does: the
	// child is first asked for its goroutines' stacks, as at a timeout of
	// the sandbox's own. The class stays ClassCanceled; the caller knows it
	// was its deadline.
	ErrCallerDeadline = errors.New("sandbox: the caller's deadline")
	// ErrNoHello is returned by Hello (and a first Receive) when the child
	// closed its endpoint, usually by dying, before sending a Hello. Wait
	// says why.
	ErrNoHello = errors.New("sandbox: child closed its endpoint before hello")
	// ErrLostChild is wrapped by the *IOError of a child that was reaped by
	// someone else: its exit status is unknown and its pid is not signalled
	// again.
	ErrLostChild = errors.New("sandbox: child reaped by another waiter")
	// ErrParentSignal is wrapped by the *ParentSignalError of a program
	// ended because its parent, benchsup's shim, was signalled by someone
	// other than the sandbox (see ShimArg).
	ErrParentSignal = errors.New("sandbox: the program's parent was signalled")
)

// prefix begins every error of this package.
const prefix = "sandbox: "

// Detailer is implemented by every error type of this package: Detail is
// the error's text without its "sandbox: " prefix, for a caller whose own
// words already say where it failed (as a row's class does), so that no
// caller has to cut the prefix off Error's text.
type Detailer interface {
	error
	Detail() string
}

// CanceledError reports a child ended by its context (ErrCanceled). Cause
// is the context's cause (context.Cause): context.Canceled when the
// canceler gave none, ErrCallerDeadline (or an error wrapping it) for the
// caller's own deadline.
type CanceledError struct {
	Cause error
}

func (e *CanceledError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *CanceledError) Detail() string {
	if e.Cause == nil {
		return "canceled"
	}
	return "canceled: " + e.Cause.Error()
}

// Unwrap returns ErrCanceled and the cause, so that both errors.Is(err,
// ErrCanceled) and errors.Is(err, ErrCallerDeadline) hold.
func (e *CanceledError) Unwrap() []error { return []error{ErrCanceled, e.Cause} }

// canceledError is the error of a child that ctx ended.
func canceledError(ctx context.Context) error {
	return &CanceledError{Cause: context.Cause(ctx)}
}

// Timeout phases, as a *TimeoutError names them.
const (
	PhaseStartup   = "startup"
	PhaseExecution = "execution"
)

// errTailLimit bounds the StderrTail carried by *ExitError and *SignalError;
// the whole retained tail is in Outcome.Stderr.
const errTailLimit = 4 << 10

// ExitError reports a child that exited with a nonzero status.
type ExitError struct {
	Code       int
	StderrTail string // the last bytes of stderr (at most 4 KiB)
	// BeforeWorker says that it exited before its worker said hello: in
	// the package's initialization or its TestMain.
	BeforeWorker bool
	// Limits are the resource limits the program had lowered by its end
	// (read by benchsup's shim); nil when none or not known.
	Limits []LimitChange
}

func (e *ExitError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *ExitError) Detail() string {
	return fmt.Sprintf("child exited with status %d%s%s", e.Code, beforeWorker(e.BeforeWorker), limitsText(e.Limits, 0))
}

// beforeWorker is what an error adds when the child ended before its worker
// said hello.
func beforeWorker(before bool) string {
	if before {
		return " before benchsup's worker started (in the package's initialization or its TestMain)"
	}
	return ""
}

// SignalError reports a child killed by a signal this package did not send.
type SignalError struct {
	Signal     syscall.Signal
	CoreDumped bool
	StderrTail string // the last bytes of stderr (at most 4 KiB)
	// BeforeWorker, Limits: see ExitError.
	BeforeWorker bool
	Limits       []LimitChange
}

func (e *SignalError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *SignalError) Detail() string {
	s := fmt.Sprintf("child killed by %s (%v)", signalName(e.Signal), e.Signal)
	if e.CoreDumped {
		s += ", core dumped"
	}
	return s + beforeWorker(e.BeforeWorker) + limitsText(e.Limits, e.Signal)
}

// TimeoutError reports a deadline that expired: PhaseStartup (no Hello in
// time) or PhaseExecution (no exit in time).
type TimeoutError struct {
	Phase string
	Limit time.Duration
}

func (e *TimeoutError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *TimeoutError) Detail() string {
	if e.Phase == PhaseStartup {
		return fmt.Sprintf("startup timeout: no hello within %v", e.Limit)
	}
	return fmt.Sprintf("execution timeout: child still running after %v", e.Limit)
}

// Unwrap returns ErrStartupTimeout or ErrExecTimeout.
func (e *TimeoutError) Unwrap() error {
	if e.Phase == PhaseStartup {
		return ErrStartupTimeout
	}
	return ErrExecTimeout
}

// Timeout reports true, as net.Error does for deadlines.
func (e *TimeoutError) Timeout() bool { return true }

// FailureError reports a child that sent a protocol.Failure.
type FailureError struct {
	Failure protocol.Failure
}

func (e *FailureError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *FailureError) Detail() string {
	msg, _, _ := strings.Cut(e.Failure.Message, "\n")
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return fmt.Sprintf("benchmark failed (%s): %s", e.Failure.Class, msg)
}

// ConfigError reports a Config (or Request) refused before anything was
// spawned.
type ConfigError struct {
	Field  string // the offending field, as in "Env.Keep[1]"
	Reason string
}

func (e *ConfigError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *ConfigError) Detail() string {
	return fmt.Sprintf("invalid configuration: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// IOError reports a failure on the supervisor's side: an operation (Op, such
// as "socketpair", "spawn", "send", "reap") and its error.
type IOError struct {
	Op  string
	Err error
}

func (e *IOError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *IOError) Detail() string {
	return fmt.Sprintf("parent I/O failure: %s: %v", e.Op, e.Err)
}

// Unwrap returns ErrParentIO and the underlying error, so that both
// errors.Is(err, ErrParentIO) and errors.Is(err, syscall.EMFILE) hold.
func (e *IOError) Unwrap() []error { return []error{ErrParentIO, e.Err} }

func tailString(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// ParentSignalError reports a program ended because a signal reached its
// parent, benchsup's shim, that the sandbox did not send: code under test
// that signalled os.Getppid(), the shim's process group, or its pid. With
// Killed, the shim itself was killed (SIGKILL cannot be caught) and took
// the program along.
type ParentSignalError struct {
	Signal syscall.Signal
	Killed bool
	// Stopped: Signal stopped the shim (SIGSTOP, SIGTSTP, SIGTTIN,
	// SIGTTOU); the sandbox continued it and ended the program.
	Stopped bool
	// Sender is the pid that sent Signal (0: the kernel; -1 or 0 with
	// From unknown: not known, as for SIGKILL, which the shim cannot
	// catch), SenderName its name, From where it stood.
	Sender     int
	SenderName string
	From       SignalSource
	// Status is how the program then ended ("exit status 2" after the
	// stacks the shim asked for, "killed by SIGKILL").
	Status     string
	StderrTail string
}

func (e *ParentSignalError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *ParentSignalError) Detail() string {
	if e.Killed {
		return fmt.Sprintf("the program's parent (benchsup's shim) was killed by %s, which benchsup did not send: code under test, or another process, signalled it; the program was killed with it", signalName(e.Signal))
	}
	if e.Stopped {
		s := fmt.Sprintf("the program's parent (benchsup's shim) was stopped by %s, which benchsup did not send: code under test, or another process, stopped it; benchsup continued it and ended the program", signalName(e.Signal))
		if e.Status != "" {
			s += " (" + e.Status + ")"
		}
		return s
	}
	var from string
	switch e.From {
	case FromProgram:
		from = fmt.Sprintf("from the program itself (pid %d, %s)", e.Sender, e.SenderName)
	case FromDescendant:
		from = fmt.Sprintf("from pid %d (%s), a process the program started", e.Sender, e.SenderName)
	case FromOther:
		from = fmt.Sprintf("from pid %d (%s), a process outside the child", e.Sender, e.SenderName)
	case FromKernel:
		from = "from the kernel"
	default:
		from = "from a process other than benchsup (its pid cannot be read here)"
	}
	s := fmt.Sprintf("%s reached the program's parent (benchsup's shim) %s: the shim ended the program", signalName(e.Signal), from)
	if e.Status != "" {
		s += " (" + e.Status + ")"
	}
	return s
}

// Unwrap makes errors.Is(err, ErrParentSignal) true.
func (e *ParentSignalError) Unwrap() error { return ErrParentSignal }

// SignalSource is where the sender of a ParentSignalError stood.
type SignalSource int

const (
	FromUnknown    SignalSource = iota // not known
	FromProgram                        // the program itself (code under test)
	FromDescendant                     // a process the program started
	FromOther                          // a process outside the child's tree
	FromKernel                         // the kernel (no sending process)
)
