package analysis

import (
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/rundoc"
)

// summarizeWindows returns a copy of windows in which each window of a
// process that did not succeed carries that process's error or skip
// reason, and one summary per window of a workload (package, workload,
// window name), in order of first measurement.
//
// A summary holds the statistics of stats.SummarizeWindow over the
// windows whose process succeeded: the process is the unit, each
// quantity's median and its spread between processes. A window some
// processes measured and others did not is summarized over those that did
// and says which did not; one no process measured carries the first
// reason instead of numbers.
func SummarizeWindows(windows []rundoc.Window, rows []rundoc.Row) ([]rundoc.Window, []rundoc.WindowSummary) {
	type procKey struct {
		pkg, workload string
		index         int
	}
	procs := map[procKey]rundoc.ProcessResult{}
	for _, r := range rows {
		if r.Kind != rundoc.KindWorkload {
			continue
		}
		for _, p := range r.Processes {
			procs[procKey{r.Package, r.Name, p.Index}] = p
		}
	}
	out := slices.Clone(windows)
	for i := range out {
		w := &out[i]
		p, ok := procs[procKey{w.Package, w.Workload, w.Process}]
		if !ok || w.Error != nil || w.Skipped != nil {
			continue
		}
		reason := ""
		if p.Error != nil {
			reason = *p.Error
		}
		switch p.Outcome {
		case rundoc.OutcomeOK:
		case rundoc.OutcomeSkipped:
			w.Skipped = ptr(reason)
		default:
			w.Error = ptr(strings.TrimSuffix(string(p.Outcome)+": "+reason, ": "))
		}
	}

	type key struct{ pkg, workload, name string }
	var order []key
	groups := map[key][]rundoc.Window{}
	for _, w := range out {
		k := key{w.Package, w.Workload, w.Name}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], w)
	}
	sums := make([]rundoc.WindowSummary, 0, len(order))
	for _, k := range order {
		sums = append(sums, summarizeWindow(groups[k]))
	}
	return out, sums
}

// summarizeWindow summarizes the windows of one window name, one per
// process.
func summarizeWindow(ws []rundoc.Window) rundoc.WindowSummary {
	s := rundoc.WindowSummary{Package: ws[0].Package, Workload: ws[0].Workload, Name: ws[0].Name, Reps: ws[0].Reps,
		Totals: map[string]*float64{}}
	var measured, unmeasured []rundoc.Window
	for _, w := range ws {
		if w.Error != nil || w.Skipped != nil {
			unmeasured = append(unmeasured, w)
			continue
		}
		measured = append(measured, w)
	}
	s.Processes, s.Unmeasured = len(measured), len(unmeasured)
	s.Regimes = regimeCounts(ws)
	s.Note = combineNotes(measured, unmeasured)
	if len(measured) == 0 {
		s.Scope = ws[0].Scope
		s.Error, s.Skipped = unmeasured[0].Error, unmeasured[0].Skipped
		return s
	}
	s.Reps = measured[0].Reps
	s.Scope = measured[0].Scope
	for _, w := range measured {
		if w.Scope != s.Scope {
			s.Scope = rundoc.ScopeMixed
		}
	}
	vals := make([]stats.WindowValues, len(measured))
	for i, w := range measured {
		v := stats.WindowValues{Wall: w.WallNs, OtherThreads: w.OtherThreadsCPUNs, Totals: w.Totals}
		if s.Scope != rundoc.ScopeMixed {
			// Components of different scopes are different quantities.
			v.User, v.Kernel, v.Runqueue, v.Disk, v.Other = w.OnCPUUserNs, w.OnCPUKernelNs, w.OffCPURunqueueNs, w.OffCPUDiskNs, w.OffCPUOtherNs
		}
		if w.PSI != nil {
			v.IOStall = ptr(w.PSI.IOSomeNs)
		}
		vals[i] = v
	}
	a, ok := stats.SummarizeWindow(vals)
	if !ok {
		s.Error = ptr("not summarized: a value is not a finite number")
		return s
	}
	s.WallNs = windowStat(&a.Wall)
	s.OnCPUUserNs, s.OnCPUKernelNs = windowStat(a.User), windowStat(a.Kernel)
	s.OffCPURunqueueNs, s.OffCPUDiskNs, s.OffCPUOtherNs = windowStat(a.Runqueue), windowStat(a.Disk), windowStat(a.Other)
	s.OtherThreadsCPUNs, s.IOStallNs = windowStat(a.OtherThreads), windowStat(a.IOStall)
	for k, st := range a.Totals {
		s.Totals[k] = ptr(st.Median)
	}
	for _, k := range a.Partial {
		s.Totals[k] = nil // some process lacks it: unavailable, not 0
	}
	return s
}

// windowStat converts a quantity's statistics across processes; the spread
// is reported from two processes up.
func windowStat(st *stats.Stats) *rundoc.WindowStat {
	if st == nil {
		return nil
	}
	out := &rundoc.WindowStat{Median: st.Median, Min: st.Min, Max: st.Max}
	if st.N >= 2 {
		out.Spread = ptr(st.MAD)
	}
	return out
}

// regimeCounts lists the distinct page-cache stamps of the windows, in
// order of first appearance, with the processes that had each.
func regimeCounts(ws []rundoc.Window) []rundoc.WindowRegimeCount {
	var out []rundoc.WindowRegimeCount
	for _, w := range ws {
		if w.Regime == nil {
			continue
		}
		i := slices.IndexFunc(out, func(c rundoc.WindowRegimeCount) bool {
			return c.Requested == w.Regime.Requested && c.Effective == w.Regime.Effective
		})
		if i < 0 {
			out = append(out, rundoc.WindowRegimeCount{Requested: w.Regime.Requested, Effective: w.Regime.Effective})
			i = len(out) - 1
		}
		out[i].Processes = append(out[i].Processes, w.Process)
	}
	return out
}

// combineNotes merges the notes of one window's processes: those of the
// measured windows, or of the unmeasured ones when none was measured. The
// worker joins a window's notes with "; ": a note every such window has is
// said once, in order; any other is prefixed with its process. When some
// processes measured the window, each process that did not is named with
// its error or skip reason.
func combineNotes(measured, unmeasured []rundoc.Window) string {
	split := func(note string) []string {
		if note == "" {
			return nil
		}
		return strings.Split(note, "; ")
	}
	ws := measured
	if len(ws) == 0 {
		ws = unmeasured
	}
	var common []string
	for _, n := range split(ws[0].Note) {
		shared := !slices.Contains(common, n)
		for _, w := range ws[1:] {
			shared = shared && slices.Contains(split(w.Note), n)
		}
		if shared {
			common = append(common, n)
		}
	}
	out := slices.Clone(common)
	for _, w := range ws {
		for _, n := range split(w.Note) {
			if !slices.Contains(common, n) {
				out = append(out, "proc "+strconv.Itoa(w.Process)+": "+n)
			}
		}
	}
	if len(measured) > 0 {
		for _, w := range unmeasured {
			why := ""
			switch {
			case w.Error != nil:
				why = "error: " + firstLine(*w.Error)
			case w.Skipped != nil:
				why = "skipped: " + firstLine(*w.Skipped)
			}
			out = append(out, "proc "+strconv.Itoa(w.Process)+" not summarized ("+why+")")
		}
	}
	return strings.Join(out, "; ")
}
