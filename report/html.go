package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// HTMLReport is what one HTML page shows.
type HTMLReport struct {
	Run *rundoc.Document // required: the run (the NEW side of a comparison)
	// Old is the OLD run of a `benchsup compare`: its processes are drawn
	// next to Run's in each identity's strip plot; nil for none.
	Old *rundoc.Document
	// Comparisons are shown as forest plots, followed by Run.Comparisons
	// (one equal to an entry here is shown once).
	Comparisons []rundoc.Comparison
	Title       string // "" for one made from Run.Meta
}

// WriteHTML writes r as one self-contained HTML page: inline CSS and SVG,
// the system font stack, no script and no reference to anything outside
// the file, so it opens offline, with JavaScript disabled, and prints.
// Hover details are SVG <title> elements, which need no script. Like every
// renderer it reads only the documents: an unavailable value is an em dash
// with its reason, never 0, and nothing is dropped. The same input gives
// the same bytes.
//
// A run with sweep families (Document.Sweeps) has a Sweeps section after
// the benchmarks: per family a log-log plot of its points (median ns/op
// with its interval) and of the selected model's curve c·g(n) over the
// measured values (the closest model's, dashed, when none was selected),
// its conclusion in a line, and the six models' fits; a comparison lists
// the families whose scaling changed. Each says it is empirical scaling
// over the measured range, not proof of big-O.
func WriteHTML(w io.Writer, r HTMLReport) error {
	if r.Run == nil {
		return fmt.Errorf("html report: no run document")
	}
	p := buildPage(escaped(r))
	if err := pageTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// htmlPage is the template's view of a report.
type htmlPage struct {
	Title       string
	Subtitle    string
	Facts       []htmlFact // host, toolchain, knobs
	Sources     []htmlFact // what each source could not measure, and why
	Outcomes    []htmlFact // rows by outcome
	Absent      []string   // per-row absences, one line each
	Benchmarks  []htmlBench
	Comparisons []htmlComparison
	Variants    []htmlVariants // comparisons of variants (--vs), by key
	Windows     *htmlWindows
	Sweeps      []htmlSweep
	Recordings  []htmlRecording
	Caveat      string        // what a sweep's fit is worth, said beside each
	Tests       []htmlFailure // test mode: failed and skipped tests
	Failures    []htmlFailure // rows not shown in a benchmark section (build failures)
	TestMode    bool
}

type htmlFact struct{ Name, Value string }

// htmlBench is one benchmark identity's section.
type htmlBench struct {
	Identity string // "PKG NAME"
	Anchor   string // the section's id, which the comparison tables link to
	Package  string
	Name     string
	Strip    template.HTML
	Legend   bool // the plot has samples (a legend is due)
	// Disturbed and Retaken say the plot marks disturbed samples or
	// draws retaken ones, so that the legend explains them.
	Disturbed, Retaken bool
	Rows               []htmlBenchRow
	// Sides and Metrics are the metrics table: one column per row drawn,
	// one line per metric (name first), an em dash where a row lacks it.
	Sides   []string
	Metrics [][]string
}

// htmlBenchRow is one row of an identity (one build) under its plot.
type htmlBenchRow struct {
	Side     string
	Headline string // median and interval, or the outcome
	Metrics  []htmlFact
	Absences []string
	Notes    []string
	// Repair is the row's interference line when the watch had to act or
	// kept disturbed samples (RowInterference.Note), shown as a callout;
	// "" otherwise.
	Repair   string
	Failures []htmlFailure // the row's and its failed processes'
}

type htmlFailure struct {
	Name, Outcome, Error, Output string
	Elapsed                      string // a test's own duration; an em dash when not reported
}

type htmlComparison struct {
	Old, New   string
	Statistics string
	// Shortfall is the table's line on rows held back for want of pairs
	// or processes ("3 pairs reach 75%; 95% needs 6"); "" when none is.
	Shortfall  string
	Mismatches []string
	Geomeans   []string
	Sweeps     []string // the families whose scaling changed
	Forests    []htmlForest
	Table      []htmlCompareRow
	Notes      []string
}

type htmlForest struct {
	Metric string
	SVG    template.HTML
}

type htmlCompareRow struct {
	Identity, Metric, Old, New, Change, Interval, P, Verdict string
	Anchor                                                   string // the identity's benchmark section; "" for none
}

type htmlWindows struct {
	SVG   template.HTML
	Table []htmlWindowRow
}

type htmlWindowRow struct {
	Name, Processes, Scope, Wall, Spread, User, Kernel, Runqueue, Disk, Other, OtherThreads, Regimes, Note string
}

func buildPage(r HTMLReport) htmlPage {
	doc := r.Run
	m := doc.Meta
	p := htmlPage{Title: r.Title, TestMode: m.Mode == rundoc.ModeTest}
	if p.Title == "" {
		p.Title = "benchsup " + orDash(m.Mode) + " run: " + orDash(m.Module)
		if m.Date != "" {
			p.Title += ", " + m.Date
		}
	}
	p.Subtitle = "host " + orDash(m.Hostname) + " · " + m.OS + "/" + m.Arch + " · " + orDash(m.GoVersion)
	p.Facts = metaFacts(m)
	p.Sources = sourceFacts(m)
	p.Outcomes = outcomeFacts(doc.Rows)
	for _, row := range doc.Rows {
		for _, a := range row.Absences {
			p.Absent = append(p.Absent, rowIdentity(row)+": "+a.Metric+": "+a.Reason)
		}
	}
	if p.TestMode {
		for _, row := range doc.Rows {
			if row.IsError() || row.Outcome == rundoc.OutcomeSkipped {
				p.Tests = append(p.Tests, rowFailure(row))
			}
		}
	} else {
		p.Benchmarks = benchSections(doc, r.Old)
		for _, row := range doc.Rows {
			if row.Kind != rundoc.KindBenchmark && row.IsError() {
				p.Failures = append(p.Failures, rowFailure(row))
			}
		}
	}
	comps := slices.Clone(r.Comparisons)
	for _, c := range doc.Comparisons {
		if !slices.ContainsFunc(comps, func(d rundoc.Comparison) bool { return reflect.DeepEqual(c, d) }) {
			comps = append(comps, c)
		}
	}
	var variants []rundoc.Comparison
	for _, c := range comps {
		if c.Variants != nil {
			variants = append(variants, c)
			continue
		}
		p.Comparisons = append(p.Comparisons, comparisonView(c))
	}
	p.Variants = variantsView(doc.Rows, variants)
	// The answer links to its evidence: each compared identity to its
	// benchmark section.
	anchors := map[string]string{}
	for _, b := range p.Benchmarks {
		anchors[b.Identity] = b.Anchor
	}
	for i := range p.Comparisons {
		for j := range p.Comparisons[i].Table {
			r := &p.Comparisons[i].Table[j]
			r.Anchor = anchors[r.Identity]
		}
	}
	if len(doc.WindowSummaries) > 0 {
		p.Windows = windowsView(doc.WindowSummaries)
	}
	p.Sweeps, p.Caveat = sweepsView(doc.Sweeps), rundoc.ScalingCaveat
	if len(doc.Recordings) > 0 {
		p.Recordings = recordingsView(doc.Recordings)
	}
	return p
}

func rowIdentity(r rundoc.Row) string {
	s := r.Package
	if r.Name != "" {
		s += " " + r.Name
	}
	if r.Build != "" {
		s += " @" + r.Build
	}
	return s
}

func rowFailure(r rundoc.Row) htmlFailure {
	f := htmlFailure{Name: rowIdentity(r), Outcome: string(r.Outcome), Output: r.Output, Elapsed: dash}
	if r.ElapsedNs != nil {
		f.Elapsed = formatDuration(float64(*r.ElapsedNs))
	}
	switch {
	case r.Error != nil:
		f.Error = *r.Error
	case r.Skipped != nil:
		f.Error = *r.Skipped
	}
	return f
}

func metaFacts(m rundoc.Meta) []htmlFact {
	fp := m.Fingerprint()
	k := m.Knobs
	facts := []htmlFact{
		{"module", orDash(m.Module)},
		{"mode", orDash(m.Mode)},
		{"date", orDash(m.Date)},
		{"host", orDash(m.Hostname)},
		{"os/arch", fp.OS + "/" + fp.Arch},
		{"cpu", orDash(fp.CPU)},
		{"GOMAXPROCS", countOrDash(fp.GOMAXPROCS, "no child started")},
		{"go", orDash(fp.GoVersion)},
		{"benchsup", orDash(fp.BenchsupVersion)},
		{"environment", orDash(strings.TrimSpace(fp.Environment))},
		{"placement", fp.Placement},
		{"containment", orDash(m.Containment) + noteSuffix(m.ContainmentNote)},
	}
	if l := limitsText(m.Limits); l != "" {
		facts = append(facts, htmlFact{"limits", l})
	}
	// The host hygiene lines of the table header, one fact each; the
	// placement line replaces the fingerprint's bare CPU list.
	for _, l := range hygieneLines(m) {
		name, value, _ := strings.Cut(l, ": ")
		// The page has room for what the header line leaves out: what the
		// preflight saw, and what the watch does not cover.
		switch q := m.Quiescence; {
		case name == "quiescence" && q.StableAverage != nil:
			value += "; seen over the quiet interval: " + percent(*q.StableAverage) + " average"
			if q.StableBusiest != nil {
				value += ", busiest CPU " + percent(*q.StableBusiest)
				if q.StableBusiestCPU != nil {
					value += " (cpu" + strconv.Itoa(*q.StableBusiestCPU) + ")"
				}
			}
		case name == "interference" && m.Interference.Scope != "":
			value += "; watches " + m.Interference.Scope
		}
		if i := slices.IndexFunc(facts, func(f htmlFact) bool { return f.Name == name }); i >= 0 {
			facts[i].Value = value
			continue
		}
		facts = append(facts, htmlFact{name, value})
	}
	facts = append(facts, htmlFact{"build flags", orDash(fp.BuildFlags)})
	if m.Mode == rundoc.ModeTest {
		facts = append(facts, htmlFact{"run", orDash(k.Run)})
	} else {
		// A fixed N (-benchtime=Nx) is what a sample is; the sample time
		// was then no target of anything.
		sample := formatDuration(float64(k.SampleTimeNs)) + " × " + strconv.Itoa(k.SampleCount) + " per process"
		if k.Iterations > 0 {
			sample = strconv.FormatInt(k.Iterations, 10) + " iterations (fixed, not calibrated) × " + strconv.Itoa(k.SampleCount) + " per process"
		}
		facts = append(facts,
			htmlFact{"bench", orDash(k.Bench)},
			htmlFact{"sample", sample},
			htmlFact{"repetitions", strconv.Itoa(k.Repetitions) + " processes, " + orDash(k.Order)})
		if len(k.Metrics) > 0 {
			facts = append(facts, htmlFact{"metrics", strings.Join(k.Metrics, ", ")})
		}
		if len(k.WindowMetrics) > 0 {
			facts = append(facts, htmlFact{"window metrics", strings.Join(k.WindowMetrics, ", ")})
		}
	}
	facts = append(facts, htmlFact{"timeout", formatDuration(float64(k.TimeoutNs))})
	if k.Short {
		facts = append(facts, htmlFact{"short", "yes (-test.short)"})
	}
	if pv := m.Provenance; pv.Injection != "" {
		same := 0
		for _, b := range pv.Builds {
			if b.Same {
				same++
			}
		}
		facts = append(facts, htmlFact{"provenance", pv.Injection + " injection; " + strconv.Itoa(same) + " of " +
			strconv.Itoa(len(pv.Builds)) + " package builds identical to go test's"})
		for _, b := range pv.Builds {
			if !b.Same {
				facts = append(facts, htmlFact{"build differs", b.Package + noteSuffix(b.Note)})
			}
		}
	}
	return facts
}

func countOrDash(n int, why string) string {
	if n == 0 {
		return dash + " (" + why + ")"
	}
	return strconv.Itoa(n)
}

func noteSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func sourceFacts(m rundoc.Meta) []htmlFact {
	var out []htmlFact
	for _, s := range m.Sources {
		v := "available"
		if !s.Available {
			v = "unavailable"
		}
		if s.Status != "" {
			v = s.Status
			if !s.Available && !strings.HasPrefix(s.Status, "unavailable") {
				v = "unavailable: " + s.Status
			}
		}
		for _, a := range s.Absences {
			line := "no " + a.Capability
			if len(a.Metrics) > 0 {
				line += " (" + strings.Join(a.Metrics, ", ") + ")"
			}
			if a.Reason == strings.TrimPrefix(s.Status, "unavailable: ") {
				v += "; " + line + ": for that reason" // the status said it
				continue
			}
			v += "; " + line + ": " + a.Reason
		}
		out = append(out, htmlFact{s.Source, v})
	}
	return out
}

func outcomeFacts(rows []rundoc.Row) []htmlFact {
	counts := map[string]int{}
	for _, r := range rows {
		counts[string(r.Kind)+" "+string(r.Outcome)]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []htmlFact
	for _, k := range keys {
		out = append(out, htmlFact{k, strconv.Itoa(counts[k])})
	}
	return out
}

// sideRow is one row drawn in an identity's plot, with the side it
// stands for.
type sideRow struct {
	Row  rundoc.Row
	Side string // "new", "old" or the --against revision
}

// benchSections groups the benchmark rows by identity, in order of first
// appearance: the run's rows of every build, after the old run's.
func benchSections(doc *rundoc.Document, old *rundoc.Document) []htmlBench {
	type ident struct{ pkg, name string }
	var order []ident
	groups := map[ident][]sideRow{}
	add := func(r rundoc.Row, side string) {
		id := ident{r.Package, r.Name}
		if _, ok := groups[id]; !ok {
			order = append(order, id)
		}
		groups[id] = append(groups[id], sideRow{r, side})
	}
	var oldRows []rundoc.Row
	if old != nil {
		oldRows = old.Rows
	}
	// Identities in the run's order, then those only the old run has.
	for _, r := range doc.Rows {
		if r.Kind == rundoc.KindBenchmark {
			id := ident{r.Package, r.Name}
			if _, ok := groups[id]; !ok {
				order = append(order, id)
				groups[id] = nil
			}
		}
	}
	for _, r := range oldRows {
		if r.Kind == rundoc.KindBenchmark {
			add(r, "old")
		}
	}
	for _, r := range doc.Rows {
		if r.Kind == rundoc.KindBenchmark {
			side := "new"
			if r.Build != "" {
				side = r.Build
			}
			add(r, side)
		}
	}
	// A plain run's lanes are p0, p1, ...: "new" says something only
	// beside another build.
	plain := old == nil && !slices.ContainsFunc(doc.Rows, func(r rundoc.Row) bool { return r.Build != "" })
	var out []htmlBench
	for i, id := range order {
		rows := groups[id]
		b := htmlBench{Identity: id.pkg + " " + id.name, Package: id.pkg, Name: id.name, Anchor: benchAnchor(i, id.name)}
		var marks stripMarks
		b.Strip, marks = stripSVG(rows, plain)
		b.Legend, b.Disturbed, b.Retaken = marks.samples, marks.disturbed, marks.retaken
		for _, sr := range rows {
			b.Rows = append(b.Rows, benchRowView(doc.Columns, sr))
		}
		b.Sides, b.Metrics = metricsTable(b.Rows)
		out = append(out, b)
	}
	return out
}

// benchAnchor is the id of the i-th benchmark section: its position keeps
// it unique, the name (its letters and digits) readable in a link.
func benchAnchor(i int, name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return "b" + strconv.Itoa(i) + "-" + strings.TrimSuffix(b.String(), "-")
}

// metricsTable lays the rows' metrics side by side, metrics in order of
// first appearance.
func metricsTable(rows []htmlBenchRow) ([]string, [][]string) {
	var names []string
	vals := map[string][]string{}
	var sides []string
	for i, r := range rows {
		sides = append(sides, r.Side)
		for _, m := range r.Metrics {
			if _, ok := vals[m.Name]; !ok {
				names = append(names, m.Name)
				vals[m.Name] = make([]string, len(rows))
			}
			vals[m.Name][i] = m.Value
		}
	}
	var out [][]string
	for _, n := range names {
		line := []string{n}
		for _, v := range vals[n] {
			line = append(line, orDash(v))
		}
		out = append(out, line)
	}
	return sides, out
}

func benchRowView(cols []rundoc.Column, sr sideRow) htmlBenchRow {
	r := sr.Row
	v := htmlBenchRow{Side: sr.Side, Notes: r.Notes}
	if note := r.Interference.Note(); note != "" {
		// The callout says it; the notes list need not say it again.
		in := r.Interference
		switch {
		case in.Retakes > 0 || in.Pauses > 0:
			v.Repair = "had to repair itself: "
		case in.Disturbed > 0:
			v.Repair = "disturbed by foreign load: "
		default:
			v.Repair = "interference watch: "
		}
		v.Repair += strings.TrimPrefix(note, "interference: ")
		v.Notes = slices.DeleteFunc(slices.Clone(r.Notes), func(n string) bool { return n == note })
	}
	if s := r.Summary; s != nil {
		v.Headline = formatDuration(s.MedianNs) + "/op, median of " + strconv.Itoa(s.Processes) + " process medians"
		if iv := s.Interval; iv != nil {
			v.Headline += "; " + trimPercent(100*iv.Confidence) + " interval " +
				formatDuration(iv.LowNs) + " … " + formatDuration(iv.HighNs) + " (" + formatInterval(iv.LowNs, iv.HighNs, s.MedianNs) + ")"
		} else {
			v.Headline += "; no interval (one process with samples)"
		}
		if s.WithinMADNs != nil {
			v.Metrics = append(v.Metrics, htmlFact{"noise within a process (MAD)", formatDeviation(*s.WithinMADNs, s.MedianNs)})
		}
		v.Metrics = append(v.Metrics, htmlFact{"samples", strconv.Itoa(s.Samples) + " × " + strconv.FormatInt(s.Iterations, 10) + " iterations" +
			shortSuffix(s.ShortSamples)})
		units := make([]string, 0, len(s.Metrics))
		for u := range s.Metrics {
			units = append(units, u)
		}
		for _, u := range orderUnits(units) {
			val := dash + " (some process did not report it)"
			if x := s.Metrics[u]; x != nil {
				val = formatMetric(u, *x)
			}
			v.Metrics = append(v.Metrics, htmlFact{u, val})
		}
		for _, c := range cols {
			val := countedCell(s, c)
			if x, ok := s.Uncertainty[c.Name]; ok && val != dash {
				val += " ±" + formatCounted(x, c.Format)
			}
			if val == dash {
				val += " (" + reasonFor(r, c.Name, belowNoise(s, c)) + ")"
			}
			name := columnHeader(c)
			if c.Class == rundoc.ClassDiagnostic {
				name += " (diagnostic)"
			}
			v.Metrics = append(v.Metrics, htmlFact{name, val})
		}
	} else {
		v.Headline = "no samples: " + string(r.Outcome)
	}
	if in := r.Interference; in != nil {
		v.Metrics = append(v.Metrics, htmlFact{"interference watch", watchText(in)})
	}
	for _, a := range r.Absences {
		v.Absences = append(v.Absences, a.Metric+": "+a.Reason)
	}
	if r.IsError() || r.Outcome == rundoc.OutcomeSkipped {
		v.Failures = append(v.Failures, rowFailure(r))
	}
	for _, p := range r.Processes {
		if p.Outcome.IsError() && p.Error != nil && (r.Error == nil || *p.Error != *r.Error) {
			v.Failures = append(v.Failures, htmlFailure{Name: "process " + strconv.Itoa(p.Index), Outcome: string(p.Outcome), Error: *p.Error})
		}
	}
	return v
}

// watchText is what the interference watch saw over a row, for the
// metrics table: counts always (a watch ran), the largest foreign share
// only when some sample's window was long enough to tell.
func watchText(in *rundoc.RowInterference) string {
	if in.Problem != "" && in.Samples == 0 {
		return dash + " (not watched: " + in.Problem + ")"
	}
	s := strconv.Itoa(in.Samples) + " samples watched, " + strconv.Itoa(in.Disturbed) + " disturbed, " +
		strconv.Itoa(in.Retakes) + " retaken, " + strconv.Itoa(in.Pauses) + " " + plural(in.Pauses, "pause", "pauses")
	if in.Pauses > 0 {
		s += " (" + formatDuration(float64(in.PausedNs)) + ")"
	}
	if in.MaxForeign != nil {
		s += "; " + rundoc.MaxForeignText(*in.MaxForeign)
	} else {
		s += "; foreign CPU " + dash + " (no sample window long enough to tell)"
	}
	if in.TooShort > 0 {
		s += "; " + strconv.Itoa(in.TooShort) + " too short to judge"
	}
	if in.BudgetExhausted > 0 {
		s += "; " + in.BudgetText()
	}
	return s
}

func shortSuffix(n int) string {
	if n == 0 {
		return ""
	}
	return " (" + strconv.Itoa(n) + " short: under half the sample target, hollow in the plot)"
}

// reasonFor is why a counted cell is a dash.
func reasonFor(r rundoc.Row, metric string, noise bool) string {
	if noise {
		return "below its uncertainty"
	}
	for _, a := range r.Absences {
		if a.Metric == metric {
			return gist(a.Reason) + ": see below"
		}
	}
	return "not measured"
}

// Strip plot geometry, in viewBox units.
const (
	stripWidth = 960.0
	stripLabel = 150.0 // the lane label column
	stripRight = 24.0
	laneHeight = 18.0
	stripTop   = 8.0
)

// stripMarks says what a strip plot drew, for its legend.
type stripMarks struct {
	samples   bool // any sample (kept or retaken)
	disturbed bool // a kept sample marked disturbed
	retaken   bool // a retaken sample
}

// stripSVG draws one lane per process of every row, on one shared ns/op
// axis: each sample a dot (hollow when short, ringed when disturbed), each
// sample the interference watch retook a small cross in its process's
// lane (in no statistic, but never hidden), the process median a tick,
// and per row the headline median with its interval as a band. It reports
// what it drew.
func stripSVG(rows []sideRow, plain bool) (template.HTML, stripMarks) {
	var vals []float64
	nproc := 0
	for _, sr := range rows {
		nproc += len(sr.Row.Processes)
		for _, p := range sr.Row.Processes {
			for _, s := range slices.Concat(p.Samples, p.Retaken) {
				if v, ok := s.NsPerOp(); ok && isFinite(v) {
					vals = append(vals, v)
				}
			}
		}
		if s := sr.Row.Summary; s != nil {
			vals = append(vals, s.MedianNs)
			if iv := s.Interval; iv != nil {
				vals = append(vals, iv.LowNs, iv.HighNs)
			}
		}
	}
	height := stripTop + float64(max(nproc, 1))*laneHeight + 44
	var b svgBuilder
	b.f(`<svg class="strip" data-processes="`, strconv.Itoa(nproc), `" viewBox="0 0 `, px(stripWidth), ` `, px(height),
		`" role="img" aria-label="ns/op of every sample, one lane per process">`)
	var a axis
	have := len(vals) > 0
	marks := stripMarks{samples: have}
	if have {
		a = newAxis(slices.Min(vals), slices.Max(vals), stripLabel+10, stripWidth-stripRight, true)
		unit := "ns/op (linear axis)"
		if a.log {
			unit = "ns/op (log axis: values span more than ×10)"
		}
		b.drawAxis(a, stripTop, height-40, formatDuration, unit)
	}
	y := stripTop
	for ri, sr := range rows {
		r := sr.Row
		top := y
		cls := "side-old"
		if sr.Side == "new" {
			cls = "side-new"
		}
		if ri > 0 {
			b.line(0, y, stripWidth-stripRight, y, "sep")
		}
		if s := r.Summary; s != nil && have && len(r.Processes) > 0 {
			h := float64(len(r.Processes)) * laneHeight
			if iv := s.Interval; iv != nil {
				b.rect(a.pos(iv.LowNs), top, a.pos(iv.HighNs)-a.pos(iv.LowNs), h, "band "+cls,
					sr.Side+": "+trimPercent(100*iv.Confidence)+" interval of the median "+formatDuration(iv.LowNs)+" … "+formatDuration(iv.HighNs))
			}
			x := a.pos(s.MedianNs)
			b.f(`<g><title>`, esc(sr.Side+": median of process medians "+formatDuration(s.MedianNs)), `</title>`)
			b.line(x, top, x, top+h, "headline "+cls)
			b.f(`</g>`)
		}
		for _, p := range r.Processes {
			mid := y + laneHeight/2
			b.f(`<g class="process" data-process="`, strconv.Itoa(p.Index), `" data-side="`, esc(sr.Side),
				`" data-outcome="`, esc(string(p.Outcome)), `">`)
			lane := "p" + strconv.Itoa(p.Index)
			if !plain {
				lane = sr.Side + " · " + lane
			}
			b.label(stripLabel, mid+4, "end", "lane", lane, 22)
			drawn := 0
			if have {
				// Retaken samples first, so that kept ones draw over them.
				for i, s := range p.Retaken {
					v, ok := s.NsPerOp()
					if !ok || !isFinite(v) {
						continue
					}
					marks.retaken = true
					x := a.pos(v)
					b.f(`<g><title>`, esc(sr.Side+" p"+strconv.Itoa(p.Index)+" retaken sample "+strconv.Itoa(i)+": "+
						formatDuration(v)+"/op"+foreignText(s)+"; discarded and taken again, in no statistic"), `</title>`)
					b.cross(x, mid, 2.5, "retaken")
					b.f(`</g>`)
				}
				for i, s := range p.Samples {
					v, ok := s.NsPerOp()
					if !ok || !isFinite(v) {
						continue
					}
					dy := float64(i%3-1) * 3
					fill := "dot"
					what := ""
					if s.Short {
						fill, what = "dot short", " (short sample)"
					}
					what += foreignText(s)
					if s.Disturbed {
						// A ring around the dot: the sample is kept and in
						// every statistic, only annotated.
						marks.disturbed = true
						b.f(`<circle class="ring" cx="`, px(a.pos(v)), `" cy="`, px(mid+dy), `" r="5.5"/>`)
					}
					b.f(`<circle class="`, fill, `" cx="`, px(a.pos(v)), `" cy="`, px(mid+dy), `" r="3"><title>`,
						esc(sr.Side+" p"+strconv.Itoa(p.Index)+" sample "+strconv.Itoa(i)+": "+formatDuration(v)+"/op"+what), `</title></circle>`)
					drawn++
				}
				if p.NsPerOp != nil {
					x := a.pos(p.NsPerOp.Median)
					b.f(`<g><title>`, esc("process median "+formatDuration(p.NsPerOp.Median)), `</title>`)
					b.line(x, mid-7, x, mid+7, "pmedian")
					b.f(`</g>`)
				}
			}
			if drawn == 0 {
				x := stripLabel + 18
				what := string(p.Outcome)
				if p.Error != nil {
					what += ": " + firstLine(*p.Error)
				} else if p.Outcome == rundoc.OutcomeOK {
					what = "no samples"
				}
				if p.Outcome.IsError() {
					b.cross(x, mid, 4, "fail")
					b.label(x+10, mid+4, "start", "failtext", what, 100)
				} else {
					// Skipped or sampleless: no failure, so no red cross.
					b.label(x-4, mid+4, "start", "lane", what, 100)
				}
			}
			b.f(`</g>`)
			y += laneHeight
		}
	}
	b.f(`</svg>`)
	return template.HTML(b.String()), marks
}

// foreignText is a sample's foreign share for its tooltip, "" when the
// watch did not tell.
func foreignText(s rundoc.Sample) string {
	if s.Foreign == nil {
		return ""
	}
	t := " (" + percent(*s.Foreign) + " foreign CPU"
	if s.Disturbed {
		t += ": disturbed"
	}
	return t + ")"
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Forest plot geometry.
const (
	forestWidth = 960.0
	forestName  = 330.0 // identity column
	forestPlot0 = 340.0
	forestPlot1 = 720.0
	rowHeight   = 22.0
)

func comparisonView(c rundoc.Comparison) htmlComparison {
	v := htmlComparison{Old: sideLabel(c.Old), New: sideLabel(c.New)}
	k := c.Knobs
	design := "independent processes, hierarchical bootstrap"
	if k.Paired {
		design = "interleaved pairs of processes, order-statistic intervals of the pair ratios"
	}
	design = withSpanDesign(design, c.Rows)
	v.Statistics = design + "; " + trimPercent(100*k.Confidence) + " confidence asked, " + strconv.Itoa(k.Resamples) +
		" resamples, seed " + strconv.FormatUint(k.Seed, 10) + "; practical threshold ±" + trimPercent(100*k.Threshold)
	v.Shortfall = shortOfConfidence(c.Rows, k.Confidence).line()
	for _, d := range c.Mismatches {
		v.Mismatches = append(v.Mismatches, d.Field+": old "+strconv.Quote(d.Old)+", new "+strconv.Quote(d.New))
	}
	for _, g := range c.Geomeans {
		v.Geomeans = append(v.Geomeans, g.Metric+": "+ratioLabel(g.Ratio)+" ("+formatChange(g.Ratio)+") over "+strconv.Itoa(g.Identities)+" identities")
	}
	v.Sweeps = sweepChangeLines(c.Sweeps)
	var metrics []string
	for _, r := range c.Rows {
		metrics = appendNew(metrics, r.Metric)
	}
	for _, m := range metrics {
		if m == rundoc.MetricTime || hasInterval(c, m) {
			v.Forests = append(v.Forests, htmlForest{Metric: m, SVG: forestSVG(c, m)})
		}
	}
	for _, r := range c.Rows {
		row := htmlCompareRow{Identity: r.Package + " " + r.Name, Metric: r.Metric,
			Old: formatCenter(r.Metric, r.Old), New: formatCenter(r.Metric, r.New), Change: dash, Interval: dash, P: dash, Verdict: string(r.Verdict)}
		if r.Ratio != nil {
			row.Change = formatChange(*r.Ratio)
		}
		if r.Low != nil && r.High != nil {
			row.Interval = formatChange(*r.Low) + " … " + formatChange(*r.High)
			if r.Confidence != nil {
				row.Interval += " at " + trimPercent(100**r.Confidence)
			}
		}
		if r.P != nil {
			row.P = formatP(*r.P)
		}
		v.Table = append(v.Table, row)
		if r.Note != "" {
			v.Notes = append(v.Notes, r.Package+" "+r.Name+" "+r.Metric+": "+r.Note)
		}
	}
	return v
}

// hasInterval reports whether some row of metric m has a ratio interval:
// a forest of exact comparisons only would show no uncertainty.
func hasInterval(c rundoc.Comparison, m string) bool {
	for _, r := range c.Rows {
		if r.Metric == m && r.Ratio != nil && r.Low != nil && r.High != nil {
			return true
		}
	}
	return false
}

// forestSVG draws one row per comparison row of metric m, sorted by ratio
// (rows without one last, in their order): the ratio as a verdict marker
// with its interval, on a log axis, over the threshold band and a line at
// 1.
func forestSVG(c rundoc.Comparison, m string) template.HTML {
	return forestSVGAxis(c, m, "new/old "+m+" (log axis; left is less)")
}

// forestSVGAxis is forestSVG with the axis's label.
func forestSVGAxis(c rundoc.Comparison, m, axis string) template.HTML {
	var rows []rundoc.ComparisonRow
	for _, r := range c.Rows {
		if r.Metric == m {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b rundoc.ComparisonRow) int {
		switch {
		case a.Ratio == nil && b.Ratio == nil:
			return 0
		case a.Ratio == nil:
			return 1
		case b.Ratio == nil:
			return -1
		}
		if *a.Ratio < *b.Ratio {
			return -1
		}
		if *a.Ratio > *b.Ratio {
			return 1
		}
		return 0
	})
	t := c.Knobs.Threshold
	lo, hi := 1.0, 1.0
	if t > 0 && t < 1 {
		lo, hi = 1-t, 1+t
	}
	for _, r := range rows {
		for _, p := range []*float64{r.Ratio, r.Low, r.High} {
			if p != nil && *p > 0 && isFinite(*p) {
				lo, hi = math.Min(lo, *p), math.Max(hi, *p)
			}
		}
	}
	lo, hi = lo/1.03, hi*1.03
	top := 8.0
	height := top + float64(max(len(rows), 1))*rowHeight + 46
	bottom := height - 40
	a := logAxis(lo, hi, forestPlot0, forestPlot1)
	var b svgBuilder
	b.f(`<svg class="forest" data-metric="`, esc(m), `" viewBox="0 0 `, px(forestWidth), ` `, px(height),
		`" role="img" aria-label="`, esc("new/old ratio of "+m+" per identity, with intervals"), `">`)
	if t > 0 && t < 1 {
		b.rect(a.pos(1-t), top, a.pos(1+t)-a.pos(1-t), bottom-top, "threshold",
			"practical threshold ±"+trimPercent(100*t)+": differences inside are equivalent")
	}
	b.drawAxis(a, top, bottom, ratioLabel, axis)
	b.line(a.pos(1), top, a.pos(1), bottom, "one")
	y := top
	for _, r := range rows {
		mid := y + rowHeight/2
		// Only time rows are g.forest-row: the hook counts one per sec/op
		// comparison row, whatever other forests the page draws.
		cls := "forest-row"
		if m != rundoc.MetricTime {
			cls = "forest-row-metric"
		}
		b.f(`<g class="`, cls, `" data-identity="`, esc(r.Package+" "+r.Name), `" data-verdict="`, esc(string(r.Verdict)), `">`)
		// The package is left out of the label for room; the hover title
		// and the table below name it.
		b.f(`<g><title>`, esc(r.Package+" "+r.Name), `</title>`)
		b.text(forestName, mid+4, "end", "lane", cutRunes(r.Name, 44))
		b.f(`</g>`)
		text := string(r.Verdict)
		if r.Ratio != nil && isFinite(*r.Ratio) && *r.Ratio > 0 {
			if r.Low != nil && r.High != nil && *r.Low > 0 && *r.High > 0 {
				b.line(a.pos(*r.Low), mid, a.pos(*r.High), mid, "ci")
				b.line(a.pos(*r.Low), mid-4, a.pos(*r.Low), mid+4, "ci")
				b.line(a.pos(*r.High), mid-4, a.pos(*r.High), mid+4, "ci")
			}
			b.f(`<g><title>`, esc(r.Package+" "+r.Name+": "+ratioLabel(*r.Ratio)+" "+string(r.Verdict)), `</title>`)
			b.marker(r.Verdict, a.pos(*r.Ratio), mid)
			b.f(`</g>`)
			text = formatChange(*r.Ratio) + " " + string(r.Verdict)
		} else {
			// No marker: the verdict in text, the note (which may be
			// long) on hover and in the table's notes.
			if r.Note != "" {
				b.f(`<g><title>`, esc(r.Note), `</title>`)
			}
			if verdictShape(r.Verdict) == "circle" {
				// Nothing changed but there is no ratio (0 B/op on both
				// sides): not a failure, so not drawn as one.
				b.text(forestPlot0+8, mid+4, "start", "lane", string(r.Verdict)+": no ratio")
			} else {
				b.cross(forestPlot0+8, mid, 4, "fail")
				b.text(forestPlot0+18, mid+4, "start", "failtext", string(r.Verdict)+": no ratio")
			}
			if r.Note != "" {
				b.f(`</g>`)
			}
		}
		b.text(forestPlot1+12, mid+4, "start", "verdict v-"+verdictClass(r.Verdict), text)
		b.f(`</g>`)
		y += rowHeight
	}
	b.f(`</svg>`)
	return template.HTML(b.String())
}

// Windows plot geometry.
const (
	winWidth = 960.0
	winName  = 270.0
	winBar0  = 280.0
	winBar1  = 700.0
	winRow   = 26.0
)

// windowSegments are the drawn components of a window, in order.
var windowSegments = []struct {
	class, name string
	get         func(rundoc.WindowSummary) *rundoc.WindowStat
}{
	{"seg-user", "on-CPU user", func(s rundoc.WindowSummary) *rundoc.WindowStat { return s.OnCPUUserNs }},
	{"seg-kernel", "on-CPU kernel", func(s rundoc.WindowSummary) *rundoc.WindowStat { return s.OnCPUKernelNs }},
	{"seg-runqueue", "run queue", func(s rundoc.WindowSummary) *rundoc.WindowStat { return s.OffCPURunqueueNs }},
	{"seg-disk", "disk wait", func(s rundoc.WindowSummary) *rundoc.WindowStat { return s.OffCPUDiskNs }},
	{"seg-other", "other off-CPU", func(s rundoc.WindowSummary) *rundoc.WindowStat { return s.OffCPUOtherNs }},
}

// windowsView draws one bar per window, each scaled to its own median wall
// (windows differ by orders of magnitude, so one shared axis would hide
// the short ones), and tabulates every value.
func windowsView(sums []rundoc.WindowSummary) *htmlWindows {
	v := &htmlWindows{}
	height := 8 + float64(len(sums))*winRow + 8
	var b svgBuilder
	b.f(`<svg class="windows" viewBox="0 0 `, px(winWidth), ` `, px(height),
		`" role="img" aria-label="where each window's wall-clock time went">`)
	y := 8.0
	for _, s := range sums {
		name := s.LocalName()
		mid := y + winRow/2
		b.f(`<g class="window" data-window="`, esc(s.Package+" "+s.Workload+" "+s.Name), `" data-scope="`, esc(s.Scope), `">`)
		b.label(winName, mid+4, "end", "lane", name, 40)
		switch {
		case s.WallNs == nil:
			why := "not measured"
			if s.Error != nil {
				why = "failed: " + firstLine(*s.Error)
			} else if s.Skipped != nil {
				why = "skipped: " + firstLine(*s.Skipped)
			}
			b.label(winBar0, mid+4, "start", "failtext", why, 90)
		case s.Scope == rundoc.ScopeMixed || s.Scope == rundoc.ScopeWallOnly:
			b.rect(winBar0, mid-7, winBar1-winBar0, 14, "seg-wall", "wall "+formatDuration(s.WallNs.Median)+": "+scopeText(s.Scope))
			b.text(winBar1+8, mid+4, "start", "", "wall "+formatDuration(s.WallNs.Median)+spreadText(s.WallNs)+" · "+s.Scope+": wall only")
		default:
			total := s.WallNs.Median
			sum := 0.0
			for _, seg := range windowSegments {
				if st := seg.get(s); st != nil {
					sum += st.Median
				}
			}
			// Component medians are summarized apart and need not add
			// up to the median wall: scale to the larger, never clip.
			total = math.Max(total, sum)
			x := winBar0
			for _, seg := range windowSegments {
				st := seg.get(s)
				if st == nil || total <= 0 {
					continue // unavailable: not drawn, the table says why
				}
				w := st.Median / total * (winBar1 - winBar0)
				b.rect(x, mid-7, w, 14, seg.class, seg.name+" "+formatDuration(st.Median)+spreadText(st))
				x += w
			}
			b.rect(winBar0, mid-7, s.WallNs.Median/math.Max(total, 1e-9)*(winBar1-winBar0), 14, "wall-outline",
				"median wall "+formatDuration(s.WallNs.Median))
			b.text(winBar1+8, mid+4, "start", "", "wall "+formatDuration(s.WallNs.Median)+spreadText(s.WallNs))
		}
		b.f(`</g>`)
		y += winRow
	}
	b.f(`</svg>`)
	v.SVG = template.HTML(b.String())
	for _, s := range sums {
		row := htmlWindowRow{Name: s.Package + " " + s.LocalName(),
			Processes: strconv.Itoa(s.Processes) + unmeasuredSuffix(s.Unmeasured),
			Scope:     orDash(s.Scope), Wall: statCell(s.WallNs), Spread: dash,
			User: statCell(s.OnCPUUserNs), Kernel: statCell(s.OnCPUKernelNs), Runqueue: statCell(s.OffCPURunqueueNs),
			Disk: statCell(s.OffCPUDiskNs), Other: statCell(s.OffCPUOtherNs), OtherThreads: statCell(s.OtherThreadsCPUNs),
			Regimes: orDash(regimesText(s.Regimes)), Note: s.Note}
		if s.WallNs != nil && s.WallNs.Spread != nil {
			row.Spread = "±" + formatDuration(*s.WallNs.Spread)
		}
		if s.Error != nil {
			row.Note = strings.TrimSpace("failed: " + firstLine(*s.Error) + "; " + row.Note)
		} else if s.Skipped != nil {
			row.Note = strings.TrimSpace("skipped: " + firstLine(*s.Skipped) + "; " + row.Note)
		}
		row.Note = strings.TrimSuffix(row.Note, ";")
		if row.Note == "" && s.WallNs != nil && unavailableComponent(s) {
			row.Note = "an em dash: not attributed by every measured process"
		}
		v.Table = append(v.Table, row)
	}
	return v
}

func unavailableComponent(s rundoc.WindowSummary) bool {
	for _, seg := range windowSegments {
		if seg.get(s) == nil {
			return true
		}
	}
	return false
}

func spreadText(st *rundoc.WindowStat) string {
	if st == nil || st.Spread == nil {
		return ""
	}
	return " ±" + formatDuration(*st.Spread)
}

func unmeasuredSuffix(n int) string {
	if n == 0 {
		return ""
	}
	return " (+" + strconv.Itoa(n) + " unmeasured)"
}

// regimesText lists the page-cache regimes: requested → achieved, with the
// processes of each.
func regimesText(rs []rundoc.WindowRegimeCount) string {
	var parts []string
	for _, r := range rs {
		s := r.Requested
		if r.Effective != r.Requested {
			s += " → " + r.Effective
		}
		ps := make([]string, len(r.Processes))
		for i, p := range r.Processes {
			ps[i] = "p" + strconv.Itoa(p)
		}
		parts = append(parts, s+" ("+strings.Join(ps, ", ")+")")
	}
	return strings.Join(parts, "; ")
}
