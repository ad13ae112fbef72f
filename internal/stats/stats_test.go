package stats

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want Stats
		ok   bool
	}{
		{"empty", nil, Stats{}, false},
		{"one", []float64{5}, Stats{N: 1, Median: 5, MAD: 0, Min: 5, Max: 5}, true},
		{"odd", []float64{3, 1, 2}, Stats{N: 3, Median: 2, MAD: 1, Min: 1, Max: 3}, true},
		{"even", []float64{4, 1, 3, 2}, Stats{N: 4, Median: 2.5, MAD: 1, Min: 1, Max: 4}, true},
		{"outlier does not move the median", []float64{10, 10, 11, 9, 1000}, Stats{N: 5, Median: 10, MAD: 1, Min: 9, Max: 1000}, true},
		{"NaN refused", []float64{1, math.NaN()}, Stats{}, false},
		{"Inf refused", []float64{math.Inf(1)}, Stats{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]float64(nil), tt.in...)
			got, ok := Summarize(tt.in)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
			if tt.ok {
				assert.Equal(t, in, tt.in, "input must not be reordered")
			}
		})
	}
}

func u(v uint64) *uint64 { return &v }

func TestSampleRates(t *testing.T) {
	s := Sample{Iterations: 4, ElapsedNs: 10, AllocBytes: u(8), Allocs: u(2)}
	ns, ok := s.NsPerOp()
	assert.True(t, ok)
	assert.Equal(t, 2.5, ns)
	b, ok := s.BytesPerOp()
	assert.True(t, ok)
	assert.Equal(t, 2.0, b)
	a, ok := s.AllocsPerOp()
	assert.True(t, ok)
	assert.Equal(t, 0.5, a)

	for _, bad := range []Sample{{Iterations: 0, ElapsedNs: 10}, {Iterations: -1, ElapsedNs: 10}} {
		_, ok := bad.NsPerOp()
		assert.False(t, ok, "N=%d must not yield a rate", bad.Iterations)
	}
	_, ok = Sample{Iterations: 1}.BytesPerOp()
	assert.False(t, ok, "unmeasured allocations are not zero")
}

func TestProcessSummaries(t *testing.T) {
	p := Process{Samples: []Sample{
		{Iterations: 10, ElapsedNs: 100, Extra: map[string]float64{"MB/s": 5}},
		{Iterations: 10, ElapsedNs: 300, Extra: map[string]float64{"MB/s": 7, "x/op": 1}},
		{Iterations: 10, ElapsedNs: 200, Extra: map[string]float64{"MB/s": 6}},
	}}
	ns, ok := p.NsPerOp()
	assert.True(t, ok)
	assert.Equal(t, Stats{N: 3, Median: 20, MAD: 10, Min: 10, Max: 30}, ns)
	_, ok = p.BytesPerOp()
	assert.False(t, ok)
	mbs, ok := p.Extra("MB/s")
	assert.True(t, ok)
	assert.Equal(t, 6.0, mbs.Median)
	_, ok = p.Extra("x/op")
	assert.False(t, ok, "a unit missing from some samples is not summarized")
	assert.Equal(t, []string{"MB/s", "x/op"}, p.ExtraUnits())
}

func TestCombine(t *testing.T) {
	_, ok := Combine(nil)
	assert.False(t, ok)
	got, ok := Combine([]Stats{
		{N: 5, Median: 100, MAD: 1},
		{N: 5, Median: 120, MAD: 3},
		{N: 5, Median: 110, MAD: 2},
	})
	assert.True(t, ok)
	assert.Equal(t, 3, got.Processes)
	assert.Equal(t, 110.0, got.Median)
	assert.Equal(t, Stats{N: 3, Median: 110, MAD: 10, Min: 100, Max: 120}, got.Between)
	assert.Equal(t, 2.0, got.Within)
}

func i64(v int64) *int64 { return &v }

func TestDecompose(t *testing.T) {
	tests := []struct {
		name                         string
		wall                         int64
		user, kernel, runqueue, disk *int64
		wantOther, wantClamped       int64
	}{
		{"sleep: all other", 100, i64(1), i64(2), i64(0), nil, 97, 0},
		{"spin: all on CPU", 100, i64(90), i64(10), i64(0), i64(0), 0, 0},
		{"unattributed components stay in other", 100, nil, nil, nil, nil, 100, 0},
		{"over-attribution is clamped, not negative", 100, i64(80), i64(30), i64(5), nil, 0, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Decompose(tt.wall, tt.user, tt.kernel, tt.runqueue, tt.disk)
			assert.Equal(t, tt.wantOther, b.Other)
			assert.Equal(t, tt.wantClamped, b.Clamped)
			assert.Equal(t, tt.disk, b.Disk, "an unattributed component stays nil")
		})
	}
}

