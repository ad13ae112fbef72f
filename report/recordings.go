package report

import (
	"bufio"
	"fmt"
	"strconv"

	"github.com/benchsup/benchsup/rundoc"
)

// recordingsTitle says once what a recording's percentiles are of: unlike
// a benchmark row's median of per-process medians, each is over
// individual spans.
const recordingsTitle = "recordings (percentiles of individual spans)"

// writeRecordings writes the recordings block of a run's table: one line
// per identity (with its source when some recording names one), its
// finished spans, how many did not succeed by outcome, the median, p95,
// p99 and maximum duration, and what was kept; a "recording notes" block
// says which percentiles are of a retained sample and not of every span.
func writeRecordings(w *bufio.Writer, recs []rundoc.Recording, opt TableOptions, p painter) {
	withSource := false
	for _, r := range recs {
		withSource = withSource || r.Source != ""
	}
	cols := []column{{"identity", alignLeft}}
	if withSource {
		cols = append(cols, column{"source", alignLeft})
	}
	cols = append(cols,
		column{"spans", alignRight}, column{"failure", alignRight}, column{"timeout", alignRight},
		column{"canceled", alignRight}, column{"unfinished", alignRight},
		column{"median", alignDecimal}, column{"p95", alignDecimal}, column{"p99", alignDecimal},
		column{"max", alignDecimal}, column{"retained", alignLeft})
	g := grid{cols: cols}
	var notes []string
	for _, r := range recs {
		row := []string{shortenName(oneLine(r.Identity), nameWidth)}
		if withSource {
			row = append(row, orDash(oneLine(r.Source)))
		}
		o := r.Outcomes
		row = append(row, itoa(r.Observations), itoa(o.Failure), itoa(o.Timeout), itoa(o.Canceled), itoa(o.Unfinished))
		if s := r.Summary; s != nil {
			row = append(row, formatDuration(s.MedianNs), formatDuration(s.P95Ns), formatDuration(s.P99Ns), formatDuration(float64(s.MaxNs)))
		} else {
			row = append(row, dash, dash, dash, dash)
		}
		kept := itoa(r.Retained)
		if r.Omitted > 0 {
			kept += fmt.Sprintf(" of %d (%s)", r.Observations, r.Retention.Policy)
			notes = append(notes, fmt.Sprintf("%s: median, p95 and p99 are of the %d retained spans (%s, capacity %d), not all %d; max is of all",
				oneLine(r.Identity), r.Retained, r.Retention.Policy, r.Retention.Capacity, r.Observations))
		}
		switch {
		case r.Summary == nil && r.Observations > 0:
			notes = append(notes, fmt.Sprintf("%s: %d spans finished and none was retained (the shared ring lost them before benchsup read them): no percentiles",
				oneLine(r.Identity), r.Observations))
		case r.Summary == nil:
			notes = append(notes, oneLine(r.Identity)+": no span finished")
		}
		g.cells = append(g.cells, append(row, kept))
	}
	if opt.Width > 0 {
		g.fit(opt.Width, 0, -1)
	}
	w.WriteString(recordingsTitle + "\n")
	writeGrid(w, &g, p)
	writeNotes(w, "recording notes", notes)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// spanDesign describes how a comparison's recording rows were drawn.
const spanDesign = "recordings: individual spans, each side resampled on its own in blocks of consecutive spans (block bootstrap); one recording a side, so how two recordings of one build differ (the host's load between them) is not in the interval"

// withSpanDesign adds spanDesign to a comparison's statistics line when
// it has recording rows, and is spanDesign alone when it has only those.
func withSpanDesign(design string, rows []rundoc.ComparisonRow) string {
	spans, others := false, false
	for _, r := range rows {
		if r.ComparisonDesign == rundoc.DesignIndependent {
			spans = true
		} else {
			others = true
		}
	}
	switch {
	case spans && others:
		return design + "; " + spanDesign
	case spans:
		return spanDesign
	}
	return design
}
