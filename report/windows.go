package report

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Window.Scope values.
const (
	ScopeThread   = "thread"
	ScopeProcess  = "process"
	ScopeWallOnly = "wall-only"
)

// windowsTitle heads the table of workload windows.
const windowsTitle = "windows"

// windowsSeparator is the column that sets what is not part of a window's
// decomposition (other threads' CPU, the system-wide io stall, the regime
// and the notes) apart from what is: every number left of it is a share of
// the window's wall-clock time, none right of it is.
const windowsSeparator = "|"

// ioStallHeader heads the PSI column: a system-wide diagnostic, never
// attributed to the workload (rule 3 of DESIGN.md).
const ioStallHeader = "io-stall (system)"

// IsError reports whether the window records a failure of its process.
func (w Window) IsError() bool { return w.Error != nil }

// IsSkipped reports whether the window's process skipped (and did not
// fail).
func (w Window) IsSkipped() bool { return w.Error == nil && w.Skipped != nil }

// windowMeasured reports whether a window's numbers are shown: an error or
// skip window shows em dashes, as an error or skip row does.
func windowMeasured(w Window) bool { return !w.IsError() && !w.IsSkipped() }

// windowName is a window's package-relative name: its Name, which for an
// unnumbered or named window already carries the workload (BenchmarkIngest,
// BenchmarkIngest/parse), with the workload in front of a bare number
// (#2 becomes BenchmarkIngest#2) and the workload alone for an empty name.
func windowName(w Window) string {
	switch {
	case w.Name == "":
		return w.Workload
	case strings.HasPrefix(w.Name, "#"):
		return w.Workload + w.Name
	default:
		return w.Name
	}
}

// displayWindowName is a window's name in a table, prefixed with its
// package as displayName prefixes a row's.
func displayWindowName(w Window, prefixes map[string]string) string {
	name := oneLine(windowName(w))
	if p, ok := prefixes[w.Package]; ok {
		return p + "." + name
	}
	return name
}

// tablePackages returns the rows of a table plus one package-only row per
// window, for packagePrefixes: benchmarks and windows of one run are named
// against the same set of packages.
func tablePackages(rows []Row, windows []Window) []Row {
	out := slices.Clone(rows)
	for _, w := range windows {
		out = append(out, Row{Package: w.Package})
	}
	return out
}

// regimeCell renders a window's page-cache regime: the requested regime,
// followed by →effective when verification found another state
// (cold→partial); an em dash when no prep preceded the window.
func regimeCell(r *WindowRegime) string {
	if r == nil {
		return dash
	}
	req, eff := oneLine(r.Requested), oneLine(r.Effective)
	switch {
	case req == "" && eff == "":
		return "?"
	case eff == "" || eff == req:
		return orDash(req)
	case req == "":
		return "?→" + eff
	default:
		return req + "→" + eff
	}
}

// regimeDiffers reports whether a regime's verified state is not the
// requested one.
func regimeDiffers(r *WindowRegime) bool {
	return r != nil && r.Effective != "" && r.Effective != r.Requested
}

// durationCell renders an optional duration in nanoseconds: an em dash
// when it is not available, never 0.
func durationCell(ns *int64) string {
	if ns == nil {
		return dash
	}
	return formatDuration(float64(*ns))
}

// windowLayout is which optional columns the windows table has.
type windowLayout struct {
	proc         bool // some workload ran in more than one process
	scope        bool // the windows' decomposition scopes differ
	otherThreads bool // some window disclosed other threads' CPU
	regime       bool // some window has a regime stamp
	notes        bool // some window has a note, an error or a skip
}

func layoutWindows(windows []Window) windowLayout {
	var l windowLayout
	procs := map[[2]string][]int{}
	for _, w := range windows {
		key := [2]string{w.Package, w.Workload}
		if !slices.Contains(procs[key], w.Process) {
			procs[key] = append(procs[key], w.Process)
		}
		if len(procs[key]) > 1 {
			l.proc = true
		}
		if w.Scope != windows[0].Scope {
			l.scope = true
		}
		if w.OtherThreadsCPUNs != nil {
			l.otherThreads = true
		}
		if w.Regime != nil {
			l.regime = true
		}
	}
	// Whether other threads' CPU is a column decides whether its absence
	// is a note.
	for _, w := range windows {
		if windowNote(w, l.otherThreads) != "" {
			l.notes = true
		}
	}
	return l
}

