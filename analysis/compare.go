package analysis

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/internal/statsconv"
	"github.com/benchsup/benchsup/rundoc"
)

// DefaultThreshold is the practical threshold of a comparison when
// CompareConfig.Threshold is zero: differences smaller than 2% are called
// equivalent, larger ones are called only when the whole interval clears
// it. See docs/design.md#comparison for how it was chosen.
const DefaultThreshold = 0.02

// MaxThreshold bounds CompareConfig.Threshold: a threshold of 100% would
// call a doubling "equivalent".
const MaxThreshold = 1.0

// outlierScale is how many scaled median absolute deviations a process's
// median may lie from the others' before it is flagged: 3.5, the usual
// cut of the modified z-score (Iglewicz and Hoaglin).
const outlierScale = 3.5

// A process is an outlier only when it also lies further from the others'
// median than the practical threshold: a process 1% off is no outlier in
// a comparison that calls 2% equivalent, whatever the MAD of the rest.

// CompareConfig configures Compare. The zero value means the defaults.
type CompareConfig struct {
	// Threshold is the practical threshold as a fraction; zero means
	// DefaultThreshold. It must lie in (0, MaxThreshold].
	Threshold float64
	// Bootstrap sets the confidence, resamples and seed; zero fields mean
	// the defaults.
	Bootstrap Bootstrap
	// AllowMismatch compares runs whose fingerprints differ; the
	// comparison records the differences.
	AllowMismatch bool
	// OldLabel and NewLabel name the sides in the output.
	OldLabel, NewLabel string
}

// Bootstrap sets the resampling of a comparison's intervals.
type Bootstrap struct {
	// Confidence is the interval's nominal coverage; zero means 0.95. It
	// must lie in [0.5, 0.999].
	Confidence float64
	// Resamples is the number of bootstrap resamples; zero means 10000.
	// It must lie in [1000, 1000000].
	Resamples int
	// Seed makes the resampling deterministic: the same inputs and seed
	// give the same interval, bit for bit.
	Seed uint64
}

// ErrFingerprintMismatch is wrapped by a MismatchError.
var ErrFingerprintMismatch = errors.New("the runs' fingerprints differ")

// MismatchError says two runs are not comparable and which fields differ.
type MismatchError struct {
	Diffs []rundoc.FieldDiff
}

func (e *MismatchError) Error() string {
	parts := make([]string, len(e.Diffs))
	for i, d := range e.Diffs {
		parts[i] = fmt.Sprintf("%s %q vs %q", d.Field, d.Old, d.New)
	}
	return "the runs are not comparable: " + strings.Join(parts, ", ") + " (--allow-mismatch compares them anyway)"
}

func (e *MismatchError) Unwrap() error { return ErrFingerprintMismatch }

