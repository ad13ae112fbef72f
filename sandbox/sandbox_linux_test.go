//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/protocol"
)

// ---- invariants every test checks ----

// openFDs maps this process's descriptors to their targets.
func openFDs(t testing.TB) map[int]string {
	t.Helper()
	d, err := os.Open("/proc/self/fd")
	require.NoError(t, err)
	defer d.Close()
	names, err := d.Readdirnames(-1)
	require.NoError(t, err)
	self := int(d.Fd())
	fds := map[int]string{}
	for _, n := range names {
		fd, _ := strconv.Atoi(n)
		if fd == self {
			continue
		}
		target, err := os.Readlink("/proc/self/fd/" + n)
		if err == nil {
			fds[fd] = target
		}
	}
	return fds
}

// checkFDs fails t if descriptors were opened since before and are still
// open, other than those the spawning thread holds for life.
func checkFDs(t testing.TB, before map[int]string) {
	t.Helper()
	after := openFDs(t)
	var leaked []string
	for fd, target := range after {
		if _, held := heldForLife.Load(uintptr(fd)); held {
			continue
		}
		if before[fd] != target {
			leaked = append(leaked, fmt.Sprintf("%d -> %s", fd, target))
		}
	}
	assert.Empty(t, leaked, "descriptors leaked by the sandbox")
}

// checkFDsAfter checks t's descriptors once t and all its subtests have
// ended: the check of a test whose subtests run in parallel.
func checkFDsAfter(t *testing.T) {
	t.Helper()
	before := openFDs(t)
	t.Cleanup(func() { checkFDs(t, before) })
}

// procStat returns the state and process group of pid; ok is false when
// there is no such process.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 {
		return 0, 0, false
	}
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], pgrp, true
}

// alive reports whether pid is a process that has not exited (a zombie, or a
// process being torn down by the kernel, has).
func alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

// groupMembers lists the live processes whose process group is pgid.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pgrp, ok := procStat(pid); ok && pgrp == pgid && state != 'Z' && state != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// grandchildren returns the pids children reported in "grandchild=N" logs.
func grandchildren(msgs []protocol.Message) []int {
	var out []int
	for _, m := range msgs {
		if l, ok := m.(protocol.Log); ok {
			if v, ok := strings.CutPrefix(l.Text, "grandchild="); ok {
				pid, _ := strconv.Atoi(v)
				out = append(out, pid)
			}
		}
	}
	return out
}

// checkContained fails t unless nothing of the child survives: no live
// process in its group, none of the reported grandchildren, no cgroup. A
// SIGKILLed process takes a moment to be gone, hence the polling.
func checkContained(t testing.TB, o Outcome, extra []int) {
	t.Helper()
	if o.PID == 0 {
		return
	}
	var survivors []int
	deadline := time.Now().Add(5 * time.Second)
	for {
		survivors = groupMembers(o.PID)
		for _, pid := range extra {
			if alive(pid) && !slices.Contains(survivors, pid) {
				survivors = append(survivors, pid)
			}
		}
		if len(survivors) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	assert.Empty(t, survivors, "processes of child %d survived", o.PID)
	if o.Cgroup != "" {
		assert.NoDirExists(t, o.Cgroup, "the child's cgroup was not removed")
	}
}

// execTimeout is the total timeout of tests that expect an execution
// timeout. The child must have sent its Hello by then, and this host may be
// shared with other work: a Go test binary normally starts in milliseconds,
// but has been seen to take over a second under load.
const execTimeout = 2 * time.Second

// loadSlack bounds how long after its deadline the default suite lets a
// child end: a loaded host delays the signals, the dump and the reaping,
// and a child that outlived its deadline would run to the helper's 20 s
// TotalTimeout or forever. The bounds a quiet host meets are the timing
// suite's (timing_linux_test.go, docs/repository.md).
const loadSlack = 10 * time.Second

// checkSlowHello checks the outcome of the "slow-hello" child under a
// startup deadline of limit.
func checkSlowHello(t *testing.T, o Outcome, msgs []protocol.Message, limit time.Duration) {
	t.Helper()
	var te *TimeoutError
	require.ErrorAs(t, o.Err, &te)
	assert.Equal(t, PhaseStartup, te.Phase)
	assert.Equal(t, limit, te.Limit)
	assert.ErrorIs(t, o.Err, ErrStartupTimeout)
	assert.Nil(t, o.Hello)
	assert.Empty(t, msgs)
	assert.GreaterOrEqual(t, o.Elapsed, limit)
	// Asked for its stacks, it shows where it waited for so long.
	assert.True(t, o.Stacks.Requested)
	assert.Contains(t, string(o.Stacks.Head), "sandbox.child(")
	assert.Equal(t, 2, o.ExitCode, "the Go runtime exits 2 after a SIGQUIT dump")
}

// run runs the helper child through Run and checks the invariants.
func run(t *testing.T, cfg Config) (Outcome, []protocol.Message) {
	t.Helper()
	before := openFDs(t)
	o, msgs := runContained(t, cfg)
	checkFDs(t, before)
	return o, msgs
}

// runContained is run without the descriptor check, for subtests that run
// in parallel: each would count the others' descriptors as its own, so
// their parent checks once they have all ended (checkFDsAfter).
func runContained(t *testing.T, cfg Config) (Outcome, []protocol.Message) {
	t.Helper()
	var msgs []protocol.Message
	o := Run(cfg, testRequest, func(m protocol.Message) { msgs = append(msgs, m) })
	checkContained(t, o, grandchildren(msgs))
	if t.Failed() {
		t.Logf("outcome: %v: %v; stderr tail:\n%s", o.Class, o.Err, o.Stderr.Tail)
	}
	return o, msgs
}

func kinds(msgs []protocol.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Kind().String())
	}
	return out
}

func cgroupWritable() (bool, string) {
	sup := probeCgroup()
	return sup.parent != "", sup.note
}

// ---- classes ----

