package analysis

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/rundoc"
)

// lognormalSpans draws n span durations around medianNs with a right
// tail (sigma 0.5), as request latencies have.
func lognormalSpans(rng *rand.Rand, n int, medianNs float64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(medianNs*math.Exp(0.5*rng.NormFloat64())) + 1
	}
	return out
}

func spanRecording(identity string, durations []int64) rundoc.Recording {
	return rundoctest.RecordingOf("./cmd/server", identity, true, durations...)
}

func rowOf(t *testing.T, rows []rundoc.ComparisonRow, metric string) rundoc.ComparisonRow {
	t.Helper()
	for _, r := range rows {
		if r.Metric == metric {
			return r
		}
	}
	t.Fatalf("no %s row in %+v", metric, rows)
	return rundoc.ComparisonRow{}
}

// TestCompareRecordingsAA compares two independent samples of one
// distribution many times: an interval excluding 1 (p < 0.05 at 95%)
// must be about as rare as 5%, and a verdict of slower or faster against
// the 2% threshold rarer still.
func TestCompareRecordingsAA(t *testing.T) {
	const trials, n = 100, 400
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := CompareConfig{Bootstrap: Bootstrap{Resamples: 1000, Seed: 3}}
	for _, metric := range []string{rundoc.MetricSpanMedian, rundoc.MetricSpanP95} {
		t.Run(metric, func(t *testing.T) {
			excluded, called := 0, 0
			for range trials {
				rows, err := CompareRecordings(
					[]rundoc.Recording{spanRecording("request", lognormalSpans(rng, n, 1e6))},
					[]rundoc.Recording{spanRecording("request", lognormalSpans(rng, n, 1e6))}, cfg)
				if err != nil {
					t.Fatal(err)
				}
				r := rowOf(t, rows, metric)
				if r.Low == nil || r.High == nil {
					t.Fatalf("no interval: %+v", r)
				}
				if *r.Low > 1 || *r.High < 1 {
					excluded++
				}
				if r.Verdict.Regressed() || r.Verdict == rundoc.VerdictFaster {
					called++
				}
				if r.ComparisonDesign != rundoc.DesignIndependent || r.Method != stats.MethodBlockBootstrap {
					t.Fatalf("design %q, method %q", r.ComparisonDesign, r.Method)
				}
			}
			// Nominal 5%; 100 trials of a 5% event exceed 12 with
			// probability under 0.2%.
			if excluded > 12 {
				t.Errorf("the interval excluded 1 in %d of %d A/A comparisons", excluded, trials)
			}
			if called > 5 {
				t.Errorf("a difference beyond 2%% was called in %d of %d A/A comparisons", called, trials)
			}
			t.Logf("%s: interval excluded 1 in %d/%d, difference called in %d/%d", metric, excluded, trials, called, trials)
		})
	}
}