// Compare compares two benchmark runs identity by identity. Identities of
// one side only are listed with their side, failures with their outcome;
// nothing is dropped. Runs whose fingerprints differ are refused with a
// *MismatchError unless cfg.AllowMismatch. A document of another mode than
// bench is compared when it holds recordings (a test that recorded spans,
// a recorded program): its recordings' rows (CompareRecordings) follow
// the benchmarks'.
func Compare(old, new *rundoc.Document, cfg CompareConfig) (*rundoc.Comparison, error) {
	for _, d := range []*rundoc.Document{old, new} {
		if d.Meta.DryRun {
			label := cfg.OldLabel
			if d == new {
				label = cfg.NewLabel
			}
			if label == "" {
				label = "a document"
			}
			return nil, fmt.Errorf("%s is %w: there are no numbers to compare", label, rundoc.ErrDryRun)
		}
		if d.Meta.Mode != rundoc.ModeBench && len(d.Recordings) == 0 {
			return nil, fmt.Errorf("a %q run has no benchmarks or recordings to compare", d.Meta.Mode)
		}
	}
	c, err := newComparison(cfg)
	if err != nil {
		return nil, err
	}
	c.Old = rundoc.ComparedRun{Label: cfg.OldLabel, Date: old.Meta.Date, Fingerprint: old.Meta.Fingerprint()}
	c.New = rundoc.ComparedRun{Label: cfg.NewLabel, Date: new.Meta.Date, Fingerprint: new.Meta.Fingerprint()}
	c.Mismatches = c.Old.Fingerprint.Diff(c.New.Fingerprint)
	if len(c.Mismatches) > 0 && !cfg.AllowMismatch {
		return nil, &MismatchError{c.Mismatches}
	}
	c.AllowMismatch = cfg.AllowMismatch
	cmp := comparer{cfg: cfg.withDefaults()}
	// A run with --against holds other builds' rows too; a document
	// stands for its working tree.
	oldRows, newRows := workingTree(old.Rows), workingTree(new.Rows)
	c.Rows = cmp.rows(oldRows, newRows, nil)
	if len(old.Recordings) > 0 || len(new.Recordings) > 0 {
		rec, err := CompareRecordings(old.Recordings, new.Recordings, cfg)
		if err != nil {
			return nil, err
		}
		c.Rows = append(c.Rows, rec...)
	}
	c.Geomeans = Geomeans(c.Rows)
	c.Sweeps = compareSweepsOf(oldRows, newRows)
	return c, nil
}

// ComparePaired compares the rows of two builds measured in one run, whose
// processes alternated: oldFirst(k) says whether process k of the old
// build ran before process k of the new one. The caller labels the sides;
// cfg's labels and AllowMismatch are not used (one run has one
// fingerprint).
func ComparePaired(old, new []rundoc.Row, cfg CompareConfig, oldFirst func(k int) bool) (*rundoc.Comparison, error) {
	c, err := newComparison(cfg)
	if err != nil {
		return nil, err
	}
	c.Knobs.Paired = true
	cmp := comparer{cfg: cfg.withDefaults()}
	c.Rows = cmp.rows(old, new, oldFirst)
	c.Geomeans = Geomeans(c.Rows)
	c.Sweeps = compareSweepsOf(old, new)
	return c, nil
}

// workingTree returns the rows of the working tree's build.
func workingTree(rows []rundoc.Row) []rundoc.Row {
	var out []rundoc.Row
	for _, r := range rows {
		if r.Build == "" {
			out = append(out, r)
		}
	}
	return out
}

func (cfg CompareConfig) withDefaults() CompareConfig {
	if cfg.Threshold == 0 {
		cfg.Threshold = DefaultThreshold
	}
	if cfg.Bootstrap.Confidence == 0 {
		cfg.Bootstrap.Confidence = stats.DefaultConfidence
	}
	if cfg.Bootstrap.Resamples == 0 {
		cfg.Bootstrap.Resamples = stats.DefaultResamples
	}
	return cfg
}

// Validate reports a configuration out of bounds as a *ConfigError.
func (cfg CompareConfig) Validate() error {
	if cfg.Threshold < 0 || cfg.Threshold > MaxThreshold || math.IsNaN(cfg.Threshold) {
		return &ConfigError{Field: "Threshold", Problem: fmt.Sprintf("must lie in (0, %v], got %v", MaxThreshold, cfg.Threshold)}
	}
	b := cfg.withDefaults().Bootstrap
	if b.Confidence < stats.MinConfidence || b.Confidence > stats.MaxConfidence {
		return &ConfigError{Field: "Confidence", Problem: fmt.Sprintf("must lie in [%v, %v], got %v", stats.MinConfidence, stats.MaxConfidence, b.Confidence)}
	}
	if b.Resamples < stats.MinResamples || b.Resamples > stats.MaxResamples {
		return &ConfigError{Field: "Resamples", Problem: fmt.Sprintf("must lie in [%d, %d], got %d", stats.MinResamples, stats.MaxResamples, b.Resamples)}
	}
	return nil
}