func TestClasses(t *testing.T) {
	withCgroup, _ := cgroupWritable()
	tests := []struct {
		behaviour string
		cfg       func(*Config)
		class     Class
		check     func(t *testing.T, o Outcome, msgs []protocol.Message)
	}{
		{"ok", nil, ClassSuccess, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			assert.NoError(t, o.Err)
			assert.Equal(t, 0, o.ExitCode)
			assert.Equal(t, []string{"hello", "ready", "result", "done"}, kinds(msgs))
			require.NotNil(t, o.Hello)
			assert.Equal(t, o.PID, o.Hello.PID)
			assert.Equal(t, runtime.Version(), o.Hello.GoVersion)
			assert.Equal(t, Capture{Tail: []byte("out-line\n"), Total: 9}, o.Stdout)
			assert.Equal(t, Capture{Tail: []byte("err-line\n"), Total: 9}, o.Stderr)
			assert.Zero(t, o.Stacks, "no timeout, no SIGQUIT")
			assert.Empty(t, o.DrainNote)
			assert.Empty(t, o.Leftover, "nothing left running")
			assert.Positive(t, o.StartupDuration)
			assert.LessOrEqual(t, o.StartupDuration, o.Elapsed)
			assert.Equal(t, "strict keep=GOCOVERDIR set="+behaviourEnv+",GORACE", o.EnvPolicy)
			assert.Len(t, o.EnvNamesHash, 16)
			if withCgroup {
				assert.Equal(t, ContainmentCgroup, o.Containment)
				assert.NotEmpty(t, o.Cgroup)
			} else {
				assert.Equal(t, ContainmentProcessGroup, o.Containment)
				assert.NotEmpty(t, o.ContainmentNote)
			}
		}},
		{"skip", nil, ClassSkipped, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			assert.NoError(t, o.Err)
			require.NotNil(t, o.Skip)
			assert.Equal(t, "not today", o.Skip.Reason)
		}},
		{"failure", nil, ClassFailure, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var fe *FailureError
			require.ErrorAs(t, o.Err, &fe)
			assert.Equal(t, "boom", fe.Failure.Message)
			assert.Equal(t, protocol.FailurePanic, fe.Failure.Class)
			assert.Equal(t, 1, o.ExitCode)
			assert.Equal(t, "panic: boom\n", string(o.Stderr.Tail))
			require.NotNil(t, o.Failure)
		}},
		{"failure-no-done", nil, ClassFailure, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var fe *FailureError
			require.ErrorAs(t, o.Err, &fe)
			assert.Equal(t, 1, o.ExitCode)
		}},
		{"exit3", nil, ClassExit, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var ee *ExitError
			require.ErrorAs(t, o.Err, &ee)
			assert.Equal(t, 3, ee.Code)
			assert.Equal(t, "bad things happened\n", ee.StderrTail)
			assert.Equal(t, 3, o.ExitCode)
			assert.EqualError(t, o.Err, "sandbox: child exited with status 3")
		}},
		{"kill-self", nil, ClassSignal, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var se *SignalError
			require.ErrorAs(t, o.Err, &se)
			assert.Equal(t, syscall.SIGKILL, se.Signal)
			assert.False(t, se.CoreDumped)
			assert.Equal(t, -1, o.ExitCode)
			assert.Contains(t, o.Err.Error(), "SIGKILL")
		}},
		{"abort", nil, ClassSignal, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var se *SignalError
			require.ErrorAs(t, o.Err, &se)
			assert.Equal(t, syscall.SIGABRT, se.Signal)
			// The crash traceback is long: the panic line is in the
			// retained tail, not necessarily in the error's last 4 KiB.
			assert.Contains(t, string(o.Stderr.Tail), "panic: crash on purpose")
			assert.NotEmpty(t, se.StderrTail)
		}},
		{"fatal", nil, ClassExit, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var ee *ExitError
			require.ErrorAs(t, o.Err, &ee)
			assert.Equal(t, 2, ee.Code)
			assert.Contains(t, ee.StderrTail, "fatal error: sync: unlock of unlocked mutex")
		}},
		{"slow-hello", func(c *Config) {
			// The child must be asleep in sandbox.child when the deadline
			// passes, and a loaded host has taken a second to start one:
			// a 300 ms deadline failed there (TestTimingStartupDeadline
			// keeps it, on a quiet host).
			c.StartupTimeout = execTimeout
			c.Grace = 200 * time.Millisecond
		}, ClassStartupTimeout, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			checkSlowHello(t, o, msgs, execTimeout)
			assert.Less(t, o.Elapsed, execTimeout+loadSlack)
		}},
		{"hang", func(c *Config) {
			c.TotalTimeout = execTimeout
			c.Grace = 200 * time.Millisecond
		}, ClassExecTimeout, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var te *TimeoutError
			require.ErrorAs(t, o.Err, &te)
			assert.Equal(t, TimeoutError{Phase: PhaseExecution, Limit: execTimeout}, *te)
			assert.ErrorIs(t, o.Err, ErrExecTimeout)
			assert.NotNil(t, o.Hello)
			assert.GreaterOrEqual(t, o.Elapsed, execTimeout)
			assert.Less(t, o.Elapsed, execTimeout+3*time.Second)
			assert.True(t, o.Stacks.Requested)
			assert.Contains(t, string(o.Stacks.Head), "sandbox.hang(")
		}},
		{"hang-ignore-quit-term", func(c *Config) {
			c.TotalTimeout = execTimeout
			c.QuitGrace = 200 * time.Millisecond
			c.Grace = 300 * time.Millisecond
		}, ClassExecTimeout, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			assert.ErrorIs(t, o.Err, ErrExecTimeout)
			// SIGQUIT and SIGTERM were ignored: only SIGKILL after both
			// windows ended it.
			assert.GreaterOrEqual(t, o.Elapsed, execTimeout+500*time.Millisecond)
			assert.Less(t, o.Elapsed, execTimeout+3*time.Second)
			assert.Equal(t, Stacks{Requested: true, Head: []byte{}}, o.Stacks, "asked, and nothing printed")
			assert.Equal(t, -1, o.ExitCode)
		}},
		{"garbage", nil, ClassMalformed, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			assert.ErrorIs(t, o.Err, protocol.ErrMalformed)
			assert.Less(t, o.Elapsed, 5*time.Second, "a malformed child is killed at once")
		}},
		{"partial-frame-exit3", nil, ClassExit, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			// Cut off mid-frame by its own death: classified by the death.
			var ee *ExitError
			require.ErrorAs(t, o.Err, &ee)
			assert.Equal(t, 3, ee.Code)
		}},
		{"partial-frame-exit0", nil, ClassMalformed, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			assert.ErrorIs(t, o.Err, protocol.ErrMalformed)
			assert.ErrorIs(t, o.Err, io.ErrUnexpectedEOF)
		}},
		{"garbage-hello", nil, ClassMalformed, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			assert.ErrorIs(t, o.Err, protocol.ErrMalformed)
			assert.Nil(t, o.Hello)
			assert.Less(t, o.Elapsed, 5*time.Second)
		}},
		{"bad-version", nil, ClassMalformed, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var ve *protocol.VersionError
			require.ErrorAs(t, o.Err, &ve)
			assert.Equal(t, protocol.Version+1, ve.Worker)
			assert.ErrorIs(t, o.Err, protocol.ErrVersion)
			assert.Nil(t, o.Hello)
			assert.Less(t, o.Elapsed, 5*time.Second)
		}},
		{"no-done", nil, ClassMalformed, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			assert.ErrorIs(t, o.Err, protocol.ErrMalformed)
			assert.Contains(t, o.Err.Error(), "the child exited with status 0 before its worker said it was done")
			assert.Contains(t, o.Err.Error(), "os.Exit(0)", "names the likely cause")
			assert.Equal(t, 0, o.ExitCode)
		}},
		{"no-hello-exit0", nil, ClassMalformed, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			// A TestMain that returns without calling m.Run: the worker,
			// a test m.Run would run, never started.
			assert.ErrorIs(t, o.Err, protocol.ErrMalformed)
			var nd *NoDoneError
			require.ErrorAs(t, o.Err, &nd)
			assert.True(t, nd.BeforeWorker)
			assert.NotContains(t, o.Err.Error(), "malformed", "the cause is the code, not the wire")
			assert.Contains(t, o.Err.Error(), "exited with status 0 before benchsup's worker started")
			assert.Contains(t, o.Err.Error(), "its TestMain returned, or called os.Exit, without calling m.Run")
			assert.Nil(t, o.Hello)
			assert.Empty(t, msgs)
		}},
		{"no-hello-exit1", nil, ClassExit, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			var ee *ExitError
			require.ErrorAs(t, o.Err, &ee)
			assert.True(t, ee.BeforeWorker)
			assert.EqualError(t, o.Err, "sandbox: child exited with status 1 before benchsup's worker started (in the package's initialization or its TestMain)")
		}},
		{"stop-self", nil, ClassSignal, func(t *testing.T, o Outcome, msgs []protocol.Message) {
			// Stopped by its own SIGSTOP: ended after stopWait, not at
			// the total deadline (20s), with the stacks of where it
			// stopped.
			var se *StoppedError
			require.ErrorAs(t, o.Err, &se)
			assert.Equal(t, syscall.SIGSTOP, se.Signal)
			assert.GreaterOrEqual(t, se.Wait, stopWait)
			assert.Contains(t, o.Err.Error(), "child stopped by SIGSTOP and not continued within")
			assert.Contains(t, o.Err.Error(), "benchsup continued it and killed it")
			assert.GreaterOrEqual(t, o.Elapsed, stopWait)
			assert.Less(t, o.Elapsed, 10*time.Second)
			assert.True(t, o.Stacks.Requested)
			// Continued, it printed where it had stopped: in
			// sandbox.child, unless the stop took hold while goroutine
			// 1 was still running (on a busy host it was), and then,
			// as for "spin", the runtime shows no frames.
			assert.Regexp(t, `sandbox\.child\(|goroutine 1 [^\n]*\[running\]:\n\tgoroutine running on other thread; stack unavailable`, string(o.Stacks.Head))
		}},
	}
	// In parallel: the timeouts and graces of the slow ones (4 s of
	// waiting one after another) overlap.
	checkFDsAfter(t)
	for _, tt := range tests {
		t.Run(tt.behaviour, func(t *testing.T) {
			t.Parallel()
			cfg := helper(tt.behaviour)
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			o, msgs := runContained(t, cfg)
			require.Equal(t, tt.class, o.Class, "err: %v", o.Err)
			assert.Positive(t, o.PID)
			tt.check(t, o, msgs)
		})
	}
}