// windowGrid builds the windows table, windows in measurement order. It
// returns the grid and the index of its notes column, or -1 when there is
// none.
//
// Columns: window, proc (the process index, only when some workload ran in
// more than one process), scope (only when the windows' scopes differ),
// reps, wall, then the decomposition (user, kernel, runqueue, disk,
// other), a | separator, other threads (only when some window disclosed
// them), io-stall (system), regime (only when some window was prepared)
// and notes (only when some window has one).
func windowGrid(windows []Window, prefixes map[string]string, opt TableOptions) (*grid, int) {
	l := layoutWindows(windows)
	g := &grid{cols: []column{{"window", alignLeft}}}
	if l.proc {
		g.cols = append(g.cols, column{"proc", alignRight})
	}
	if l.scope {
		g.cols = append(g.cols, column{"scope", alignLeft})
	}
	g.cols = append(g.cols,
		column{"reps", alignRight},
		column{"wall", alignDecimal},
		column{"user", alignDecimal},
		column{"kernel", alignDecimal},
		column{"runqueue", alignDecimal},
		column{"disk", alignDecimal},
		column{"other", alignDecimal},
		column{windowsSeparator, alignLeft},
	)
	if l.otherThreads {
		g.cols = append(g.cols, column{"other threads", alignDecimal})
	}
	g.cols = append(g.cols, column{ioStallHeader, alignDecimal})
	if l.regime {
		g.cols = append(g.cols, column{"regime", alignLeft})
	}
	notesCol := -1
	if l.notes {
		notesCol = len(g.cols)
		g.cols = append(g.cols, column{"notes", alignLeft})
	}

	noteWidth := opt.noteWidth()
	for _, w := range windows {
		ok := windowMeasured(w)
		num := func(s string) string {
			if !ok {
				return dash
			}
			return s
		}
		cells := []string{displayWindowName(w, prefixes)}
		if l.proc {
			cells = append(cells, strconv.Itoa(w.Process))
		}
		if l.scope {
			cells = append(cells, orDash(oneLine(w.Scope)))
		}
		ioStall := dash
		if w.PSI != nil {
			ioStall = formatDuration(float64(w.PSI.IOSomeNs))
		}
		cells = append(cells,
			num(strconv.Itoa(w.Reps)),
			num(formatDuration(float64(w.WallNs))),
			num(durationCell(w.OnCPUUserNs)),
			num(durationCell(w.OnCPUKernelNs)),
			num(durationCell(w.OffCPURunqueueNs)),
			num(durationCell(w.OffCPUDiskNs)),
			num(durationCell(w.OffCPUOtherNs)),
			windowsSeparator,
		)
		if l.otherThreads {
			cells = append(cells, num(durationCell(w.OtherThreadsCPUNs)))
		}
		cells = append(cells, num(ioStall))
		if l.regime {
			// The stamp predates the window, so an error or skip
			// window keeps it.
			cells = append(cells, regimeCell(w.Regime))
		}
		if l.notes {
			cells = append(cells, truncate(windowNote(w, l.otherThreads), noteWidth))
		}
		g.cells = append(g.cells, cells)
	}
	return g, notesCol
}

// windowNote is a window's notes cell before capping: "error: …" or
// "skipped: …" for a window whose process failed or skipped, else the
// first line of its Note. A measured window with an unavailable value and
// no Note says that no reason was recorded, so that an em dash never
// stands without one; otherThreads is whether the table shows that column.
func windowNote(w Window, otherThreads bool) string {
	switch {
	case w.IsError():
		if *w.Error != "" {
			return "error: " + oneLine(*w.Error)
		}
		return "error"
	case w.IsSkipped():
		if *w.Skipped != "" {
			return "skipped: " + oneLine(*w.Skipped)
		}
		return "skipped"
	case w.Note != "":
		return oneLine(w.Note)
	}
	if missing := unavailableWindowValues(w, otherThreads); len(missing) > 0 {
		return "unavailable: " + strings.Join(missing, ", ") + " (no reason recorded)"
	}
	return ""
}

