package worker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

func TestTooSlowToDiff(t *testing.T) {
	tests := []struct {
		name            string
		budget, perOpNs float64
		sets, before    int
		want            string
	}{
		{"fast op", 50e6, 20e3, 1, 0, ""},
		{"3.5ms op: 14 iterations just fit", 50e6, 3.5e6, 1, 0, ""},
		{"22ms op (issue #9's CountLarge)", 50e6, 22e6, 1, 0,
			"not counted by default: 2 pairs of runs at 2 and 3 iterations would take at least 308ms, more than 25% of the 200ms this process timed; pin --perf-iters to count it"},
		{"after siblings: twice the pairs", 50e6, 1.5e6, 2, 1, ""},
		{"after siblings: 3.5ms of iterations no longer fit", 50e6, 3.5e6, 2, 2,
			"not counted by default: 4 pairs of runs at 2 and 3 iterations (each with the 2 leaves run before it) would take at least 98ms, more than 25% of the 200ms this process timed; pin --perf-iters to count it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tooSlowToDiff(tt.budget, tt.perOpNs, tt.sets, tt.before))
		})
	}
}

func TestSizeDifference(t *testing.T) {
	tests := []struct {
		name                          string
		budget, spent, fixed, perOpNs float64
		sets                          int
		want                          int64
	}{
		{"no fixed cost: the budget goes to the long runs", 40e6, 1e6, 0, 1000, 1, 19495},
		{"fixed costs first", 40e6, 10e6, 8e6, 1000, 1, 2995},
		{"fixed costs eat the budget", 40e6, 12e6, 10e6, 1000, 1, 0},
		{"unknown time per op", 40e6, 0, 0, 0, 1, 0},
		{"capped at testing's limit", 40e6, 0, 0, 1e-6, 1, maxIterations - smallRun},
		{"after siblings: twice the runs share the budget", 40e6, 1e6, 0, 1000, 2, 9744},
		{"after siblings: 7 fixed costs eat what 3 would leave", 40e6, 10e6, 4.3e6, 1000, 2, 0},
		{"alone: 3 fixed costs leave room", 40e6, 10e6, 4.3e6, 1000, 1, 8545},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := sizeDifference(tt.budget, tt.spent, tt.fixed, tt.perOpNs, tt.sets)
			assert.Equal(t, tt.want, k)
			if k > 0 && k < maxIterations-smallRun {
				cost := tt.spent + float64(diffRunsLeft(tt.sets))*(tt.fixed+(smallRun+1)*tt.perOpNs) + float64(tt.sets*countPairs*int(k))*tt.perOpNs
				assert.LessOrEqual(t, cost, tt.budget, "the pass fits its budget")
			}
		})
	}
}

func TestSizeBracketed(t *testing.T) {
	tests := []struct {
		name                       string
		budget, perOpNs, bracketNs float64
		batch                      int64
		want                       int64
	}{
		{"a 24ns call in 1ms brackets", 50e6, 24, 25e3, 41666, 2032519},
		{"--perf-batch=1: each call pays for a bracket", 50e6, 24, 25e3, 1, 1998},
		{"a slow call", 50e6, 10e6, 25e3, 1, 4},
		{"fewer calls than parts fit", 50e6, 20e6, 25e3, 1, 0},
		{"no time at all", 50e6, 0, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := sizeBracketed(tt.budget, tt.perOpNs, tt.bracketNs, tt.batch)
			assert.Equal(t, tt.want, k)
			if k > 0 {
				assert.LessOrEqual(t, float64(k)*(tt.perOpNs+tt.bracketNs/float64(tt.batch)), tt.budget, "the pass fits its budget")
			}
		})
	}
}

// reading builds a reading of totals.
func reading(values map[string]float64) sources.Reading {
	return sources.Reading{Values: values, Estimated: map[string]bool{}, Unavailable: map[string]string{}}
}

// pairs attributes each total of metric to k iterations.
func pairs(k int64, metric string, totals ...float64) []attributed {
	var out []attributed
	for _, v := range totals {
		out = append(out, attributed{r: reading(map[string]float64{metric: v}), iters: k})
	}
	return out
}