func TestInvalidConfig(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("x"), 0o644))
	tests := []struct {
		name  string
		cfg   func(*Config)
		field string
	}{
		{"empty path", func(c *Config) { c.Path = "" }, "Path"},
		{"relative path", func(c *Config) { c.Path = "bin/child" }, "Path"},
		{"missing path", func(c *Config) { c.Path = "/nonexistent/child" }, "Path"},
		{"directory path", func(c *Config) { c.Path = dir }, "Path"},
		{"not executable", func(c *Config) { c.Path = plain }, "Path"},
		{"missing dir", func(c *Config) { c.Dir = filepath.Join(dir, "nope") }, "Dir"},
		{"dir is a file", func(c *Config) { c.Dir = plain }, "Dir"},
		{"NUL in arg", func(c *Config) { c.Args = []string{"ok", "a\x00b"} }, "Args[1]"},
		{"empty keep", func(c *Config) { c.Env.Keep = append(c.Env.Keep, "") }, "Env.Keep[1]"},
		{"= in keep", func(c *Config) { c.Env.Keep = []string{"A=B"} }, "Env.Keep[0]"},
		{"NUL in remove", func(c *Config) { c.Env.Remove = []string{"A\x00"} }, "Env.Remove[0]"},
		{"set without =", func(c *Config) { c.Env.Set = append(c.Env.Set, "NOEQUALS") }, "Env.Set[2]"},
		{"set empty name", func(c *Config) { c.Env.Set = append(c.Env.Set, "=v") }, "Env.Set[2]"},
		{"set reserved", func(c *Config) { c.Env.Set = append(c.Env.Set, protocol.EnvFD+"=5") }, "Env.Set[2]"},
		{"negative startup", func(c *Config) { c.StartupTimeout = -time.Second }, "StartupTimeout"},
		{"negative limit", func(c *Config) { c.StderrLimit = -1 }, "StderrLimit"},
		{"negative quit grace", func(c *Config) { c.QuitGrace = -1 }, "QuitGrace"},
		{"negative drain window", func(c *Config) { c.DrainWindow = -time.Millisecond }, "DrainWindow"},
		{"unknown cgroup mode", func(c *Config) { c.Cgroup = 7 }, "Cgroup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := helper("ok")
			tt.cfg(&cfg)
			before := spawnAttempts.Load()
			o := Run(cfg, testRequest, nil)
			assert.Equal(t, before, spawnAttempts.Load(), "spawned despite an invalid configuration")
			assert.Equal(t, ClassInvalidConfig, o.Class)
			assert.ErrorIs(t, o.Err, ErrInvalidConfig)
			var ce *ConfigError
			require.ErrorAs(t, o.Err, &ce)
			assert.Equal(t, tt.field, ce.Field, "reason: %s", ce.Reason)
			assert.Zero(t, o.PID)
			assert.Equal(t, -1, o.ExitCode)

			_, err := Start(cfg)
			assert.ErrorAs(t, err, &ce)
		})
	}
	t.Run("request out of bounds", func(t *testing.T) {
		req := testRequest
		req.Identity.Name = strings.Repeat("x", protocol.MaxNameLen+1)
		before := spawnAttempts.Load()
		o := Run(Config{Path: exe}, req, nil)
		assert.Equal(t, before, spawnAttempts.Load())
		assert.Equal(t, ClassInvalidConfig, o.Class)
		var ce *ConfigError
		require.ErrorAs(t, o.Err, &ce)
		assert.Equal(t, "Request", ce.Field)
	})
}

func TestParentIOFailure(t *testing.T) {
	t.Run("socketpair", func(t *testing.T) {
		before := openFDs(t)
		orig := socketpair
		t.Cleanup(func() { socketpair = orig })
		socketpair = func(int, int, int) ([2]int, error) { return [2]int{-1, -1}, syscall.EMFILE }
		spawns := spawnAttempts.Load()
		o := Run(helper("ok"), testRequest, nil)
		assert.Equal(t, ClassParentIO, o.Class)
		var ioe *IOError
		require.ErrorAs(t, o.Err, &ioe)
		assert.Equal(t, "socketpair", ioe.Op)
		assert.ErrorIs(t, o.Err, ErrParentIO)
		assert.ErrorIs(t, o.Err, syscall.EMFILE)
		assert.Zero(t, o.PID)
		assert.Equal(t, spawns, spawnAttempts.Load())
		checkFDs(t, before)
	})
	t.Run("second pipe", func(t *testing.T) {
		// Everything made before the failure is released.
		before := openFDs(t)
		orig := newPipe
		t.Cleanup(func() { newPipe = orig })
		calls := 0
		newPipe = func() (*os.File, *os.File, error) {
			if calls++; calls == 2 {
				return nil, nil, syscall.ENFILE
			}
			return orig()
		}
		_, err := Start(helper("ok"))
		assert.ErrorIs(t, err, ErrParentIO)
		assert.ErrorIs(t, err, syscall.ENFILE)
		checkFDs(t, before)
	})
	t.Run("lost reaping ownership", func(t *testing.T) {
		// Someone else reaps the child: a violation of this package's
		// contract that it must detect, not paper over.
		// The hook lets the other reaper win the race deterministically:
		// it reaps the child between our observing its exit and our
		// reaping it.
		before := openFDs(t)
		var reapErr error
		testHookBeforeReap = func(pid int) {
			var ws syscall.WaitStatus
			_, reapErr = syscall.Wait4(pid, &ws, 0, nil)
		}
		t.Cleanup(func() { testHookBeforeReap = nil })
		o := Run(helper("done"), testRequest, nil)
		require.NoError(t, reapErr)
		assert.Equal(t, ClassParentIO, o.Class, "err: %v", o.Err)
		assert.ErrorIs(t, o.Err, ErrLostChild)
		assert.ErrorIs(t, o.Err, ErrParentIO)
		assert.Equal(t, -1, o.ExitCode)
		checkContained(t, o, nil)
		checkFDs(t, before)
	})
}

