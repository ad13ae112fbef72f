package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchsup/benchsup/rundoc"
)

// DefaultNoteWidth is the cap, in runes, of a notes cell when
// TableOptions.NoteWidth is zero. The full message is printed below the
// table.
const DefaultNoteWidth = 60

// TableOptions controls WriteTable. The zero value writes plain text.
type TableOptions struct {
	// Color adds ANSI styling: a bold column header, red error notes and
	// yellow warnings. Set it only when writing to a terminal (see
	// LiveEnabled), never for piped output.
	Color bool
	// NoteWidth caps the notes column, in runes; zero means
	// DefaultNoteWidth.
	NoteWidth int
	// Verbose gives every reason in full (benchsup -v): each unavailable
	// source and capability, the counting passes, every absent metric of
	// every row, and a column for every selected metric even when no row
	// has a value. Without it a metric no row has gets no column, and the
	// header names such metrics in one short line; the JSON document
	// always has the reasons.
	Verbose bool
	// Width is the terminal's width in columns, zero when the output is
	// not a terminal. With it, the benchmark table's notes and then its
	// names are elided in the middle until its lines fit, down to
	// minNameWidth; without it, names are cut at nameWidth.
	Width int
	// Shape projects the benchmark table (--row, --col) or orders its
	// lines (--sort); the zero Shape is the table described at
	// WriteTable.
	Shape Shape
}

// minNameWidth is the narrowest a name is cut to when fitting a table to
// TableOptions.Width: a name keeps enough to be recognized, and a line
// wraps rather than lose it.
const minNameWidth = 24

// minNoteWidth likewise bounds the notes column when fitting.
const minNoteWidth = 20

// leadingMetrics are the metric columns that come first, in this order, when
// present; every other unit follows, sorted.
var leadingMetrics = []string{"B/op", "allocs/op", "MB/s"}

// noteWidth is the cap of a notes cell, or its default.
func (opt TableOptions) noteWidth() int {
	if opt.NoteWidth <= 0 {
		return DefaultNoteWidth
	}
	return opt.NoteWidth
}

