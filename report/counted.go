package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/rundoc"
)

// diagnosticsTitle heads the table of diagnostic-class columns, which are
// rendered apart from the headline columns (docs/design.md#rules-every-number-obeys, rule 3).
const diagnosticsTitle = "diagnostics (not for comparison or gating)"

// splitColumns separates the quantitative columns, which the main table
// shows, from every other class, which only the diagnostics table shows: a
// column whose class is not known to be quantitative is never a headline.
func splitColumns(cols []rundoc.Column) (quantitative, diagnostic []rundoc.Column) {
	for _, c := range cols {
		if c.Class == rundoc.ClassQuantitative {
			quantitative = append(quantitative, c)
		} else {
			diagnostic = append(diagnostic, c)
		}
	}
	return quantitative, diagnostic
}

// columnHeader is a counted column's label: its header and unit (instr/op,
// or ipc for a level).
func columnHeader(c rundoc.Column) string {
	return oneLine(c.Header + c.Unit)
}

// countedCell renders one counted value of a summary: formatted by the
// column's format, with a ≈ prefix when it is an estimate, or an em dash
// when it is unavailable or below the noise (a per-iteration value its
// uncertainty reaches: the notes say so, with the interval). A counted
// value is never printed as a 0 it was not measured to be.
func countedCell(s *rundoc.Summary, c rundoc.Column) string {
	v := s.Counted[c.Name]
	if v == nil || belowNoise(s, c) {
		return dash
	}
	cell := formatCounted(*v, c.Format)
	if slices.Contains(s.EstimatedMetrics, c.Name) {
		cell = estimated + cell
	}
	return cell
}

// belowNoise reports whether a summary's per-iteration value of column c
// is not distinguishable from zero by its uncertainty.
func belowNoise(s *rundoc.Summary, c rundoc.Column) bool {
	v := s.Counted[c.Name]
	u, ok := s.Uncertainty[c.Name]
	return v != nil && ok && c.Unit == "/op" && stats.BelowNoise(*v, u)
}

// uncertaintyShare is the share of its value from which a counted value's
// uncertainty is written out in the table's notes (the JSON document
// always has it).
const uncertaintyShare = 0.1

// uncertaintyNote is the note of one counted value whose uncertainty is
// large (over uncertaintyShare of it) or reaches it; "" for the others.
func uncertaintyNote(s *rundoc.Summary, c rundoc.Column) string {
	v := s.Counted[c.Name]
	u, ok := s.Uncertainty[c.Name]
	if v == nil || !ok || u <= 0 {
		return ""
	}
	pm := formatCounted(*v, c.Format) + " ± " + formatCounted(u, c.Format)
	if belowNoise(s, c) {
		return oneLine(c.Name) + ": below the noise: " + pm + " per iteration, which includes 0"
	}
	if *v == 0 || u <= uncertaintyShare*math.Abs(*v) {
		return ""
	}
	return fmt.Sprintf("%s %s (±%.0f%%)", columnHeader(c), pm, 100*u/math.Abs(*v))
}

// sameEventNote compares the two counts of one kernel event, perf-sw's
// page-faults and tier0's minflt + majflt, when a row has both: it says
// how they differ when they differ by more than their uncertainties, and
// is "" otherwise.
func sameEventNote(s *rundoc.Summary, cols []rundoc.Column) string {
	col := map[string]rundoc.Column{}
	for _, c := range cols {
		col[c.Name] = c
	}
	pf, mf := s.Counted["page-faults"], s.Counted["minflt"]
	if pf == nil || mf == nil || belowNoise(s, col["page-faults"]) || belowNoise(s, col["minflt"]) {
		return ""
	}
	sum, tol := *mf, s.Uncertainty["page-faults"]+s.Uncertainty["minflt"]
	what := "minflt/op " + formatCounted(*mf, rundoc.FormatCount)
	if mj := s.Counted["majflt"]; mj != nil {
		sum += *mj
		tol += s.Uncertainty["majflt"]
		what += " + majflt/op " + formatCounted(*mj, rundoc.FormatCount)
	} else if _, selected := col["majflt"]; selected {
		what += " (majflt not counted)"
	} else {
		what += " (majflt not selected)"
	}
	if math.Abs(*pf-sum) <= tol {
		return ""
	}
	return "faults/op " + formatCounted(*pf, rundoc.FormatCount) + " vs " + what +
		": one kernel event counted by perf-sw and by getrusage over the same brackets; they differ by what only one counts:" +
		" page-faults also counts faults that failed and faults of child processes the benchmark started," +
		" minflt + majflt also count faults the kernel took on the process's behalf (get_user_pages)," +
		" and getrusage's window also spans the perf counters' enable and disable calls, where other threads may fault"
}