func TestCountedCells(t *testing.T) {
	tests := []struct {
		name      string
		metric    string
		ms        []attributed
		extra     float64
		want      *protocol.MetricCell
		wantWhy   string
		wantWhyIn string
	}{
		{name: "exact pairs: no uncertainty", metric: "minflt", ms: pairs(100, "minflt", 400, 400, 400),
			want: &protocol.MetricCell{Name: "minflt", Value: 4}},
		{name: "the median, half the range", metric: "minflt", ms: pairs(100, "minflt", 420, 400, 380),
			want: &protocol.MetricCell{Name: "minflt", Value: 4, Uncertainty: 0.2}},
		{name: "one disturbed pair widens the uncertainty, not the value", metric: "minflt", ms: pairs(100, "minflt", 400, 400, 600),
			want: &protocol.MetricCell{Name: "minflt", Value: 4, Uncertainty: 1}},
		{name: "a measured zero is a zero", metric: "syscr", ms: pairs(1000, "syscr", 0, 0, 0),
			want: &protocol.MetricCell{Name: "syscr", Value: 0}},
		{name: "small positive noise is below the noise, not a value", metric: "minflt", ms: pairs(3, "minflt", 0, 12, 3),
			wantWhy: "below the noise: -1 to 3 per iteration (the median of 3 pair differences ± half their range), which includes 0"},
		{name: "positive noise on a 1ns op's task-clock", metric: "task-clock", ms: pairs(100_000, "task-clock", 3e6, -1e6, 9e6),
			wantWhy: "below the noise: -20ns to 80ns per iteration (the median of 3 pair differences ± half their range), which includes 0"},
		{name: "negative noise", metric: "minflt", ms: pairs(10, "minflt", -5, 3, 1),
			wantWhy: "below the noise: -0.3 to 0.5 per iteration (the median of 3 pair differences ± half their range), which includes 0"},
		{name: "the longer runs counted less", metric: "syscr", ms: pairs(10, "syscr", -50, -40, -60),
			wantWhy: "below the noise: -6 to -4 per iteration (the median of 3 pair differences ± half their range): the longer runs counted less"},
		{name: "negative and all equal", metric: "syscr", ms: pairs(10, "syscr", -10, -10, -10),
			wantWhy: "below the noise: -1 per iteration (3 pair differences, all equal): the longer runs counted less"},
		{name: "the pass's own extra uncertainty counts too", metric: "task-clock", ms: pairs(10, "task-clock", 100, 100, 100), extra: 10,
			wantWhy: "below the noise: 0ns to 20ns per iteration"},
		{name: "a level is not divided and never below the noise", metric: "maxrss", ms: pairs(10, "maxrss", 3<<20, 2<<20, 3<<20),
			want: &protocol.MetricCell{Name: "maxrss", Value: 3 << 20, Uncertainty: 1 << 19}},
		{name: "unavailable in one measurement", metric: "minflt",
			ms:      append(pairs(10, "minflt", 10, 10), attributed{r: sources.Reading{Unavailable: map[string]string{"minflt": "getrusage: EFAULT"}}, iters: 10}),
			wantWhy: "getrusage: EFAULT"},
		{name: "missing from one measurement", metric: "minflt", ms: append(pairs(10, "minflt", 10), pairs(10, "syscr", 1)...),
			wantWhy: "the counter produced no value"},
		{name: "no measurement", metric: "minflt", wantWhy: "no counting run completed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cells, absences := countedCells([]string{tt.metric}, tt.ms, map[string]float64{tt.metric: tt.extra}, "pair differences")
			if tt.want != nil {
				require.Empty(t, absences)
				require.Len(t, cells, 1)
				assert.Equal(t, tt.want.Name, cells[0].Name)
				assert.InDelta(t, tt.want.Value, cells[0].Value, 1e-9)
				assert.InDelta(t, tt.want.Uncertainty, cells[0].Uncertainty, 1e-9)
				return
			}
			require.Empty(t, cells, "below the noise or unavailable is never a number")
			require.Len(t, absences, 1)
			assert.Equal(t, tt.metric, absences[0].Name)
			assert.True(t, strings.HasPrefix(absences[0].Reason, tt.wantWhy), "reason %q", absences[0].Reason)
		})
	}
}

