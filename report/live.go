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

// Progress is a one-line live display of a run: the identity being
// measured, its position, and the time since the Progress was created. It
// repaints only when Update is called, at case boundaries, so no goroutine
// or ticker runs behind it.
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

	mu      sync.Mutex
	painted bool
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
// its 1-based position among n.
func (p *Progress) Update(identity string, k, n int) {
	if p == nil || !p.enabled {
		return
	}
	elapsed := p.now().Sub(p.start).Round(100 * time.Millisecond)
	line := fmt.Sprintf("[%d/%d %v] %s", k, n, elapsed, oneLine(identity))
	// One column short of the width: writing the last column makes some
	// terminals wrap early.
	line = truncate(line, p.width-1)
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.w, syncBegin+eraseLine+line+syncEnd)
	p.painted = true
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
