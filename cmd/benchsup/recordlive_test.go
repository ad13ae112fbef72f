package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/benchsup/benchsup/supervisor"
	"github.com/stretchr/testify/assert"
)

// screen is a terminal reduced to what the live displays use: printable
// text, "\r", "\n" (as a terminal's output processing makes it, to the
// start of the next line), cursor up (ESC [ n A) and erase to the end of the
// screen (ESC [ J); other sequences are ignored. Lines never wrap or
// scroll off: it keeps them all.
type screen struct {
	lines    []string
	row, col int
}

var csi = regexp.MustCompile(`^\x1b\[([?0-9;]*)([A-Za-z])`)
var csiAll = regexp.MustCompile(`\x1b\[[?0-9;]*[A-Za-z]`)

func (s *screen) feed(text string) {
	for len(text) > 0 {
		if m := csi.FindStringSubmatch(text); m != nil {
			text = text[len(m[0]):]
			switch m[2] {
			case "A":
				n, _ := strconv.Atoi(m[1])
				s.row = max(0, s.row-max(n, 1))
			case "J":
				s.line()
				l := []rune(s.lines[s.row])
				s.lines[s.row] = string(l[:min(s.col, len(l))])
				s.lines = s.lines[:s.row+1]
			}
			continue
		}
		c, size := utf8.DecodeRuneInString(text)
		text = text[size:]
		switch c {
		case '\r':
			s.col = 0
		case '\n':
			s.row, s.col = s.row+1, 0
			s.line()
		default:
			s.line()
			l := []rune(s.lines[s.row])
			for len(l) < s.col {
				l = append(l, ' ')
			}
			if s.col < len(l) {
				l[s.col] = c
			} else {
				l = append(l, c)
			}
			s.lines[s.row] = string(l)
			s.col++
		}
	}
}

// line makes sure the cursor's line exists.
func (s *screen) line() {
	for len(s.lines) <= s.row {
		s.lines = append(s.lines, "")
	}
}

func (s *screen) String() string { return strings.Join(s.lines, "\n") }

// TestRecordLiveInterleaving drives the live view by hand on a buffer
// read as a terminal: the program's complete lines scroll above the view,
// a partial line waits for its newline, or is shown as it is after a
// snapshot with the view kept off until it ends, and close leaves only the
// program's output.
func TestRecordLiveInterleaving(t *testing.T) {
	snap := supervisor.RecordSnapshot{
		Elapsed:    3 * time.Second,
		Identities: []supervisor.RecordIdentitySnapshot{{Identity: "job", Completed: 7, Active: 1, Errors: 2}},
		Latest:     []supervisor.RecordSpan{{Identity: "job", DurationNs: 2e6}, {Identity: "job", DurationNs: 4e6}},
	}
	view := regexp.MustCompile(`(?m)^  job +7 +1 +2 +3\.\d+ms +[34]\.\d+ms +\d$`)
	steps := []struct {
		name     string
		do       func(l *recordLive)
		want     []string // lines at the top of the screen, in order
		viewShow bool
	}{
		{"first frame", func(l *recordLive) { l.snapshot(snap) }, nil, true},
		{"a complete line", func(l *recordLive) { l.Write([]byte("one\n")) }, []string{"one"}, true},
		{"two lines at once", func(l *recordLive) { l.Write([]byte("two\nthree\n")) }, []string{"one", "two", "three"}, true},
		{"a partial line is held", func(l *recordLive) { l.Write([]byte("fo")) }, []string{"one", "two", "three"}, true},
		{"and ends", func(l *recordLive) { l.Write([]byte("ur\nfi")) }, []string{"one", "two", "three", "four"}, true},
		{"a snapshot shows it as it is", func(l *recordLive) { l.snapshot(snap) }, []string{"one", "two", "three", "four", "fi"}, false},
		{"its end brings the view back", func(l *recordLive) { l.Write([]byte("ve\n")) }, []string{"one", "two", "three", "four", "five"}, true},
		{"close", func(l *recordLive) { l.Write([]byte("six")); l.close() }, []string{"one", "two", "three", "four", "five", "six"}, false},
	}
	var buf bytes.Buffer
	l := newRecordLive(&buf)
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do(l)
			var s screen
			s.feed(buf.String())
			got := s.String()
			if len(st.want) > 0 && st.viewShow {
				assert.True(t, strings.HasPrefix(got, strings.Join(st.want, "\n")+"\n"), "screen:\n%s", got)
			}
			if st.viewShow {
				assert.Regexp(t, view, got)
				assert.Contains(t, got, "00:00:03  cpu — rss — (program not running)")
			} else {
				assert.NotContains(t, got, "identity", "screen:\n%s", got)
				assert.Equal(t, strings.Join(st.want, "\n"), strings.TrimSuffix(got, "\n"))
			}
		})
	}
}
