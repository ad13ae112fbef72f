package worker

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// What a counting pass may cost, and how it is sized.
//
// A counting pass runs after the timed samples of a process and adds to its
// wall time. By default it may take countShare of the process's timed work
// (about 50 ms next to one 200 ms sample; the process's startup, setup and
// calibration come on top of the timed work, so that is less than a quarter
// of what the run spends on the benchmark), measured on the wall clock, and
// it is skipped, with the reason, where it cannot count within that:
// --perf-iters pins the pass's size and counts anyway. The cost is the same
// whether one metric or every metric of every source is selected, because
// all the selected sources count over the same brackets (sources.Bracket).
const (
	countShare = 0.25
	// fixedMargin scales the fixed cost of a run measured once, to plan
	// the runs that follow.
	fixedMargin = 1.5
	// countPairs is how many pairs of runs a pass by differences runs:
	// the value is the median (the mean) of their differences, its
	// uncertainty half their range. Each run of an unmodified benchmark
	// costs its setup and testing's forced garbage collections (5 to 30 ms
	// on the development VM, where a forced collection takes 1 to 16 ms)
	// besides its iterations, so two pairs are what fits in countShare, if
	// anything does.
	countPairs = 2
	// smallRun is the iterations of the short run of each pair; the long
	// one runs smallRun + k, so their difference covers exactly k. With
	// -test.benchtime=1x testing uses its probe run at N=1 as the run and
	// runs no second one, while at N >= 2 it runs the probe and then the
	// run of N (and benchsup's wrapper may skip the probe's body): a run at
	// 1 and a run at 2 would differ by two iterations plus one whole run's
	// fixed costs. Runs of at least 2 have the same shape whichever way the
	// probe goes.
	smallRun = 2
	// countParts is how many parts a bracketed pass splits its k
	// iterations into: the value is the median of the parts' per-iteration
	// values, its uncertainty half their range.
	countParts = 3
	// emptyBrackets is how many empty brackets a bracketed pass takes
	// first, to measure what a bracket counts (and costs) of itself, and
	// emptyInterleaved about how many more it takes between the measured
	// brackets (one after each, when there are fewer).
	emptyBrackets    = 8
	emptyInterleaved = 32
)

// diffRunsLeft is the runs of a default pass by differences after its
// first (short) one, for sets sets of countPairs pairs: 1 for a leaf run
// alone, 2 for a leaf run after its siblings (see countPasses).
func diffRunsLeft(sets int) int { return 2*countPairs*sets - 1 }

// tooSlowToDiff says why a default pass by differences of sets sets of
// pairs cannot fit in budgetNs for an iteration of perOpNs (of every leaf
// a run runs), even with k = 1 and no cost beyond the iterations, or ""
// when it may.
func tooSlowToDiff(budgetNs, perOpNs float64, sets, before int) string {
	// Every run may hold a probe iteration besides its own.
	least := float64(sets*countPairs) * float64(2*(smallRun+1)+1) * perOpNs
	if least <= budgetNs {
		return ""
	}
	with := ""
	if before > 0 {
		with = " (each with " + theLeaves(before) + " run before it)"
	}
	return fmt.Sprintf("not counted by default: %d pairs of runs at %d and %d iterations%s would take at least %s, more than %.0f%% of the %s this process timed; pin --perf-iters to count it",
		sets*countPairs, smallRun, smallRun+1, with, fmtNs(least), 100*countShare, fmtNs(budgetNs/countShare))
}

// sizeDifference returns k for a default pass by differences of sets sets
// of pairs: what the rest of the pass (diffRunsLeft runs, each costing
// fixedNs beyond its iterations of perOpNs, at most, one short and
// sets*countPairs long ones of smallRun + k) may take after spentNs of
// budgetNs; 0 when not even k = 1 fits.
func sizeDifference(budgetNs, spentNs, fixedNs, perOpNs float64, sets int) int64 {
	if perOpNs <= 0 {
		return 0
	}
	rest := budgetNs - spentNs - float64(diffRunsLeft(sets))*(fixedNs+(smallRun+1)*perOpNs)
	k := math.Floor(rest / (float64(sets*countPairs) * perOpNs))
	if k < 1 {
		return 0
	}
	return int64(math.Min(k, maxIterations-smallRun))
}

// fmtNs formats nanoseconds for a reason.
func fmtNs(ns float64) string {
	return formatCount(sources.Descriptor{Format: sources.FormatDuration}, ns)
}

// sizeBracketed returns k for a default pass that brackets calls of
// perOpNs itself, batch calls to a bracket that costs bracketNs of its
// own: as many calls as fit in budgetNs, 0 when fewer than countParts do.
func sizeBracketed(budgetNs, perOpNs, bracketNs float64, batch int64) int64 {
	perCall := perOpNs + bracketNs/float64(max(batch, 1))
	if perCall <= 0 {
		return 0
	}
	k := math.Floor(budgetNs / perCall)
	if k < countParts {
		return 0
	}
	return int64(math.Min(k, maxIterations))
}

