package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/rundoc"
)

// maxCompareName caps the identity column of a comparison table, in runes;
// the JSON document keeps every name whole.
const maxCompareName = 60

// WriteComparisonTable writes c as text, one section per metric in the
// order the metrics first appear (sec/op first), like benchstat: a header
// naming the two sides and the statistics, then per section one line per
// identity (grouped under its package) with both sides' centers, the change
// (new/old − 1) with its interval and p-value, in a paired run the pairs
// new won and lost ("5–1"), and the verdict, and a
// geomean line (a metric other than time that is the same for every
// identity gets one line instead, and one no identity could compare, as
// a counted metric the default budget skipped on a side, a line of
// those); then the fingerprint differences a comparison was allowed
// to ignore; the sweep families whose scaling changed (Comparison.Sweeps,
// one line each under its package: "linear → n log n over 1Ki–1Mi"); and
// the notes. An unavailable cell is an em dash.
func WriteComparisonTable(w io.Writer, c rundoc.Comparison) error {
	c = escaped(c)
	return WriteShapedComparisonTable(w, c, Shape{})
}

// WriteShapedComparisonTable is WriteComparisonTable with each metric's
// section shaped by s (--row, --col, --sort): projected, a section has a
// line per row key and a column per column key, each cell the change and
// its verdict ("+5.43% (slower)"), without the sides' centers, the
// intervals, p, the pairs won and the geomean (the unshaped table and
// the JSON have them); sorted only, its lines are ordered by name or by
// the new side's center within each package.
func WriteShapedComparisonTable(w io.Writer, c rundoc.Comparison, s Shape) error {
	c = escaped(c)
	v := comparisonLayoutOf(c, s)
	bw := bufio.NewWriter(w)
	for _, l := range v.header {
		bw.WriteString(l + "\n")
	}
	for _, g := range v.sections {
		bw.WriteString("\n")
		writeGrid(bw, g, false)
	}
	if len(v.unchanged) > 0 {
		fmt.Fprintf(bw, "\nthe same for every identity: %s\n", strings.Join(v.unchanged, ", "))
	}
	if len(v.uncompared) > 0 {
		fmt.Fprintf(bw, "\n%s\n", uncomparedLine(v.uncompared))
	}
	if len(c.Sweeps) > 0 {
		writeSweepChanges(bw, c.Sweeps)
	}
	writeNotes(bw, "notes:", v.notes)
	return bw.Flush()
}

// comparisonLayout is what a comparison table shows, for the text and the
// markdown renderers: header lines, a grid per metric section (its first
// column headed by the metric), the metrics the same for every identity,
// those no identity could compare, and the notes.
type comparisonLayout struct {
	header     []string
	sections   []*grid
	unchanged  []string
	uncompared []string // metrics no identity has on both sides
	notes      []string
}

