package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/internal/ptytest"
)

// TestRecordViewOnATerminal draws the view on a pseudo-terminal of 50
// columns and 6 rows with more identities than fit, and reads what the
// terminal got: no line reaches the last column, the view leaves the last
// row free, and a second paint climbs back to its first line.
func TestRecordViewOnATerminal(t *testing.T) {
	ptmx, pts := ptytest.Open(t)
	require.NoError(t, unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 6, Col: 50}))
	v := NewRecordView(pts, true)
	assert.Equal(t, 50, v.width)
	assert.Equal(t, 6, v.height)

	r := recordViewCases[0].r
	for range 5 {
		r.Identities = append(r.Identities, r.Identities[0])
	}
	v.Update(r)
	first := readPaint(t, ptmx)
	v.Update(r)
	second := readPaint(t, ptmx)

	ls := visibleLines(first)
	assert.Len(t, ls, 5, "six rows, one left free: %q", ls)
	for _, l := range ls {
		assert.LessOrEqual(t, runeLen(l), 49, "%q", l)
	}
	assert.Contains(t, ls[len(ls)-1], "more")
	assert.Contains(t, second, "\x1b[4A", "up four lines to the first")
}

// readPaint reads from the terminal's leader side up to the end of one
// synchronized repaint.
func readPaint(t *testing.T, ptmx interface{ Read([]byte) (int, error) }) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		var all bytes.Buffer
		buf := make([]byte, 4096)
		for !bytes.Contains(all.Bytes(), []byte(syncEnd)) {
			n, err := ptmx.Read(buf)
			if err != nil {
				break
			}
			all.Write(buf[:n])
		}
		got <- all.String()
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("the terminal got no complete repaint")
		return ""
	}
}

var escapes = regexp.MustCompile(`\x1b\[[?0-9;]*[A-Za-z]`)

// visibleLines is what a paint shows: its text without control sequences,
// split into lines (the terminal may turn each "\n" into "\r\n").
func visibleLines(paint string) []string {
	text := strings.ReplaceAll(escapes.ReplaceAllString(paint, ""), "\r", "")
	return strings.Split(text, "\n")
}
