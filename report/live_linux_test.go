package report

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair, skipping the test where the host
// has none.
func openPTY(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	fd := int(ptmx.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal's follower: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	return ptmx, pts
}

func TestLiveEnabledOnATerminal(t *testing.T) {
	_, pts := openPTY(t)
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
	_, pts := openPTY(t)
	require.NoError(t, unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 40}))
	p := NewProgress(pts, true)
	assert.Equal(t, 40, p.width)
}