// WriteTable writes the terminal table of a benchmark run (Meta.Mode ==
// "bench"): a header naming the host and the containment, one line per row,
// and, below the table, the full error and output tail of every error row.
//
// Columns are benchmark, n (processes×samples, with the count of short
// samples), median/iter (the median of the process medians), interval (the
// distribution-free confidence interval of the median process, from the
// order statistics of the process medians, relative to the median; only
// when some row ran in more than one process, with a header line giving
// its confidence), ±within (the median within-process MAD, only when some
// process took several samples; noise, not a confidence interval), the
// metric units, the quantitative counted metrics (Document.Columns, in order, each
// headed by its header and unit: instr/op), and notes (only when some row is
// an error or a skip). Error rows sort last; the others keep measurement
// order. Unavailable cells, and every numeric cell of an error or skip row,
// are em dashes. A multiplex-scaled estimate carries a ≈ prefix. Each
// duration or byte value is written in the unit that keeps it readable
// (formatDuration, formatBytes: 25.40ms above 1.897µs, never 25400µs),
// aligned on the decimal point.
//
// Unless opt.Verbose, a counted metric that no row has a value for gets
// no column: the header names it, with the metrics of any source or
// capability this host lacks, in one short line ("no column: instructions,
// cycles (perf-hw unavailable); -v says why"), and counting passes are not
// described. Verbose, every selected metric has a column, and counted
// metrics bring more around the table, so that an em dash never stands
// without a reason the user can find (quiet, the JSON document has them):
//
//   - header lines, once per run: each degraded state of a source, one
//     line per unavailable source naming the metrics it takes away, one per
//     absent capability of an available source that takes metrics away, and
//     the counting passes' iterations and method when every row agrees;
//   - below the table, the diagnostic-class columns in a table of their
//     own titled "diagnostics (not for comparison or gating)", never as
//     headline columns (only when some column is diagnostic);
//   - then a notes block: per row, each absent metric the header lines do
//     not already explain, and the row's counting iterations and method
//     when the rows do not agree; and each of a row's Notes.
//
// A name longer than 80 runes is cut in its middle with an ellipsis (the
// JSON document keeps it whole). With opt.Width (a terminal), the notes
// and then the names are cut further until the benchmark table's lines fit
// it, if they can (grid.fit).
//
// When workloads ran (Document.Windows), a table titled "windows" follows,
// after the notes block and before the error blocks: one line per window
// of a workload summarized across its processes (Document.WindowSummaries,
// in order of first measurement; see windowGrid), named as benchmarks are
// (package-relative, with the package's suffix when the run spans several
// packages). Its columns are window; n, the processes summarized; scope
// only when the windows' scopes differ; reps; wall, the median, and
// spread, the between-process spread (only when some window ran in more
// than one process); the medians of the decomposition (user, kernel,
// runqueue, disk, other); then, right of a | separator,
// what is not part of the decomposition: other threads (CPU the rest of the
// process burned during the window, only when some window disclosed it),
// io-stall (system) (the system-wide PSI io "some" stall during the window:
// a diagnostic, never attributed to the workload), regime (requested, or
// requested→effective when verification found another state: cold→partial;
// an em dash when no prep preceded the window) and notes (only when some
// window has one: the note's first line, or error: / skipped: with em
// dashes in every numeric cell). Durations are adaptive with four
// significant digits, decimal-aligned. A "window notes" block below states
// the decomposition's scope when every window shares it, and gives in full
// each note a cell cut and each regime that carries a note or missed its
// request, with its residency. A run with windows and no rows prints the
// header lines and the windows table only.
//
// When the run has sweep families (Document.Sweeps), a table titled
// "sweeps (empirical scaling over the measured range, not proof of
// big-O)" follows the windows: one line per family, with its points, its
// range in the names' own style (1KiB–64KiB), the selected model or the
// state and why in brief (ambiguous: linear or n log n; poor-fit: closest
// n log n; unavailable: 3 points, 4 needed), the R² of the selected model
// (else of the best one) and the observed exponent with its standard
// error; an em dash where there is no value. A "sweep notes" block gives
// each family's reason in full and the members left out of its points.
//
// When the run recorded spans (Document.Recordings), a table titled
// "recordings (percentiles of individual spans)" follows the sweeps (see
// writeRecordings).
func WriteTable(w io.Writer, doc rundoc.Document, opt TableOptions) error {
	doc = escaped(doc)
	if doc.Meta.Mode != rundoc.ModeBench {
		return fmt.Errorf("report: WriteTable renders a %q document, not mode %q", rundoc.ModeBench, doc.Meta.Mode)
	}
	if err := rundoc.CheckFinite(doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	p := painter(opt.Color)
	bw := bufio.NewWriter(w)
	writeMetaHeader(bw, doc.Meta, p)

	rows, notRun := splitNotRun(tableOrder(doc.Rows))
	if !opt.Shape.Projected() {
		rows = sortRows(rows, opt.Shape.Sort) // a projection sorts its own lines
	}
	prefixes := packagePrefixes(tablePackages(doc.Rows, doc.Windows))
	quantitative, diagnostic := splitColumns(doc.Columns)
	var hidden []string
	if !opt.Verbose {
		// Verbose shows every selected metric's column, em dashes and
		// all, each dash with its reason in the notes.
		hidden = hiddenColumns(rows, doc.Columns)
		quantitative, diagnostic = withoutColumns(quantitative, hidden), withoutColumns(diagnostic, hidden)
	}
	d := discloseCounting(doc, rows, prefixes, hidden, opt.Verbose)
	for _, l := range d.header {
		bw.WriteString(p.paint(yellow, l) + "\n")
	}
	projected := opt.Shape.Projected() && len(rows) > 0
	if l := intervalLine(rows); l != "" && !projected {
		bw.WriteString(l + "\n")
	}
	if projected {
		bw.WriteString(shapeLine + "\n")
	}
	if !opt.Shape.IsZero() && (len(doc.Windows) > 0 || len(doc.Sweeps) > 0 || len(doc.Recordings) > 0) {
		bw.WriteString(shapeOnlyLine + "\n")
	}
	if l := traceLine(rows); l != "" {
		bw.WriteString(l + "\n")
	}
	bw.WriteString("\n")

	switch {
	case len(rows) == 0 && len(doc.Windows) == 0:
		bw.WriteString("no benchmark results\n")
	case len(rows) == 0:
		// Only workloads ran: no empty benchmark table.
	case projected:
		g, shapeNotes := shapedBench(rows, prefixes, opt.Shape)
		writeGrid(bw, g, p)
		d.notes = append(d.notes, shapeNotes...)
	default:
		g, notes := benchGrid(rows, prefixes, doc.Meta.Knobs.Repetitions, quantitative, opt)
		if opt.Width > 0 {
			g.fit(opt.Width, 0, notes)
		}
		header, cells := g.layout()
		bw.WriteString(p.paint(bold, joinCells(header)) + "\n")
		for i, row := range cells {
			if notes >= 0 && rows[i].IsError() {
				row[notes] = p.paint(red, row[notes])
			}
			bw.WriteString(joinCells(row) + "\n")
		}
		if g := diagnosticGrid(rows, prefixes, diagnostic); g != nil {
			bw.WriteString("\n" + diagnosticsTitle + "\n")
			writeGrid(bw, g, p)
		}
	}
	for _, l := range notRunLines(doc, notRun, func(r rundoc.Row) string { return displayName(r, prefixes) }) {
		bw.WriteString("\n" + p.paint(yellow, l) + "\n")
	}
	notes := d.notes
	for _, r := range rows {
		for _, n := range r.Notes {
			notes = append(notes, displayName(r, prefixes)+": "+oneLine(n))
		}
	}
	writeNotes(bw, "notes", notes)
	if len(doc.Windows) > 0 {
		if len(rows) > 0 {
			bw.WriteString("\n")
		}
		writeWindows(bw, doc, prefixes, opt, p)
	}
	if len(doc.Sweeps) > 0 {
		if len(rows) > 0 || len(doc.Windows) > 0 {
			bw.WriteString("\n")
		}
		writeSweeps(bw, doc.Sweeps, prefixes, opt, p)
	}
	if len(doc.Recordings) > 0 {
		if len(rows) > 0 || len(doc.Windows) > 0 || len(doc.Sweeps) > 0 {
			bw.WriteString("\n")
		}
		writeRecordings(bw, doc.Recordings, opt, p)
	}
	writeErrorBlocks(bw, withoutCanceled(doc, rows), prefixes)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing table: %w", err)
	}
	return nil
}