func newComparison(cfg CompareConfig) (*rundoc.Comparison, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := cfg.withDefaults()
	return &rundoc.Comparison{
		Schema: rundoc.ComparisonSchemaVersion,
		Knobs: rundoc.CompareKnobs{Threshold: d.Threshold, Confidence: d.Bootstrap.Confidence,
			Resamples: d.Bootstrap.Resamples, Seed: d.Bootstrap.Seed},
	}, nil
}

// comparer compares rows with one configuration.
type comparer struct {
	cfg CompareConfig
}

// pairing says, for a paired run, whether process k of the old side ran
// before process k of the new side; nil for independent runs.
type pairing func(k int) (oldFirst bool)

type identityKey struct{ pkg, name string }

func keyOf(r rundoc.Row) identityKey { return identityKey{r.Package, r.Name} }

// rows compares old and new identity by identity: New's order, then the
// identities only Old has. Test rows are not compared; a package row (a
// build failure) is listed as its side's failure.
func (c comparer) rows(old, new []rundoc.Row, paired pairing) []rundoc.ComparisonRow {
	oldBy := map[identityKey]rundoc.Row{}
	for _, r := range old {
		if comparable(r) {
			oldBy[keyOf(r)] = r
		}
	}
	seen := map[identityKey]bool{}
	var out []rundoc.ComparisonRow
	for _, n := range new {
		if !comparable(n) || seen[keyOf(n)] {
			continue
		}
		seen[keyOf(n)] = true
		o, ok := oldBy[keyOf(n)]
		if !ok {
			out = append(out, oneSide(n, false))
			continue
		}
		out = append(out, c.identity(o, n, paired)...)
	}
	for _, o := range old {
		if comparable(o) && !seen[keyOf(o)] {
			seen[keyOf(o)] = true
			out = append(out, oneSide(o, true))
		}
	}
	return out
}

func comparable(r rundoc.Row) bool {
	return r.Kind == rundoc.KindBenchmark || r.Kind == rundoc.KindWorkload || (r.Kind == rundoc.KindPackage && r.IsError())
}

// oneSide is the row of an identity only one run has.
func oneSide(r rundoc.Row, isOld bool) rundoc.ComparisonRow {
	row := rundoc.ComparisonRow{Package: r.Package, Name: r.Name, Metric: rundoc.MetricTime, Verdict: rundoc.VerdictOnlyNew}
	v := sideValue(r, timeValues(r), DefaultThreshold)
	if isOld {
		row.Old, row.Verdict = v, rundoc.VerdictOnlyOld
	} else {
		row.New = v
	}
	if r.IsError() {
		row.Note = "failed: " + errorText(r)
	}
	return row
}

func errorText(r rundoc.Row) string {
	if r.Error != nil {
		return *r.Error
	}
	return string(r.Outcome)
}

// perProcess is one metric's values, per process (by process index).
type perProcess map[int][]float64

func timeValues(r rundoc.Row) perProcess {
	return values(r, func(s rundoc.Sample) (float64, bool) { return s.NsPerOp() })
}

func values(r rundoc.Row, f func(rundoc.Sample) (float64, bool)) perProcess {
	out := perProcess{}
	for _, p := range r.Processes {
		if p.Outcome != rundoc.OutcomeOK {
			continue
		}
		for _, s := range p.Samples {
			if v, ok := f(s); ok {
				out[p.Index] = append(out[p.Index], v)
			}
		}
	}
	return out
}

