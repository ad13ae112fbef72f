package report

import (
	"bufio"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// windowsTitle heads the table of workload windows.
const windowsTitle = "windows"

// windowsSeparator is the column that sets what is not part of a window's
// decomposition (other threads' CPU, the system-wide io stall, the regime
// and the notes) apart from what is: every number left of it is a share of
// the window's wall-clock time, none right of it is.
const windowsSeparator = "|"

// ioStallHeader heads the PSI column: a system-wide diagnostic, never
// attributed to the workload (docs/design.md#rules-every-number-obeys, rule 3).
const ioStallHeader = "io-stall (system)"

// displayWindowName is a window's name in a table, prefixed with its
// package as displayName prefixes a row's.
func displayWindowName(w rundoc.Window, prefixes map[string]string) string {
	name := oneLine(w.LocalName())
	if p, ok := prefixes[w.Package]; ok {
		return p + "." + name
	}
	return name
}

// tablePackages returns the rows of a table plus one package-only row per
// window, for packagePrefixes: benchmarks and windows of one run are named
// against the same set of packages.
func tablePackages(rows []rundoc.Row, windows []rundoc.Window) []rundoc.Row {
	out := slices.Clone(rows)
	for _, w := range windows {
		out = append(out, rundoc.Row{Package: w.Package})
	}
	return out
}

// regimeCell renders a window's page-cache regime: the requested regime,
// followed by →effective when verification found another state
// (cold→partial); an em dash when no prep preceded the window.
func regimeCell(r *rundoc.WindowRegime) string {
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
func regimeDiffers(r *rundoc.WindowRegime) bool {
	return r != nil && r.Effective != "" && r.Effective != r.Requested
}

// regimesCell renders the page-cache stamps of a summary's processes: one
// stamp as regimeCell does, several each with the number of processes
// that had it (cold×2, cold→partial×1); an em dash when no prep preceded
// the window.
func regimesCell(rs []rundoc.WindowRegimeCount) string {
	switch len(rs) {
	case 0:
		return dash
	case 1:
		return regimeCell(&rundoc.WindowRegime{Requested: rs[0].Requested, Effective: rs[0].Effective})
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = regimeCell(&rundoc.WindowRegime{Requested: r.Requested, Effective: r.Effective}) + "×" + strconv.Itoa(len(r.Processes))
	}
	return strings.Join(parts, ", ")
}

// displaySummaryName is a summary's name in a table, with its package
// prefix.
func displaySummaryName(s rundoc.WindowSummary, prefixes map[string]string) string {
	return displayWindowName(rundoc.Window{Package: s.Package, Workload: s.Workload, Name: s.Name}, prefixes)
}

// summaryMeasured reports whether a summary has numbers to show.
func summaryMeasured(s rundoc.WindowSummary) bool { return s.WallNs != nil }

// statCell renders a summarized duration's median; an em dash when it is
// not available.
func statCell(st *rundoc.WindowStat) string {
	if st == nil {
		return dash
	}
	return formatDuration(st.Median)
}

// windowLayout is which optional columns the windows table has.
type windowLayout struct {
	spread       bool // some window was measured in more than one process
	scope        bool // the windows' decomposition scopes differ
	otherThreads bool // some window disclosed other threads' CPU
	regime       bool // some window has a regime stamp
	notes        bool // some window has a note, an error or a skip
}

func layoutWindows(sums []rundoc.WindowSummary) windowLayout {
	var l windowLayout
	for _, s := range sums {
		if s.Processes > 1 {
			l.spread = true
		}
		if s.Scope != sums[0].Scope {
			l.scope = true
		}
		if s.OtherThreadsCPUNs != nil {
			l.otherThreads = true
		}
		if len(s.Regimes) > 0 {
			l.regime = true
		}
	}
	// Whether other threads' CPU is a column decides whether its absence
	// is a note.
	for _, s := range sums {
		if windowNote(s, l.otherThreads) != "" {
			l.notes = true
		}
	}
	return l
}

// windowGrid builds the windows table: one row per window of a workload,
// summarized across its processes, in order of first measurement. It
// returns the grid and the index of its notes column, or -1 when there is
// none.
//
// Columns: window; n, the processes that measured it ("1 of 2" when
// others failed or skipped); scope (only when the windows' scopes differ);
// reps; wall, the median over processes; range, the shortest and the
// longest process's wall relative to the median, as benchmark rows show
// their interval (only when some window ran in more than one process, an
// em dash for those that did not); the decomposition's medians (user, kernel, runqueue, disk, other);
// a | separator; other threads (only when some window disclosed them);
// io-stall (system); regime (only when some window was prepared) and notes
// (only when some window has one).
func windowGrid(sums []rundoc.WindowSummary, prefixes map[string]string, opt TableOptions) (*grid, int) {
	l := layoutWindows(sums)
	g := &grid{cols: []column{{"window", alignLeft}, {"n", alignRight}}}
	if l.scope {
		g.cols = append(g.cols, column{"scope", alignLeft})
	}
	g.cols = append(g.cols, column{"reps", alignRight}, column{"wall", alignDecimal})
	if l.spread {
		g.cols = append(g.cols, column{"range", alignRight})
	}
	g.cols = append(g.cols,
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
	for _, s := range sums {
		ok := summaryMeasured(s)
		num := func(v string) string {
			if !ok {
				return dash
			}
			return v
		}
		n := strconv.Itoa(s.Processes)
		if s.Unmeasured > 0 {
			n += " of " + strconv.Itoa(s.Processes+s.Unmeasured)
		}
		cells := []string{displaySummaryName(s, prefixes), n}
		if l.scope {
			cells = append(cells, orDash(oneLine(s.Scope)))
		}
		cells = append(cells, num(strconv.Itoa(s.Reps)), num(statCell(s.WallNs)))
		if l.spread {
			rng := dash
			if w := s.WallNs; w != nil && s.Processes > 1 {
				rng = formatInterval(w.Min, w.Max, w.Median)
			}
			cells = append(cells, rng)
		}
		cells = append(cells,
			num(statCell(s.OnCPUUserNs)),
			num(statCell(s.OnCPUKernelNs)),
			num(statCell(s.OffCPURunqueueNs)),
			num(statCell(s.OffCPUDiskNs)),
			num(statCell(s.OffCPUOtherNs)),
			windowsSeparator,
		)
		if l.otherThreads {
			cells = append(cells, num(statCell(s.OtherThreadsCPUNs)))
		}
		cells = append(cells, num(statCell(s.IOStallNs)))
		if l.regime {
			// The stamps predate the window, so an unmeasured
			// window keeps them.
			cells = append(cells, regimesCell(s.Regimes))
		}
		if l.notes {
			cells = append(cells, truncate(windowNote(s, l.otherThreads), noteWidth))
		}
		g.cells = append(g.cells, cells)
	}
	return g, notesCol
}

// windowNote is a summary's notes cell before capping: "error: …" or
// "skipped: …" for a window no process measured, else the first line of
// its Note. A measured window with an unavailable value and no Note says
// that no reason was recorded, so that an em dash never stands without
// one; otherThreads is whether the table shows that column.
func windowNote(s rundoc.WindowSummary, otherThreads bool) string {
	switch {
	case s.Error != nil:
		if *s.Error != "" {
			return "error: " + oneLine(*s.Error)
		}
		return "error"
	case s.Skipped != nil:
		if *s.Skipped != "" {
			return "skipped: " + oneLine(*s.Skipped)
		}
		return "skipped"
	case s.Note != "":
		return oneLine(s.Note)
	}
	if missing := unavailableWindowValues(s, otherThreads); len(missing) > 0 {
		return "unavailable: " + strings.Join(missing, ", ") + " (no reason recorded)"
	}
	return ""
}

// unavailableWindowValues names the cells of a measured summary that are
// em dashes.
func unavailableWindowValues(s rundoc.WindowSummary, otherThreads bool) []string {
	if !summaryMeasured(s) {
		return nil
	}
	var missing []string
	for _, v := range []struct {
		name string
		v    *rundoc.WindowStat
	}{
		{"user", s.OnCPUUserNs}, {"kernel", s.OnCPUKernelNs}, {"runqueue", s.OffCPURunqueueNs},
		{"disk", s.OffCPUDiskNs}, {"other", s.OffCPUOtherNs},
	} {
		if v.v == nil {
			missing = append(missing, v.name)
		}
	}
	if otherThreads && s.OtherThreadsCPUNs == nil {
		missing = append(missing, "other threads")
	}
	if s.IOStallNs == nil {
		missing = append(missing, "io-stall")
	}
	return missing
}

// summaryText is what the summarized numbers are, for the notes block:
// the range's confidence is that of the process counts of the summaries
// with more than one process.
func summaryText(sums []rundoc.WindowSummary) string {
	var counts []int
	for _, s := range sums {
		if s.Processes > 1 && !slices.Contains(counts, s.Processes) {
			counts = append(counts, s.Processes)
		}
	}
	slices.Sort(counts)
	var conf string
	switch len(counts) {
	case 0:
		conf = "a distribution-free confidence interval"
	case 1:
		conf = fmt.Sprintf("with %d processes, a %s distribution-free confidence interval", counts[0], rangeConfidence(counts[0]))
	default:
		var each []string
		for _, n := range counts {
			each = append(each, fmt.Sprintf("%s with %d processes", rangeConfidence(n), n))
		}
		conf = "a distribution-free confidence interval (" + strings.Join(each, ", ") + ")"
	}
	return "each value is the median over the processes that measured the window, of that quantity " +
		"taken on its own (so a row's components need not add up to its wall); range is the shortest and the " +
		"longest process's wall relative to that median (" + conf + " of the median process's wall)"
}

// rangeConfidence is the coverage of the range of n independent values
// as an interval of their median, the order statistics x(1) and x(n):
// 1 - 2·(1/2)^n (2 processes: 50%; 3: 75%; 5: 93.75%), as a percentage
// cut (not rounded) to two decimals, so it never reads 100%.
func rangeConfidence(n int) string {
	c := 1 - math.Ldexp(1, 1-n)
	return strconv.FormatFloat(math.Floor(c*1e4)/100, 'f', -1, 64) + "%"
}

// windowNotes returns the lines of the block below the windows table: the
// scope of the decomposition when every window shares it, what the
// summarized numbers are when some window ran in several processes, every
// note, error or skip reason its cell had to cut, and, per process, the
// residency of every regime that carries a note or was not the one
// requested (from the per-process windows).
func windowNotes(doc rundoc.Document, prefixes map[string]string, opt TableOptions) []string {
	sums := doc.WindowSummaries
	l := layoutWindows(sums)
	noteWidth := opt.noteWidth()
	var out []string
	if !l.scope {
		out = append(out, "scope: "+scopeText(sums[0].Scope))
	}
	if l.spread {
		out = append(out, summaryText(sums))
	}
	for _, s := range sums {
		name := displaySummaryName(s, prefixes)
		cell := truncate(windowNote(s, l.otherThreads), noteWidth)
		full := strings.TrimRight(s.Note, "\n")
		switch {
		case s.Error != nil && *s.Error != "":
			full = "error: " + strings.TrimRight(*s.Error, "\n")
		case s.Skipped != nil && *s.Skipped != "":
			full = "skipped: " + strings.TrimRight(*s.Skipped, "\n")
		}
		if full != "" && full != cell {
			out = append(out, indentedNote(name, full)...)
		}
		if (s.Error != nil || s.Skipped != nil) && s.Note != "" {
			// The cell shows the error or skip, not the note.
			out = append(out, indentedNote(name, s.Note)...)
		}
		several := s.Processes+s.Unmeasured > 1
		for _, w := range doc.Windows {
			if w.Package != s.Package || w.Workload != s.Workload || w.Name != s.Name {
				continue
			}
			r := w.Regime
			if r == nil || (r.Note == "" && !regimeDiffers(r)) {
				continue
			}
			text := fmt.Sprintf("regime %s: %s of %s resident after the prep (%s before)",
				regimeCell(r), residentBytes(r.ResidentAfter), formatBytes(float64(r.TotalBytes)),
				residentBytes(r.ResidentBefore))
			if r.Note != "" {
				text += "; " + r.Note
			}
			who := name
			if several {
				who += " (proc " + strconv.Itoa(w.Process) + ")"
			}
			out = append(out, indentedNote(who, text)...)
		}
	}
	return out
}

// residentBytes renders a residency, which is -1 when it was not observed.
func residentBytes(n int64) string {
	if n < 0 {
		return "unobserved"
	}
	return formatBytes(float64(n))
}

// scopeText explains what a decomposition scope covers.
func scopeText(scope string) string {
	switch scope {
	case rundoc.ScopeThread:
		return "thread (the window's own OS thread: wall = user + kernel + runqueue + disk + other in each process)"
	case rundoc.ScopeProcess:
		return "process (user and kernel are the whole process's CPU, every thread's)"
	case rundoc.ScopeWallOnly:
		return "wall-only (no CPU or off-CPU reading on this platform)"
	case rundoc.ScopeMixed:
		return "mixed (the processes' scopes differ: no component is summarized)"
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

// noSummaries is what the windows table says for a document whose windows
// were not summarized across processes (one written by hand, or before
// summaries existed): the per-process windows are in the JSON document.
const noSummaries = "(no cross-process summary in this document: its %d per-process windows are in the JSON document)"

// writeWindows writes the windows table and its notes block.
func writeWindows(w *bufio.Writer, doc rundoc.Document, prefixes map[string]string, opt TableOptions, p painter) {
	w.WriteString(windowsTitle + "\n")
	sums := doc.WindowSummaries
	if len(sums) == 0 {
		fmt.Fprintf(w, noSummaries+"\n", len(doc.Windows))
		return
	}
	g, notes := windowGrid(sums, prefixes, opt)
	header, cells := g.layout()
	w.WriteString(p.paint(bold, joinCells(header)) + "\n")
	for i, row := range cells {
		if notes >= 0 && sums[i].Error != nil {
			row[notes] = p.paint(red, row[notes])
		}
		w.WriteString(joinCells(row) + "\n")
	}
	writeNotes(w, "window notes", windowNotes(doc, prefixes, opt))
}