// openCounters is sources.Open; tests replace it with a fake source.
var openCounters = sources.Open

// countPasses measures the selected metrics after the timing pass, never
// during it. testing gives the worker no bracket around the loop body of an
// unmodified benchmark, so the identity runs countPairs pairs of runs, a
// short one at smallRun iterations and a long one at smallRun + k, and each
// pair's difference covers exactly k iterations (see smallRun). A run's
// bracket is every call of the top-level function in it (their readings
// summed): testing's forced garbage collections before each call, its
// output and the worker's own edges stay outside. What both runs of a pair
// share cancels: the function's setup, and for a sub-benchmark everything
// testing does around the leaf inside its parent (its probe run, two
// forced garbage collections). What does not cancel is in the uncertainty:
// garbage collections and page faults that land in one run and not the
// other, and setup that grows with b.N. All the selected sources share each
// bracket (sources.Bracket), so one set of runs serves them all and
// counters of the same kernel event count the same code.
//
// A leaf that runs after its siblings (see measureRuns) runs after them
// here too, and the bracket then holds their iterations as well, as many
// as the leaf's (testing applies one -test.benchtime to all). So each
// pair is matched by a pair of runs of those siblings alone, at the same
// iterations, and what is attributed to the leaf is the difference of the
// two pairs' differences: the siblings' k iterations cancel as the setup
// does, and their noise widens the uncertainty.
//
// By default k is sized from the first (short) run's wall time, which
// shows what a run costs beyond its iterations, so that the pass takes
// about countShare of the process's timed work; --perf-iters pins k. The
// timing pass's N is not needed: its samples give the time per iteration
// (and the siblings' results in the same runs theirs).
func (w *session) countPasses(b testing.InternalBenchmark, _ int64, result *protocol.Result) error {
	cfg := w.req.Config
	if len(cfg.Metrics) == 0 {
		return nil
	}
	name := w.benchName()
	pattern, before, sets := exactPattern(name), w.preceding[name], 1
	perOp, timed := medianNsPerOp(result.Samples), 0.0
	if len(before) > 0 {
		pattern, sets = siblingsPattern(before, name), 2
		perOp += w.siblingsNsPerOp // what a run's iterations cost, theirs included
	}
	for _, s := range result.Samples {
		timed += float64(s.ElapsedNs)
	}
	budget := countShare * timed
	start := time.Now() // opening the counters is part of the pass's cost
	counters := w.openSelected(result)
	defer closeAll(counters)
	if len(counters) == 0 {
		return nil
	}
	br := sources.NewBracket(counters)
	if cfg.PerfIters <= 0 {
		if why := tooSlowToDiff(budget, perOp, sets, len(before)); why != "" {
			absentAll(result, br.Metrics(), why)
			return nil
		}
	}
	var calls []sources.Reading
	bracketed := testing.InternalBenchmark{Name: b.Name, F: func(tb *testing.B) {
		br.Start()
		defer func() { calls = append(calls, br.Stop()) }()
		b.F(tb)
	}}
	runs := 0
	// runOf runs n iterations of what pattern selects under the bracket:
	// its reading and wall time, or false when the run ended without a
	// result of last.
	runOf := func(pattern, last string, n int64) (sources.Reading, time.Duration, bool, error) {
		if err := w.phase(protocol.PhaseCounting, int64(runs), int64(2*countPairs*sets)); err != nil {
			return sources.Reading{}, 0, false, err
		}
		runs++
		calls = calls[:0]
		t0 := time.Now()
		out, err := w.runBenchmark(bracketed, pattern, n, 1, nil)
		wall := time.Since(t0)
		if err != nil {
			return sources.Reading{}, 0, false, err
		}
		if len(out.results[last]) != 1 || len(calls) == 0 {
			awaitPanic()
			absentAll(result, br.Metrics(), "the counting run ended without a result (the benchmark failed or skipped there)")
			return sources.Reading{}, 0, false, nil
		}
		return sources.Sum(calls...), wall, true, nil
	}
	run := func(n int64) (sources.Reading, time.Duration, bool, error) { return runOf(pattern, name, n) }
	// pairOf runs a pair of runs of what pattern selects, the short one
	// given when it ran already: what the long one counted beyond it.
	pairOf := func(pattern, last string, short *sources.Reading, k int64) (sources.Reading, bool, error) {
		if short == nil {
			r, _, ok, err := runOf(pattern, last, smallRun)
			if !ok {
				return sources.Reading{}, false, err
			}
			short = &r
		}
		long, _, ok, err := runOf(pattern, last, smallRun+k)
		if !ok {
			return sources.Reading{}, false, err
		}
		return difference(*short, long), true, nil
	}
	first, wall, ok, err := run(smallRun)
	if !ok {
		return err
	}
	k := cfg.PerfIters
	if k <= 0 {
		// One run shows a run's fixed cost only roughly (a forced
		// garbage collection takes 1 to 16 ms on the development VM):
		// the rest of the pass is planned with half as much again.
		fixed := math.Max(0, float64(wall)-(smallRun+1)*perOp)
		if k = sizeDifference(budget, float64(time.Since(start)), fixedMargin*fixed, perOp, sets); k < 1 {
			costs := "its setup, testing's garbage collections"
			if len(before) > 0 {
				costs += ", " + theLeaves(len(before)) + " run before it"
			}
			absentAll(result, br.Metrics(), fmt.Sprintf("not counted by default: a run of this benchmark costs %s beyond its iterations (%s), so %d pairs of runs would take more than %.0f%% of the %s this process timed; pin --perf-iters to count it",
				fmtNs(fixed), costs, sets*countPairs, 100*countShare, fmtNs(timed)))
			return nil
		}
	}
	var diffs []attributed
	for p := 0; p < countPairs; p++ {
		var short *sources.Reading
		if p == 0 {
			short = &first
		}
		d, ok, err := pairOf(pattern, name, short, k)
		if !ok {
			return err
		}
		if len(before) > 0 {
			last := before[len(before)-1]
			alone, ok, err := pairOf(siblingsPattern(before[:len(before)-1], last), last, nil, k)
			if !ok {
				return err
			}
			d = difference(alone, d)
		}
		diffs = append(diffs, attributed{r: sources.Derive(d), iters: k})
	}
	what, method := "pair differences", fmt.Sprintf("median of %d differences of runs at %d and %d iterations", countPairs, smallRun, smallRun+k)
	if len(before) > 0 {
		what = "differences of pair differences"
		method += ", each less the same difference of runs of " + theLeaves(len(before)) + " run before it, without it"
	}
	cells, absences := countedCells(br.Metrics(), diffs, nil, what)
	for i := range absences {
		if strings.HasPrefix(absences[i].Reason, "below the noise: ") {
			absences[i].Reason += fmt.Sprintf("; a larger --perf-iters (here %d) narrows it", k)
		}
	}
	addCounted(result, cells, absences)
	result.CountIterations = k
	result.CountMethod = method
	return nil
}

