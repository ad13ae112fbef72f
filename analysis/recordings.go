package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/rundoc"
)

// A recording's quantiles are compared only when each side retained
// enough spans beyond the quantile for a resample to vary there: at least
// minTailSpans of them, so n*(1-q) >= 10, which is 20 spans for the median,
// 200 for p95 and 1000 for p99. With fewer, a resampled p99 is one of the
// few largest spans nearly every time, and the percentile interval of so
// few distinct values covers the truth less often than it claims.
const minTailSpans = 10

// spanQuantiles are the quantiles a recording's comparison reports, with
// their metric names.
var spanQuantiles = []struct {
	q      float64
	metric string
}{
	{0.5, rundoc.MetricSpanMedian},
	{0.95, rundoc.MetricSpanP95},
	{0.99, rundoc.MetricSpanP99},
}

// MinSpansFor is how many retained spans each side needs for quantile q
// to be compared: minTailSpans beyond it.
func MinSpansFor(q float64) int64 {
	return int64(float64(minTailSpans)/(1-q) + 0.5)
}

// MinSpansForNote is the start of the note of a quantile's row whose
// sides have too few spans for it.
func MinSpansForNote(q float64) string {
	var m string
	for _, sq := range spanQuantiles {
		if sq.q == q {
			m = sq.metric
		}
	}
	return fmt.Sprintf("%s needs %d retained spans per side", m, MinSpansFor(q))
}

// NoSpansNote is the note of a recording's rows when a side kept no spans.
const NoSpansNote = "record with --spans to compare distributions"

type recordingKey struct{ source, identity string }

// CompareRecordings compares two runs' recordings identity by identity
// (source and identity): the median, p95 and p99 of their individual span
// durations, each a row whose ratio and interval come from resampling each
// side's retained spans on their own (ComparisonDesign "independent",
// seeded by cfg per row), with verdicts against cfg's threshold as any time
// row: faster, slower, equivalent or inconclusive. A quantile whose sides
// have too few spans (MinSpansFor) is unavailable with the reason, and so
// is every row of an identity a side kept no spans of. Identities are in
// new's order, then those only old has; each side's value is the
// recording's own summary percentile, whatever was kept.
func CompareRecordings(old, new []rundoc.Recording, cfg CompareConfig) ([]rundoc.ComparisonRow, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	oldBy := map[recordingKey]rundoc.Recording{}
	for _, r := range old {
		oldBy[recordingKey{r.Source, r.Identity}] = r
	}
	seen := map[recordingKey]bool{}
	var out []rundoc.ComparisonRow
	for _, n := range new {
		k := recordingKey{n.Source, n.Identity}
		if seen[k] {
			continue
		}
		seen[k] = true
		o, ok := oldBy[k]
		if !ok {
			out = append(out, recordingOneSide(n, false))
			continue
		}
		out = append(out, compareRecording(o, n, cfg)...)
	}
	for _, o := range old {
		k := recordingKey{o.Source, o.Identity}
		if !seen[k] {
			seen[k] = true
			out = append(out, recordingOneSide(o, true))
		}
	}
	return out, nil
}

func recordingOneSide(r rundoc.Recording, isOld bool) rundoc.ComparisonRow {
	row := rundoc.ComparisonRow{Package: r.Source, Name: r.Identity, Metric: rundoc.MetricSpanMedian,
		Verdict: rundoc.VerdictOnlyNew, ComparisonDesign: rundoc.DesignIndependent}
	v := spanValue(r, 0.5)
	if isOld {
		row.Old, row.Verdict = v, rundoc.VerdictOnlyOld
	} else {
		row.New = v
	}
	return row
}

// spanValue is a recording's side of a row: its summary's percentile
// (what the recorder computed, over all observations or the retained
// sample) and how many spans it is of.
func spanValue(r rundoc.Recording, q float64) *rundoc.ComparedValue {
	v := &rundoc.ComparedValue{Outliers: []int{}, Outcome: rundoc.OutcomeOK}
	if s := r.Summary; s != nil {
		var c float64
		switch q {
		case 0.5:
			c = s.MedianNs
		case 0.95:
			c = s.P95Ns
		default:
			c = s.P99Ns
		}
		v.Center = &c
		n := s.Spans
		v.Spans = &n
	}
	return v
}

