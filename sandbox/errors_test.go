package sandbox

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// TestErrorDetail: every error type's Detail is its Error without the
// package's prefix, and Error is what it was before Detail existed (a row's
// text and the JSON documents depend on it).
func TestErrorDetail(t *testing.T) {
	tests := []struct {
		name string
		err  Detailer
		want string // Error
	}{
		{"exit", &ExitError{Code: 2}, "sandbox: child exited with status 2"},
		{"exit before the worker", &ExitError{Code: 1, BeforeWorker: true},
			"sandbox: child exited with status 1 before benchsup's worker started (in the package's initialization or its TestMain)"},
		{"timeout at startup", &TimeoutError{Phase: PhaseStartup, Limit: time.Second}, "sandbox: startup timeout: no hello within 1s"},
		{"timeout in execution", &TimeoutError{Phase: PhaseExecution, Limit: time.Minute}, "sandbox: execution timeout: child still running after 1m0s"},
		{"failure", &FailureError{Failure: protocol.Failure{Class: "panic", Message: "boom\nstack"}}, "sandbox: benchmark failed (panic): boom"},
		{"configuration", &ConfigError{Field: "Env.Keep[1]", Reason: "not a name"}, "sandbox: invalid configuration: Env.Keep[1]: not a name"},
		{"parent I/O", &IOError{Op: "spawn", Err: syscall.EMFILE}, "sandbox: parent I/O failure: spawn: too many open files"},
		{"no done", &NoDoneError{}, "sandbox: the child exited with status 0 before its worker said it was done: " +
			"code it ran called os.Exit(0) or otherwise ended the process"},
		{"out of memory", &OutOfMemoryError{Limit: 64 << 20}, "sandbox: out of memory: killed by the kernel at the 64 MiB limit"},
		{"canceled", &CanceledError{Cause: context.Canceled}, "sandbox: canceled: context canceled"},
		{"canceled, no cause", &CanceledError{}, "sandbox: canceled"},
		// Signal names are the platform's: only the shape is pinned.
		{"signal", &SignalError{Signal: syscall.Signal(9), CoreDumped: true}, ""},
		{"stopped", &StoppedError{Signal: syscall.Signal(19), Wait: time.Second}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != "sandbox: "+tt.err.Detail() {
				t.Errorf("Error %q is not \"sandbox: \" and Detail %q", got, tt.err.Detail())
			}
			if tt.want != "" && tt.err.Error() != tt.want {
				t.Errorf("Error %q, want %q", tt.err.Error(), tt.want)
			}
		})
	}
}

// TestCanceledError: a canceled child's error holds the context's cause,
// and reads as the wrapping it replaced.
func TestCanceledError(t *testing.T) {
	deadline := fmt.Errorf("test deadline: %w", ErrCallerDeadline)
	tests := []struct {
		name           string
		cause          error
		callerDeadline bool
	}{
		{"no cause given", context.Canceled, false},
		{"a deadline", context.DeadlineExceeded, false},
		{"the caller's deadline", deadline, true},
		{"a cause of the caller's", errors.New("interrupted (SIGINT)"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(tt.cause)
			err := canceledError(ctx)
			var ce *CanceledError
			if !errors.As(err, &ce) || ce.Cause != tt.cause {
				t.Fatalf("canceledError = %#v, want a *CanceledError with cause %v", err, tt.cause)
			}
			if !errors.Is(err, ErrCanceled) || !errors.Is(err, tt.cause) || errors.Is(err, ErrCallerDeadline) != tt.callerDeadline {
				t.Errorf("%v: Is ErrCanceled %v, Is its cause %v, Is ErrCallerDeadline %v (want %v)", err,
					errors.Is(err, ErrCanceled), errors.Is(err, tt.cause), errors.Is(err, ErrCallerDeadline), tt.callerDeadline)
			}
			if old := fmt.Errorf("%w: %w", ErrCanceled, tt.cause); err.Error() != old.Error() {
				t.Errorf("Error %q, was %q", err.Error(), old.Error())
			}
		})
	}
}