// attributed is one repeated measurement of a counting pass: a reading and
// the iterations it covers (a pair's difference, or a part of a bracketed
// pass).
type attributed struct {
	r     sources.Reading
	iters int64
}

// countedCells turns the repeated measurements of a pass into one cell per
// metric, or an absence with the reason. A per-iteration metric's value is
// the median over the measurements of each one's total divided by its
// iterations, and its uncertainty half their range plus extra[m] (what the
// pass knows it adds, per iteration, beyond that spread); a level's or a
// ratio's is the median of the values themselves. A per-iteration value
// that its uncertainty reaches (|value| <= uncertainty, uncertainty > 0) or
// that is negative is below the noise: an absence saying so, with the
// interval, never a number. A derived metric (ipc) whose inputs are below
// the noise is absent too. what names the measurements in reasons.
func countedCells(metrics []string, ms []attributed, extra map[string]float64, what string) ([]protocol.MetricCell, []protocol.Absence) {
	var cells []protocol.MetricCell
	var absences []protocol.Absence
	for _, m := range metrics {
		reason := ""
		for _, in := range sources.DerivedFrom(m) {
			// The inputs are judged whether or not they were selected
			// (Stop reads a derived metric's inputs with it).
			if _, why := countedCell(in, ms, extra[in], what); why != "" {
				reason = "its input " + in + " is not reported: " + why
				break
			}
		}
		var cell protocol.MetricCell
		if reason == "" {
			cell, reason = countedCell(m, ms, extra[m], what)
		}
		if reason != "" {
			absences = append(absences, protocol.Absence{Name: m, Reason: reason})
			continue
		}
		cells = append(cells, cell)
	}
	return cells, absences
}

// countedCell is one metric's cell from ms, or why there is none.
func countedCell(m string, ms []attributed, extra float64, what string) (protocol.MetricCell, string) {
	d, known := sources.Describe(m)
	perOp := known && d.Unit == "/op"
	if len(ms) == 0 {
		return protocol.MetricCell{}, "no counting run completed"
	}
	xs := make([]float64, 0, len(ms))
	estimated := false
	for _, a := range ms {
		if why, ok := a.r.Unavailable[m]; ok {
			return protocol.MetricCell{}, why
		}
		v, ok := a.r.Values[m]
		if !ok {
			return protocol.MetricCell{}, "the counter produced no value"
		}
		if perOp {
			if a.iters <= 0 {
				return protocol.MetricCell{}, "no iterations to divide by"
			}
			v /= float64(a.iters)
		}
		xs = append(xs, v)
		estimated = estimated || a.r.Estimated[m]
	}
	v, u := medianHalfRange(xs)
	u += extra
	if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(u) || math.IsInf(u, 0) {
		return protocol.MetricCell{}, "the counter produced no finite value"
	}
	if perOp && stats.BelowNoise(v, u) {
		return protocol.MetricCell{}, belowNoise(d, v, u, len(xs), what)
	}
	return protocol.MetricCell{Name: protocol.TruncateText(m, protocol.MaxNameLen), Value: v, Estimated: estimated, Uncertainty: u}, ""
}