// diagnosticGrid builds the diagnostics table: the benchmark name and the
// diagnostic columns of every measured row, in table order. It returns nil
// when there is no diagnostic column or no measured row.
func diagnosticGrid(rows []rundoc.Row, prefixes map[string]string, cols []rundoc.Column) *grid {
	if len(cols) == 0 {
		return nil
	}
	g := &grid{cols: []column{{"benchmark", alignLeft}}}
	for _, c := range cols {
		g.cols = append(g.cols, column{columnHeader(c), alignDecimal})
	}
	for _, r := range rows {
		if !measured(r) {
			continue
		}
		cells := []string{displayName(r, prefixes)}
		for _, c := range cols {
			cells = append(cells, countedCell(r.Summary, c))
		}
		g.cells = append(g.cells, cells)
	}
	if len(g.cells) == 0 {
		return nil
	}
	return g
}

// disclosure is what a table says about its counted metrics besides the
// cells.
type disclosure struct {
	header []string // run-wide lines: source states, the common counting pass
	notes  []string // per-row lines for the notes block below the table
}

// hiddenColumns returns the names of the columns of cols that no measured
// row has a value for: a table gives them no column of em dashes, and its
// header names them instead (discloseCounting).
func hiddenColumns(rows []rundoc.Row, cols []rundoc.Column) []string {
	var hidden []string
	for _, c := range cols {
		if !slices.ContainsFunc(rows, func(r rundoc.Row) bool { return measured(r) && r.Summary.Counted[c.Name] != nil }) {
			hidden = append(hidden, c.Name)
		}
	}
	return hidden
}

// withoutColumns returns cols less those named in names.
func withoutColumns(cols []rundoc.Column, names []string) []rundoc.Column {
	return slices.DeleteFunc(slices.Clone(cols), func(c rundoc.Column) bool { return slices.Contains(names, c.Name) })
}