// indexes returns the process indexes of pp, sorted.
func (pp perProcess) indexes() []int {
	var ks []int
	for k := range pp {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func (pp perProcess) lists() [][]float64 {
	var out [][]float64
	for _, k := range pp.indexes() {
		out = append(out, pp[k])
	}
	return out
}

// sideValue summarizes one side: its center, processes and outliers, or
// its failure.
func sideValue(r rundoc.Row, pp perProcess, floor float64) *rundoc.ComparedValue {
	v := &rundoc.ComparedValue{Outcome: r.Outcome, Processes: len(pp)}
	if r.IsError() {
		v.Error = ptr(errorText(r))
	}
	if len(pp) == 0 {
		return v
	}
	ks := pp.indexes()
	meds := make([]float64, len(ks))
	for i, k := range ks {
		meds[i] = medianOf(pp[k])
	}
	v.Center = ptr(medianOf(meds))
	for _, i := range stats.OutlierProcesses(meds, outlierScale, floor) {
		v.Outliers = append(v.Outliers, ks[i])
	}
	return v
}

func medianOf(xs []float64) float64 {
	st, _ := stats.Summarize(xs)
	return st.Median
}

// identity compares one identity present on both sides: time, then B/op
// and allocs/op, then b.ReportMetric units, then counted metrics.
func (c comparer) identity(o, n rundoc.Row, paired pairing) []rundoc.ComparisonRow {
	base := rundoc.ComparisonRow{Package: n.Package, Name: n.Name}
	if o.Kind == rundoc.KindWorkload || n.Kind == rundoc.KindWorkload {
		row := base
		row.Metric, row.Verdict = rundoc.MetricTime, rundoc.VerdictUnavailable
		row.Note = "workload windows are not compared: each process measures one run, not samples of a loop"
		return []rundoc.ComparisonRow{row}
	}
	var out []rundoc.ComparisonRow
	out = append(out, c.metric(base, rundoc.MetricTime, o, n, timeValues(o), timeValues(n), paired))
	for _, m := range []struct {
		name string
		f    func(rundoc.Sample) (float64, bool)
	}{
		{rundoc.MetricBytes, rundoc.Sample.BytesPerOp},
		{rundoc.MetricAllocs, rundoc.Sample.AllocsPerOp},
	} {
		ov, nv := values(o, m.f), values(n, m.f)
		if len(ov) > 0 || len(nv) > 0 {
			out = append(out, c.metric(base, m.name, o, n, ov, nv, paired))
		}
	}
	for _, unit := range extraUnits(o, n) {
		f := func(s rundoc.Sample) (float64, bool) { v, ok := s.Extra[unit]; return v, ok }
		out = append(out, c.metric(base, unit, o, n, values(o, f), values(n, f), paired))
	}
	out = append(out, counted(base, o, n)...)
	return out
}

// extraUnits are the b.ReportMetric units either side has, sorted.
func extraUnits(rows ...rundoc.Row) []string {
	var units []string
	for _, r := range rows {
		for _, p := range r.Processes {
			for _, u := range (stats.Process{Samples: statsconv.Samples(p.Samples)}).ExtraUnits() {
				if !slices.Contains(units, u) {
					units = append(units, u)
				}
			}
		}
	}
	slices.Sort(units)
	return units
}

// metric compares one sampled metric.
func (c comparer) metric(row rundoc.ComparisonRow, metric string, o, n rundoc.Row, ov, nv perProcess, paired pairing) rundoc.ComparisonRow {
	row.Metric = metric
	row.Old, row.New = sideValue(o, ov, c.cfg.Threshold), sideValue(n, nv, c.cfg.Threshold)
	switch {
	case len(ov) == 0 || len(nv) == 0:
		row.Verdict = rundoc.VerdictUnavailable
		if o.IsError() || n.IsError() {
			row.Verdict = rundoc.VerdictFailed
			row.Note = failureNote(o, n)
		} else {
			row.Note = "no process measured it on the " + map[bool]string{true: "old", false: "new"}[len(ov) == 0] + " side"
		}
		return row
	case metric != rundoc.MetricTime && constant(ov) && constant(nv):
		// Exact values no process varied: no interval is needed.
		a, b := *row.Old.Center, *row.New.Center
		row.Method = "exact"
		switch {
		case a == b:
			row.Verdict = rundoc.VerdictSame
		case b > a:
			row.Verdict = rundoc.VerdictIncreased
		default:
			row.Verdict = rundoc.VerdictDecreased
		}
		switch {
		case a > 0:
			row.Ratio = ptr(b / a)
		case b != a:
			row.Note = fmt.Sprintf("%s from 0 to %g: no ratio", metric, b)
		}
		return row
	case (metric == rundoc.MetricBytes || metric == rundoc.MetricAllocs) && math.Abs(*row.New.Center-*row.Old.Center) < 0.5:
		// go test prints these as whole numbers per iteration; a change
		// of the median under one unit is below that resolution (a rare
		// allocation of a background goroutine, spread over N).
		row.Verdict, row.Method = rundoc.VerdictSame, "resolution"
		if a := *row.Old.Center; a > 0 {
			row.Ratio = ptr(*row.New.Center / a)
		}
		return row
	}
	b := stats.Bootstrap(c.cfg.Bootstrap)
	b.Seed = rowSeed(b.Seed, row.Package, row.Name, metric)
	var r stats.Ratio
	var err error
	if paired != nil {
		var ol, nl [][]float64
		var first []bool
		for _, k := range ov.indexes() {
			if nv[k] != nil {
				ol, nl, first = append(ol, ov[k]), append(nl, nv[k]), append(first, paired(k))
			}
		}
		r, err = stats.ComparePairs(ol, nl, b)
		if metric == rundoc.MetricTime && len(ol) > 0 {
			om, nm := make([]float64, len(ol)), make([]float64, len(nl))
			for i := range ol {
				om[i], nm[i] = medianOf(ol[i]), medianOf(nl[i])
			}
			// Pairs won and lost are counted whatever the interval: they
			// are measurements of each pair, not an inference.
			row.Wins, row.Losses = winsLosses(om, nm)
			if e, ok := stats.OrderEffect(om, nm, first); ok && err == nil {
				row.OrderEffect = ptr(e)
			}
		}
	} else {
		r, err = stats.CompareProcesses(ov.lists(), nv.lists(), b)
	}
	if err != nil {
		row.Verdict = rundoc.VerdictUnavailable
		row.Note = compareErrorNote(err)
		if a := *row.Old.Center; a > 0 {
			row.Ratio = ptr(*row.New.Center / a)
		}
		return row
	}
	row.Ratio, row.Low, row.High = ptr(r.Ratio), ptr(r.Low), ptr(r.High)
	row.Confidence, row.P, row.Method = ptr(r.Confidence), ptr(r.P), r.Method
	row.Verdict = rundoc.Verdict(r.Verdict(c.cfg.Threshold))
	if metric != rundoc.MetricTime {
		switch row.Verdict {
		case rundoc.VerdictSlower:
			row.Verdict = rundoc.VerdictIncreased
		case rundoc.VerdictFaster:
			row.Verdict = rundoc.VerdictDecreased
		}
	}
	if notes := outlierNote(row.Old, row.New); notes != "" {
		row.Note = notes
	}
	if paired != nil {
		pairs := 0
		for _, k := range ov.indexes() {
			if nv[k] != nil {
				pairs++
			}
		}
		holdVerdict(&row, c.cfg.Bootstrap.Confidence, ConfidenceShortfall(pairs, r.Confidence, c.cfg.Bootstrap.Confidence))
	} else if n, need := min(len(ov), len(nv)), stats.ProcessesFor(c.cfg.Bootstrap.Confidence); n < need {
		// The bootstrap reports the confidence asked, but its intervals
		// reach it only from need processes a side.
		row.Verdict, row.Shortfall = rundoc.VerdictInconclusive, ProcessShortfall(n, c.cfg.Bootstrap.Confidence)
	}
	return row
}

// holdVerdict makes a row whose interval reaches less confidence than
// asked inconclusive, whatever its interval says, and sets its Shortfall
// to why: a verdict is never weaker than the one asked for (3 pairs' range
// covers the median only 75% of the time, so "slower" from it would be
// wrong one time in four).
func holdVerdict(row *rundoc.ComparisonRow, asked float64, why string) {
	if !row.ShortOfConfidence(asked) {
		return
	}
	row.Verdict, row.Shortfall = rundoc.VerdictInconclusive, why
}

// ConfidenceShortfall says why a row is inconclusive for want of pairs:
// "3 pairs reach 75%; 95% needs 6", the count from the order-statistic
// rule the pairs' interval uses (stats.ValuesFor). pairs is 0 when the
// interval does not come from pairs: it then says what was reached only.
func ConfidenceShortfall(pairs int, reached, asked float64) string {
	if pairs == 0 {
		return fmt.Sprintf("the interval reaches %s, less than the %s asked", Percent(reached), Percent(asked))
	}
	unit := "pairs"
	if pairs == 1 {
		unit = "pair"
	}
	return fmt.Sprintf("%d %s reach %s; %s needs %d", pairs, unit, Percent(reached), Percent(asked), stats.ValuesFor(asked))
}

// ProcessShortfall says why a comparison of independent runs is
// inconclusive for want of processes: "3 processes a side; 95% needs 5"
// (stats.ProcessesFor).
func ProcessShortfall(processes int, asked float64) string {
	unit := "processes"
	if processes == 1 {
		unit = "process"
	}
	return fmt.Sprintf("%d %s a side; %s needs %d", processes, unit, Percent(asked), stats.ProcessesFor(asked))
}

// PairsFor is how many pairs of processes a paired comparison needs for
// its intervals to reach confidence (stats.ValuesFor).
func PairsFor(confidence float64) int { return stats.ValuesFor(confidence) }

// ProcessesFor is how many processes a side a comparison of independent
// runs needs for its intervals to reach confidence (stats.ProcessesFor).
func ProcessesFor(confidence float64) int { return stats.ProcessesFor(confidence) }

// Percent writes a confidence as a percentage to two decimals at most:
// 75%, 93.75%, 96.88%.
func Percent(c float64) string {
	return strconv.FormatFloat(math.Round(10000*c)/100, 'f', -1, 64) + "%"
}

// winsLosses counts the pairs whose new median is below the old one
// (wins) and above it (losses); equal pairs count as neither.
func winsLosses(old, new []float64) (wins, losses *int) {
	w, l := 0, 0
	for i := range old {
		switch {
		case new[i] < old[i]:
			w++
		case new[i] > old[i]:
			l++
		}
	}
	return &w, &l
}

func compareErrorNote(err error) string {
	switch {
	case errors.Is(err, stats.ErrTooFewProcesses):
		return "no interval: a side has fewer than two processes (run with --repetitions of 2 or more)"
	case errors.Is(err, stats.ErrNotPositive):
		return "no ratio interval: a value is zero or negative"
	}
	return err.Error()
}

func failureNote(o, n rundoc.Row) string {
	var parts []string
	if o.IsError() {
		parts = append(parts, "old failed: "+errorText(o))
	}
	if n.IsError() {
		parts = append(parts, "new failed: "+errorText(n))
	}
	return strings.Join(parts, "; ")
}

func outlierNote(o, n *rundoc.ComparedValue) string {
	var parts []string
	for _, s := range []struct {
		side string
		v    *rundoc.ComparedValue
	}{{"old", o}, {"new", n}} {
		if k := len(s.v.Outliers); k > 0 {
			parts = append(parts, fmt.Sprintf("%d outlier process(es) in %s (kept)", k, s.side))
		}
	}
	return strings.Join(parts, "; ")
}

// constant reports whether every value of every process is the same.
func constant(pp perProcess) bool {
	first, set := 0.0, false
	for _, vs := range pp {
		for _, v := range vs {
			if !set {
				first, set = v, true
			} else if v != first {
				return false
			}
		}
	}
	return true
}

// counted compares the catalog metrics both rows counted: a difference is
// called only beyond the sum of the two values' uncertainties.
func counted(base rundoc.ComparisonRow, o, n rundoc.Row) []rundoc.ComparisonRow {
	if o.Summary == nil || n.Summary == nil {
		return nil
	}
	var names []string
	for k := range n.Summary.Counted {
		if _, ok := o.Summary.Counted[k]; ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var out []rundoc.ComparisonRow
	for _, name := range names {
		row := base
		row.Metric = name
		// The side that counted keeps its value, as a sampled metric's
		// unavailable row does: a measurement is shown, not hidden.
		row.Old, row.New = countedValue(o, name), countedValue(n, name)
		switch {
		case row.Old == nil && row.New == nil:
			continue // neither run has it: each run's absences say why
		case row.Old == nil || row.New == nil:
			row.Verdict = rundoc.VerdictUnavailable
			row.Note = "not counted on the " + map[bool]string{true: "old", false: "new"}[row.Old == nil] + " side (its row's absences say why)"
			out = append(out, row)
			continue
		}
		ov, nv := *row.Old.Center, *row.New.Center
		row.Method = "uncertainty"
		if ov > 0 {
			row.Ratio = ptr(nv / ov)
		}
		switch d := nv - ov; {
		case math.Abs(d) <= *row.Old.Uncertainty+*row.New.Uncertainty:
			row.Verdict = rundoc.VerdictWithinNoise
		case d > 0:
			row.Verdict = rundoc.VerdictIncreased
		default:
			row.Verdict = rundoc.VerdictDecreased
		}
		out = append(out, row)
	}
	return out
}

// countedValue is r's value of the counted metric name, with its
// uncertainty; nil when r did not count it.
func countedValue(r rundoc.Row, name string) *rundoc.ComparedValue {
	v := r.Summary.Counted[name]
	if v == nil {
		return nil
	}
	return &rundoc.ComparedValue{Center: ptr(*v), Processes: r.Summary.Processes, Uncertainty: ptr(r.Summary.Uncertainty[name]), Outcome: r.Outcome}
}

// Geomeans is the geometric mean of each metric's ratios over the rows
// that have one, in the order the metrics first appear.
func Geomeans(rows []rundoc.ComparisonRow) []rundoc.Geomean {
	var order []string
	sum := map[string]float64{}
	count := map[string]int{}
	for _, r := range rows {
		if r.Ratio == nil || !(*r.Ratio > 0) {
			continue
		}
		if count[r.Metric] == 0 {
			order = append(order, r.Metric)
		}
		sum[r.Metric] += math.Log(*r.Ratio)
		count[r.Metric]++
	}
	out := make([]rundoc.Geomean, 0, len(order))
	for _, m := range order {
		out = append(out, rundoc.Geomean{Metric: m, Ratio: math.Exp(sum[m] / float64(count[m])), Identities: count[m]})
	}
	return out
}

// rowSeed derives a row's bootstrap seed from the comparison's, so rows
// resample independently and reproducibly.
func rowSeed(seed uint64, pkg, name, metric string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(pkg + "\x00" + name + "\x00" + metric))
	return seed ^ h.Sum64()
}

// ErrInvalidConfig is wrapped by every *ConfigError.
var ErrInvalidConfig = errors.New("invalid configuration")

// ConfigError is a CompareConfig field with a value no comparison can use.
type ConfigError struct {
	Field   string // the CompareConfig field, e.g. "Threshold"
	Problem string // what is wrong with its value
}

func (e *ConfigError) Error() string { return e.Field + ": " + e.Problem }

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// ptr returns a pointer to a copy of v: the model's optional numbers are
// pointers, nil when unmeasured.
func ptr[T any](v T) *T { return &v }

// firstLine is the first line of s, trimmed: a one-line note from a
// multi-line message.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// compareSweepsOf fits the sweeps of each side's rows afresh, so that both
// sides are judged by this version's rules whatever version wrote them.
func compareSweepsOf(old, new []rundoc.Row) []rundoc.SweepChange {
	return CompareSweeps(Sweeps(old), Sweeps(new))
}