// traceLine says once what a "<0.01" B/op or allocs/op cell is, when one
// is shown (formatAlloc); "" otherwise.
func traceLine(rows []rundoc.Row) string {
	for _, r := range rows {
		if r.Summary == nil {
			continue
		}
		for _, u := range []string{rundoc.MetricBytes, rundoc.MetricAllocs} {
			if v := r.Summary.Metrics[u]; v != nil && formatAlloc(*v) == "<0.01" {
				return "B/op, allocs/op: as go test prints them (whole numbers); <0.01 is a trace, less than one per hundred iterations (setup spread over N), not a per-op allocation; the JSON has the exact values"
			}
		}
	}
	return ""
}

// writeMetaHeader writes the lines that say where the numbers come from:
// host and toolchain, containment, and any change linking the worker made
// to the measured build.
func writeMetaHeader(w *bufio.Writer, m rundoc.Meta, p painter) {
	gomaxprocs := dash
	if m.GOMAXPROCS > 0 {
		gomaxprocs = strconv.Itoa(m.GOMAXPROCS)
	}
	fmt.Fprintf(w, "goos: %s  goarch: %s  cpu: %s  gomaxprocs: %s  go: %s\n",
		orDash(m.OS), orDash(m.Arch), orDash(oneLine(m.CPU)), gomaxprocs, orDash(m.GoVersion))
	containment := orDash(m.Containment)
	if m.ContainmentNote != "" {
		containment += " (" + oneLine(m.ContainmentNote) + ")"
	}
	fmt.Fprintf(w, "containment: %s\n", containment)
	if m.DryRun {
		w.WriteString("dry run: every benchmark ran once (N=1) in a fresh process; nothing was measured\n")
	}
	for _, warning := range m.Warnings {
		w.WriteString(p.paint(yellow, "warning: "+oneLine(warning)) + "\n")
	}
	if l := limitsText(m.Limits); l != "" {
		fmt.Fprintf(w, "limits: %s\n", l)
	}
	for _, l := range hygieneLines(m) {
		w.WriteString(l + "\n")
	}
	writeProvenance(w, m.Provenance, p)
}