// TestCompareRecordingsDrift compares two recordings of one program whose
// spans drift together over time (the host's load, the program's warm-up:
// here a level that changes every 40 spans by about 20%): resampled span
// by span, the interval is as narrow as if every span were independent
// and excludes 1 in most A/A comparisons; resampled in blocks of
// consecutive spans, as CompareRecordings does, about as rarely as its
// confidence says.
func TestCompareRecordingsDrift(t *testing.T) {
	const trials, n, segment = 100, 400, 40
	rng := rand.New(rand.NewPCG(7, 8))
	drifting := func() []int64 {
		spans := lognormalSpans(rng, n, 1e6)
		level := 1.0
		for i := range spans {
			if i%segment == 0 {
				level = math.Exp(0.2 * rng.NormFloat64())
			}
			spans[i] = int64(float64(spans[i]) * level)
		}
		return spans
	}
	cfg := CompareConfig{Bootstrap: Bootstrap{Resamples: 1000, Seed: 9}}
	blockExcluded, spanExcluded := 0, 0
	for range trials {
		old, new := spanRecording("request", drifting()), spanRecording("request", drifting())
		rows, err := CompareRecordings([]rundoc.Recording{old}, []rundoc.Recording{new}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := rowOf(t, rows, rundoc.MetricSpanMedian)
		if *r.Low > 1 || *r.High < 1 {
			blockExcluded++
		}
		one, err := stats.CompareSpanQuantiles(old.SpanDurations(), new.SpanDurations(), []float64{0.5}, stats.Bootstrap{Resamples: 1000, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		if one[0].Low > 1 || one[0].High < 1 {
			spanExcluded++
		}
	}
	t.Logf("interval excluded 1: blocks %d/%d, span by span %d/%d", blockExcluded, trials, spanExcluded, trials)
	if blockExcluded > 12 {
		t.Errorf("resampled in blocks, the interval excluded 1 in %d of %d A/A comparisons (nominal 5%%)", blockExcluded, trials)
	}
	if spanExcluded <= 2*blockExcluded {
		t.Errorf("span by span excluded 1 in %d, blocks in %d: the drift did not show what blocks are for", spanExcluded, blockExcluded)
	}
}

// TestCompareRecordingsShift finds a 20% slowdown of every span, and the
// reverse as faster, at the median and p95. The p99 of 1200 spans rests on
// a dozen of them: its interval is about ±20% wide, so it must not call the
// opposite, and may not call the shift.
func TestCompareRecordingsShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	cfg := CompareConfig{Bootstrap: Bootstrap{Resamples: 2000, Seed: 6}}
	base := []rundoc.Recording{spanRecording("request", lognormalSpans(rng, 1200, 1e6))}
	slow := []rundoc.Recording{spanRecording("request", lognormalSpans(rng, 1200, 1.2e6))}
	for _, tc := range []struct {
		name     string
		old, new []rundoc.Recording
		want     rundoc.Verdict
	}{
		{"slower", base, slow, rundoc.VerdictSlower},
		{"faster", slow, base, rundoc.VerdictFaster},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := CompareRecordings(tc.old, tc.new, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 3 {
				t.Fatalf("%d rows, want median, p95 and p99", len(rows))
			}
			for _, m := range []string{rundoc.MetricSpanMedian, rundoc.MetricSpanP95, rundoc.MetricSpanP99} {
				r := rowOf(t, rows, m)
				if m == rundoc.MetricSpanP99 {
					if r.Low == nil || (r.Verdict != tc.want && r.Verdict != rundoc.VerdictInconclusive) {
						t.Errorf("%s: verdict %s, want %s or inconclusive, with an interval", m, r.Verdict, tc.want)
					}
				} else if r.Verdict != tc.want {
					t.Errorf("%s: verdict %s (ratio %v [%v, %v]), want %s", m, r.Verdict, *r.Ratio, *r.Low, *r.High, tc.want)
				}
				if *r.Old.Spans != 1200 || r.Old.Center == nil {
					t.Errorf("%s: old side %+v", m, r.Old)
				}
			}
		})
	}
}

func TestCompareRecordingsUnavailable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cfg := CompareConfig{Bootstrap: Bootstrap{Resamples: 1000}}
	few := spanRecording("request", lognormalSpans(rng, 250, 1e6))
	noSpans := few
	noSpans.Spans = nil
	only := spanRecording("job", lognormalSpans(rng, 30, 1e6))
	// The ring lost every span before a drain: counted, none retained.
	lost := few
	lost.Summary, lost.Spans, lost.Retained, lost.Omitted = nil, nil, 0, few.Observations
	none := few
	none.Summary, none.Spans, none.Retained, none.Omitted, none.Observations = nil, nil, 0, 0, 0
	for _, tc := range []struct {
		name     string
		old, new []rundoc.Recording
		metric   string
		verdict  rundoc.Verdict
		note     string
	}{
		{"p99 needs 1000 spans", []rundoc.Recording{few}, []rundoc.Recording{few}, rundoc.MetricSpanP99, rundoc.VerdictUnavailable,
			"span-p99 needs 1000 retained spans per side, has 250 old and 250 new"},
		// 250 spans are enough for a p95; the same spans on both sides
		// give a ratio of 1, whose interval is wider than 2% either way.
		{"p95 has enough", []rundoc.Recording{few}, []rundoc.Recording{few}, rundoc.MetricSpanP95, rundoc.VerdictInconclusive, ""},
		{"no spans kept", []rundoc.Recording{noSpans}, []rundoc.Recording{few}, rundoc.MetricSpanMedian, rundoc.VerdictUnavailable, NoSpansNote},
		{"lost by the ring", []rundoc.Recording{few}, []rundoc.Recording{lost}, rundoc.MetricSpanMedian, rundoc.VerdictUnavailable,
			"250 spans finished on the new side and none was retained (the shared ring lost them before benchsup read them)"},
		{"none finished", []rundoc.Recording{none}, []rundoc.Recording{few}, rundoc.MetricSpanMedian, rundoc.VerdictUnavailable,
			"no span finished on the old side"},
		{"neither side", []rundoc.Recording{none}, []rundoc.Recording{lost}, rundoc.MetricSpanMedian, rundoc.VerdictUnavailable,
			"no span finished on the old side; 250 spans finished on the new side and none was retained (the shared ring lost them before benchsup read them)"},
		{"only old", []rundoc.Recording{few, only}, []rundoc.Recording{few}, rundoc.MetricSpanMedian, rundoc.VerdictOnlyOld, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := CompareRecordings(tc.old, tc.new, cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := rows[0]
			if tc.verdict == rundoc.VerdictOnlyOld {
				r = rows[len(rows)-1]
			}
			r = func() rundoc.ComparisonRow {
				for _, x := range rows {
					if x.Metric == tc.metric && x.Name == r.Name {
						return x
					}
				}
				return r
			}()
			if r.Verdict != tc.verdict || r.Note != tc.note {
				t.Errorf("%s: verdict %s note %q, want %s %q", r.Metric, r.Verdict, r.Note, tc.verdict, tc.note)
			}
			summaries := r.Old != nil && r.Old.Center != nil && r.New != nil && r.New.Center != nil
			if tc.verdict == rundoc.VerdictUnavailable && summaries && r.Ratio == nil {
				t.Errorf("the summaries' ratio is a measurement: it should be there without an interval")
			}
		})
	}
}

// TestCompareDocumentsWithRecordings: Compare takes documents of another
// mode when they hold recordings, and still refuses those with neither
// benchmarks nor recordings.
func TestCompareDocumentsWithRecordings(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	old, new := benchDoc(), benchDoc()
	old.Meta.Mode, new.Meta.Mode = rundoc.ModeTest, rundoc.ModeTest
	if _, err := Compare(old, new, CompareConfig{}); err == nil || !strings.Contains(err.Error(), "no benchmarks or recordings") {
		t.Fatalf("a test run without recordings: %v", err)
	}
	old.Recordings = []rundoc.Recording{spanRecording("request", lognormalSpans(rng, 300, 1e6))}
	new.Recordings = []rundoc.Recording{spanRecording("request", lognormalSpans(rng, 300, 2e6))}
	c, err := Compare(old, new, CompareConfig{Bootstrap: Bootstrap{Resamples: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowOf(t, c.Rows, rundoc.MetricSpanMedian).Verdict; got != rundoc.VerdictSlower {
		t.Errorf("median verdict %s, want slower", got)
	}
	if _, err := CompareRecordings(nil, nil, CompareConfig{Threshold: 2}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("threshold 2: %v", err)
	}
}
