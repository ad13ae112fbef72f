package rundoc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ValueError is a value of a read document outside its domain: a negative
// time, a repeated identity, a count that does not match what it counts.
// Path names the value in the document ("rows[3].processes[1].samples[0].ns").
type ValueError struct {
	Path    string
	Problem string
}

func (e *ValueError) Error() string { return e.Path + ": " + e.Problem }

func (e *ValueError) Unwrap() error { return ErrInvalidValue }

// A document is untrusted input: a reader validates every value a
// renderer, a comparison or a gate relies on, and stops at the first
// problem, in document order. JSON itself has no NaN or infinity (a number
// too large for a float64 does not decode), so what is left is domain:
//
//   - durations, times and counts are not negative;
//   - an interval's low end is not above its high end, nor a minimum
//     above its maximum; a confidence or a p-value is within [0, 1];
//   - an identity (package, name, kind, build) is not repeated among the
//     rows (package rows, which Merge also lets repeat, aside), nor a
//     process index within a row, nor a column name, nor an identity and
//     metric within a comparison (package rows aside, as a merged
//     comparison joins every part's), nor a geomean's metric;
//   - where the document records a count next to what it counts, they
//     match: a summary's processes, samples and short samples against the
//     row's processes (when the row has them), a process's ns/op count
//     against its samples, a process's retakes against its retaken
//     samples, a row's interference against the sum over its processes,
//     a window summary's processes and unmeasured ones against the
//     windows of its name (when the document has them);
//   - a sweep's status and models are known ones, a fitted sweep selects
//     exactly one of its fitted models and any other status none, its
//     points ascend with exact decimal values that round to their
//     float64s, and a family is not repeated;
//   - a paired row has no more pairs won and lost than its sides'
//     processes form; a variant comparison (--vs) names its key,
//     reference and contender, its groups' members are non-empty and
//     distinct, the reference first and the contender among them, each
//     round of a schedule is an order of the members, and iterations are
//     "own" or "shared";
//   - a recording's counts add up exactly: observations are the finished
//     outcomes, retained and omitted the observations (retained within
//     the capacity, of a known policy), its summary's percentiles are
//     ordered min <= median <= p90 <= p95 <= p99 <= max with the median's
//     interval around the median and the mean within the extremes, and
//     its retained spans, when present, are as many as retained, in
//     observation order, of known outcomes; an identity (with its source)
//     is not repeated.
//
// Values that can legitimately be negative (b.ReportMetric units, counted
// metrics after a subtraction) are not constrained.
type validator struct {
	err error
}

func (v *validator) fail(path, format string, args ...any) {
	if v.err == nil {
		v.err = &ValueError{Path: path, Problem: fmt.Sprintf(format, args...)}
	}
}

func (v *validator) duration(path string, ns int64) {
	if ns < 0 {
		v.fail(path, "negative time %d", ns)
	}
}

func (v *validator) durationPtr(path string, ns *int64) {
	if ns != nil {
		v.duration(path, *ns)
	}
}

func (v *validator) time(path string, ns float64) {
	if ns < 0 {
		v.fail(path, "negative time %v", ns)
	}
}

func (v *validator) timePtr(path string, ns *float64) {
	if ns != nil {
		v.time(path, *ns)
	}
}

func (v *validator) count(path string, n int64) {
	if n < 0 {
		v.fail(path, "negative count %d", n)
	}
}

func (v *validator) bytes(path string, n *int64) {
	if n != nil && *n < 0 {
		v.fail(path, "negative size %d", *n)
	}
}

func (v *validator) nonNegative(path string, x float64) {
	if x < 0 {
		v.fail(path, "negative value %v", x)
	}
}

func (v *validator) fraction(path string, x *float64) {
	if x != nil && (*x < 0 || *x > 1) {
		v.fail(path, "%v is outside [0, 1]", *x)
	}
}