func TestCanceled(t *testing.T) {
	before := openFDs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	cfg := helper("hang-ignore-term")
	cfg.Grace = 100 * time.Millisecond
	var msgs []protocol.Message
	o := RunContext(ctx, cfg, testRequest, func(m protocol.Message) { msgs = append(msgs, m) })
	assert.Equal(t, ClassCanceled, o.Class)
	assert.ErrorIs(t, o.Err, ErrCanceled)
	assert.ErrorIs(t, o.Err, context.DeadlineExceeded)
	assert.Less(t, o.Elapsed, 5*time.Second)
	checkContained(t, o, nil)
	checkFDs(t, before)

	_, err := StartContext(ctx, cfg)
	assert.ErrorIs(t, err, ErrCanceled, "a done context spawns nothing")
}

// ---- the API step by step ----

func TestStartWait(t *testing.T) {
	before := openFDs(t)
	c, err := Start(helper("ok"))
	require.NoError(t, err)
	assert.Positive(t, c.PID())
	h, err := c.Hello()
	require.NoError(t, err)
	assert.Equal(t, c.PID(), h.PID)
	h2, err := c.Hello()
	require.NoError(t, err)
	assert.Equal(t, h, h2, "Hello again returns the same hello")
	require.NoError(t, c.Send(testRequest))
	assert.Error(t, c.Send(testRequest), "a second request is refused")
	var got []protocol.Message
	for {
		m, err := c.Receive()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, m)
	}
	assert.Equal(t, []string{"ready", "result", "done"}, kinds(got))
	_, err = c.Receive()
	assert.Equal(t, io.EOF, err)
	o := c.Wait()
	assert.Equal(t, ClassSuccess, o.Class)
	assert.Equal(t, o, c.Wait(), "Wait is idempotent")
	checkContained(t, o, nil)
	checkFDs(t, before)
}

func TestWaitWithoutReading(t *testing.T) {
	// The caller reads nothing after the request: Wait still reads Done
	// and the Skip, and classifies by them.
	before := openFDs(t)
	c, err := Start(helper("skip"))
	require.NoError(t, err)
	_, err = c.Hello()
	require.NoError(t, err)
	require.NoError(t, c.Send(testRequest))
	o := c.Wait()
	assert.Equal(t, ClassSkipped, o.Class, "err: %v", o.Err)
	require.NotNil(t, o.Skip)
	checkContained(t, o, nil)
	checkFDs(t, before)
}

func TestConcurrentWait(t *testing.T) {
	before := openFDs(t)
	c, err := Start(helper("exit3"))
	require.NoError(t, err)
	_, err = c.Hello()
	require.NoError(t, err)
	require.NoError(t, c.Send(testRequest))
	var wg sync.WaitGroup
	outs := make([]Outcome, 4)
	for i := range outs {
		wg.Go(func() { outs[i] = c.Wait() })
	}
	wg.Wait()
	for _, o := range outs {
		assert.Equal(t, ClassExit, o.Class)
		assert.Equal(t, outs[0], o)
	}
	checkFDs(t, before)
}

func TestConcurrentRuns(t *testing.T) {
	// Test mode runs packages in parallel: children started from many
	// goroutines at once must not disturb each other.
	before := openFDs(t)
	behaviours := []string{"ok", "skip", "exit3", "failure", "no-done", "kill-self", "grandchild", "ok"}
	want := []Class{ClassSuccess, ClassSkipped, ClassExit, ClassFailure, ClassMalformed, ClassSignal, ClassSuccess, ClassSuccess}
	outs := make([]Outcome, len(behaviours))
	msgs := make([][]protocol.Message, len(behaviours))
	var wg sync.WaitGroup
	for i, b := range behaviours {
		wg.Go(func() {
			outs[i] = Run(helper(b), testRequest, func(m protocol.Message) { msgs[i] = append(msgs[i], m) })
		})
	}
	wg.Wait()
	for i, o := range outs {
		assert.Equal(t, want[i], o.Class, "%s: %v", behaviours[i], o.Err)
		checkContained(t, o, grandchildren(msgs[i]))
	}
	checkFDs(t, before)
}

// ---- capture ----

func TestFlood300MB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 300 MB through a pipe")
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	o, _ := run(t, helper("flood"))
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	require.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
	assert.EqualValues(t, floodTotal, o.Stdout.Total)
	require.Len(t, o.Stdout.Tail, DefaultCaptureLimit)
	assert.EqualValues(t, floodTotal-DefaultCaptureLimit, o.Stdout.Omitted)
	start := o.Stdout.Total - int64(len(o.Stdout.Tail))
	for i, b := range o.Stdout.Tail {
		if b != byte((start+int64(i))%251) {
			t.Fatalf("tail byte %d is %d, want %d", i, b, (start+int64(i))%251)
		}
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(32<<20), "300 MB passed; the capture must not grow with it")
	t.Logf("300 MB drained in %v; %d KiB allocated meanwhile", o.Elapsed, allocated>>10)
}

func TestStreamMark(t *testing.T) {
	// Whatever the drain has read when the mark is set, bytes written
	// before it are not the head's and bytes written after it are, to the
	// byte; the tail and the counts cover both.
	before := openFDs(t)
	for i := range 200 {
		rd, wr, err := os.Pipe()
		require.NoError(t, err)
		s := startStream(rd, 64, nil)
		pre := bytes.Repeat([]byte{'a'}, i%70)
		_, err = wr.Write(pre)
		require.NoError(t, err)
		if i%2 == 0 {
			runtime.Gosched() // let the drain read some of it, or not
		}
		s.mark(10)
		_, err = wr.Write([]byte("SIGQUIT: quit\ngoroutine 1"))
		require.NoError(t, err)
		wr.Close()
		s.finish(time.Now().Add(5 * time.Second))
		tail, head, cut := s.capture()
		assert.False(t, cut)
		require.Equal(t, Stacks{Requested: true, Head: []byte("SIGQUIT: q"), Total: 25, Omitted: 15}, head, "iteration %d", i)
		assert.EqualValues(t, len(pre)+25, tail.Total)
	}
	checkFDs(t, before)
}

