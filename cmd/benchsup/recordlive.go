package main

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/benchsup/benchsup/internal/liveusage"
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/benchsup/benchsup/supervisor"
)

// recordWindow is the number of latest drained spans per identity the live
// view's rolling median and p95 are of.
const recordWindow = 1000

// maxPartialLine is how much of a line without its newline the program's
// output may hold back before it is written as it is.
const maxPartialLine = 4096

// recordLive is the live view of benchsup record on a terminal: repainted
// at each snapshot (usagePeriod) with the child's usage and each
// identity's counters and rolling quantiles. The program's own output
// shares the terminal: each complete line is written with the view
// cleared first and repainted after, so that output scrolls above the
// view and never mixes with it. A partial line is held until its newline,
// or written as it is when it grows long or outlives a snapshot; the view
// then stays off until the line ends, since repainting would erase it.
type recordLive struct {
	view *report.RecordView
	out  io.Writer // the terminal, for the program's output

	mu      sync.Mutex
	child   *sandbox.Child
	usage   liveusage.Tracker
	windows map[string]*report.RollingWindow
	last    *report.LiveRecording // the latest frame, repainted after output
	partial []byte                // the program's output after its last newline
	midLine bool                  // a partial line was written: no repaint until its newline
}

// newRecordLive returns the live view drawing on w, and writing the
// program's output to it.
func newRecordLive(w io.Writer) *recordLive {
	return &recordLive{view: report.NewRecordView(w, true), out: w, windows: map[string]*report.RollingWindow{}}
}

// watch is RecordConfig.Watch: c is the program until the returned
// function is called. The first frame is painted at once.
func (l *recordLive) watch(c *sandbox.Child) func() {
	l.mu.Lock()
	l.child = c
	l.mu.Unlock()
	l.snapshot(supervisor.RecordSnapshot{})
	return func() {
		l.mu.Lock()
		l.child = nil
		l.mu.Unlock()
	}
}

// snapshot is RecordConfig.Snapshots: it reads the child's usage, feeds
// the rolling windows with the spans drained since the last one, and
// repaints.
func (l *recordLive) snapshot(s supervisor.RecordSnapshot) {
	l.mu.Lock()
	c := l.child
	l.mu.Unlock()
	var u sandbox.Usage
	var err error
	if c != nil {
		u, err = c.Usage() // outside the lock: /proc may be slow
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c != nil && l.child == c {
		l.usage.Add(u, err)
	}
	for _, sp := range s.Latest {
		w := l.windows[sp.Identity]
		if w == nil {
			w = report.NewRollingWindow(recordWindow)
			l.windows[sp.Identity] = w
		}
		w.Add(time.Duration(sp.DurationNs))
	}
	r := report.LiveRecording{Elapsed: s.Elapsed}
	if l.child != nil {
		r.Usage, r.UsageReason = l.usage.Live()
	} else {
		r.UsageReason = "program not running"
	}
	for _, id := range s.Identities {
		li := report.LiveIdentity{Name: id.Identity, Completed: id.Completed, Active: id.Active, Errors: id.Errors}
		if w := l.windows[id.Identity]; w != nil {
			li.Median, li.P95, li.Window = w.Quantiles()
		}
		r.Identities = append(r.Identities, li)
	}
	l.last = &r
	if len(l.partial) > 0 {
		// A line without its newline a whole period: show it as it is.
		l.view.Clear()
		l.out.Write(l.partial)
		l.partial, l.midLine = l.partial[:0], true
	}
	if !l.midLine {
		l.view.Update(r)
	}
}

// Write is the program's stdout and stderr: complete lines go out with
// the view cleared first and repainted after.
func (l *recordLive) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	i := bytes.LastIndexByte(l.partial, '\n')
	switch {
	case i >= 0:
		l.view.Clear()
		l.out.Write(l.partial[:i+1])
		l.partial = append(l.partial[:0], l.partial[i+1:]...)
		l.midLine = false
	case len(l.partial) > maxPartialLine:
		l.view.Clear()
		l.out.Write(l.partial)
		l.partial, l.midLine = l.partial[:0], true
		return len(p), nil
	default:
		return len(p), nil
	}
	// What is held back of a partial line is not on the screen: the view
	// may come back under the complete ones.
	if l.midLine || l.last == nil {
		return len(p), nil
	}
	l.view.Update(*l.last)
	return len(p), nil
}

// close erases the view and writes what the program left without a
// newline, so that benchsup's own output starts on a clean line.
func (l *recordLive) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.view.Clear()
	if len(l.partial) > 0 {
		l.out.Write(append(l.partial, '\n'))
		l.partial = nil
	} else if l.midLine {
		l.out.Write([]byte{'\n'})
	}
	l.midLine = false
}
