package report

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/internal/ptytest"
)

func TestLiveEnabledOnATerminal(t *testing.T) {
	_, pts := ptytest.Open(t)
	t.Setenv("TERM", "xterm-256color")
	// t.Setenv records NO_COLOR's value for restoring; then unset it.
	t.Setenv("NO_COLOR", "")
	require.NoError(t, os.Unsetenv("NO_COLOR"))
	assert.True(t, LiveEnabled(pts))
	// no-color.org: only a non-empty value disables.
	t.Setenv("NO_COLOR", "")
	assert.True(t, LiveEnabled(pts))
	t.Setenv("NO_COLOR", "1")
	assert.False(t, LiveEnabled(pts))
}

func TestProgressUsesTerminalWidth(t *testing.T) {
	_, pts := ptytest.Open(t)
	require.NoError(t, unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 40}))
	p := NewProgress(pts, true)
	assert.Equal(t, 40, p.width)
}