func compareRecording(o, n rundoc.Recording, cfg CompareConfig) []rundoc.ComparisonRow {
	rows := make([]rundoc.ComparisonRow, len(spanQuantiles))
	var qs []float64
	var at []int
	for i, sq := range spanQuantiles {
		row := rundoc.ComparisonRow{Package: n.Source, Name: n.Identity, Metric: sq.metric,
			Old: spanValue(o, sq.q), New: spanValue(n, sq.q), ComparisonDesign: rundoc.DesignIndependent}
		need := MinSpansFor(sq.q)
		switch {
		case o.Summary == nil || n.Summary == nil:
			row.Verdict = rundoc.VerdictUnavailable
			row.Note = noSummaryNote(o, n)
		case len(o.Spans) == 0 || len(n.Spans) == 0:
			row.Verdict = rundoc.VerdictUnavailable
			row.Note = NoSpansNote
		case int64(len(o.Spans)) < need || int64(len(n.Spans)) < need:
			row.Verdict = rundoc.VerdictUnavailable
			row.Note = fmt.Sprintf("%s, has %d old and %d new", MinSpansForNote(sq.q), len(o.Spans), len(n.Spans))
		default:
			qs, at = append(qs, sq.q), append(at, i)
		}
		if row.Verdict == rundoc.VerdictUnavailable && row.Old.Center != nil && *row.Old.Center > 0 && row.New.Center != nil {
			row.Ratio = ptr(*row.New.Center / *row.Old.Center)
		}
		rows[i] = row
	}
	if len(qs) == 0 {
		return rows
	}
	b := stats.Bootstrap(cfg.Bootstrap)
	b.Seed = rowSeed(b.Seed, n.Source, n.Identity, "spans")
	od, nd := spansByStart(o), spansByStart(n)
	ob, nb := SpanBlocks(len(od)), SpanBlocks(len(nd))
	rs, err := stats.CompareSpanQuantileBlocks(od, nd, ob, nb, qs, b)
	for j, i := range at {
		row := &rows[i]
		if err != nil {
			row.Verdict, row.Note = rundoc.VerdictUnavailable, compareErrorNote(err)
			continue
		}
		r := rs[j]
		row.Ratio, row.Low, row.High = ptr(r.Ratio), ptr(r.Low), ptr(r.High)
		row.Confidence, row.P, row.Method = ptr(r.Confidence), ptr(r.P), r.Method
		row.Verdict = rundoc.Verdict(r.Verdict(cfg.Threshold))
		if note := retentionNote(o, n); note != "" {
			row.Note = note
		}
		if ob == len(od) || nb == len(nd) {
			row.Note = joinNote(row.Note, fmt.Sprintf("too few spans for blocks of %d (%d old, %d new): resampled one by one, so drift within a recording (load, warm-up) is not in the interval",
				minBlockSpans, len(od), len(nd)))
		}
		// The spans' bootstrap reports the confidence asked; a verdict
		// is held back by the same rule as a benchmark's all the same.
		asked := cfg.Bootstrap.Confidence // cfg has its defaults (CompareRecordings)
		holdVerdict(row, asked, ConfidenceShortfall(0, r.Confidence, asked))
	}
	return rows
}

// A recording's spans are resampled in blocks of consecutive spans (in
// the order they began), not one by one: spans close in time share the
// host's load and the program's state, and two recordings of the same
// build, resampled span by span, were called different at p < 0.001
// (median ±10%, p95 ±30%, docs/recording.md). maxSpanBlocks blocks per
// side, each of at least minBlockSpans spans; a side with too few spans
// for minSpanBlocks blocks is resampled span by span, and its rows say so.
const (
	maxSpanBlocks = 20
	minBlockSpans = 10
	minSpanBlocks = 5
)

// SpanBlocks is how many blocks a side of n spans is resampled in: n
// (one span each) when there are too few for minSpanBlocks blocks.
func SpanBlocks(n int) int {
	k := min(maxSpanBlocks, n/minBlockSpans)
	if k < minSpanBlocks {
		return n
	}
	return k
}

// spansByStart is r's retained span durations in the order they began.
func spansByStart(r rundoc.Recording) []float64 {
	spans := slices.Clone(r.Spans)
	slices.SortStableFunc(spans, func(a, b rundoc.RecordedSpan) int { return cmp.Compare(a.StartNs, b.StartNs) })
	out := make([]float64, len(spans))
	for i, sp := range spans {
		out[i] = float64(sp.DurationNs)
	}
	return out
}

// noSummaryNote says why a side has no summary: no span finished, or
// spans finished and none was retained, which happens only when the
// shared ring lost them before benchsup drained them.
func noSummaryNote(o, n rundoc.Recording) string {
	var parts []string
	for _, side := range []struct {
		name string
		r    rundoc.Recording
	}{{"old", o}, {"new", n}} {
		switch {
		case side.r.Summary != nil:
		case side.r.Observations > 0:
			parts = append(parts, fmt.Sprintf("%d spans finished on the %s side and none was retained (the shared ring lost them before benchsup read them)",
				side.r.Observations, side.name))
		default:
			parts = append(parts, "no span finished on the "+side.name+" side")
		}
	}
	return strings.Join(parts, "; ")
}

// retentionNote warns when a side's retained spans are not a uniform
// sample of its observations: first-n and latest-n keep one end of the
// run, which a reservoir does not.
func retentionNote(o, n rundoc.Recording) string {
	for _, s := range []struct {
		side string
		r    rundoc.Recording
	}{{"old", o}, {"new", n}} {
		if s.r.Omitted > 0 && s.r.Retention.Policy != "reservoir" {
			return fmt.Sprintf("the %s side kept the %s of its spans (%d omitted): not a uniform sample of the run", s.side, s.r.Retention.Policy, s.r.Omitted)
		}
	}
	return ""
}
