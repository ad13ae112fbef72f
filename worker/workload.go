package worker

import (
	"cmp"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/benchsup/benchsup/measure"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// StartWorkload implements measure.Runner. In discovery it notes the
// identity as a workload and keeps the body from running; asked to measure
// this identity as a workload, it opens the measurement; otherwise the body
// runs unmeasured.
func (w *session) StartWorkload(tb testing.TB, reps int) (measure.WorkloadSession, bool) {
	switch w.req.Mode {
	case protocol.ModeDiscover:
		w.mu.Lock()
		if w.workloads == nil {
			w.workloads = map[string]bool{}
		}
		w.workloads[tb.Name()] = true
		w.mu.Unlock()
		return nil, false
	case protocol.ModeWorkload:
		if tb.Name() != w.req.Identity.Name || w.measuring != nil {
			return nil, false
		}
		s := newWorkloadSession(w, tb.Name(), reps)
		w.measuring = s
		return s, true
	}
	return nil, true
}

// isWorkload reports whether discovery saw name call measure.Workload.
func (w *session) isWorkload(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.workloads[name]
}

// workload measures one workload identity: its benchmark function runs once
// through testing, and measure.Workload, calling back into StartWorkload,
// measures its windows.
func (w *session) workload() error {
	name := w.req.Identity.Name
	b, ok := lookupBenchmark(topLevel(name))
	if !ok {
		return w.fail(protocol.FailureError, fmt.Sprintf("no benchmark function %s in this test binary", topLevel(name)), "")
	}
	out, err := w.runBenchmark(b, exactPattern(name), 1, 1, nil)
	if err != nil {
		return err
	}
	if ended, err := w.endedBy(out, name); ended {
		return err
	}
	switch {
	case w.measuring == nil && len(out.started) == 0:
		return w.fail(protocol.FailureError, "no benchmark matches "+name, "")
	case w.measuring == nil:
		return w.fail(protocol.FailureError, name+" does not call measure.Workload", "")
	}
	return nil
}

// workloadSession measures the windows of one workload. Its methods run on
// the workload's goroutine, which it locks to one OS thread for the whole
// measurement, so that the thread's own accounting is the window's.
type workloadSession struct {
	w        *session
	name     string
	reps     int
	rep      int
	counters []sources.Counter // selected metrics' sources; what cannot be opened the run header names

	windows   int              // in-body windows measured so far
	open      bool             // an in-body window is running
	candidate *edges           // the whole-body window, until an in-body window exists
	candNotes []string         // notes for the whole-body window
	openNotes []string         // notes for the in-body window now open
	pending   *protocol.Regime // stamp for the next window
}

func newWorkloadSession(w *session, name string, reps int) *workloadSession {
	s := &workloadSession{w: w, name: name, reps: reps}
	if len(w.req.Config.Metrics) > 0 {
		s.counters, _ = openCounters(w.req.Config.Metrics, sources.Options{Scaled: w.req.Config.PerfScaled})
	}
	runtime.LockOSThread()
	s.candidate = s.openEdges()
	return s
}

func (s *workloadSession) Rep(i int) { s.rep = i }

// Window measures f × reps as one window.
func (s *workloadSession) Window(name string, f func()) {
	if s.open {
		s.note("a window opened inside another is measured as part of it")
		f()
		return
	}
	if s.candidate != nil {
		s.candidate.stopCounters() // in-body windows replace the whole-body one
		s.candidate = nil
	}
	s.windows++
	switch {
	case name != "":
		name = s.name + "/" + name
	case s.windows == 1:
		name = s.name
	default:
		name = fmt.Sprintf("%s#%d", s.name, s.windows)
	}
	s.open = true
	e := s.openEdges()
	for i := 0; i < s.reps; i++ {
		f()
	}
	win := e.close(name, s.reps)
	s.open = false
	s.finish(&win, append(e.notes, s.openNotes...))
	s.openNotes = nil
}

// Files prepares the page-cache regime now (see measure.W.Files).
func (s *workloadSession) Files(regime measure.Regime, paths []string) {
	skipped := func(why string) {
		s.note(fmt.Sprintf("page-cache prep (%s) skipped: %s", regime, why))
	}
	switch {
	case s.open:
		skipped("called inside an open window")
		return
	case s.rep > 0:
		skipped("repetition after the first")
		return
	}
	stamp, err := sources.Prepare(sources.Regime(regime), paths...)
	r := &protocol.Regime{
		Requested: string(regime), Effective: string(stamp.Effective),
		ResidentBefore: stamp.ResidentBefore, ResidentAfter: stamp.ResidentAfter, TotalBytes: stamp.TotalBytes,
		Note: protocol.TruncateText(stamp.Note, protocol.MaxTextLen),
	}
	if err != nil {
		r.Effective = "failed"
		r.Note = protocol.TruncateText(err.Error(), protocol.MaxTextLen)
	}
	s.pending = r // a later call before any window replaces the stamp
	if s.candidate != nil {
		// Prep is setup: the whole-body window starts after it.
		s.candidate.stopCounters()
		s.candidate = s.openEdges()
		s.candNotes = []string{"the whole-body window starts after the last Files call"}
	}
}

// note attaches a note to the window now open, or the whole-body one.
func (s *workloadSession) note(n string) {
	if s.open {
		s.openNotes = append(s.openNotes, n)
		return
	}
	s.candNotes = append(s.candNotes, n)
}

// End closes the whole-body window when the body opened none.
func (s *workloadSession) End() {
	defer func() {
		closeAll(s.counters)
		runtime.UnlockOSThread()
	}()
	if s.candidate == nil {
		return
	}
	win := s.candidate.close(s.name, s.reps)
	s.finish(&win, append(s.candidate.notes, s.candNotes...))
}

// finish stamps, annotates and sends one window.
func (s *workloadSession) finish(win *protocol.Window, notes []string) {
	win.Regime, s.pending = s.pending, nil // consume-once
	win.Note = protocol.TruncateText(strings.Join(notes, "; "), protocol.MaxTextLen)
	_ = s.w.send(*win) // a send error ends the process's exchange anyway
}

// edges holds the readings taken when a window opened.
type edges struct {
	s       *workloadSession
	psi     sources.Pressure
	psiErr  error
	t0      time.Time
	cgSome  int64
	cgOK    bool
	cgWhy   string
	thread  sources.ThreadTimes
	thErr   error
	proc    sources.ProcessTimes
	procErr error
	started []sources.Counter
	notes   []string
}

// openEdges reads every source at a window's opening edge, outermost first:
// PSI (so its reads are outside every other window), the wall clock, the
// thread and process accounting, then the counters.
func (s *workloadSession) openEdges() *edges {
	e := &edges{s: s}
	e.psi, e.psiErr = sources.ReadSystemPressure()
	e.t0 = time.Now()
	e.cgSome, _, e.cgOK, e.cgWhy = sources.ReadCgroupIOPressure()
	e.thread, e.thErr = sources.ReadThreadTimes()
	e.proc, e.procErr = sources.ReadProcessTimes()
	for _, c := range s.counters {
		if err := c.Start(); err != nil {
			e.notes = append(e.notes, fmt.Sprintf("%s: cannot start: %v", c.Source(), err))
			continue
		}
		e.started = append(e.started, c)
	}
	return e
}

// stopCounters ends the counters' bracket without using it.
func (e *edges) stopCounters() {
	for _, c := range e.started {
		c.Stop()
	}
	e.started = nil
}

// close reads every source at the closing edge, innermost first, and
// assembles the window.
func (e *edges) close(name string, reps int) protocol.Window {
	win := protocol.Window{Name: protocol.TruncateText(name, protocol.MaxNameLen), Reps: reps, Scope: "wall-only"}
	var totals []protocol.MetricCell
	for _, c := range e.started {
		r, err := c.Stop()
		if err != nil {
			e.notes = append(e.notes, fmt.Sprintf("%s: cannot read: %v", c.Source(), err))
			continue
		}
		for _, m := range c.Metrics() {
			if why, ok := r.Unavailable[m]; ok {
				e.notes = append(e.notes, fmt.Sprintf("%s: %s", m, why))
				continue
			}
			if v, ok := r.Values[m]; ok {
				totals = append(totals, protocol.MetricCell{Name: c.Source() + "." + m, Value: v, Estimated: r.Estimated[m]})
			}
		}
	}
	e.started = nil
	proc, procErr := sources.ReadProcessTimes()
	thread, thErr := sources.ReadThreadTimes()
	cgSome, _, cgOK, cgWhy := sources.ReadCgroupIOPressure()
	wall := time.Since(e.t0)
	psi, psiErr := sources.ReadSystemPressure()

	win.WallNs = int64(wall)
	var user, kernel, runq, disk *int64
	switch {
	case e.thErr == nil && thErr == nil:
		win.Scope = "thread"
		user, kernel = ptr(thread.UserNs-e.thread.UserNs), ptr(thread.SysNs-e.thread.SysNs)
		if thread.HaveSchedstat && e.thread.HaveSchedstat {
			runq = ptr(thread.WaitNs - e.thread.WaitNs)
		} else {
			e.notes = append(e.notes, "runqueue: /proc/thread-self/schedstat unreadable")
		}
	case e.procErr == nil && procErr == nil:
		win.Scope = "process"
		user, kernel = ptr(proc.UserNs-e.proc.UserNs), ptr(proc.SysNs-e.proc.SysNs)
		e.notes = append(e.notes, fmt.Sprintf("thread accounting unavailable (%v): process-wide CPU, no runqueue", firstNonNil(e.thErr, thErr)))
	default:
		e.notes = append(e.notes, "no CPU accounting: wall only")
	}
	switch {
	case e.cgOK && cgOK:
		disk = ptr(max(cgSome-e.cgSome, 0))
		e.notes = append(e.notes, "disk: the child's own cgroup io.pressure (some)")
	default:
		e.notes = append(e.notes, "disk: unattributed ("+cmp.Or(e.cgWhy, cgWhy, "no cgroup pressure")+")")
	}
	b := measure.Decompose(win.WallNs, user, kernel, runq, disk)
	win.OnCPUUserNs, win.OnCPUKernelNs, win.OffCPURunqueueNs, win.OffCPUDiskNs = nonNeg(b.User), nonNeg(b.Kernel), nonNeg(b.Runqueue), nonNeg(b.Disk)
	if win.Scope != "wall-only" {
		win.OffCPUOtherNs = ptr(b.Other)
	}
	if b.Clamped > 0 {
		e.notes = append(e.notes, fmt.Sprintf("the components exceed wall by %v: other clamped to 0", time.Duration(b.Clamped)))
	}
	if win.Scope == "thread" && e.procErr == nil && procErr == nil {
		procCPU := (proc.UserNs - e.proc.UserNs) + (proc.SysNs - e.proc.SysNs)
		thCPU := (thread.UserNs - e.thread.UserNs) + (thread.SysNs - e.thread.SysNs)
		win.OtherThreadsCPUNs = ptr(max(procCPU-thCPU, 0))
	}
	if e.procErr == nil && procErr == nil {
		for _, k := range sortedKeys(proc.Counts) {
			if v0, ok := e.proc.Counts[k]; ok {
				totals = append(totals, protocol.MetricCell{Name: "tier0." + k, Value: proc.Counts[k] - v0})
			}
		}
	}
	if len(totals) > protocol.MaxTotalsPerWindow {
		totals = totals[:protocol.MaxTotalsPerWindow]
	}
	win.Totals = totals
	if e.psiErr == nil && psiErr == nil {
		win.PSI = &protocol.PSI{
			IOSomeNs: max(psi.IOSome-e.psi.IOSome, 0), IOFullNs: max(psi.IOFull-e.psi.IOFull, 0),
			MemSomeNs: max(psi.MemSome-e.psi.MemSome, 0), MemFullNs: max(psi.MemFull-e.psi.MemFull, 0),
			CPUSomeNs: max(psi.CPUSome-e.psi.CPUSome, 0),
		}
	}
	return win
}

func ptr(v int64) *int64 { return &v }

// nonNeg drops a negative delta (a counter that went backwards is not a
// measurement).
func nonNeg(p *int64) *int64 {
	if p == nil || *p < 0 {
		return nil
	}
	return p
}

func firstNonNil(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