func (v *validator) ordered(path, lo, hi string, a, b float64) {
	if a > b {
		v.fail(path, "%s %v is above %s %v", lo, a, hi, b)
	}
}

// matches checks a recorded count against what it counts; actual is a
// format with one %d, the count.
func (v *validator) matches(path string, recorded, counted int, actual string) {
	if recorded != counted {
		v.fail(path, "records %d, but "+actual, recorded, counted)
	}
}

func idx(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// validateDocument checks doc's values (see validator).
func validateDocument(doc *Document) error {
	v := &validator{}
	v.meta(doc.Meta)
	v.dryRun(doc)
	names := map[string]int{}
	for i, c := range doc.Columns {
		if j, dup := names[c.Name]; dup {
			v.fail(idx("columns", i)+".name", "%q repeats columns[%d]", c.Name, j)
		}
		names[c.Name] = i
	}
	type identity struct {
		pkg, name string
		kind      Kind
		build     string
	}
	seen := map[identity]int{}
	for i, r := range doc.Rows {
		path := idx("rows", i)
		if r.Kind != KindPackage {
			id := identity{r.Package, r.Name, r.Kind, r.Build}
			if j, dup := seen[id]; dup {
				v.fail(path, "identity %s %s (%s%s) repeats rows[%d]", r.Package, r.Name, r.Kind, buildSuffix(r.Build), j)
			}
			seen[id] = i
		}
		v.row(path, r)
		if v.err != nil {
			return v.err
		}
	}
	type windowKey struct{ pkg, workload, name string }
	measured, unmeasured := map[windowKey]int{}, map[windowKey]int{}
	for i, w := range doc.Windows {
		v.window(idx("windows", i), w)
		k := windowKey{w.Package, w.Workload, w.Name}
		if !w.IsError() && !w.IsSkipped() {
			measured[k]++
		} else {
			unmeasured[k]++
		}
	}
	for i, s := range doc.WindowSummaries {
		path := idx("windowSummaries", i)
		v.windowSummary(path, s)
		k := windowKey{s.Package, s.Workload, s.Name}
		if measured[k]+unmeasured[k] > 0 { // else the document lacks its windows: nothing to count against
			v.matches(path+".processes", s.Processes, measured[k], "the document has %d measured windows of it")
			v.matches(path+".unmeasured", s.Unmeasured, unmeasured[k], "the document has %d unmeasured windows of it")
		}
	}
	if in := doc.Interrupted; in != nil {
		if !slices.Contains([]string{"SIGINT", "SIGTERM"}, in.Signal) {
			v.fail("interrupted.signal", "%q is not a signal that ends a run (SIGINT, SIGTERM)", in.Signal)
		}
		notRun := 0
		for _, r := range doc.Rows {
			if r.Outcome == OutcomeNotRun {
				notRun++
			}
		}
		v.matches("interrupted.notRun", in.NotRun, notRun, "the document has %d not-run rows")
	}
	v.sweeps("", doc.Sweeps)
	v.recordings(doc.Recordings)
	for i := range doc.Comparisons {
		v.comparison(idx("comparisons", i)+".", &doc.Comparisons[i])
	}
	return v.err
}

func buildSuffix(b string) string {
	if b == "" {
		return ""
	}
	return ", build " + b
}

// validateComparison checks a comparison document's values (see
// validator); a run document's comparisons are checked by
// validateDocument, under their path.
func validateComparison(c *Comparison) error {
	v := &validator{}
	v.comparison("", c)
	return v.err
}

func (v *validator) meta(m Meta) {
	if m.Mode != ModeBench && m.Mode != ModeTest && m.Mode != ModeRecord {
		v.fail("meta.mode", "%q is not %q, %q or %q", m.Mode, ModeBench, ModeTest, ModeRecord)
	}
	v.count("meta.gomaxprocs", int64(m.GOMAXPROCS))
	k := m.Knobs
	v.duration("meta.knobs.sampleTimeNs", k.SampleTimeNs)
	v.count("meta.knobs.sampleCount", int64(k.SampleCount))
	v.count("meta.knobs.repetitions", int64(k.Repetitions))
	v.duration("meta.knobs.timeoutNs", k.TimeoutNs)
	v.duration("meta.knobs.startupTimeoutNs", k.StartupTimeoutNs)
	v.count("meta.knobs.perfIters", k.PerfIters)
	v.count("meta.knobs.perfBatch", k.PerfBatch)
	v.count("meta.knobs.iterations", k.Iterations)
	for i, b := range m.Provenance.Builds {
		p := idx("meta.provenance.builds", i)
		v.count(p+".plain.modules", int64(b.Plain.Modules))
		v.count(p+".measured.modules", int64(b.Measured.Modules))
	}
	if s := m.Shard; s != nil {
		v.count("meta.shard.count", int64(s.Count))
		v.count("meta.shard.functions", int64(s.Functions))
		if s.Index < 0 || s.Index > s.Count {
			v.fail("meta.shard.index", "%d is outside 0..%d (the count)", s.Index, s.Count)
		}
	}
	if in := m.Interference; in != nil {
		v.nonNegative("meta.interference.maxForeign", in.MaxForeign)
		v.count("meta.interference.maxRetakes", int64(in.MaxRetakes))
		v.duration("meta.interference.settleNs", in.SettleNs)
		v.duration("meta.interference.pauseMaxNs", in.PauseMaxNs)
	}
	if q := m.Quiescence; q != nil {
		v.duration("meta.quiescence.stableNs", q.StableNs)
		v.duration("meta.quiescence.timeoutNs", q.TimeoutNs)
		v.duration("meta.quiescence.waitedNs", q.WaitedNs)
		v.count("meta.quiescence.polls", int64(q.Polls))
	}
	if c := m.Claim; c != nil {
		v.duration("meta.claim.waitedNs", c.WaitedNs)
	}
}

func (v *validator) row(path string, r Row) {
	v.durationPtr(path+".elapsedNs", r.ElapsedNs)
	for j, name := range r.Paused {
		if r.Kind != KindTest || (name != r.Name && !strings.HasPrefix(name, r.Name+"/")) {
			v.fail(idx(path+".paused", j), "%q is not %s or one of its subtests", name, r.Name)
		}
	}
	v.bytes(path+".peakMemoryBytes", r.PeakMemoryBytes)
	if c := r.Coverage; c != nil {
		v.count(path+".coverage.statements", c.Statements)
		v.count(path+".coverage.covered", c.Covered)
		if c.Covered > c.Statements {
			v.fail(path+".coverage", "%d statements covered of %d", c.Covered, c.Statements)
		}
	}
	if r.CountIterations != nil {
		v.count(path+".countIterations", *r.CountIterations)
	}
	if c := r.Calibration; c != nil {
		v.count(path+".calibration.n", c.N)
		v.duration(path+".calibration.targetNs", c.TargetNs)
		v.duration(path+".calibration.fixedNs", c.FixedNs)
		v.duration(path+".calibration.setupNs", c.SetupNs)
		v.count(path+".calibration.afterSiblings", c.AfterSiblings)
		v.samples(path+".calibration.runs", c.Runs)
	}
	indexes := map[int]int{}
	for j, p := range r.Processes {
		pp := idx(path+".processes", j)
		if k, dup := indexes[p.Index]; dup {
			v.fail(pp+".index", "process index %d repeats processes[%d]", p.Index, k)
		}
		indexes[p.Index] = j
		v.process(pp, p)
	}
	if s := r.Summary; s != nil {
		v.summary(path+".summary", s, r.Processes)
	}
	if in := r.Interference; in != nil {
		v.rowInterference(path+".interference", in, r.Processes)
	}
}

func (v *validator) summary(path string, s *Summary, procs []ProcessResult) {
	v.count(path+".processes", int64(s.Processes))
	v.count(path+".iterations", s.Iterations)
	v.count(path+".samples", int64(s.Samples))
	v.count(path+".shortSamples", int64(s.ShortSamples))
	v.time(path+".medianNs", s.MedianNs)
	v.timePtr(path+".withinMadNs", s.WithinMADNs)
	v.timePtr(path+".meanOfProcessMediansNs", s.MeanOfProcessMediansNs)
	v.timePtr(path+".sdOfProcessMediansNs", s.SDOfProcessMediansNs)
	if cv := s.CVOfProcessMedians; cv != nil && *cv < 0 {
		v.fail(path+".cvOfProcessMedians", "negative coefficient of variation %v", *cv)
	}
	v.time(path+".minNs", s.MinNs)
	v.time(path+".maxNs", s.MaxNs)
	v.ordered(path, "minNs", "maxNs", s.MinNs, s.MaxNs)
	if iv := s.Interval; iv != nil {
		v.time(path+".interval.lowNs", iv.LowNs)
		v.time(path+".interval.highNs", iv.HighNs)
		v.ordered(path+".interval", "lowNs", "highNs", iv.LowNs, iv.HighNs)
		v.fraction(path+".interval.confidence", &iv.Confidence)
	}
	for _, m := range []string{"B/op", "allocs/op"} {
		if x := s.Metrics[m]; x != nil {
			v.nonNegative(fmt.Sprintf("%s.metrics[%q]", path, m), *x)
		}
	}
	if len(procs) == 0 {
		return // a row without its processes: nothing to count against
	}
	measured, samples, short := 0, 0, 0
	for _, p := range procs {
		if p.NsPerOp == nil {
			continue
		}
		measured++
		samples += len(p.Samples)
		for _, x := range p.Samples {
			if x.Short {
				short++
			}
		}
	}
	v.matches(path+".processes", s.Processes, measured, "the row has %d processes with ns/op")
	v.matches(path+".samples", s.Samples, samples, "those processes have %d samples")
	v.matches(path+".shortSamples", s.ShortSamples, short, "those processes have %d short samples")
}

func (v *validator) process(path string, p ProcessResult) {
	v.count(path+".index", int64(p.Index))
	v.count(path+".pid", int64(p.PID))
	v.durationPtr(path+".startupNs", p.StartupNs)
	v.duration(path+".wallNs", p.WallNs)
	v.bytes(path+".peakMemoryBytes", p.PeakMemoryBytes)
	v.count(path+".afterSiblings", p.AfterSiblings)
	if st := p.NsPerOp; st != nil {
		v.stats(path+".nsPerOp", *st)
		v.matches(path+".nsPerOp.n", st.N, len(p.Samples), "the process has %d samples")
	}
	v.samples(path+".samples", p.Samples)
	v.samples(path+".retaken", p.Retaken)
	if in := p.Interference; in != nil {
		ip := path + ".interference"
		v.count(ip+".samples", int64(in.Samples))
		v.count(ip+".disturbed", int64(in.Disturbed))
		v.count(ip+".pauses", int64(in.Pauses))
		v.duration(ip+".pausedNs", in.PausedNs)
		v.count(ip+".tooShort", int64(in.TooShort))
		if in.MaxForeign != nil {
			v.nonNegative(ip+".maxForeign", *in.MaxForeign)
		}
		v.matches(ip+".retakes", in.Retakes, len(p.Retaken), "the process has %d retaken samples")
		if watched := len(p.Samples) + len(p.Retaken); in.Samples > watched {
			v.fail(ip+".samples", "%d watched, but the process has %d samples, retaken ones included", in.Samples, watched)
		}
		if in.Disturbed > in.Samples {
			v.fail(ip+".disturbed", "%d, more than the %d watched", in.Disturbed, in.Samples)
		}
		if in.TooShort > in.Samples {
			v.fail(ip+".tooShort", "%d, more than the %d watched", in.TooShort, in.Samples)
		}
	}
}

func (v *validator) stats(path string, s Stats) {
	v.count(path+".n", int64(s.N))
	v.time(path+".median", s.Median)
	v.time(path+".mad", s.MAD)
	v.time(path+".min", s.Min)
	v.time(path+".max", s.Max)
	v.ordered(path, "min", "max", s.Min, s.Max)
}

func (v *validator) samples(path string, ss []Sample) {
	for k, s := range ss {
		sp := idx(path, k)
		v.count(sp+".n", s.Iterations)
		v.duration(sp+".ns", s.ElapsedNs)
		if s.Foreign != nil {
			v.nonNegative(sp+".foreign", *s.Foreign)
		}
	}
}

func (v *validator) rowInterference(path string, in *RowInterference, procs []ProcessResult) {
	v.count(path+".samples", int64(in.Samples))
	v.count(path+".disturbed", int64(in.Disturbed))
	v.count(path+".retakes", int64(in.Retakes))
	v.count(path+".pauses", int64(in.Pauses))
	v.duration(path+".pausedNs", in.PausedNs)
	v.count(path+".budgetExhausted", int64(in.BudgetExhausted))
	v.count(path+".tooShort", int64(in.TooShort))
	sum := SumInterference(procs)
	if sum == nil || v.err != nil {
		return // no process records its watch: nothing to add up
	}
	for _, f := range []struct {
		name      string
		got, want int
	}{
		{"samples", in.Samples, sum.Samples}, {"disturbed", in.Disturbed, sum.Disturbed},
		{"retakes", in.Retakes, sum.Retakes}, {"pauses", in.Pauses, sum.Pauses},
		{"budgetExhausted", in.BudgetExhausted, sum.BudgetExhausted}, {"tooShort", in.TooShort, sum.TooShort},
	} {
		v.matches(path+"."+f.name, f.got, f.want, "the row's processes add up to %d")
	}
	if in.PausedNs != sum.PausedNs {
		v.fail(path+".pausedNs", "records %d, but the row's processes add up to %d", in.PausedNs, sum.PausedNs)
	}
}

func (v *validator) window(path string, w Window) {
	v.count(path+".process", int64(w.Process))
	v.count(path+".reps", int64(w.Reps))
	v.duration(path+".wallNs", w.WallNs)
	v.durationPtr(path+".onCpuUserNs", w.OnCPUUserNs)
	v.durationPtr(path+".onCpuKernelNs", w.OnCPUKernelNs)
	v.durationPtr(path+".offCpuRunqueueNs", w.OffCPURunqueueNs)
	v.durationPtr(path+".offCpuDiskNs", w.OffCPUDiskNs)
	v.durationPtr(path+".offCpuOtherNs", w.OffCPUOtherNs)
	v.durationPtr(path+".otherThreadsCpuNs", w.OtherThreadsCPUNs)
	if p := w.PSI; p != nil {
		v.duration(path+".psi.ioSomeNs", p.IOSomeNs)
		v.duration(path+".psi.ioFullNs", p.IOFullNs)
		v.duration(path+".psi.memSomeNs", p.MemSomeNs)
		v.duration(path+".psi.memFullNs", p.MemFullNs)
		v.duration(path+".psi.cpuSomeNs", p.CPUSomeNs)
	}
	if r := w.Regime; r != nil {
		v.count(path+".regime.residentBefore", r.ResidentBefore)
		v.count(path+".regime.residentAfter", r.ResidentAfter)
		v.count(path+".regime.totalBytes", r.TotalBytes)
	}
}

func (v *validator) windowSummary(path string, s WindowSummary) {
	v.count(path+".processes", int64(s.Processes))
	v.count(path+".unmeasured", int64(s.Unmeasured))
	v.count(path+".reps", int64(s.Reps))
	for _, f := range s.stats() {
		if st := f.st; st != nil {
			p := path + "." + f.name
			v.time(p+".median", st.Median)
			v.timePtr(p+".spread", st.Spread)
			v.time(p+".min", st.Min)
			v.time(p+".max", st.Max)
			v.ordered(p, "min", "max", st.Min, st.Max)
		}
	}
	for i, r := range s.Regimes {
		for j, p := range r.Processes {
			v.count(fmt.Sprintf("%s.regimes[%d].processes[%d]", path, i, j), int64(p))
		}
	}
}

// timeLike reports whether a comparison metric cannot be negative: time
// and the allocation counts (user metrics can).
func timeLike(metric string) bool {
	switch metric {
	case MetricTime, MetricBytes, MetricAllocs, MetricSpanMedian, MetricSpanP95, MetricSpanP99:
		return true
	}
	return false
}

func (v *validator) comparison(prefix string, c *Comparison) {
	k := c.Knobs
	v.nonNegative(prefix+"knobs.threshold", k.Threshold)
	v.fraction(prefix+"knobs.confidence", &k.Confidence)
	v.count(prefix+"knobs.resamples", int64(k.Resamples))
	v.duration(prefix+"old.fingerprint.sampleTimeNs", c.Old.Fingerprint.SampleTimeNs)
	v.duration(prefix+"new.fingerprint.sampleTimeNs", c.New.Fingerprint.SampleTimeNs)
	type identity struct{ pkg, name, metric string }
	seen := map[identity]int{}
	perMetric := map[string]int{}
	for i, r := range c.Rows {
		path := idx(prefix+"rows", i)
		if r.Name != "" {
			id := identity{r.Package, r.Name, r.Metric}
			if j, dup := seen[id]; dup {
				v.fail(path, "identity %s %s %s repeats rows[%d]", r.Package, r.Name, r.Metric, j)
			}
			seen[id] = i
		}
		perMetric[r.Metric]++
		positive := timeLike(r.Metric)
		if positive {
			if r.Ratio != nil {
				v.nonNegative(path+".ratio", *r.Ratio)
			}
			if r.Low != nil {
				v.nonNegative(path+".low", *r.Low)
			}
		}
		if r.Low != nil && r.High != nil {
			v.ordered(path, "low", "high", *r.Low, *r.High)
		}
		v.fraction(path+".confidence", r.Confidence)
		v.fraction(path+".p", r.P)
		if r.OrderEffect != nil {
			v.nonNegative(path+".orderEffect", *r.OrderEffect)
		}
		v.winsLosses(path, r)
		if r.Shortfall != "" && r.Verdict != VerdictInconclusive {
			// A row short of the confidence asked has no verdict.
			v.fail(path+".shortfall", "a row short of the confidence asked is inconclusive, not %q", r.Verdict)
		}
		if r.ComparisonDesign != "" && r.ComparisonDesign != DesignIndependent {
			v.fail(path+".comparisonDesign", "%q is not a comparison design", r.ComparisonDesign)
		}
		for _, side := range []struct {
			name string
			cv   *ComparedValue
		}{{"old", r.Old}, {"new", r.New}} {
			cv := side.cv
			if cv == nil {
				continue
			}
			sp := path + "." + side.name
			v.count(sp+".processes", int64(cv.Processes))
			if cv.Spans != nil {
				v.count(sp+".spans", *cv.Spans)
			}
			if positive && cv.Center != nil {
				v.nonNegative(sp+".center", *cv.Center)
			}
			if cv.Uncertainty != nil {
				v.nonNegative(sp+".uncertainty", *cv.Uncertainty)
			}
			outliers := map[int]int{}
			for j, o := range cv.Outliers {
				op := idx(sp+".outliers", j)
				v.count(op, int64(o))
				if k, dup := outliers[o]; dup {
					v.fail(op, "process index %d repeats outliers[%d]", o, k)
				}
				outliers[o] = j
			}
			if len(cv.Outliers) > cv.Processes {
				v.fail(sp+".outliers", "%d outliers among %d processes", len(cv.Outliers), cv.Processes)
			}
		}
		if v.err != nil {
			return
		}
	}
	v.sweepChanges(prefix, c.Sweeps)
	if c.Variants != nil {
		v.variants(prefix+"variants", c.Variants)
	}
	metrics := map[string]int{}
	for i, g := range c.Geomeans {
		path := idx(prefix+"geomeans", i)
		if j, dup := metrics[g.Metric]; dup {
			v.fail(path+".metric", "%q repeats geomeans[%d]", g.Metric, j)
		}
		metrics[g.Metric] = i
		v.nonNegative(path+".ratio", g.Ratio)
		v.count(path+".identities", int64(g.Identities))
		if g.Identities > perMetric[g.Metric] {
			v.fail(path+".identities", "%d, but the comparison has %d rows of %s", g.Identities, perMetric[g.Metric], g.Metric)
		}
	}
}

// winsLosses checks a paired row's pairs won and lost: counts, and no
// more of them than the pairs its sides' processes can form.
func (v *validator) winsLosses(path string, r ComparisonRow) {
	var w, l int
	if r.Wins != nil {
		w = *r.Wins
		v.count(path+".wins", int64(w))
	}
	if r.Losses != nil {
		l = *r.Losses
		v.count(path+".losses", int64(l))
	}
	if r.Wins == nil && r.Losses == nil {
		return
	}
	pairs := 0
	if r.Old != nil && r.New != nil {
		pairs = min(r.Old.Processes, r.New.Processes)
	}
	if w+l > pairs {
		v.fail(path, "%d pairs won and %d lost, but the sides have %d pairs", w, l, pairs)
	}
}

// variants checks a variant comparison's groups: a key, a reference that
// is every group's first member, a contender in every group, members
// non-empty and distinct, each round an order of the members, and how
// iterations were chosen a known way.
func (v *validator) variants(path string, vc *VariantComparison) {
	switch {
	case vc.Key == "":
		v.fail(path+".key", "empty")
	case vc.Reference == "":
		v.fail(path+".reference", "empty")
	case vc.Contender == "" || vc.Contender == vc.Reference:
		v.fail(path+".contender", "%q is not a value besides the reference %q", vc.Contender, vc.Reference)
	case vc.Iterations != "own" && vc.Iterations != "shared":
		v.fail(path+".iterations", "%q is neither \"own\" nor \"shared\"", vc.Iterations)
	case len(vc.Groups) == 0:
		v.fail(path+".groups", "none")
	}
	for i, g := range vc.Groups {
		gp := idx(path+".groups", i)
		if g.Group == "" {
			v.fail(gp+".group", "empty")
		}
		if len(g.Members) < 2 {
			v.fail(gp+".members", "%d member(s), not two or more", len(g.Members))
		}
		has := false
		for j, m := range g.Members {
			mp := idx(gp+".members", j)
			if m == "" {
				v.fail(mp, "empty")
			}
			for k := range j {
				if g.Members[k] == m {
					v.fail(mp, "%q repeats members[%d]", m, k)
				}
			}
			has = has || m == vc.Contender
		}
		if len(g.Members) > 0 && g.Members[0] != vc.Reference {
			v.fail(idx(gp+".members", 0), "%q, not the reference %q", g.Members[0], vc.Reference)
		}
		if !has {
			v.fail(gp+".members", "no member %q (the contender)", vc.Contender)
		}
		for k, round := range g.Schedule {
			rp := idx(gp+".schedule", k)
			seen := make([]bool, len(g.Members))
			if len(round) != len(g.Members) {
				v.fail(rp, "%d places for %d members", len(round), len(g.Members))
			}
			for _, m := range round {
				if m < 0 || m >= len(g.Members) || seen[m] {
					v.fail(rp, "%v is not an order of the members 0..%d", round, len(g.Members)-1)
					break
				}
				seen[m] = true
			}
		}
	}
}