func TestStreamCut(t *testing.T) {
	// A writer that never closes its end: the drain deadline ends the
	// reading, and says so.
	rd, wr, err := os.Pipe()
	require.NoError(t, err)
	defer wr.Close()
	s := startStream(rd, 64, nil)
	_, err = wr.Write([]byte("held"))
	require.NoError(t, err)
	start := time.Now()
	s.finish(start.Add(100 * time.Millisecond))
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond)
	tail, head, cut := s.capture()
	assert.True(t, cut)
	assert.Equal(t, "held", string(tail.Tail))
	assert.Zero(t, head)
}

func TestFloodForeverUnderTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("floods until a 2 s deadline")
	}
	cfg := helper("flood-forever")
	cfg.TotalTimeout = execTimeout
	cfg.Grace = 200 * time.Millisecond
	cfg.StdoutLimit = 1000
	cfg.StderrLimit = 500
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	o, _ := run(t, cfg)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	assert.Equal(t, ClassExecTimeout, o.Class, "err: %v", o.Err)
	assert.Less(t, o.Elapsed, execTimeout+3*time.Second, "an endless writer must not delay the deadline")
	for _, c := range []struct {
		name  string
		cap   Capture
		limit int
	}{{"stdout", o.Stdout, 1000}, {"stderr", o.Stderr, 500}} {
		assert.Len(t, c.cap.Tail, c.limit, c.name)
		assert.Greater(t, c.cap.Total, int64(c.limit), c.name)
		assert.Equal(t, c.cap.Total-int64(c.limit), c.cap.Omitted, c.name)
	}
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20))
	t.Logf("stdout %d bytes, stderr %d bytes in %v", o.Stdout.Total, o.Stderr.Total, o.Elapsed)
}

// ---- stacks at a timeout ----

func TestStacksAtTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out startup and execution deadlines and SIGQUIT's grace (seconds)")
	}
	// In parallel: each waits out the 2 s deadline (6.7 s one after
	// another).
	checkFDsAfter(t)
	t.Run("spinning", func(t *testing.T) {
		t.Parallel()
		// A goroutine that never blocks: the runtime preempts it for the
		// dump, which names it. What was written before the SIGQUIT is
		// not in the head, to the byte.
		cfg := helper("spin")
		cfg.TotalTimeout = execTimeout
		o, _ := runContained(t, cfg)
		require.Equal(t, ClassExecTimeout, o.Class, "err: %v", o.Err)
		assert.ErrorIs(t, o.Err, ErrExecTimeout)
		assert.Equal(t, 2, o.ExitCode)
		require.True(t, o.Stacks.Requested)
		head := string(o.Stacks.Head)
		assert.True(t, strings.HasPrefix(head, "SIGQUIT: quit\n"), "head starts with the dump: %.200q", head)
		// The spinning goroutine is in the dump, running or preempted
		// (runnable), in spinForever (or child, where it was inlined),
		// unless it was running on another thread than the one that took
		// the signal: then the runtime shows no frames.
		assert.Regexp(t, `goroutine 1 [^\n]*\[(running|runnable)\]:\n([^\n]+\n)*?(\tgoroutine running on other thread; stack unavailable|[^\n]*sandbox\.(spinForever|child)\()`, head)
		assert.Zero(t, o.Stacks.Omitted)
		assert.EqualValues(t, len(head), o.Stacks.Total)
		const pre = "before the timeout\n"
		assert.Equal(t, int64(len(pre))+o.Stacks.Total, o.Stderr.Total, "stderr is what came before plus the stacks")
		assert.True(t, strings.HasPrefix(string(o.Stderr.Tail), pre+"SIGQUIT: quit\n"))
	})
	t.Run("head within the bound", func(t *testing.T) {
		t.Parallel()
		// The head keeps the start of a dump longer than the limit; the
		// stderr tail keeps its end.
		cfg := helper("hang")
		cfg.TotalTimeout = execTimeout
		cfg.StderrLimit = 1000
		o, _ := runContained(t, cfg)
		require.Equal(t, ClassExecTimeout, o.Class, "err: %v", o.Err)
		require.True(t, o.Stacks.Requested)
		require.Greater(t, o.Stacks.Total, int64(1000), "a dump longer than the limit")
		assert.Len(t, o.Stacks.Head, 1000)
		assert.Equal(t, o.Stacks.Total-1000, o.Stacks.Omitted)
		assert.True(t, strings.HasPrefix(string(o.Stacks.Head), "SIGQUIT: quit\n"))
		assert.Equal(t, o.Stacks.Total, o.Stderr.Total)
		assert.Len(t, o.Stderr.Tail, 1000)
		assert.NotEqual(t, o.Stacks.Head, o.Stderr.Tail)
	})
	t.Run("handled", func(t *testing.T) {
		t.Parallel()
		// A child that handles SIGQUIT itself neither dumps nor exits:
		// SIGTERM after QuitGrace ends it, well before SIGKILL would.
		cfg := helper("hang-notify-quit")
		cfg.TotalTimeout = execTimeout
		cfg.QuitGrace = 300 * time.Millisecond
		cfg.Grace = 5 * time.Second
		o, _ := runContained(t, cfg)
		require.Equal(t, ClassExecTimeout, o.Class, "err: %v", o.Err)
		assert.True(t, o.Stacks.Requested)
		assert.Equal(t, "got SIGQUIT, carrying on\n", string(o.Stacks.Head))
		assert.Equal(t, -1, o.ExitCode, "ended by a signal")
		assert.GreaterOrEqual(t, o.Elapsed, execTimeout+300*time.Millisecond)
		assert.Less(t, o.Elapsed, execTimeout+300*time.Millisecond+5*time.Second, "SIGTERM, not SIGKILL, ended it")
	})
	t.Run("not asked when canceled", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		cfg := helper("hang")
		o := RunContext(ctx, cfg, testRequest, nil)
		assert.Equal(t, ClassCanceled, o.Class)
		assert.Zero(t, o.Stacks)
		assert.Zero(t, o.Stderr.Total)
	})
}

// ---- containment ----

// withCgroupSupport replaces the probe's result for the rest of t.
func withCgroupSupport(t *testing.T, sup cgroupSupport) {
	prev := cgroupOverride
	t.Cleanup(func() { cgroupOverride = prev })
	cgroupOverride = &sup
}

func TestGrandchildren(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a grandchild's drain windows (seconds)")
	}
	writable, note := cgroupWritable()
	// In parallel: two of them wait out a 2 s deadline (4.3 s one after
	// another).
	checkFDsAfter(t)
	modes := []struct {
		name string
		mode CgroupMode
	}{{"cgroup", CgroupAuto}, {"process-group", CgroupOff}}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			if m.mode == CgroupAuto && !writable {
				t.Skip("no writable cgroup2 here: " + note)
			}
			t.Run("outlive the root", func(t *testing.T) {
				t.Parallel()
				// The root sends Done and exits; its grandchild, deaf
				// to SIGTERM, holds the pipes and the socket.
				cfg := helper("grandchild")
				cfg.Cgroup = m.mode
				o, msgs := runContained(t, cfg)
				assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
				gcs := grandchildren(msgs)
				require.Len(t, gcs, 1)
				// Named, with the streams it held, and killed.
				by := map[CgroupMode]string{CgroupAuto: "its cgroup", CgroupOff: "its process group"}[m.mode]
				assert.Equal(t, fmt.Sprintf("when the child exited, 1 process it had started was still running "+
					"(sandbox.test pid %d), holding its stdout and stderr open; it was killed with %s", gcs[0], by), o.Leftover)
				assert.False(t, alive(gcs[0]))
				assert.Empty(t, o.DrainNote, "killed, it closed them: nothing was cut")
			})
			t.Run("ignore SIGTERM at timeout", func(t *testing.T) {
				t.Parallel()
				cfg := helper("grandchild-hang")
				cfg.Cgroup = m.mode
				cfg.TotalTimeout = execTimeout
				cfg.Grace = 200 * time.Millisecond
				o, msgs := runContained(t, cfg)
				assert.Equal(t, ClassExecTimeout, o.Class, "err: %v", o.Err)
				require.Len(t, grandchildren(msgs), 1)
			})
		})
	}
}