func TestCountedCellsDerivedAndEstimated(t *testing.T) {
	estimated := reading(map[string]float64{"instructions": 2000, "cycles": 800})
	estimated.Estimated["cycles"] = true
	ms := []attributed{
		{r: sources.Derive(reading(map[string]float64{"instructions": 2000, "cycles": 1000})), iters: 100},
		{r: sources.Derive(estimated), iters: 100},
		{r: sources.Derive(reading(map[string]float64{"instructions": 2000, "cycles": 1000})), iters: 100},
	}
	cells, absences := countedCells([]string{"instructions", "ipc"}, ms, nil, "pair differences")
	require.Empty(t, absences)
	require.Len(t, cells, 2)
	assert.Equal(t, protocol.MetricCell{Name: "instructions", Value: 20}, cells[0])
	assert.Equal(t, "ipc", cells[1].Name)
	assert.Equal(t, 2.0, cells[1].Value, "the median of the pairs' own ratios")
	assert.Equal(t, 0.25, cells[1].Uncertainty)
	assert.True(t, cells[1].Estimated, "a ratio of an estimate is an estimate")

	// Cycles (not selected) below the noise: ipc is not reported either.
	ms[1].r = sources.Derive(reading(map[string]float64{"instructions": 2000, "cycles": -900}))
	ms[2].r = sources.Derive(reading(map[string]float64{"instructions": 2000, "cycles": -1000}))
	cells, absences = countedCells([]string{"instructions", "ipc"}, ms, nil, "pair differences")
	require.Len(t, cells, 1)
	require.Len(t, absences, 1)
	assert.Equal(t, "ipc", absences[0].Name)
	assert.True(t, strings.HasPrefix(absences[0].Reason, "its input cycles is not reported: below the noise: "), absences[0].Reason)
}

func TestDifference(t *testing.T) {
	first := reading(map[string]float64{"minflt": 10, "maxrss": 100, "task-clock": 5})
	second := reading(map[string]float64{"minflt": 14, "maxrss": 120})
	second.Unavailable["task-clock"] = "stopped"
	second.Estimated["minflt"] = true
	d := difference(first, second)
	assert.Equal(t, map[string]float64{"minflt": 4, "maxrss": 120}, d.Values, "totals subtract, levels keep the second")
	assert.Equal(t, map[string]string{"task-clock": "stopped"}, d.Unavailable)
	assert.True(t, d.Estimated["minflt"])
}

// iterCount counts iterations of the fixtures below, and iterCounter reads
// it as a counter would: what ran between Start and Stop.
var iterCount float64

type iterCounter struct{ at float64 }

func (c *iterCounter) Source() string         { return "fake" }
func (c *iterCounter) Report() sources.Report { return sources.Report{Source: "fake", Available: true} }
func (c *iterCounter) Metrics() []string      { return []string{"minflt"} }
func (c *iterCounter) Close() error           { return nil }
func (c *iterCounter) Start() error           { c.at = iterCount; return nil }
func (c *iterCounter) Stop() (sources.Reading, error) {
	return reading(map[string]float64{"minflt": iterCount - c.at}), nil
}

func init() {
	RegisterBenchmark("BenchmarkFixtureCountIters", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			iterCount++
		}
	})
	RegisterBenchmark("BenchmarkFixtureCountItersLoop", func(b *testing.B) {
		for b.Loop() {
			iterCount++
		}
	})
	RegisterBenchmark("BenchmarkFixtureCountItersSub", func(b *testing.B) {
		b.Run("leaf", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				iterCount++
			}
		})
	})
}

// A pair's difference covers exactly k iterations whatever testing does
// with its probe run at N=1 (run for a sub-benchmark, skipped by the
// worker's wrapper for a top-level leaf, folded into b.Loop), k = 1
// included: the short run has 2 iterations, never 1, where testing would
// skip its second run and the difference would count two iterations and a
// whole run's overhead (issue #9: task-clock/op twice the time/op).
func TestCountingCoversExactlyK(t *testing.T) {
	openCounters = func([]string, sources.Options) ([]sources.Counter, []sources.Absence) {
		return []sources.Counter{&iterCounter{}}, nil
	}
	defer func() { openCounters = sources.Open }()
	for _, name := range []string{"BenchmarkFixtureCountIters", "BenchmarkFixtureCountItersLoop", "BenchmarkFixtureCountItersSub/leaf"} {
		for _, pinned := range []int64{1, 2, 3, 0} {
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: name},
				Config: protocol.RequestConfig{Iterations: 1000, Samples: 1, PerfIters: pinned, Metrics: []string{"minflt"}}})
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1, "%s at --perf-iters=%d", name, pinned)
			if pinned == 0 {
				// A few microseconds timed: no pass fits in a quarter of it.
				assert.Empty(t, r[0].Metrics)
				require.Len(t, r[0].Absences, 1)
				assert.Contains(t, r[0].Absences[0].Reason, "not counted by default: a run of this benchmark costs ")
				assert.Zero(t, r[0].CountIterations)
				continue
			}
			assert.Equal(t, []protocol.MetricCell{{Name: "minflt", Value: 1}}, r[0].Metrics,
				"%s at --perf-iters=%d: every pair counted exactly k iterations", name, pinned)
			assert.Empty(t, r[0].Absences)
			assert.Equal(t, pinned, r[0].CountIterations)
			assert.Equal(t, fmt.Sprintf("median of 2 differences of runs at 2 and %d iterations", 2+pinned), r[0].CountMethod)
		}
	}
}
