package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sandbox"
)

// canceledBy is the error of a child whose context was canceled with cause.
func canceledBy(cause error) error { return &sandbox.CanceledError{Cause: cause} }

// TestDescribeText pins describe's whole line for every kind of outcome:
// a row's error is this text, in the JSON document and the table. (Linux:
// signal names are the platform's.)
func TestDescribeText(t *testing.T) {
	ve := &protocol.VersionError{Supervisor: 4, Worker: 3, WorkerVer: "v0.3.0"}
	crash := sandbox.Capture{Tail: []byte("some output\npanic: boom [recovered]\n\ngoroutine 1 [running]:\n")}
	tests := []struct {
		name string
		out  sandbox.Outcome
		want string
	}{
		{"success", sandbox.Outcome{Class: sandbox.ClassSuccess}, ""},
		{"a failure, its first line", sandbox.Outcome{Class: sandbox.ClassFailure,
			Failure: &protocol.Failure{Class: "panic", Message: "boom\nmore"},
			Err:     &sandbox.FailureError{Failure: protocol.Failure{Class: "panic", Message: "boom\nmore"}}},
			"boom"},
		{"exit", sandbox.Outcome{Class: sandbox.ClassExit, Err: &sandbox.ExitError{Code: 2}}, "child exited with status 2"},
		{"exit with a panic", sandbox.Outcome{Class: sandbox.ClassExit, Err: &sandbox.ExitError{Code: 2}, Stderr: crash},
			"child exited with status 2: panic: boom [recovered]"},
		{"exit before the worker", sandbox.Outcome{Class: sandbox.ClassExit, Err: &sandbox.ExitError{Code: 1, BeforeWorker: true}},
			"child exited with status 1 before benchsup's worker started (in the package's initialization or its TestMain)"},
		{"no thread for the runtime", sandbox.Outcome{Class: sandbox.ClassExit, Err: &sandbox.ExitError{Code: 2},
			Stderr: sandbox.Capture{Tail: []byte("runtime: failed to create new OS thread (have 2 already; errno=11)\nfatal error: newosproc\n")}},
			"the host refused the child a thread, not the code under test: runtime: failed to create new OS thread (have 2 already; errno=11): " +
				"resource temporarily unavailable (a pids cgroup's pids.max, ulimit -u or threads-max); child exited with status 2"},
		{"signal", sandbox.Outcome{Class: sandbox.ClassSignal, Err: &sandbox.SignalError{Signal: syscall.SIGSEGV, CoreDumped: true}},
			"child killed by SIGSEGV (segmentation fault), core dumped"},
		{"signal with a fatal error", sandbox.Outcome{Class: sandbox.ClassSignal, Err: &sandbox.SignalError{Signal: syscall.SIGABRT, BeforeWorker: true},
			Stderr: sandbox.Capture{Tail: []byte("fatal error: all goroutines are asleep - deadlock!\n")}},
			"child killed by SIGABRT (aborted) before benchsup's worker started (in the package's initialization or its TestMain): fatal error: all goroutines are asleep - deadlock!"},
		{"stopped", sandbox.Outcome{Class: sandbox.ClassSignal, Err: &sandbox.StoppedError{Signal: syscall.SIGTSTP, Wait: time.Second}},
			"child stopped by SIGTSTP and not continued within 1s: benchsup continued it and killed it"},
		{"out of memory", sandbox.Outcome{Class: sandbox.ClassOutOfMemory,
			Err: &sandbox.OutOfMemoryError{Limit: 64 << 20, Peak: 63 << 20, PeakKnown: true, Inferred: true}, Stderr: crash},
			"out of memory: killed by the kernel at the 64 MiB limit, peak 63.0 MiB (inferred: SIGKILL after the limit was hit; this kernel counts no OOM kills)"},
		{"startup timeout", sandbox.Outcome{Class: sandbox.ClassStartupTimeout, Err: &sandbox.TimeoutError{Phase: sandbox.PhaseStartup, Limit: 10 * time.Second}},
			"startup timeout: the child had not started benchsup's worker after 10s (--startup-timeout with --bench; --timeout in test mode): " +
				"it was still in the package's initialization or its TestMain"},
		{"execution timeout", sandbox.Outcome{Class: sandbox.ClassExecTimeout, Err: &sandbox.TimeoutError{Phase: sandbox.PhaseExecution, Limit: 20 * time.Second}},
			"execution timeout: the child was still running after 20s (--timeout bounds each child)"},
		{"canceled", sandbox.Outcome{Class: sandbox.ClassCanceled, Err: canceledBy(context.Canceled)},
			"the run was canceled while this child ran"},
		{"canceled by a deadline", sandbox.Outcome{Class: sandbox.ClassCanceled, Err: canceledBy(context.DeadlineExceeded)},
			"the run was canceled while this child ran (context deadline exceeded)"},
		{"canceled with a cause", sandbox.Outcome{Class: sandbox.ClassCanceled, Err: canceledBy(errors.New("interrupted (SIGINT): the results above are partial"))},
			"the run was canceled while this child ran (interrupted (SIGINT): the results above are partial)"},
		{"canceled by the caller's deadline", sandbox.Outcome{Class: sandbox.ClassCanceled,
			Err: canceledBy(fmt.Errorf("test deadline 1s: %w", sandbox.ErrCallerDeadline))},
			"the run was canceled while this child ran (test deadline 1s: sandbox: the caller's deadline)"},
		{"canceled, the cause unknown", sandbox.Outcome{Class: sandbox.ClassCanceled, Err: fmt.Errorf("%w: %w", sandbox.ErrCanceled, errors.New("not said"))},
			"the run was canceled while this child ran"},
		{"malformed", sandbox.Outcome{Class: sandbox.ClassMalformed,
			Err: &protocol.MalformedError{Kind: protocol.KindResult, Field: "result.samples[0].ns", Reason: "not an integer", Offset: 9}},
			"the child sent what benchsup's protocol does not allow (a benchsup bug, or code under test that wrote to the protocol's descriptor): " +
				"result.samples[0].ns: not an integer at payload offset 9"},
		{"malformed, cut off", sandbox.Outcome{Class: sandbox.ClassMalformed,
			Err: &protocol.MalformedError{Kind: protocol.KindResult, Err: io.ErrUnexpectedEOF}},
			"the child sent what benchsup's protocol does not allow (a benchsup bug, or code under test that wrote to the protocol's descriptor): " +
				"result frame: unexpected EOF"},
		{"version mismatch", sandbox.Outcome{Class: sandbox.ClassMalformed, Err: ve}, versionMismatch(ve)},
		{"exit 0 before the worker", sandbox.Outcome{Class: sandbox.ClassMalformed, Err: &sandbox.NoDoneError{BeforeWorker: true}},
			"the test binary exited with status 0 before benchsup's worker started: its TestMain returned, or called os.Exit, without calling m.Run"},
		{"exit 0 before done", sandbox.Outcome{Class: sandbox.ClassMalformed, Err: &sandbox.NoDoneError{}},
			"the child exited with status 0 before its worker said it was done: code it ran called os.Exit(0) or otherwise ended the process"},
		{"parent I/O", sandbox.Outcome{Class: sandbox.ClassParentIO, Err: &sandbox.IOError{Op: "spawn", Err: syscall.EMFILE}},
			"benchsup's own side of the child failed (spawn): too many open files"},
		{"reaped by another", sandbox.Outcome{Class: sandbox.ClassParentIO, Err: &sandbox.IOError{Op: "reap", Err: sandbox.ErrLostChild}},
			"benchsup's own side of the child failed (reap): sandbox: child reaped by another waiter"},
		{"invalid configuration", sandbox.Outcome{Class: sandbox.ClassInvalidConfig, Err: &sandbox.ConfigError{Field: "Env.Keep[1]", Reason: "not a name"}},
			"invalid configuration: Env.Keep[1]: not a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describe(tt.out); got != tt.want {
				t.Errorf("describe =\n\t%q\nwant\n\t%q", got, tt.want)
			}
		})
	}
}