func comparisonLayoutOf(c rundoc.Comparison, s Shape) comparisonLayout {
	var v comparisonLayout
	if vr := c.Variants; vr != nil {
		v.header = append(v.header, fmt.Sprintf("variants of %s: old is the reference %s=%s, new %s=%s; rows are groups", vr.Key, vr.Key, vr.Reference, vr.Key, vr.Contender))
	}
	v.header = append(v.header, "old: "+sideLabel(c.Old), "new: "+sideLabel(c.New))
	k := c.Knobs
	design := "independent processes, hierarchical bootstrap"
	if k.Paired {
		design = "interleaved pairs of processes, order-statistic intervals of the pair ratios"
	}
	design = withSpanDesign(design, c.Rows)
	v.header = append(v.header, fmt.Sprintf("statistics: %s; %s confidence asked, %d resamples, seed %d; threshold ±%s",
		design, trimPercent(100*k.Confidence), k.Resamples, k.Seed, trimPercent(100*k.Threshold)))
	for _, d := range c.Mismatches {
		v.header = append(v.header, fmt.Sprintf("warning: %s differs (old %q, new %q); compared because --allow-mismatch was given", d.Field, d.Old, d.New))
	}
	short := shortOfConfidence(c.Rows, k.Confidence)
	if line := short.line(); line != "" {
		v.header = append(v.header, line)
	}

	var metrics []string
	for _, r := range c.Rows {
		if !slices.Contains(metrics, r.Metric) {
			metrics = append(metrics, r.Metric)
		}
	}
	if s.Projected() {
		v.header = append(v.header, "cells: the change (new/old − 1) and its verdict; the centers, intervals and p-values are in the unshaped table and the JSON")
	}
	for _, m := range metrics {
		switch {
		case timeMetric(m):
			// Time and a recording's spans keep their section: each
			// row's note says why it could not be compared.
		case allVerdict(c, m, rundoc.VerdictSame):
			v.unchanged = append(v.unchanged, m)
			continue
		case allVerdict(c, m, rundoc.VerdictUnavailable):
			// A section of "unavailable" rows (a counted metric the
			// default budget skipped on a side) says nothing a line
			// cannot.
			v.uncompared = append(v.uncompared, m)
			continue
		}
		if s.Projected() {
			g, notes := shapedComparison(c, m, s)
			v.sections = append(v.sections, g)
			v.notes = append(v.notes, notes...)
			continue
		}
		v.sections = append(v.sections, metricSection(c, m, s.Sort))
	}
	for _, r := range c.Rows {
		if r.Note != "" && !slices.Contains(v.uncompared, r.Metric) {
			v.notes = append(v.notes, fmt.Sprintf("%s %s (%s): %s", r.Package, r.Name, r.Metric, oneLine(r.Note)))
		}
		if r.OrderEffect != nil && math.Abs(*r.OrderEffect-1) > k.Threshold {
			v.notes = append(v.notes, fmt.Sprintf("%s %s: order effect %s (the build that ran first in its pair measured differently; balanced order cancels it from the ratio)",
				r.Package, r.Name, formatChange(*r.OrderEffect)))
		}
	}
	return v
}

// allVerdict reports whether every row of metric has verdict v (same,
// unavailable): its section would say nothing a line cannot.
func allVerdict(c rundoc.Comparison, metric string, v rundoc.Verdict) bool {
	for _, r := range c.Rows {
		if r.Metric == metric && r.Verdict != v {
			return false
		}
	}
	return true
}

func sideLabel(s rundoc.ComparedRun) string {
	if s.Date == "" {
		return s.Label
	}
	return s.Label + " (" + s.Date + ")"
}

func trimPercent(p float64) string {
	return strconv.FormatFloat(roundSignificant(p, 4), 'f', -1, 64) + "%"
}

// metricSection is one metric's rows and its geomean, as a grid.
func metricSection(c rundoc.Comparison, metric, sortBy string) *grid {
	g := grid{cols: []column{
		{metric, alignLeft}, {"old", alignDecimal}, {"new", alignDecimal},
		{"change", alignRight}, {"interval", alignLeft}, {"p", alignRight}, {"verdict", alignLeft},
	}}
	// Paired runs count the pairs each side won: a column of its own,
	// before the verdict, only where a row has them.
	paired := slices.ContainsFunc(c.Rows, func(r rundoc.ComparisonRow) bool { return r.Metric == metric && r.Wins != nil })
	if paired {
		g.cols = slices.Insert(g.cols, 6, column{"won–lost", alignRight})
	}
	cell := func(cells []string, won string) []string {
		if paired {
			return slices.Insert(cells, 6, won)
		}
		return cells
	}
	var rows []rundoc.ComparisonRow
	for _, r := range c.Rows {
		if r.Metric == metric {
			rows = append(rows, r)
		}
	}
	pkg := ""
	for _, r := range sortComparisonRows(rows, sortBy) {
		if r.Package != pkg {
			pkg = r.Package
			g.cells = append(g.cells, cell([]string{pkg, "", "", "", "", "", ""}, ""))
		}
		name := r.Name
		if name == "" {
			name = "(package)"
		}
		interval := intervalCell(r, c.Knobs.Confidence, formatChange)
		change := dash
		if r.Ratio != nil {
			change = formatChange(*r.Ratio)
		}
		p := dash
		if r.P != nil {
			p = formatP(*r.P)
		}
		won := ""
		if r.Wins != nil && r.Losses != nil {
			won = strconv.Itoa(*r.Wins) + "–" + strconv.Itoa(*r.Losses)
		}
		g.cells = append(g.cells, cell([]string{"  " + truncate(name, maxCompareName),
			formatCenter(metric, r.Old), formatCenter(metric, r.New), change, interval, p, string(r.Verdict)}, won))
	}
	for _, gm := range c.Geomeans {
		if gm.Metric == metric && gm.Identities > 1 {
			g.cells = append(g.cells, cell([]string{fmt.Sprintf("geomean (%d)", gm.Identities), "", "", formatChange(gm.Ratio), "", "", ""}, ""))
		}
	}
	return &g
}

