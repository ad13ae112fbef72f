//go:build linux

package sandbox

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func shimmed(behaviour string) Config {
	cfg := helper(behaviour)
	cfg.Shim = true
	return cfg
}

// TestShimParentSignals: code that signals its parent reaches benchsup's
// shim, never the supervisor, and ends its own child only, which says so.
func TestShimParentSignals(t *testing.T) {
	for _, tc := range []struct {
		behaviour string
		signal    syscall.Signal
		killed    bool // the shim itself died: SIGKILL cannot be caught
	}{
		{"signal-parent-TERM", syscall.SIGTERM, false},
		{"signal-parent-USR1", syscall.SIGUSR1, false},
		{"signal-group-TERM", syscall.SIGTERM, false},
		{"signal-parent-KILL", syscall.SIGKILL, true},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			o, _ := run(t, shimmed(tc.behaviour))
			assert.Equal(t, ClassSignal, o.Class, "err: %v", o.Err)
			var pse *ParentSignalError
			require.ErrorAs(t, o.Err, &pse)
			assert.ErrorIs(t, o.Err, ErrParentSignal)
			assert.Equal(t, tc.signal, pse.Signal)
			assert.Equal(t, tc.killed, pse.Killed)
			if !tc.killed && SenderReadable {
				assert.Equal(t, FromProgram, pse.From, "%v", pse)
				assert.Equal(t, o.PID, pse.Sender)
				assert.Contains(t, pse.Error(), "from the program itself (pid ")
			}
			assert.Empty(t, groupMembers(o.PID), "nothing of the child is left")
		})
	}
	// The supervisor (this test process) is alive to check: the signals
	// went to the shim. And a child after them is unaffected.
	o, _ := run(t, shimmed("ok"))
	assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
}

// TestShimSignalsOfItsOwn: the sandbox's own signals (the SIGQUIT for the
// stacks at a deadline, SIGTERM at the end) reach the program through the
// shim and are never taken for the code's.
func TestShimSignalsOfItsOwn(t *testing.T) {
	c := startShimmedHang(t, "hang")
	o := c.Wait()
	assert.Empty(t, c.p.shim.foreign, "the shim took the sandbox's signals for someone else's")
	assert.Equal(t, ClassExecTimeout, o.Class, "err: %v", o.Err)
	assert.False(t, errors.Is(o.Err, ErrParentSignal), "err: %v", o.Err)
	assert.True(t, strings.Contains(string(o.Stacks.Head), "sandbox.hang("), "the program, not the shim, printed its stacks")
}

// TestShimRelaysStatus: the program's exit status passes the shim exactly,
// and the program's parent is the shim.
func TestShimRelaysStatus(t *testing.T) {
	o, _ := run(t, shimmed("exit3"))
	assert.Equal(t, ClassExit, o.Class, "err: %v", o.Err)
	assert.Equal(t, 3, o.ExitCode)
	o, _ = run(t, shimmed("failure"))
	assert.Equal(t, ClassFailure, o.Class, "err: %v", o.Err)
}

// TestShimReadsLoweredLimits: the shim reads the ended program's limits
// before reaping it, and the error of its end names those it lowered (and,
// for the kernel's own kill at the hard CPU limit, why it died); a limit it
// raised is not named, nor is a death with no change.
func TestShimReadsLoweredLimits(t *testing.T) {
	o, _ := run(t, shimmed("fsize-kill-self"))
	var se *SignalError
	require.ErrorAs(t, o.Err, &se)
	require.Len(t, se.Limits, 1, "only RLIMIT_FSIZE was lowered: %+v", se.Limits)
	c := se.Limits[0]
	assert.Equal(t, "RLIMIT_FSIZE", c.Resource)
	assert.Equal(t, uint64(0), c.Soft)
	assert.Equal(t, uint64(4096), c.Hard)
	assert.Contains(t, se.Detail(), "; it had lowered RLIMIT_FSIZE from ")
	assert.Contains(t, se.Detail(), " to 0 and lowered its hard limit from ")
	assert.NotContains(t, se.Detail(), "the kernel", "SIGKILL is not what a file size limit sends")

	o, _ = run(t, shimmed("kill-self"))
	require.ErrorAs(t, o.Err, &se)
	assert.Empty(t, se.Limits)
	assert.NotContains(t, se.Detail(), "it had")

	o, _ = run(t, shimmed("cpu-limit"))
	require.ErrorAs(t, o.Err, &se)
	assert.Equal(t, syscall.SIGKILL, se.Signal)
	assert.Contains(t, se.Detail(), "lowered RLIMIT_CPU from unlimited to 1 s and lowered its hard limit from unlimited to 1 s, and the kernel kills a process past its hard CPU time limit with SIGKILL")
}

// TestShimReapsEscapees: a grandchild that left the process group and the
// cgroup is reparented to the shim, its subreaper, and named and killed
// when the child exits.
func TestShimReapsEscapees(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("moving a process to another cgroup needs root")
	}
	if writable, note := cgroupWritable(); !writable {
		t.Skip("no writable cgroup2 here: " + note)
	}
	if cgroup2Root() == "" {
		t.Skip("no cgroup2 mount")
	}
	o, msgs := run(t, shimmed("escape-everything"))
	gcs := grandchildren(msgs)
	require.Len(t, gcs, 1)
	t.Cleanup(func() { syscall.Kill(gcs[0], syscall.SIGKILL) })
	assert.Equal(t, ClassSuccess, o.Class, "err: %v", o.Err)
	assert.Equal(t, ContainmentCgroup, o.Containment)
	assert.False(t, alive(gcs[0]), "the escaped grandchild survived the child")
	assert.Contains(t, o.Leftover, "outside its process group and cgroup")
	assert.Contains(t, o.Leftover, "killed by benchsup's shim")
}

// TestShimOneAnnouncementManyDeliveries: the sandbox announces a signal
// once and sends it to the group, the root and every process of the
// cgroup, so the shim may take it more than once; none of those is the
// code's. (Counted one for one, the second delivery was taken for a
// foreign signal and the program asked for its stacks.)
func TestShimOneAnnouncementManyDeliveries(t *testing.T) {
	c := startShimmedHang(t, "hang-ignore-term")
	c.p.shim.announce(syscall.SIGTERM)
	for range 3 {
		_ = c.p.proc.Signal(syscall.SIGTERM) // an error: the child ended, which the checks below catch
		time.Sleep(100 * time.Millisecond)   // each delivery handled apart
	}
	o := c.Wait()
	assert.Empty(t, c.p.shim.foreign, "a delivery of the sandbox's own signal was taken for someone else's")
	assert.Equal(t, ClassExecTimeout, o.Class, "err: %v", o.Err)
}

// startShimmedHang starts a shimmed child of a hanging behaviour, which its
// 3 s total deadline ends, and hands it its request.
func startShimmedHang(t *testing.T, behaviour string) *Child {
	t.Helper()
	cfg := shimmed(behaviour)
	cfg.TotalTimeout = 3 * time.Second
	c, err := Start(cfg)
	require.NoError(t, err)
	_, err = c.Hello()
	require.NoError(t, err)
	require.NoError(t, c.Send(testRequest))
	return c
}
