package report

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// LiveEnabled reports whether live displays (the progress line) may be
// drawn on out: only when out is a terminal, $NO_COLOR is unset or empty
// (no-color.org: only a non-empty value counts) and TERM is not "dumb".
// Piped or redirected output therefore stays byte-stable.
func LiveEnabled(out *os.File) bool {
	if out == nil {
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(out)
}

// defaultWidth is the line width assumed when the terminal's is unknown.
const defaultWidth = 80

// Terminal control sequences of the progress line.
const (
	eraseLine = "\r\x1b[2K"
	// syncBegin and syncEnd bracket a repaint in DEC mode 2026
	// (synchronized output), so a terminal that supports it never shows
	// half a line; others ignore the private mode.
	syncBegin = "\x1b[?2026h"
	syncEnd   = "\x1b[?2026l"
)

// Progress is a one-line live display of a run: the child being run, its
// position, the time since the Progress was created, an estimate of the
// time left, and (when its driver passes them with SetUsage) the running
// child's CPU and memory. Update repaints it at case boundaries; SetUsage
// repaints it in between, so that a driver with a ticker keeps the usage
// and the elapsed time current. No goroutine runs behind it.
//
// A disabled Progress, and a nil *Progress, write nothing at all. Progress
// is a display, not a record: write errors are ignored, and a Progress is
// safe for concurrent use.
type Progress struct {
	w       io.Writer
	enabled bool
	width   int
	start   time.Time
	now     func() time.Time // time.Now; replaced in tests

	mu       sync.Mutex
	painted  bool
	identity string
	k, n     int
	usage    *LiveUsage // nil: not shown
	// The estimate of the time left: the first Update's time and
	// position, and the current child's start.
	firstAt, curAt time.Time
	firstK         int
}

// NewProgress returns a Progress drawing on w when enabled is true. Pass
// LiveEnabled(f) for enabled. When w is a terminal *os.File, lines are cut
// to its width, since a wrapped line could not be erased in place.
func NewProgress(w io.Writer, enabled bool) *Progress {
	p := &Progress{w: w, enabled: enabled, width: defaultWidth, now: time.Now}
	if f, ok := w.(*os.File); ok && enabled {
		if cols, ok := terminalWidth(f); ok && cols > 1 {
			p.width = cols
		}
	}
	p.start = p.now()
	return p
}

// Update repaints the line: identity is the benchmark or test being run, k
// its 1-based position among n. The usage shown so far is dropped: it was
// another child's.
func (p *Progress) Update(identity string, k, n int) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.firstAt.IsZero() {
		p.firstAt, p.firstK = now, k
	}
	p.curAt = now
	p.identity, p.k, p.n, p.usage = identity, k, n, nil
	p.paint(now)
}

// SetUsage shows u, the running child's usage (nil: none), and repaints the
// line if it is drawn.
func (p *Progress) SetUsage(u *LiveUsage) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.usage = escaped(u)
	if p.painted {
		p.paint(p.now())
	}
}

// paint draws the line; p.mu is held.
func (p *Progress) paint(now time.Time) {
	elapsed := now.Sub(p.start).Round(100 * time.Millisecond)
	head := fmt.Sprintf("[%d/%d %v", p.k, p.n, elapsed)
	if left, ok := p.left(now); ok {
		head += " ~" + left.String() + " left"
	}
	head += "] "
	identity := oneLine(p.identity)
	line := head + identity
	if p.usage != nil {
		usage := "  " + usageText(p.usage)
		// The usage stays whole: the identity gives way first, down to
		// a readable stub.
		room := max(p.width-1-runeLen(head)-runeLen(usage), 12)
		line = head + truncate(identity, room) + usage
	}
	// One column short of the width: writing the last column makes some
	// terminals wrap early.
	line = truncate(line, p.width-1)
	io.WriteString(p.w, syncBegin+eraseLine+line+syncEnd)
	p.painted = true
}

// left estimates the time the run has left: the mean time of the children
// finished since the first Update, times the children left, less what the
// current one has run, at least the mean times those after it. False
// before the first child finished: nothing is estimated from nothing.
func (p *Progress) left(now time.Time) (time.Duration, bool) {
	done := p.k - p.firstK
	if done <= 0 || p.n < p.k {
		return 0, false
	}
	mean := p.curAt.Sub(p.firstAt) / time.Duration(done)
	after := mean * time.Duration(p.n-p.k)
	left := max(after+mean-now.Sub(p.curAt), after)
	return left.Round(time.Second), true
}

// Clear erases the line, leaving the cursor at its start, so that what is
// printed next starts on a clean line.
func (p *Progress) Clear() {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.painted {
		io.WriteString(p.w, eraseLine)
		p.painted = false
	}
}