// hygieneLines are the header's one line each for what the run did to
// keep the host out of its numbers (placement, shard, quiescence, claim,
// interference policy), in that order; a field the document lacks has no
// line, as the run did not do it. The HTML report shows the same lines.
func hygieneLines(m rundoc.Meta) []string {
	var out []string
	if pl := m.Placement; pl != nil {
		l := "placement: cpus " + orDash(pl.CPUs)
		if pl.Note != "" {
			l += " (" + oneLine(pl.Note) + ")"
		}
		if pl.UnreservedSiblings != "" {
			l += "; SMT siblings " + pl.UnreservedSiblings + " not reserved"
		}
		out = append(out, l)
	}
	if sh := m.Shard; sh != nil {
		if len(sh.Merged) > 0 || sh.Index == 0 {
			var hosts []string
			for _, part := range sh.Merged {
				hosts = appendNew(hosts, part.Hostname)
			}
			l := fmt.Sprintf("shards: %d merged", sh.Count)
			if len(hosts) > 0 {
				l += fmt.Sprintf(" (%s %s)", plural(len(hosts), "host", "hosts"), strings.Join(hosts, ", "))
			}
			if sh.Method != "" {
				l += ", dealt by " + sh.Method
			}
			out = append(out, l)
		} else {
			out = append(out, fmt.Sprintf("shard: %d/%d by %s, %d %s",
				sh.Index, sh.Count, orDash(sh.Method), sh.Functions, plural(sh.Functions, "function", "functions")))
		}
	}
	if q := m.Quiescence; q != nil {
		where := "host"
		if q.CPUs != "" {
			where = "cpus " + q.CPUs
		}
		l := fmt.Sprintf("quiescence: %s quiet for %v under %s average, %s per CPU after waiting %v",
			where, time.Duration(q.StableNs), percent(q.MaxAverage), percent(q.MaxCore),
			time.Duration(q.WaitedNs).Round(100*time.Millisecond))
		if q.Note != "" {
			l += " (" + oneLine(q.Note) + ")"
		}
		out = append(out, l)
	}
	if c := m.Claim; c != nil {
		l := "claim: cpus " + orDash(c.CPUs)
		if c.MachineWide {
			l += " (machine-wide)"
		}
		l += " in " + orDash(c.Dir)
		switch {
		case len(c.WaitedFor) > 0:
			l += fmt.Sprintf(", waited %v (%s", time.Duration(c.WaitedNs).Round(100*time.Millisecond), oneLine(c.WaitedFor[0]))
			if more := len(c.WaitedFor) - 1; more > 0 {
				l += fmt.Sprintf("; then %d more", more)
			}
			l += ")"
		case c.WaitedNs > 0:
			l += fmt.Sprintf(", waited %v", time.Duration(c.WaitedNs).Round(100*time.Millisecond))
		default:
			l += ", free"
		}
		for _, n := range c.Notes {
			l += "; " + oneLine(n)
		}
		out = append(out, l)
	}
	if in := m.Interference; in != nil {
		l := fmt.Sprintf("interference: %s over %s foreign CPU", orDash(in.Response), percent(in.MaxForeign))
		if in.CPUs != "" {
			l += " on cpus " + in.CPUs
		}
		l += fmt.Sprintf(" (retakes at most %d per process", in.MaxRetakes)
		if in.Response == "pause" {
			l += fmt.Sprintf("; pauses settle %v, at most %v in all", time.Duration(in.SettleNs), time.Duration(in.PauseMaxNs))
		}
		out = append(out, l+")")
	}
	return out
}

// percent prints a fraction as a whole percentage, or with one decimal
// when it is not whole ("12.5%").
func percent(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + "%"
}

