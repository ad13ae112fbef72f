package worker

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/benchsup/benchsup/internal/hooks"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// StartWorkload implements hooks.Runner. In discovery it notes the
// identity as a workload and keeps the body from running; asked to measure
// this identity as a workload, it opens the measurement; otherwise the body
// runs unmeasured.
func (w *session) StartWorkload(tb testing.TB, reps int) (hooks.WorkloadSession, bool) {
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
		if tb.Name() != w.benchName() || w.measuring != nil {
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
	name := w.benchName()
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
//
// At each window's edges it reads the default edge set (sources.EdgeReader:
// the thread's and the process's accounting, this cgroup's io.pressure,
// the system's PSI), which only reads cumulative totals and enables
// nothing, and whose perturbation bench/windows measured below 2%; the
// tier0 metrics of RequestConfig.WindowMetrics come from the same process
// reading. Any other source WindowMetrics names is a counter enabled over
// every window: opt-in (--window-metrics), opened once for the session, and
// each window's note discloses its measured perturbation
// (sources.WindowCostNote). RequestConfig.Metrics is for benchmarks'
// counting passes and is never read at window edges.
type workloadSession struct {
	w        *session
	name     string
	reps     int
	rep      int
	reader   *sources.EdgeReader
	counters []sources.Counter // the opt-in window metrics' sources, enabled over every window
	tier0    []string          // the tier0 window metrics, read from the process reading
	disclose []string          // notes every window carries: what the opt-in sources cost, what could not be read

	windows   int              // in-body windows measured so far
	open      bool             // an in-body window is running
	candidate *edges           // the whole-body window, until an in-body window exists
	candNotes []string         // notes for the whole-body window
	openNotes []string         // notes for the in-body window now open
	pending   *protocol.Regime // stamp for the next window
}

func newWorkloadSession(w *session, name string, reps int) *workloadSession {
	s := &workloadSession{w: w, name: name, reps: reps, reader: sources.NewEdgeReader()}
	s.openWindowMetrics(w.req.Config.WindowMetrics, sources.Options{Scaled: w.req.Config.PerfScaled})
	runtime.LockOSThread()
	s.candidate = s.openEdges()
	return s
}

// openWindowMetrics sorts the requested window metrics: tier0's are read
// from the process reading every window takes anyway; the others' sources
// are opened as counters, and every window discloses what they cost, and
// which requested metrics cannot be read here and why.
func (s *workloadSession) openWindowMetrics(names []string, opts sources.Options) {
	var counted []string
	for _, n := range names {
		if d, ok := sources.Describe(n); ok && d.Source == sources.SourceTier0 {
			if !slices.Contains(s.tier0, d.Name) {
				s.tier0 = append(s.tier0, d.Name)
			}
			continue
		}
		counted = append(counted, n)
	}
	if len(counted) == 0 {
		return
	}
	counters, absences := openCounters(counted, opts)
	s.counters = counters
	for _, c := range counters {
		s.disclose = append(s.disclose, sources.WindowCostNote(c.Source()))
	}
	var reasons []string
	byReason := map[string][]string{}
	for _, a := range absences {
		if _, ok := byReason[a.Reason]; !ok {
			reasons = append(reasons, a.Reason)
		}
		byReason[a.Reason] = append(byReason[a.Reason], a.Metrics...)
	}
	for _, why := range reasons {
		s.disclose = append(s.disclose, fmt.Sprintf("window metrics not read: %s: %s", strings.Join(byReason[why], ", "), why))
	}
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
func (s *workloadSession) Files(regime string, paths []string) {
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
		Requested: regime, Effective: string(stamp.Effective),
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

// End closes the whole-body window when the body opened none. The
// goroutine stays locked to its thread (newWorkloadSession) until it exits,
// which ends the thread: the worker never calls runtime.UnlockOSThread, so
// that its code is not made live in the user's test binary, where it would
// move the runtime's code after it (docs/design.md#injection).
func (s *workloadSession) End() {
	defer closeAll(s.counters)
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
	at      sources.Edge
	started []sources.Counter
	notes   []string
}

// openEdges reads every source at a window's opening edge: the default
// edge set, outermost, then the opt-in counters are enabled, innermost.
func (s *workloadSession) openEdges() *edges {
	e := &edges{s: s}
	s.reader.Open(&e.at)
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
	win := protocol.Window{Name: protocol.ShortName(name), Reps: reps, Scope: "wall-only"}
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
	var end sources.Edge
	e.s.reader.Close(&end)
	wall := end.At.Sub(e.at.At)
	o := e.at
	proc, procErr, thread, thErr := end.Process, end.ProcessErr, end.Thread, end.ThreadErr
	cgSome, cgOK, cgWhy := end.CgroupIOSome, end.CgroupOK, end.CgroupWhy
	psi, psiErr := end.Pressure, end.PressureErr
	e.notes = append(e.notes, e.s.disclose...)

	win.WallNs = int64(wall)
	var user, kernel, runq, disk *int64
	switch {
	case o.ThreadErr == nil && thErr == nil:
		win.Scope = "thread"
		user, kernel = ptr(thread.UserNs-o.Thread.UserNs), ptr(thread.SysNs-o.Thread.SysNs)
		if thread.HaveSchedstat && o.Thread.HaveSchedstat {
			runq = ptr(thread.WaitNs - o.Thread.WaitNs)
		} else {
			e.notes = append(e.notes, "runqueue: unattributed ("+cmp.Or(o.Thread.SchedstatAbsence, thread.SchedstatAbsence, "/proc/thread-self/schedstat unreadable")+")")
		}
	case o.ProcessErr == nil && procErr == nil:
		win.Scope = "process"
		user, kernel = ptr(proc.UserNs-o.Process.UserNs), ptr(proc.SysNs-o.Process.SysNs)
		e.notes = append(e.notes, fmt.Sprintf("thread accounting unavailable (%v): process-wide CPU, no runqueue", firstNonNil(o.ThreadErr, thErr)))
	default:
		e.notes = append(e.notes, "no CPU accounting: wall only")
	}
	switch {
	case o.CgroupOK && cgOK:
		disk = ptr(max(cgSome-o.CgroupIOSome, 0))
		e.notes = append(e.notes, "disk: the child's own cgroup io.pressure (some)")
	default:
		e.notes = append(e.notes, "disk: unattributed ("+cmp.Or(o.CgroupWhy, cgWhy, "no cgroup pressure")+")")
	}
	b := stats.Decompose(win.WallNs, user, kernel, runq, disk)
	win.OnCPUUserNs, win.OnCPUKernelNs, win.OffCPURunqueueNs, win.OffCPUDiskNs = nonNeg(b.User), nonNeg(b.Kernel), nonNeg(b.Runqueue), nonNeg(b.Disk)
	if win.Scope != "wall-only" {
		win.OffCPUOtherNs = ptr(b.Other)
	}
	if b.Clamped > 0 {
		e.notes = append(e.notes, fmt.Sprintf("the components exceed wall by %v: other clamped to 0", time.Duration(b.Clamped)))
	}
	if win.Scope == "thread" && o.ProcessErr == nil && procErr == nil {
		procCPU := (proc.UserNs - o.Process.UserNs) + (proc.SysNs - o.Process.SysNs)
		thCPU := (thread.UserNs - o.Thread.UserNs) + (thread.SysNs - o.Thread.SysNs)
		win.OtherThreadsCPUNs = ptr(max(procCPU-thCPU, 0))
	}
	if o.ProcessErr == nil && procErr == nil {
		totals = append(totals, e.tier0Totals(o.Process, proc)...)
	} else if len(e.s.tier0) > 0 {
		e.notes = append(e.notes, fmt.Sprintf("tier0 window metrics not read: %v", firstNonNil(o.ProcessErr, procErr)))
	}
	if len(totals) > protocol.MaxTotalsPerWindow {
		totals = totals[:protocol.MaxTotalsPerWindow]
	}
	win.Totals = totals
	if o.PressureErr == nil && psiErr == nil {
		win.PSI = &protocol.PSI{
			IOSomeNs: max(psi.IOSome-o.Pressure.IOSome, 0), IOFullNs: max(psi.IOFull-o.Pressure.IOFull, 0),
			MemSomeNs: max(psi.MemSome-o.Pressure.MemSome, 0), MemFullNs: max(psi.MemFull-o.Pressure.MemFull, 0),
			CPUSomeNs: max(psi.CPUSome-o.Pressure.CPUSome, 0),
		}
	}
	return win
}

// tier0Totals are the window's tier0 totals from the process readings at
// its edges: every count the reading has (faults, context switches, I/O),
// and the tier0 window metrics it holds beyond them (cpu-user and cpu-sys
// in ns, maxrss as its level at the closing edge). A requested count the
// reading lacks is named in a note, with the reason.
func (e *edges) tier0Totals(open, end sources.ProcessTimes) []protocol.MetricCell {
	var totals []protocol.MetricCell
	for _, k := range sortedKeys(end.Counts) {
		if v0, ok := open.Counts[k]; ok {
			totals = append(totals, protocol.MetricCell{Name: "tier0." + k, Value: end.Counts[k] - v0})
		}
	}
	var missing []string
	for _, m := range e.s.tier0 {
		var v float64
		switch m {
		case "cpu-user":
			v = float64(end.UserNs - open.UserNs)
		case "cpu-sys":
			v = float64(end.SysNs - open.SysNs)
		case "maxrss":
			v = float64(end.MaxRSSBytes)
		default:
			if _, ok := end.Counts[m]; !ok {
				missing = append(missing, m)
			}
			continue
		}
		totals = append(totals, protocol.MetricCell{Name: "tier0." + m, Value: v})
	}
	if len(missing) > 0 {
		e.notes = append(e.notes, fmt.Sprintf("window metrics not read: %s: %s", strings.Join(missing, ", "), cmp.Or(end.IOAbsence, "not in this reading")))
	}
	return totals
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
