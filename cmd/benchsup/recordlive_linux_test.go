package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/internal/ptytest"
)

// TestRecordLiveOnATerminal runs benchsup record on a fixture program with
// stderr a pseudo-terminal: the terminal gets the view's frames (clock,
// usage, the identity's counters and rolling quantiles), the program's
// lines arrive whole, and once the run ends the screen holds only them;
// stdout, not a terminal, gets the document alone.
func TestRecordLiveOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program for 2.5 s")
	}
	ptmx, pts := ptytest.Open(t)
	require.NoError(t, unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 120}))
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "")
	require.NoError(t, os.Unsetenv("NO_COLOR"))

	got := make(chan string, 1)
	go func() {
		var all bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			all.Write(buf[:n])
			if err != nil || bytes.Contains(all.Bytes(), []byte("\x00end")) {
				break
			}
		}
		got <- all.String()
	}()
	var stdout bytes.Buffer
	status := run([]string{"benchsup", "record", "--for=2500ms", "--", "./testdata/recprog"}, &stdout, pts)
	pts.WriteString("\x00end")
	transcript := <-got
	transcript = transcript[:strings.Index(transcript, "\x00end")]
	assert.Equal(t, exitOK, status, "stdout:\n%s", stdout.String())

	frames := visible(transcript)
	assert.Regexp(t, `00:00:0[1-3]  cpu \d+% \(\d+\.\d\d cores\) rss \S+ \(`, frames, "a frame with the child's usage")
	assert.Regexp(t, `identity +done +active +errors +p50 +p95 +window`, frames)
	assert.Regexp(t, `(?m)  job +[1-9]\d* +[01] +0 +[23]\.\d+ms +\d+\.\d+ms +[1-9]\d*\r?$`, frames, "the identity's counters and quantiles")

	var s screen
	s.feed(transcript)
	assert.Equal(t, "recprog: started\nrecprog: 300 jobs\nrecprog: partial line ended", strings.TrimRight(s.String(), "\n"),
		"after the run the terminal holds the program's output, whole, and no view")
	assert.Contains(t, stdout.String(), "job")
	assert.NotContains(t, stdout.String(), "\x1b", "stdout is not a terminal: no control sequences")
}

// visible is the transcript without control sequences.
func visible(s string) string { return csiAll.ReplaceAllString(s, "") }