// writeProvenance says in one line that the measured builds are go test's,
// or warns, per package, where one is not.
func writeProvenance(w *bufio.Writer, pv rundoc.Provenance, p painter) {
	if len(pv.Builds) == 0 {
		return
	}
	same := 0
	for _, b := range pv.Builds {
		if b.Same {
			same++
			continue
		}
		w.WriteString(p.paint(yellow, fmt.Sprintf("warning: the measured build of %s is not the one go test makes: %s",
			b.Package, orDash(oneLine(b.Note)))) + "\n")
	}
	if same > 0 {
		fmt.Fprintf(w, "build: %d of %d packages as go test builds them (same build list, go line, GODEBUG, toolchain); worker linked by %s\n",
			same, len(pv.Builds), orDash(pv.Injection))
	}
}

// tableOrder returns rows with error rows moved last, each group keeping
// measurement order.
//
// A workload that measured fine is shown by its windows, not as a row of
// em dashes; a workload that failed or skipped keeps its row here.
func tableOrder(rows []rundoc.Row) []rundoc.Row {
	out := slices.DeleteFunc(slices.Clone(rows), func(r rundoc.Row) bool {
		return r.Kind == rundoc.KindWorkload && r.Outcome == rundoc.OutcomeOK
	})
	slices.SortStableFunc(out, func(a, b rundoc.Row) int {
		switch ae, be := a.IsError(), b.IsError(); {
		case ae == be:
			return 0
		case ae:
			return 1
		default:
			return -1
		}
	})
	return out
}

// measured reports whether a row's numbers are shown: error and skip rows
// show em dashes even when some process produced samples (the JSON
// document keeps them).
func measured(r rundoc.Row) bool {
	return r.Outcome == rundoc.OutcomeOK && r.Summary != nil
}

// benchGrid builds the table's cells from rows in table order; repetitions
// is the number of processes asked for per benchmark and counted the
// counted-metric columns to show after the metric units. It returns the
// index of the notes column, or -1 when there is none.
func benchGrid(rows []rundoc.Row, prefixes map[string]string, repetitions int, counted []rundoc.Column, opt TableOptions) (*grid, int) {
	var units []string
	interval, within, notes := false, false, false
	for _, r := range rows {
		if r.Outcome != rundoc.OutcomeOK {
			notes = true
		}
		if !measured(r) {
			continue
		}
		interval = interval || r.Summary.Interval != nil
		within = within || r.Summary.WithinMADNs != nil
		for u := range r.Summary.Metrics {
			if !slices.Contains(units, u) {
				units = append(units, u)
			}
		}
	}
	units = orderUnits(units)

	g := &grid{cols: []column{
		{"benchmark", alignLeft},
		{"n", alignRight},
		{"median/iter", alignDecimal},
	}}
	if interval {
		g.cols = append(g.cols, column{"interval", alignRight})
	}
	if within {
		g.cols = append(g.cols, column{"±within", alignRight})
	}
	for _, u := range units {
		g.cols = append(g.cols, column{u, alignDecimal})
	}
	for _, c := range counted {
		g.cols = append(g.cols, column{columnHeader(c), alignDecimal})
	}
	notesCol := -1
	if notes {
		notesCol = len(g.cols)
		g.cols = append(g.cols, column{"notes", alignLeft})
	}

	noteWidth := opt.noteWidth()
	for _, r := range rows {
		cells := make([]string, 0, len(g.cols))
		cells = append(cells, displayName(r, prefixes))
		numeric := len(g.cols) - 1
		if notes {
			numeric--
		}
		if !measured(r) {
			for range numeric {
				cells = append(cells, dash)
			}
		} else {
			s := r.Summary
			n := samplesCell(r, repetitions)
			if c := r.Calibration; c != nil && c.FixedNs > 0 {
				// Each run pays a fixed cost: calibration lengthened the samples.
				n += " (" + formatDuration(float64(c.TargetNs)) + " samples)"
			}
			if s.ShortSamples > 0 {
				n += fmt.Sprintf(" (%d short)", s.ShortSamples)
			}
			n += interferenceCell(r.Interference) // samples the watch retook or kept disturbed
			cells = append(cells, n, formatDuration(s.MedianNs))
			if interval {
				cell := dash
				if iv := s.Interval; iv != nil {
					cell = formatInterval(iv.LowNs, iv.HighNs, s.MedianNs)
				}
				cells = append(cells, cell)
			}
			if within {
				cell := dash
				if s.WithinMADNs != nil {
					cell = formatDeviation(*s.WithinMADNs, s.MedianNs)
				}
				cells = append(cells, cell)
			}
			for _, u := range units {
				cell := dash
				if v := s.Metrics[u]; v != nil {
					cell = formatMetric(u, *v)
				}
				cells = append(cells, cell)
			}
			for _, c := range counted {
				cells = append(cells, countedCell(s, c))
			}
		}
		if notes {
			cells = append(cells, truncate(note(r), noteWidth))
		}
		g.cells = append(g.cells, cells)
	}
	return g, notesCol
}