func TestEscapedGrandchild(t *testing.T) {
	writable, note := cgroupWritable()
	t.Run("cgroup", func(t *testing.T) {
		if !writable {
			t.Skip("no writable cgroup2 here, so nothing can catch a setsid escape: " + note)
		}
		o, msgs := run(t, helper("escape"))
		assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
		assert.Equal(t, ContainmentCgroup, o.Containment)
		gcs := grandchildren(msgs)
		require.Len(t, gcs, 1)
		// It left the process group, not the cgroup: found there, named
		// and killed.
		assert.Contains(t, o.Leftover, fmt.Sprintf("(sandbox.test pid %d), holding its stdout and stderr open; it was killed with its cgroup", gcs[0]))
	})
	t.Run("cgroup without cgroup.kill", func(t *testing.T) {
		if !writable {
			t.Skip("no writable cgroup2 here: " + note)
		}
		sup := probeCgroup()
		sup.hasKill = false // freeze, kill every member, thaw
		withCgroupSupport(t, sup)
		o, msgs := run(t, helper("escape"))
		assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
		require.Len(t, grandchildren(msgs), 1)
	})
	t.Run("cgroup entered after spawn", func(t *testing.T) {
		if !writable {
			t.Skip("no writable cgroup2 here: " + note)
		}
		t.Cleanup(func() { cloneIntoCgroup = true })
		cloneIntoCgroup = false // as where clone3 is refused
		o, msgs := run(t, helper("escape"))
		assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
		assert.Equal(t, ContainmentCgroup, o.Containment)
		assert.Contains(t, o.ContainmentNote, "cgroup entered after spawn")
		require.Len(t, grandchildren(msgs), 1)
	})
	t.Run("process group only", func(t *testing.T) {
		// Documented limit: setsid escapes a process group. The escaped
		// grandchild keeps the pipes and the socket open; Wait must not
		// wait for it beyond a bounded drain.
		before := openFDs(t)
		cfg := helper("escape")
		cfg.Cgroup = CgroupOff
		var msgs []protocol.Message
		start := time.Now()
		o := Run(cfg, testRequest, func(m protocol.Message) { msgs = append(msgs, m) })
		took := time.Since(start)
		gcs := grandchildren(msgs)
		require.Len(t, gcs, 1)
		t.Cleanup(func() {
			syscall.Kill(gcs[0], syscall.SIGKILL)
			for deadline := time.Now().Add(2 * time.Second); alive(gcs[0]) && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
		})
		assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
		assert.Equal(t, ContainmentProcessGroup, o.Containment)
		assert.Equal(t, "cgroup containment is off (CgroupOff)", o.ContainmentNote)
		assert.Less(t, took, 5*time.Second)
		assert.Empty(t, groupMembers(o.PID))
		if cfg.Shim {
			// Reparented to the shim, its subreaper, wherever it went.
			assert.False(t, alive(gcs[0]), "the shim did not kill the escaped grandchild")
			assert.Contains(t, o.Leftover, "1 of them outside its process group and cgroup; it was killed by benchsup's shim")
		} else {
			assert.True(t, alive(gcs[0]), "the escaped grandchild was expected to survive without a cgroup")
			assert.Contains(t, o.DrainNote, "stdout and stderr still open 250ms after the child was reaped")
			assert.Empty(t, o.Leftover, "outside the process group, it is not found there")
		}
		checkFDs(t, before)
	})
}

func TestDrainWindow(t *testing.T) {
	// An escaped grandchild (setsid, no cgroup) holds stdout, stderr and
	// the endpoint after the root exited: Wait ends DrainWindow after the
	// reaping, not before and not much later, and says what was held.
	before := openFDs(t)
	const window = 1500 * time.Millisecond
	cfg := helper("escape")
	cfg.Cgroup = CgroupOff
	cfg.DrainWindow = window
	cfg.Shim = false // which would find the holder and kill it (TestShimReapsEscapees)
	var msgs []protocol.Message
	start := time.Now()
	o := Run(cfg, testRequest, func(m protocol.Message) { msgs = append(msgs, m) })
	took := time.Since(start)
	gcs := grandchildren(msgs)
	require.Len(t, gcs, 1)
	t.Cleanup(func() {
		syscall.Kill(gcs[0], syscall.SIGKILL)
		for deadline := time.Now().Add(2 * time.Second); alive(gcs[0]) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	})
	assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
	// o.Elapsed ends at the reaping, and began after start.
	assert.GreaterOrEqual(t, took-o.Elapsed, window, "the held pipes were read for the whole window")
	assert.Less(t, took-o.Elapsed, window+2*time.Second)
	assert.Equal(t, "stdout and stderr still open 1.5s after the child was reaped, held by a process outside its containment: closed without reading to the end", o.DrainNote)
	assert.True(t, alive(gcs[0]))
	checkFDs(t, before)
}

func TestNoWritableCgroup(t *testing.T) {
	withCgroupSupport(t, cgroupSupport{note: "no cgroup2 hierarchy is mounted"})
	o, _ := run(t, helper("ok"))
	assert.Equal(t, ClassSuccess, o.Class)
	assert.Equal(t, ContainmentProcessGroup, o.Containment)
	assert.Equal(t, "no cgroup2 hierarchy is mounted", o.ContainmentNote)
	assert.Empty(t, o.Cgroup)
}

func TestParentDeathKillsChild(t *testing.T) {
	// An intermediate supervisor starts a child through this package and
	// is then SIGKILLed: the parent-death signal must take the child too.
	before := openFDs(t)
	cfg := helper("intermediate")
	cfg.Cgroup = CgroupOff // a cgroup kill would hide a missing Pdeathsig
	c, err := Start(cfg)
	require.NoError(t, err)
	_, err = c.Hello()
	require.NoError(t, err)
	require.NoError(t, c.Send(testRequest))
	var gc int
	for gc == 0 {
		m, err := c.Receive()
		require.NoError(t, err)
		if pids := grandchildren([]protocol.Message{m}); len(pids) == 1 {
			gc = pids[0]
		}
	}
	require.True(t, alive(gc))
	_, gcGroup, _ := procStat(gc)
	require.Equal(t, gc, gcGroup, "the grandchild has a process group of its own")
	require.NoError(t, syscall.Kill(c.PID(), syscall.SIGKILL)) // the intermediate dies
	o := c.Wait()
	assert.Equal(t, ClassSignal, o.Class)
	var se *SignalError
	require.ErrorAs(t, o.Err, &se)
	assert.Equal(t, syscall.SIGKILL, se.Signal)
	checkContained(t, o, []int{gc})
	checkFDs(t, before)
}