// formatCenter formats one side's value, with its outlier count.
func formatCenter(metric string, v *rundoc.ComparedValue) string {
	if v == nil || v.Center == nil {
		return dash
	}
	var s string
	if timeMetric(metric) {
		s = formatDuration(*v.Center)
	} else {
		s = formatMetric(metric, *v.Center)
	}
	if v.Uncertainty != nil && *v.Uncertainty > 0 {
		s += " ±" + formatNumber(*v.Uncertainty)
	}
	if n := len(v.Outliers); n > 0 {
		s += fmt.Sprintf(" (%d outlier)", n)
	}
	return s
}

// intervalCell is a comparison row's interval, each end formatted by
// format, marked with the confidence it reached ("@75%") when that is not
// the one asked; a dash when the row has none.
func intervalCell(r rundoc.ComparisonRow, asked float64, format func(float64) string) string {
	if r.Low == nil || r.High == nil {
		return dash
	}
	interval := "[" + format(*r.Low) + ", " + format(*r.High) + "]"
	if r.Confidence != nil && math.Abs(*r.Confidence-asked) > 1e-9 {
		interval += " @" + trimPercent(100**r.Confidence)
	}
	return interval
}

// timeMetric reports whether a comparison metric is a duration: time, or
// a recording's span percentiles.
func timeMetric(m string) bool {
	switch m {
	case rundoc.MetricTime, rundoc.MetricSpanMedian, rundoc.MetricSpanP95, rundoc.MetricSpanP99:
		return true
	}
	return false
}

// formatChange formats a ratio as a signed percentage change: +5.43%,
// −12.1%, ~0% for exactly 1.
func formatChange(ratio float64) string {
	p := 100 * (ratio - 1)
	if p == 0 {
		return "~0%"
	}
	sign := "+"
	if p < 0 {
		sign = "−"
	}
	a := math.Abs(p)
	digits := 2
	switch {
	case a >= 100:
		digits = 0
	case a >= 10:
		digits = 1
	}
	return sign + strconv.FormatFloat(a, 'f', digits, 64) + "%"
}

// formatP formats a p-value to two significant digits, "<0.001" below.
func formatP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(roundSignificant(p, 2), 'f', -1, 64)
}

// confidenceShortfall is what a comparison's header says once about the
// rows analysis held back as inconclusive for want of pairs or processes:
// each distinct shortfall ("3 pairs reach 75%; 95% needs 6") and how many
// rows it holds back. The document's rows say it each; the table says it
// once.
type confidenceShortfall struct {
	texts  []string // distinct, in row order
	rows   int
	paired bool
	need   int
}

func shortOfConfidence(rows []rundoc.ComparisonRow, asked float64) confidenceShortfall {
	var s confidenceShortfall
	for _, r := range rows {
		if !r.ShortOfConfidence(asked) {
			continue
		}
		s.rows++
		text := r.Shortfall
		if text == "" {
			// A document written before rows said it: the confidence
			// reached is all there is to say.
			text = analysis.ConfidenceShortfall(0, *r.Confidence, asked)
		}
		s.texts = appendNew(s.texts, text)
		if r.Method == stats.MethodPairedSign {
			s.paired = true
		}
	}
	switch {
	case s.paired:
		s.need = analysis.PairsFor(asked)
	case s.rows > 0:
		s.need = analysis.ProcessesFor(asked)
	}
	return s
}

// line is the header's line, "" when no row is short.
func (s confidenceShortfall) line() string {
	if s.rows == 0 {
		return ""
	}
	rows := "1 row is"
	if s.rows > 1 {
		rows = strconv.Itoa(s.rows) + " rows are"
	}
	return fmt.Sprintf("short of the confidence asked: %s (--repetitions=%d); %s inconclusive whatever the interval shows", strings.Join(s.texts, ", "), s.need, rows)
}

// uncomparedLine says once which metrics no identity could compare.
func uncomparedLine(metrics []string) string {
	return "not compared: " + strings.Join(metrics, ", ") + " (no identity has a value on both sides; each run's absences say why)"
}