func TestMedianInterval(t *testing.T) {
	tests := []struct {
		name       string
		xs         []float64
		confidence float64
		want       Interval
		ok         bool
	}{
		{"one value has none", []float64{1}, 0.95, Interval{}, false},
		{"three: the range at 75%", []float64{3, 1, 2}, 0.95, Interval{Low: 1, High: 3, Confidence: 0.75}, true},
		{"five: the range at 93.75%", []float64{5, 1, 4, 2, 3}, 0.95, Interval{Low: 1, High: 5, Confidence: 0.9375}, true},
		{"five at 90% still needs the range", []float64{5, 1, 4, 2, 3}, 0.90, Interval{Low: 1, High: 5, Confidence: 0.9375}, true},
		{"five at 60%: second order statistics", []float64{5, 1, 4, 2, 3}, 0.60, Interval{Low: 2, High: 4, Confidence: 0.625}, true},
		{"ten at 95%: x(2), x(9)", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.95, Interval{Low: 2, High: 9, Confidence: 1 - 2*11.0/1024}, true},
		{"an outlier process moves only the end it is at", []float64{100, 101, 102, 103, 200}, 0.9, Interval{Low: 100, High: 200, Confidence: 0.9375}, true},
		{"NaN is no interval", []float64{1, math.NaN()}, 0.5, Interval{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MedianInterval(tt.xs, tt.confidence)
			require.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want.Low, got.Low)
			assert.Equal(t, tt.want.High, got.High)
			assert.InDelta(t, tt.want.Confidence, got.Confidence, 1e-12)
		})
	}
}

func TestValuesFor(t *testing.T) {
	tests := []struct {
		confidence float64
		want       int
	}{
		{0.5, 2}, {0.75, 3}, {0.8, 4}, {0.9, 5}, {0.9375, 5}, {0.95, 6}, {0.96875, 6}, {0.969, 7},
		{0.99, 8}, {0.995, 9}, {0.999, 11}, {1, 0},
	}
	for _, tt := range tests {
		t.Run(strconv.FormatFloat(tt.confidence, 'f', -1, 64), func(t *testing.T) {
			n := ValuesFor(tt.confidence)
			require.Equal(t, tt.want, n)
			if n == 0 {
				return
			}
			// The count is what MedianInterval's range reaches, and one
			// fewer does not reach it.
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(i)
			}
			iv, ok := MedianInterval(xs, tt.confidence)
			require.True(t, ok)
			assert.GreaterOrEqual(t, iv.Confidence, tt.confidence)
			if n > 2 {
				iv, _ = MedianInterval(xs[1:], tt.confidence)
				assert.Less(t, iv.Confidence, tt.confidence)
			}
		})
	}
}

func TestProcessesFor(t *testing.T) {
	for c, want := range map[float64]int{0.5: 2, 0.75: 2, 0.9: 4, 0.95: 5, 0.99: 7, 0.999: 10} {
		if got := ProcessesFor(c); got != want {
			t.Errorf("ProcessesFor(%v) = %d, want %d", c, got, want)
		}
	}
}

func TestCountedAcross(t *testing.T) {
	tests := []struct {
		name   string
		vs, us []float64
		v, u   float64
		ok     bool
	}{
		{"agreeing processes: their own noise", []float64{10, 10.1, 9.9}, []float64{0.5, 0.4, 0.6}, 10, 0.5, true},
		{"disagreeing processes: their spread", []float64{10, 14, 9}, []float64{0.1, 0.1, 0.1}, 10, 2.5, true},
		{"exact everywhere", []float64{3, 3}, []float64{0, 0}, 3, 0, true},
		{"nothing", nil, nil, 0, 0, false},
		{"lengths differ", []float64{1}, nil, 0, 0, false},
		{"negative uncertainty", []float64{1}, []float64{-1}, 0, 0, false},
		{"NaN", []float64{math.NaN()}, []float64{0}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, u, ok := CountedAcross(tt.vs, tt.us)
			require.Equal(t, tt.ok, ok)
			assert.InDelta(t, tt.v, v, 1e-12)
			assert.InDelta(t, tt.u, u, 1e-12)
		})
	}
}

func TestBelowNoise(t *testing.T) {
	for _, tt := range []struct {
		v, u float64
		want bool
	}{{4, 0.2, false}, {0.1, 2, true}, {-0.1, 2, true}, {2, 2, true}, {0, 0, false}, {-1, 0, true}, {5, 0, false}} {
		assert.Equal(t, tt.want, BelowNoise(tt.v, tt.u), "%v ± %v", tt.v, tt.u)
	}
}