// ---- descriptors, environment, directory ----

func TestChildInheritsOnlyStdioAndEndpoint(t *testing.T) {
	check := func(t *testing.T, marker string) {
		o, msgs := run(t, helper("fds"))
		require.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
		require.Len(t, msgs, 4)
		listing := msgs[2].(protocol.Log).Text
		got := map[int]string{}
		for line := range strings.SplitSeq(listing, "\n") {
			n, target, _ := strings.Cut(line, " ")
			fd, err := strconv.Atoi(n)
			require.NoError(t, err, line)
			switch filepath.Base(target) {
			case "anon_inode:[eventpoll]", "anon_inode:[eventfd]",
				"cpu.max", "cpu.cfs_quota_us", "cpu.cfs_period_us":
				// The child's own Go runtime opened these: the
				// netpoller, and the CPU limit it watches for
				// GOMAXPROCS.
				continue
			}
			got[fd] = target
		}
		assert.Len(t, got, 4, "descriptors: %v", got)
		assert.Equal(t, "/dev/null", got[0])
		assert.True(t, strings.HasPrefix(got[1], "pipe:"), got[1])
		assert.True(t, strings.HasPrefix(got[2], "pipe:"), got[2])
		assert.True(t, strings.HasPrefix(got[3], "socket:"), got[3])
		assert.NotContains(t, listing, marker)
	}
	t.Run("inherited before the first spawn", func(t *testing.T) {
		// TestMain opened leakedFD without close-on-exec before any
		// spawn; the first spawn marked it.
		flags, err := unix.FcntlInt(uintptr(leakedFD), unix.F_GETFD, 0)
		require.NoError(t, err, "the leaked descriptor is still open in the parent")
		assert.NotZero(t, flags&unix.FD_CLOEXEC)
		check(t, leakMarker)
	})
	t.Run("walk again", func(t *testing.T) {
		// A fresh descriptor without close-on-exec, and the once-only
		// walk made to run again, to see it do its job.
		f, err := os.CreateTemp(t.TempDir(), "benchsup-second-marker")
		require.NoError(t, err)
		fd, err := syscall.Dup(int(f.Fd()))
		require.NoError(t, err)
		f.Close()
		t.Cleanup(func() { syscall.Close(fd) })
		cloexecOnce = sync.Once{}
		check(t, "benchsup-second-marker")
	})
}

// childEnv runs the "env" child and returns its environment.
func childEnv(t *testing.T, cfg Config) (map[string]string, Outcome) {
	t.Helper()
	o, msgs := run(t, cfg)
	require.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
	env := map[string]string{}
	for kv := range strings.SplitSeq(msgs[2].(protocol.Log).Text, "\n") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	// The cgroup's name is set at spawn, only with a cgroup of its own,
	// and is not part of the policy's name set.
	if o.Containment == ContainmentCgroup {
		assert.Equal(t, filepath.Base(o.Cgroup), env[protocol.EnvCgroup])
	} else {
		assert.NotContains(t, env, protocol.EnvCgroup)
	}
	delete(env, protocol.EnvCgroup)
	return env, o
}

func hashOf(env map[string]string) string {
	names := make([]string, 0, len(env))
	for n := range env {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.Sum256([]byte(strings.Join(names, "\n") + "\n"))
	return hex.EncodeToString(h[:])[:16]
}

func TestEnvironment(t *testing.T) {
	t.Setenv("BENCHSUP_TEST_SECRET", "hunter2")
	t.Setenv("GOGC", "off")
	t.Setenv("TMPDIR", t.TempDir())
	base := func(extra ...string) map[string]string {
		want := map[string]string{protocol.EnvFD: "3", behaviourEnv: "env", "GORACE": "atexit_sleep_ms=0"}
		for _, n := range append([]string{"HOME", "PATH", "TMPDIR", "GOCOVERDIR"}, extra...) {
			if v, ok := os.LookupEnv(n); ok {
				want[n] = v
			}
		}
		return want
	}
	t.Run("strict", func(t *testing.T) {
		env, o := childEnv(t, helper("env"))
		assert.Equal(t, base(), env)
		assert.NotContains(t, env, "BENCHSUP_TEST_SECRET")
		assert.NotContains(t, env, "GOGC", "runtime tuning is not inherited silently")
		assert.Equal(t, hashOf(env), o.EnvNamesHash)
	})
	t.Run("keep set remove", func(t *testing.T) {
		cfg := helper("env")
		cfg.Env.Keep = append(cfg.Env.Keep, "GOGC", "NOT_SET_ANYWHERE")
		cfg.Env.Set = append(cfg.Env.Set, "FOO=bar", "GOGC=200")
		cfg.Env.Remove = []string{"HOME"}
		env, o := childEnv(t, cfg)
		want := base()
		delete(want, "HOME")
		want["FOO"] = "bar"
		want["GOGC"] = "200" // Set wins over Keep
		assert.Equal(t, want, env)
		assert.Equal(t, "strict keep=GOCOVERDIR,GOGC,NOT_SET_ANYWHERE remove=HOME set="+behaviourEnv+",FOO,GOGC,GORACE", o.EnvPolicy)
		assert.Equal(t, hashOf(env), o.EnvNamesHash)
	})
	t.Run("inherit", func(t *testing.T) {
		cfg := helper("env")
		cfg.Env.Inherit = true
		cfg.Env.Remove = []string{"GOGC"}
		env, o := childEnv(t, cfg)
		assert.Equal(t, "hunter2", env["BENCHSUP_TEST_SECRET"])
		assert.NotContains(t, env, "GOGC")
		assert.Equal(t, "3", env[protocol.EnvFD])
		assert.Equal(t, "inherit keep=GOCOVERDIR remove=GOGC set="+behaviourEnv+",GORACE", o.EnvPolicy)
		assert.Equal(t, hashOf(env), o.EnvNamesHash)
	})
	t.Run("hash ignores values", func(t *testing.T) {
		hash := func(value string) string {
			cfg := helper("env")
			cfg.Env.Set = append(cfg.Env.Set, "FOO="+value)
			_, o := childEnv(t, cfg)
			return o.EnvNamesHash
		}
		a, b := hash("one"), hash("two")
		assert.Equal(t, a, b)
		_, o := childEnv(t, helper("env"))
		assert.NotEqual(t, a, o.EnvNamesHash, "another name set, another hash")
	})
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	cfg := helper("cwd")
	cfg.Dir = dir
	o, msgs := run(t, cfg)
	require.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
	want, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	got, err := filepath.EvalSymlinks(strings.TrimPrefix(msgs[2].(protocol.Log).Text, "cwd="))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// ---- cgroup probing ----

func TestCgroupProbeParsing(t *testing.T) {
	dir := t.TempDir()
	mountinfo := filepath.Join(dir, "mountinfo")
	self := filepath.Join(dir, "cgroup")
	hier := filepath.Join(dir, "cg root")
	require.NoError(t, os.MkdirAll(filepath.Join(hier, "user.slice", "me"), 0o755))
	escaped := strings.ReplaceAll(hier, " ", `\040`)
	require.NoError(t, os.WriteFile(mountinfo, []byte(
		"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"+
			"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"+
			"41 31 0:38 / "+escaped+" rw,relatime shared:9 - cgroup2 cgroup2 rw\n"), 0o644))
	require.NoError(t, os.WriteFile(self, []byte("1:cpu:/\n0::/user.slice/me\n"), 0o644))

	mounts, err := cgroup2Mounts(mountinfo)
	require.NoError(t, err)
	assert.Equal(t, []mount{{root: "/", point: hier}}, mounts)
	own, err := ownCgroup(self)
	require.NoError(t, err)
	assert.Equal(t, "/user.slice/me", own)

	// A plain directory stands in for the hierarchy: the probe creates
	// its probe directory in our own cgroup first.
	sup := probeCgroupProc(mountinfo, self)
	assert.Equal(t, filepath.Join(hier, "user.slice", "me"), sup.parent)
	assert.False(t, sup.hasKill)

	require.NoError(t, os.WriteFile(mountinfo, []byte("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"), 0o644))
	sup = probeCgroupProc(mountinfo, self)
	assert.Empty(t, sup.parent)
	assert.Equal(t, "no cgroup2 hierarchy is mounted", sup.note)

	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(filepath.Join(hier, "user.slice", "me"), 0o555))
		require.NoError(t, os.Chmod(hier, 0o555))
		require.NoError(t, os.WriteFile(mountinfo, []byte("41 31 0:38 / "+escaped+" rw - cgroup2 cgroup2 rw\n"), 0o644))
		sup = probeCgroupProc(mountinfo, self)
		assert.Empty(t, sup.parent)
		assert.Contains(t, sup.note, "no writable cgroup2 directory")
	}
}