// discloseCounting derives the header lines and notes of a table from the
// sources' reports and the rows' absences and counting passes; rows are in
// table order and hidden are the selected metrics the table shows no
// column for (hiddenColumns).
//
// Verbose, it gives every reason in full: a line per unavailable source
// or capability, the counting passes' iterations and method, and per row
// each absent metric the header lines do not already explain (a nil
// counted value with no reason anywhere says so rather than standing
// bare). Otherwise it is quiet: one short line names the hidden metrics
// with the gist of why (the JSON document and -v have the rest), counting
// passes are not described, and a row's absence is noted only for a
// metric that has a column, where it explains an em dash. A source's
// degraded state and the counted values' uncertainty qualify numbers that
// are shown, so both forms give them.
func discloseCounting(doc rundoc.Document, rows []rundoc.Row, prefixes map[string]string, hidden []string, verbose bool) disclosure {
	var d disclosure
	seen := map[string]bool{}
	addHeader := func(l string) {
		if !seen[l] {
			seen[l] = true
			d.header = append(d.header, l)
		}
	}
	explained := map[string]bool{}
	why := map[string]string{} // the gist of why a metric has no value, for the quiet line
	// The metrics a source cannot count that were never columns: a
	// default set less what this host cannot count still names them.
	var uncolumned []string
	isColumn := func(m string) bool {
		return slices.ContainsFunc(doc.Columns, func(c rundoc.Column) bool { return c.Name == m })
	}
	for _, s := range doc.Meta.Sources {
		src := oneLine(s.Source)
		if !s.Available {
			var metrics []string
			for _, a := range s.Absences {
				metrics = appendNew(metrics, a.Metrics...)
			}
			for _, c := range doc.Columns {
				if c.Source == s.Source {
					metrics = appendNew(metrics, c.Name)
				}
			}
			for _, m := range metrics {
				explained[m] = true
				why[m] = cmp.Or(why[m], src+" unavailable")
				if !isColumn(m) {
					uncolumned = appendNew(uncolumned, m)
				}
			}
			if verbose {
				addHeader(src + ": " + unavailableStatus(s) + notMeasured(metrics))
			}
		} else {
			for _, a := range s.Absences {
				if len(a.Metrics) == 0 {
					// A mode rather than metrics (user-only
					// counting): its degraded state says it.
					continue
				}
				what := "unavailable"
				if a.Capability != "" {
					what = oneLine(a.Capability) + " unavailable"
				}
				for _, m := range a.Metrics {
					explained[m] = true
					why[m] = cmp.Or(why[m], src+": "+what)
					if !isColumn(m) {
						uncolumned = appendNew(uncolumned, m)
					}
				}
				if verbose || slices.ContainsFunc(a.Metrics, func(m string) bool { return isColumn(m) && !slices.Contains(hidden, m) }) {
					addHeader(src + ": " + what + reasonSuffix(a.Reason) + notMeasured(a.Metrics))
				}
			}
		}
		for _, deg := range s.Degraded {
			addHeader(sourcePrefixed(src, oneLine(deg)))
		}
		if s.Available && len(s.Degraded) == 0 && s.Status != "" {
			addHeader(sourcePrefixed(src, oneLine(s.Status)))
		}
	}

	// The counting pass of every measured row that ran one: once in the
	// header when they all agree, else per row; only when verbose.
	var passes []rundoc.Row
	for _, r := range rows {
		if measured(r) && (r.CountIterations != nil || r.CountMethod != "") {
			passes = append(passes, r)
		}
	}
	agree := len(passes) > 0
	for _, r := range passes {
		if countingText(r) != countingText(passes[0]) {
			agree = false
		}
	}
	if agree && verbose {
		addHeader("counting: " + countingText(passes[0]))
	}

	noisy := false
	// Quiet, the default budget's skips are said once for the run, not
	// once per row: the same sentence on nine rows of ten buries the
	// rest (-v and the JSON document keep each row's).
	var budgetMetrics []string
	budgetRows, measuredRows := 0, 0
	for _, r := range rows {
		if !measured(r) {
			// The notes column says why the row has no numbers.
			continue
		}
		measuredRows++
		name := displayName(r, prefixes)
		if !agree && verbose && (r.CountIterations != nil || r.CountMethod != "") {
			d.notes = append(d.notes, name+": counting: "+countingText(r))
		}
		// Absences with one reason are noted once, their metrics listed.
		var reasons []string
		metricsOf := map[string][]string{}
		budgeted := false
		for _, a := range r.Absences {
			reason := oneLine(a.Reason)
			if reason == "" {
				reason = "unavailable (no reason recorded)"
			}
			why[a.Metric] = cmp.Or(why[a.Metric], gist(reason))
			if explained[a.Metric] || (!verbose && slices.Contains(hidden, a.Metric)) {
				continue
			}
			if !verbose && strings.HasPrefix(reason, budgetGist) {
				budgetMetrics = appendNew(budgetMetrics, oneLine(a.Metric))
				budgeted = true
				continue
			}
			if _, seen := metricsOf[reason]; !seen {
				reasons = append(reasons, reason)
			}
			metricsOf[reason] = appendNew(metricsOf[reason], oneLine(a.Metric))
		}
		if budgeted {
			budgetRows++
		}
		for _, reason := range reasons {
			d.notes = append(d.notes, name+": "+strings.Join(metricsOf[reason], ", ")+": "+reason)
		}
		for _, c := range doc.Columns {
			if n := uncertaintyNote(r.Summary, c); n != "" {
				noisy = true
				d.notes = append(d.notes, name+": "+n)
			}
		}
		if n := sameEventNote(r.Summary, doc.Columns); n != "" {
			d.notes = append(d.notes, name+": "+n)
		}
		for _, c := range doc.Columns {
			if r.Summary.Counted[c.Name] != nil || explained[c.Name] ||
				slices.ContainsFunc(r.Absences, func(a rundoc.MetricAbsence) bool { return a.Metric == c.Name }) {
				continue
			}
			why[c.Name] = cmp.Or(why[c.Name], "no reason recorded")
			if verbose || !slices.Contains(hidden, c.Name) {
				d.notes = append(d.notes, name+": "+oneLine(c.Name)+": unavailable (no reason recorded)")
			}
		}
	}
	if budgetRows > 0 {
		d.notes = append(d.notes, fmt.Sprintf("%s: %s in %d of %d rows: counting would take more than its share of the time each process measured (pin --perf-iters to count it; -v gives each row's reason)",
			strings.Join(budgetMetrics, ", "), budgetGist, budgetRows, measuredRows))
	}
	if noisy {
		addHeader(fmt.Sprintf("counted ±: half the range of a counting pass's repeated measurements, or of the processes' values where wider; noted below where over %.0f%% of the value", 100*uncertaintyShare))
	}
	if all := appendNew(slices.Clone(hidden), uncolumned...); !verbose && len(all) > 0 {
		d.header = append([]string{hiddenLine(all, why)}, d.header...)
	}
	return d
}