// belowNoise is the reason of a per-iteration value its uncertainty
// reaches, or of a negative one: the interval the measurements give.
func belowNoise(d sources.Descriptor, v, u float64, n int, what string) string {
	interval := fmt.Sprintf("%s to %s per iteration (the median of %d %s ± half their range)",
		formatCount(d, v-u), formatCount(d, v+u), n, what)
	if u == 0 {
		interval = fmt.Sprintf("%s per iteration (%d %s, all equal)", formatCount(d, v), n, what)
	}
	if v+u < 0 {
		return "below the noise: " + interval + ": the longer runs counted less"
	}
	return "below the noise: " + interval + ", which includes 0"
}

// medianHalfRange returns the median of xs and half their range.
func medianHalfRange(xs []float64) (median, halfRange float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return median, (s[n-1] - s[0]) / 2
}

// formatCount formats a counted value for a reason: three significant
// digits in the metric's unit.
func formatCount(d sources.Descriptor, v float64) string {
	switch d.Format {
	case sources.FormatDuration:
		a := math.Abs(v)
		switch {
		case a >= 1e9:
			return fmt.Sprintf("%.3gs", v/1e9)
		case a >= 1e6:
			return fmt.Sprintf("%.3gms", v/1e6)
		case a >= 1e3:
			return fmt.Sprintf("%.3gµs", v/1e3)
		}
		return fmt.Sprintf("%.3gns", v)
	case sources.FormatBytes:
		return fmt.Sprintf("%.3gB", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// addCounted adds a pass's cells and absences to r, within the protocol's
// bounds.
func addCounted(r *protocol.Result, cells []protocol.MetricCell, absences []protocol.Absence) {
	for _, c := range cells {
		if len(r.Metrics) < protocol.MaxMetricCells {
			c.Note = protocol.TruncateText(c.Note, protocol.MaxTextLen)
			r.Metrics = append(r.Metrics, c)
		}
	}
	for _, a := range absences {
		addAbsence(r, a.Name, a.Reason)
	}
}

// absentAll records one reason for every metric of metrics.
func absentAll(r *protocol.Result, metrics []string, why string) {
	for _, m := range metrics {
		addAbsence(r, m, why)
	}
}

// openSelected opens the sources of the selected metrics and records, in
// result, every metric that cannot be counted here, with the reason.
func (w *session) openSelected(result *protocol.Result) []sources.Counter {
	cfg := w.req.Config
	counters, absences := openCounters(cfg.Metrics, sources.Options{Scaled: cfg.PerfScaled})
	for _, a := range absences {
		for _, m := range a.Metrics {
			addAbsence(result, m, a.Reason)
		}
	}
	return counters
}

func closeAll(counters []sources.Counter) {
	for _, c := range counters {
		c.Close()
	}
}

// difference is the reading of what the second bracket counted beyond the
// first: totals subtract, levels keep the second bracket's value.
func difference(first, second sources.Reading) sources.Reading {
	out := sources.Reading{Values: map[string]float64{}, Estimated: map[string]bool{}, Unavailable: map[string]string{}}
	for m, v := range second.Values {
		if isLevel(m) {
			out.Values[m] = v
			continue
		}
		if v0, ok := first.Values[m]; ok {
			out.Values[m] = v - v0
		}
	}
	for _, r := range []sources.Reading{first, second} {
		for m, e := range r.Estimated {
			out.Estimated[m] = out.Estimated[m] || e
		}
		for m, why := range r.Unavailable {
			out.Unavailable[m] = why
			delete(out.Values, m)
		}
	}
	return out
}

// isLevel reports whether m is a catalog metric that is not a total over a
// bracket (a level such as maxrss, a ratio such as ipc).
func isLevel(m string) bool {
	d, ok := sources.Describe(m)
	return ok && d.Unit == ""
}

func addAbsence(r *protocol.Result, m, why string) {
	if len(r.Absences) < protocol.MaxAbsences {
		r.Absences = append(r.Absences, protocol.Absence{
			Name:   protocol.TruncateText(m, protocol.MaxNameLen),
			Reason: protocol.TruncateText(cmp.Or(why, "no reason given"), protocol.MaxTextLen),
		})
	}
}
