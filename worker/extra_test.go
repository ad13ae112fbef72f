package worker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/measure"
	"github.com/benchsup/benchsup/protocol"
)

// manyMetrics is more custom metrics than a sample carries: 44 beyond
// protocol.MaxExtraPerSample.
const manyMetrics = protocol.MaxExtraPerSample + 44

// metricUnit is the i-th of manyMetrics' units: sorted as numbered.
func metricUnit(i int) string { return fmt.Sprintf("p%03d-ns", i) }

func init() {
	// Reported last first: what is kept is the first units sorted, as
	// testing prints them, not the first reported.
	RegisterBenchmark("BenchmarkFixtureManyMetrics", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
		}
		for i := manyMetrics - 1; i >= 0; i-- {
			b.ReportMetric(float64(i), metricUnit(i))
		}
	})
	RegisterBenchmark("BenchmarkFixtureManyMetricsIter", func(b *testing.B) {
		measure.Iter(b, func() {})
		for i := range manyMetrics {
			measure.ReportMetric(b, metricUnit(i), float64(i), measure.Level)
		}
	})
}

// wantDropped are the units beyond the bound, the first MaxDroppedUnits
// of them.
func wantDropped() []string {
	var units []string
	for i := protocol.MaxExtraPerSample; i < protocol.MaxExtraPerSample+protocol.MaxDroppedUnits; i++ {
		units = append(units, metricUnit(i))
	}
	return units
}

// TestExtraBeyondTheBound: a benchmark reporting more custom metrics than
// a sample carries keeps the first protocol.MaxExtraPerSample of them in
// every sample, the same ones, and its Result counts and names what was
// left out, whichever way the worker read them.
func TestExtraBeyondTheBound(t *testing.T) {
	for _, tc := range []struct{ name, bench string }{
		{"read from testing's B", "BenchmarkFixtureManyMetrics"},
		{"an owned loop (measure.Iter), in the order reported", "BenchmarkFixtureManyMetricsIter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: tc.bench},
				Config: protocol.RequestConfig{Iterations: 100, Samples: 3}})
			require.Empty(t, only[protocol.Failure](msgs))
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1, "%v", msgs)
			require.Len(t, r[0].Samples, 3)
			for _, s := range r[0].Samples {
				require.Len(t, s.Extra, protocol.MaxExtraPerSample)
				assert.Equal(t, protocol.Metric{Unit: metricUnit(0), Value: 0}, s.Extra[0])
				assert.Equal(t, protocol.Metric{Unit: metricUnit(protocol.MaxExtraPerSample - 1), Value: protocol.MaxExtraPerSample - 1},
					s.Extra[protocol.MaxExtraPerSample-1])
			}
			assert.Equal(t, int64(manyMetrics-protocol.MaxExtraPerSample), r[0].ExtraDropped)
			assert.Equal(t, wantDropped(), r[0].ExtraDroppedUnits)
		})
	}
}

// TestParseExtraBeyondTheBound: the printed line's units past the bound
// are left out and named; testing prints them sorted.
func TestParseExtraBeyondTheBound(t *testing.T) {
	var line strings.Builder
	line.WriteString("BenchmarkLoop-2   \t     100\t       145.8 ns/op")
	for i := range manyMetrics {
		fmt.Fprintf(&line, "\t%d %s", i, metricUnit(i))
	}
	line.WriteString("\t       4 B/op\t       0 allocs/op\n")
	o, _ := parseText("BenchmarkLoop", m+"=== RUN   BenchmarkLoop\nBenchmarkLoop\n"+line.String()+m+"=== NAME  \n")
	require.Len(t, o.results["BenchmarkLoop"], 1)
	s := o.results["BenchmarkLoop"][0]
	require.Len(t, s.Extra, protocol.MaxExtraPerSample)
	assert.Equal(t, metricUnit(protocol.MaxExtraPerSample-1), s.Extra[protocol.MaxExtraPerSample-1].Unit)
	require.NotNil(t, s.AllocBytes, "the values after the dropped ones are still read")
	assert.Equal(t, uint64(400), *s.AllocBytes)
	dropped := o.dropped["BenchmarkLoop"]
	require.Len(t, dropped, manyMetrics-protocol.MaxExtraPerSample)
	assert.Equal(t, wantDropped(), dropped[:protocol.MaxDroppedUnits])
	_, err := protocol.AppendFrame(nil, protocol.Result{Samples: []protocol.Sample{s}, ExtraDropped: int64(len(dropped)), ExtraDroppedUnits: dropped[:protocol.MaxDroppedUnits]})
	require.NoError(t, err, "what is kept travels")
}

// TestFitFrame: a process of many samples, each with the most custom
// metrics a sample carries, keeps fewer of them, the same first ones in
// every sample, so that its Result still fits one frame; what it left out
// is counted with what was beyond the bound.
func TestFitFrame(t *testing.T) {
	sample := func() protocol.Sample {
		s := protocol.Sample{Iterations: 10, ElapsedNs: 1000, Exact: true}
		for i := range protocol.MaxExtraPerSample {
			s.Extra = append(s.Extra, protocol.Metric{Unit: metricUnit(i) + "-of-a-longer-unit", Value: float64(i) + 0.5})
		}
		return s
	}
	for _, n := range []int{1, 100, 2000} {
		t.Run(fmt.Sprint(n, " samples"), func(t *testing.T) {
			w := &session{}
			w.dropExtra(metricUnit(999)) // beyond the bound already
			r := protocol.Result{Identity: protocol.Identity{Name: "BenchmarkX"}, Retaken: []protocol.Sample{sample()}}
			for range n {
				r.Samples = append(r.Samples, sample())
			}
			w.fitFrame(&r)
			_, err := protocol.AppendFrame(nil, r)
			require.NoError(t, err)
			kept := len(r.Samples[0].Extra)
			for _, s := range append(r.Samples, r.Retaken...) {
				require.Len(t, s.Extra, kept, "the same metrics in every sample")
				assert.Equal(t, metricUnit(0)+"-of-a-longer-unit", s.Extra[0].Unit, "the first ones are kept")
			}
			assert.Equal(t, int64(1+protocol.MaxExtraPerSample-kept), r.ExtraDropped)
			if n < 1000 {
				assert.Equal(t, protocol.MaxExtraPerSample, kept, "it fitted: nothing more dropped")
				assert.Equal(t, []string{metricUnit(999)}, r.ExtraDroppedUnits)
				return
			}
			assert.Positive(t, kept)
			assert.Less(t, kept, protocol.MaxExtraPerSample)
			assert.Len(t, r.ExtraDroppedUnits, protocol.MaxDroppedUnits)
		})
	}
}
