//go:build linux && amd64

package sandbox

import (
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSignalSender: the wrapped handler records who sent the signal and
// the Go runtime still delivers it.
func TestSignalSender(t *testing.T) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGUSR2)
	defer signal.Stop(ch)
	require.NoError(t, WatchSender(syscall.SIGUSR2))
	require.NoError(t, WatchSender(syscall.SIGUSR2), "a second call is harmless")

	receive := func() {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal("the signal was not delivered through os/signal")
		}
	}
	// From this process.
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGUSR2))
	receive()
	pid, code, ok := SignalSender(syscall.SIGUSR2)
	require.True(t, ok)
	assert.Equal(t, os.Getpid(), pid)
	assert.Equal(t, 0, code, "SI_USER")

	// From another process, which is then gone.
	cmd := exec.Command("/bin/sh", "-c", "kill -USR2 "+strconv.Itoa(os.Getpid()))
	require.NoError(t, cmd.Start())
	other := cmd.Process.Pid
	require.NoError(t, cmd.Wait())
	receive()
	pid, _, ok = SignalSender(syscall.SIGUSR2)
	require.True(t, ok)
	assert.Equal(t, other, pid)

	_, _, ok = SignalSender(syscall.SIGHUP)
	assert.False(t, ok, "an unwatched signal reports nothing")
}