// budgetGist opens the reason the worker gives for a metric the default
// counting budget skipped (worker/count.go, worker/loop.go).
const budgetGist = "not counted by default"

// hiddenLine is the quiet header's one line about the metrics without a
// column: "no column: task-clock, minflt (not counted by default),
// instructions (perf-hw unavailable); -v says why".
func hiddenLine(hidden []string, why map[string]string) string {
	var groups []string
	byWhy := map[string][]string{}
	for _, m := range hidden {
		w := cmp.Or(why[m], "no row has a value")
		if _, ok := byWhy[w]; !ok {
			groups = append(groups, w)
		}
		byWhy[w] = append(byWhy[w], oneLine(m))
	}
	parts := make([]string, len(groups))
	for i, w := range groups {
		names := byWhy[w]
		if len(names) > 4 { // a whole source's metrics: the first few say which
			names = append(names[:3:3], fmt.Sprintf("%d more", len(names)-3))
		}
		parts[i] = strings.Join(names, ", ") + " (" + w + ")"
	}
	return "no column: " + strings.Join(parts, "; ") + "; -v says why"
}

// gist is the part of a reason before its first ": " (a reason reads
// "what: why in detail"), or the reason itself when short.
func gist(reason string) string {
	if g, _, ok := strings.Cut(reason, ": "); ok && g != "" {
		return g
	}
	return truncate(reason, 40)
}

// countingText describes a row's counting pass: the iterations its values
// are attributed to and how ("100000 iterations, difference of 2 runs").
func countingText(r rundoc.Row) string {
	var parts []string
	if r.CountIterations != nil {
		unit := " iterations"
		if *r.CountIterations == 1 {
			unit = " iteration"
		}
		parts = append(parts, strconv.FormatInt(*r.CountIterations, 10)+unit)
	}
	if m := oneLine(r.CountMethod); m != "" {
		parts = append(parts, m)
	}
	return strings.Join(parts, ", ")
}

// unavailableStatus is an unavailable source's state, "unavailable: why",
// whether or not its Status already starts with "unavailable"; without a
// status it is the first absence's reason.
func unavailableStatus(s rundoc.SourceReport) string {
	st := oneLine(s.Status)
	if st == "unavailable" {
		st = ""
	} else if rest, ok := strings.CutPrefix(st, "unavailable: "); ok {
		st = rest
	}
	if st == "" {
		for _, a := range s.Absences {
			if a.Reason != "" {
				st = oneLine(a.Reason)
				break
			}
		}
	}
	return "unavailable" + reasonSuffix(st)
}

func reasonSuffix(reason string) string {
	if r := oneLine(reason); r != "" {
		return ": " + r
	}
	return ""
}

// notMeasured names the metrics a source-level absence takes away.
func notMeasured(metrics []string) string {
	if len(metrics) == 0 {
		return ""
	}
	names := make([]string, len(metrics))
	for i, m := range metrics {
		names[i] = oneLine(m)
	}
	return fmt.Sprintf("; not measured: %s", strings.Join(names, ", "))
}

// sourcePrefixed prefixes a source's state line with the source's name,
// unless it already starts with it.
func sourcePrefixed(src, line string) string {
	if src == "" || strings.HasPrefix(line, src+":") {
		return line
	}
	return src + ": " + line
}

// appendNew appends the elements of add that s does not hold yet.
func appendNew(s []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(s, a) {
			s = append(s, a)
		}
	}
	return s
}
