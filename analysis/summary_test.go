package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/internal/statsconv"
	"github.com/benchsup/benchsup/rundoc"
)

func u64(v uint64) *uint64 { return &v }

func proc(idx int, nsPerOp ...int64) rundoc.ProcessResult {
	p := rundoc.ProcessResult{Index: idx, Outcome: "ok"}
	for _, ns := range nsPerOp {
		p.Samples = append(p.Samples, rundoc.Sample{Iterations: 10, ElapsedNs: ns * 10,
			AllocBytes: u64(80), Allocs: u64(10), Extra: map[string]float64{"MB/s": float64(ns)}})
	}
	st, _ := stats.Process{Samples: statsconv.Samples(p.Samples)}.NsPerOp()
	ds := statsconv.DocStats(st)
	p.NsPerOp = &ds
	return p
}

func TestSummarize(t *testing.T) {
	t.Run("none", func(t *testing.T) {
		assert.Nil(t, analysis.Summarize(nil))
		assert.Nil(t, analysis.Summarize([]rundoc.ProcessResult{{Outcome: "exit"}}), "a failed process has no samples")
	})
	t.Run("one process has no spread", func(t *testing.T) {
		s := analysis.Summarize([]rundoc.ProcessResult{proc(0, 10, 20, 30)})
		require.NotNil(t, s)
		assert.Equal(t, 1, s.Processes)
		assert.Equal(t, 3, s.Samples)
		assert.Equal(t, int64(10), s.Iterations)
		assert.Equal(t, 20.0, s.MedianNs)
		require.NotNil(t, s.WithinMADNs)
		assert.Equal(t, 10.0, *s.WithinMADNs)
		assert.Nil(t, s.Interval, "one process gives no interval over processes")
		assert.Equal(t, 10.0, s.MinNs)
		assert.Equal(t, 30.0, s.MaxNs)
		assert.Equal(t, 8.0, *s.Metrics["B/op"])
		assert.Equal(t, 1.0, *s.Metrics["allocs/op"])
		assert.Equal(t, 20.0, *s.Metrics["MB/s"])
	})
	t.Run("processes are units", func(t *testing.T) {
		s := analysis.Summarize([]rundoc.ProcessResult{proc(0, 10, 11, 12), proc(1, 30, 31, 32), proc(2, 20, 21, 22), {Index: 3, Outcome: "exit"}})
		require.NotNil(t, s)
		assert.Equal(t, 3, s.Processes, "the failed process is not summarized")
		assert.Equal(t, 21.0, s.MedianNs, "median of the per-process medians 11, 21, 31")
		assert.Equal(t, 1.0, *s.WithinMADNs, "within: median of the per-process MADs")
		require.NotNil(t, s.Interval)
		assert.Equal(t, rundoc.Interval{LowNs: 11, HighNs: 31, Confidence: 0.75}, *s.Interval, "the range of 3 process medians, at 75%")
		assert.Equal(t, 10.0, s.MinNs)
		assert.Equal(t, 32.0, s.MaxNs)
	})
	t.Run("one sample per process: no within-process figure; short samples counted", func(t *testing.T) {
		procs := []rundoc.ProcessResult{proc(0, 100), proc(1, 104), proc(2, 99), proc(3, 250), proc(4, 101)}
		procs[1].Samples[0].Short = true
		s := analysis.Summarize(procs)
		require.NotNil(t, s)
		assert.Nil(t, s.WithinMADNs)
		assert.Equal(t, 101.0, s.MedianNs)
		assert.Equal(t, rundoc.Interval{LowNs: 99, HighNs: 250, Confidence: 0.9375}, *s.Interval, "an outlier process widens only its end")
		assert.Equal(t, 1, s.ShortSamples)
	})
	t.Run("a unit one process lacks is unavailable, not zero", func(t *testing.T) {
		a, b := proc(0, 10), proc(1, 10)
		b.Samples[0].Extra = nil
		s := analysis.Summarize([]rundoc.ProcessResult{a, b})
		require.Contains(t, s.Metrics, "MB/s")
		assert.Nil(t, s.Metrics["MB/s"])
	})
}