// orderUnits puts the leading metrics first in their fixed order and sorts
// the rest.
func orderUnits(units []string) []string {
	var out, rest []string
	for _, u := range leadingMetrics {
		if slices.Contains(units, u) {
			out = append(out, u)
		}
	}
	for _, u := range units {
		if !slices.Contains(leadingMetrics, u) {
			rest = append(rest, u)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// intervalLine says what the interval column is and how sure it is: one
// confidence when every row shares it, else where to find each.
func intervalLine(rows []rundoc.Row) string {
	conf, procs, mixed := 0.0, 0, false
	for _, r := range rows {
		if !measured(r) || r.Summary.Interval == nil {
			continue
		}
		c := r.Summary.Interval.Confidence
		if conf != 0 && (c != conf || r.Summary.Processes != procs) {
			mixed = true
		}
		conf, procs = c, r.Summary.Processes
	}
	switch {
	case conf == 0:
		return ""
	case mixed:
		return "interval: order statistics of the process medians, a distribution-free confidence interval of the median process (each row's confidence is in the JSON)"
	}
	return fmt.Sprintf("interval: order statistics of the %d process medians, a distribution-free %s confidence interval of the median process",
		procs, trimPercent(100*conf))
}

// samplesCell renders n: the sample count of a single-process run, or
// processes×samples-per-process when repetitions were asked for or several
// processes contributed, so the process, the resampling unit, stays visible.
// Processes with different sample counts render as a range (5×30–32).
func samplesCell(r rundoc.Row, repetitions int) string {
	s := r.Summary
	if s.Processes <= 1 && repetitions <= 1 {
		return strconv.Itoa(s.Samples)
	}
	lo, hi, procs, total := 0, 0, 0, 0
	for _, p := range r.Processes {
		n := len(p.Samples)
		if n == 0 {
			continue
		}
		if procs == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
		procs++
		total += n
	}
	switch {
	case procs == s.Processes && total == s.Samples && lo == hi:
		return fmt.Sprintf("%d×%d", procs, lo)
	case procs == s.Processes && total == s.Samples:
		return fmt.Sprintf("%d×%d–%d", procs, lo, hi)
	case s.Processes > 0 && s.Samples%s.Processes == 0:
		// The row carries no per-process detail; the summary's counts
		// still divide evenly.
		return fmt.Sprintf("%d×%d", s.Processes, s.Samples/s.Processes)
	default:
		return strconv.Itoa(s.Samples)
	}
}

// note is the notes cell of a row: its outcome class and the first line of
// its error, or the skip reason; "" for a row that passed.
func note(r rundoc.Row) string {
	switch {
	case r.Outcome == rundoc.OutcomeOK:
		return ""
	case r.Outcome == rundoc.OutcomeSkipped:
		if r.Skipped != nil && *r.Skipped != "" {
			return "skipped: " + oneLine(*r.Skipped)
		}
		return "skipped"
	case r.Error != nil && *r.Error != "":
		return string(r.Outcome) + ": " + oneLine(*r.Error)
	default:
		return string(r.Outcome)
	}
}

// writeErrorBlocks writes, for every error row, what its notes cell had to
// cut: the full error, each failed process, and the output tail, indented
// under a go test style header.
func writeErrorBlocks(w *bufio.Writer, rows []rundoc.Row, prefixes map[string]string) {
	for _, r := range rows {
		if !r.IsError() {
			continue
		}
		fmt.Fprintf(w, "\n--- FAIL: %s (%s)\n", displayName(r, prefixes), r.Outcome)
		if r.Error != nil {
			writeIndented(w, *r.Error)
		}
		if len(r.Processes) > 1 {
			for _, p := range r.Processes {
				if p.Outcome == rundoc.OutcomeOK {
					continue
				}
				msg := string(p.Outcome)
				if p.Error != nil {
					msg += ": " + *p.Error
				}
				pid := dash
				if p.PID > 0 {
					pid = strconv.Itoa(p.PID)
				}
				writeIndented(w, fmt.Sprintf("process %d (pid %s): %s", p.Index, pid, msg))
			}
		}
		writeIndented(w, r.Output)
	}
}

// writeIndented writes text indented by four spaces, as go test indents a
// test's log under its --- FAIL line.
func writeIndented(w *bufio.Writer, text string) {
	for _, l := range lines(text) {
		w.WriteString("    " + l + "\n")
	}
}

// displayName is a row's name in a table: the package-relative name, cut
// to nameWidth, with the package's shortest unique path suffix in front
// when the run spans several packages; a package row shows its import
// path. A row of another build than the working tree's (--against) ends
// in "@" and the build's revision.
func displayName(r rundoc.Row, prefixes map[string]string) string {
	build := ""
	if r.Build != "" {
		build = " @" + r.Build
	}
	if r.Name == "" {
		return r.Package + build
	}
	if p, ok := prefixes[r.Package]; ok {
		return p + "." + shortenName(r.Name, nameWidth) + build
	}
	return shortenName(r.Name, nameWidth) + build
}

// packagePrefixes maps each package of a multi-package run to the shortest
// suffix of its import path that no other package of the run shares
// (codec, or v2/codec next to v1/codec); a major version suffix is never
// a prefix alone (xxhash/v2, not v2). It returns nil for a
// single-package run, where names need no prefix.
func packagePrefixes(rows []rundoc.Row) map[string]string {
	var pkgs []string
	for _, r := range rows {
		if !slices.Contains(pkgs, r.Package) {
			pkgs = append(pkgs, r.Package)
		}
	}
	if len(pkgs) < 2 {
		return nil
	}
	prefixes := make(map[string]string, len(pkgs))
	for _, pkg := range pkgs {
		elems := strings.Split(pkg, "/")
		prefixes[pkg] = pkg
		for k := 1; k < len(elems); k++ {
			if k == 1 && isMajorVersion(elems[len(elems)-1]) {
				continue // v2 names no package: xxhash/v2 does
			}
			suffix := strings.Join(elems[len(elems)-k:], "/")
			if !slices.ContainsFunc(pkgs, func(other string) bool {
				return other != pkg && (other == suffix || strings.HasSuffix(other, "/"+suffix))
			}) {
				prefixes[pkg] = suffix
				break
			}
		}
	}
	return prefixes
}

// isMajorVersion reports whether a path element has the shape of a
// module path's major version suffix: v2, v3, ... (v0 and v1 are never
// one, nor v02).
func isMajorVersion(elem string) bool {
	digits, ok := strings.CutPrefix(elem, "v")
	return ok && digits != "" && strings.Trim(digits, "0123456789") == "" && digits[0] != '0' && digits != "1"
}

// joinCells joins laid-out cells into one line without trailing blanks.
func joinCells(cells []string) string {
	return strings.TrimRight(strings.Join(cells, sep), " ")
}

func orDash(s string) string {
	if s == "" {
		return dash
	}
	return s
}

// ANSI styles.
const (
	bold   = "1"
	red    = "31"
	yellow = "33"
)

// painter applies ANSI styles when true and is the identity when false, so
// plain output never carries an escape sequence.
type painter bool

func (p painter) paint(style, s string) string {
	if !p || s == "" {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[0m"
}