// unavailableWindowValues names the cells of a measured window that are em
// dashes.
func unavailableWindowValues(w Window, otherThreads bool) []string {
	var missing []string
	for _, v := range []struct {
		name string
		v    *int64
	}{
		{"user", w.OnCPUUserNs}, {"kernel", w.OnCPUKernelNs}, {"runqueue", w.OffCPURunqueueNs},
		{"disk", w.OffCPUDiskNs}, {"other", w.OffCPUOtherNs},
	} {
		if v.v == nil {
			missing = append(missing, v.name)
		}
	}
	if otherThreads && w.OtherThreadsCPUNs == nil {
		missing = append(missing, "other threads")
	}
	if w.PSI == nil {
		missing = append(missing, "io-stall")
	}
	return missing
}

// windowNotes returns the lines of the block below the windows table: the
// scope of the decomposition when every window shares it, every note,
// error or skip reason its cell had to cut, and the residency of every
// regime that carries a note or was not the one requested.
func windowNotes(windows []Window, prefixes map[string]string, opt TableOptions) []string {
	l := layoutWindows(windows)
	noteWidth := opt.noteWidth()
	var out []string
	if !l.scope {
		out = append(out, "scope: "+scopeText(windows[0].Scope))
	}
	for _, w := range windows {
		name := displayWindowName(w, prefixes)
		if l.proc {
			name += " (proc " + strconv.Itoa(w.Process) + ")"
		}
		cell := truncate(windowNote(w, l.otherThreads), noteWidth)
		full := strings.TrimRight(w.Note, "\n")
		switch {
		case w.IsError() && *w.Error != "":
			full = "error: " + strings.TrimRight(*w.Error, "\n")
		case w.IsSkipped() && *w.Skipped != "":
			full = "skipped: " + strings.TrimRight(*w.Skipped, "\n")
		}
		if full != "" && full != cell {
			out = append(out, indentedNote(name, full)...)
		}
		if !windowMeasured(w) && w.Note != "" {
			// The cell shows the error or skip, not the note.
			out = append(out, indentedNote(name, w.Note)...)
		}
		if r := w.Regime; r != nil && (r.Note != "" || regimeDiffers(r)) {
			text := fmt.Sprintf("regime %s: %s of %s resident after the prep (%s before)",
				regimeCell(r), formatBytes(float64(r.ResidentAfter)), formatBytes(float64(r.TotalBytes)),
				formatBytes(float64(r.ResidentBefore)))
			if r.Note != "" {
				text += "; " + r.Note
			}
			out = append(out, indentedNote(name, text)...)
		}
	}
	return out
}

// scopeText explains what a decomposition scope covers.
func scopeText(scope string) string {
	switch scope {
	case ScopeThread:
		return "thread (the window's own OS thread: wall = user + kernel + runqueue + disk + other)"
	case ScopeProcess:
		return "process (user and kernel are the whole process's CPU, every thread's)"
	case ScopeWallOnly:
		return "wall-only (no CPU or off-CPU reading on this platform)"
	default:
		return orDash(oneLine(scope))
	}
}

// indentedNote renders a possibly multi-line text as a notes-block entry:
// the first line after the window's name, the others indented under it.
func indentedNote(name, text string) []string {
	ls := lines(text)
	if len(ls) == 0 {
		return nil
	}
	out := []string{name + ": " + oneLine(ls[0])}
	for _, l := range ls[1:] {
		out = append(out, "    "+oneLine(l))
	}
	return out
}

// writeWindows writes the windows table and its notes block.
func writeWindows(w *bufio.Writer, windows []Window, prefixes map[string]string, opt TableOptions, p painter) {
	g, notes := windowGrid(windows, prefixes, opt)
	header, cells := g.layout()
	w.WriteString(windowsTitle + "\n")
	w.WriteString(p.paint(bold, joinCells(header)) + "\n")
	for i, row := range cells {
		if notes >= 0 && windows[i].IsError() {
			row[notes] = p.paint(red, row[notes])
		}
		w.WriteString(joinCells(row) + "\n")
	}
	if ns := windowNotes(windows, prefixes, opt); len(ns) > 0 {
		w.WriteString("\nwindow notes\n")
		for _, n := range ns {
			w.WriteString("  " + n + "\n")
		}
	}
}