// ---- benchmarks: run both in one go to compare them ----
//
//	go test -run '^$' -bench . -benchtime=200x ./sandbox

// reportMedian reports the median of per-iteration durations as unit.
func reportMedian(b *testing.B, d []time.Duration, unit string) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), unit)
}

// BenchmarkSpawnToHello measures one whole fresh-process child: spawn,
// Hello, Request, Ready, Done, exit, group and cgroup kill, reap. It also
// reports the median time from Start to the Hello alone.
func BenchmarkSpawnToHello(b *testing.B) { benchSpawnToHello(b, 0) }

// BenchmarkSpawnToHelloSpaced is BenchmarkSpawnToHello with 60 ms between
// children, as when each child lives that long. On a hybrid host the
// spawning thread's move into a child's v1 cgroup then waits for an RCU
// grace period, which back-to-back children do not (docs/design.md#containment).
func BenchmarkSpawnToHelloSpaced(b *testing.B) { benchSpawnToHello(b, 60*time.Millisecond) }

// benchSpawnToHello runs BenchmarkSpawnToHello's children, pause apart.
func benchSpawnToHello(b *testing.B, pause time.Duration) {
	cfg := helper("done")
	var total, hello []time.Duration
	for b.Loop() {
		time.Sleep(pause)
		start := time.Now()
		o := Run(cfg, testRequest, nil)
		total = append(total, time.Since(start))
		hello = append(hello, o.StartupDuration)
		if o.Class != ClassSuccess {
			b.Fatalf("%v: %v", o.Class, o.Err)
		}
	}
	reportMedian(b, total, "median-ns/op")
	reportMedian(b, hello, "median-hello-ns/op")
}

// BenchmarkForkExecTrue is the floor: os/exec's Start and Wait of /bin/true.
func BenchmarkForkExecTrue(b *testing.B) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true(1) here")
	}
	d := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(path)
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	reportMedian(b, d, "median-ns/op")
}

func TestReadPastTheDrainDeadline(t *testing.T) {
	// A supervisor slowed past the drain deadline (a loaded host) still
	// reads what the child sent before it exited: here nothing is read
	// before Wait and the window is a nanosecond, so every read after the
	// reaping finds the deadline past. The Done still counts, and the
	// endpoint is not reported held.
	before := openFDs(t)
	cfg := helper("ok")
	cfg.DrainWindow = time.Nanosecond
	c, err := Start(cfg)
	require.NoError(t, err)
	_, err = c.Hello()
	require.NoError(t, err)
	require.NoError(t, c.Send(testRequest))
	o := c.Wait()
	assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
	assert.NotContains(t, o.DrainNote, "endpoint")
	checkContained(t, o, nil)
	checkFDs(t, before)
}

func TestStreamTakesWhatWasQueued(t *testing.T) {
	// What a pipe held when the drain deadline passed is kept; then the
	// end of the pipe is told from a holder that keeps it open.
	for _, tc := range []struct {
		name      string
		keepOpen  bool
		wantEnded bool
	}{
		{"writer closed", false, true},
		{"writer still holding it", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer r.Close()
			defer w.Close()
			want := strings.Repeat("0123456789", 10000) // past one read's buffer
			written := make(chan struct{})
			go func() {
				defer close(written)
				w.WriteString(want)
				if !tc.keepOpen {
					w.Close()
				}
			}()
			rc, err := r.SyscallConn()
			require.NoError(t, err)
			s := &stream{f: r, rc: rc, tail: newTailBuffer(1 << 20)}
			var got strings.Builder
			for got.Len() < len(want) {
				s.mu.Lock()
				ended := s.takeQueued(make([]byte, 4096))
				s.mu.Unlock()
				got.Reset()
				got.Write(s.tail.Capture().Tail)
				if ended {
					require.True(t, tc.wantEnded, "a held pipe read as ended")
					break
				}
			}
			assert.Equal(t, want, got.String())
			// The last byte can be read before the writer's Close: the
			// end is told only after it (a fresh-clone run read the
			// pipe as held).
			<-written
			s.mu.Lock()
			ended := s.takeQueued(make([]byte, 4096))
			s.mu.Unlock()
			assert.Equal(t, tc.wantEnded, ended)
			assert.Equal(t, int64(len(want)), s.tail.Capture().Total)
		})
	}
}

func TestSpawnErrorNamesTheDescriptorLimit(t *testing.T) {
	// fork/exec says EBADF when the child's descriptors reach the
	// descriptor limit (its exec-report pipe has no room above them):
	// the error names the limit, not a bad descriptor.
	var lim unix.Rlimit
	require.NoError(t, unix.Getrlimit(unix.RLIMIT_NOFILE, &lim))
	if lim.Cur > 1<<24 {
		t.Skipf("descriptor limit %d: too high to place a descriptor at", lim.Cur)
	}
	top, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, int(lim.Cur-1))
	require.NoError(t, err)
	high := os.NewFile(uintptr(top), "high")
	defer high.Close()
	low, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer low.Close()
	ebadf := &os.PathError{Op: "fork/exec", Path: "/bin/x", Err: unix.EBADF}

	got := spawnError(ebadf, []*os.File{low, high})
	var ioErr *IOError
	require.ErrorAs(t, got, &ioErr)
	assert.ErrorIs(t, got, unix.EBADF)
	assert.Contains(t, got.Error(), fmt.Sprintf("too many open files (the child's descriptors reach %d, the limit is %d)", top, lim.Cur))

	got = spawnError(ebadf, []*os.File{low})
	assert.NotContains(t, got.Error(), "too many open files", "a descriptor far from the limit")
}
