package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummarizeWindow(t *testing.T) {
	// Three processes of one cold-read window. The third was slow: its
	// wall and disk wait are outliers the medians do not follow.
	ps := []WindowValues{
		{Wall: 300, User: i64(40), Kernel: i64(60), Runqueue: i64(10), Disk: i64(150), Other: i64(40),
			OtherThreads: i64(5), IOStall: i64(170), Totals: map[string]float64{"tier0.read-bytes": 4096, "tier0.syscr": 70, "perf-sw.task-clock": 100}},
		{Wall: 320, User: i64(42), Kernel: i64(58), Runqueue: i64(20), Disk: i64(160), Other: i64(40),
			OtherThreads: i64(7), IOStall: i64(190), Totals: map[string]float64{"tier0.read-bytes": 4096, "tier0.syscr": 72}},
		{Wall: 900, User: i64(41), Kernel: i64(70), Runqueue: i64(15), Disk: i64(700), Other: i64(74),
			OtherThreads: i64(6), IOStall: i64(720), Totals: map[string]float64{"tier0.read-bytes": 4096, "tier0.syscr": 71}},
	}
	in := cloneValues(ps)
	a, ok := SummarizeWindow(ps)
	require.True(t, ok)
	assert.Equal(t, in, ps, "the input is not modified")
	assert.Equal(t, 3, a.Processes)
	assert.Equal(t, Stats{N: 3, Median: 320, MAD: 20, Min: 300, Max: 900}, a.Wall, "the median and the spread between processes ignore the slow one")
	require.NotNil(t, a.Disk)
	assert.Equal(t, Stats{N: 3, Median: 160, MAD: 10, Min: 150, Max: 700}, *a.Disk)
	assert.Equal(t, Stats{N: 3, Median: 41, MAD: 1, Min: 40, Max: 42}, *a.User)
	assert.Equal(t, Stats{N: 3, Median: 60, MAD: 2, Min: 58, Max: 70}, *a.Kernel)
	assert.Equal(t, 15.0, a.Runqueue.Median)
	assert.Equal(t, 40.0, a.Other.Median)
	assert.Equal(t, 6.0, a.OtherThreads.Median)
	assert.Equal(t, 190.0, a.IOStall.Median)
	// Medians taken separately need not add up to the median wall:
	// 41+60+15+160+40 = 316, not 320.
	assert.NotEqual(t, a.Wall.Median, a.User.Median+a.Kernel.Median+a.Runqueue.Median+a.Disk.Median+a.Other.Median)

	assert.Equal(t, map[string]Stats{
		"tier0.read-bytes": {N: 3, Median: 4096, MAD: 0, Min: 4096, Max: 4096},
		"tier0.syscr":      {N: 3, Median: 71, MAD: 1, Min: 70, Max: 72},
	}, a.Totals)
	assert.Equal(t, []string{"perf-sw.task-clock"}, a.Partial, "a total only some processes have is named, not summarized")
}

func TestSummarizeWindowUnattributed(t *testing.T) {
	ps := []WindowValues{
		{Wall: 100, User: i64(50), Kernel: i64(10), Runqueue: i64(0), Other: i64(40)},
		{Wall: 110, User: i64(52), Kernel: i64(11), Other: i64(47)}, // schedstat unreadable here
	}
	a, ok := SummarizeWindow(ps)
	require.True(t, ok)
	assert.Equal(t, Stats{N: 2, Median: 105, MAD: 5, Min: 100, Max: 110}, a.Wall)
	assert.Nil(t, a.Runqueue, "one process did not attribute it: no median over the other alone")
	assert.Nil(t, a.Disk, "no process attributed it")
	assert.Nil(t, a.IOStall)
	require.NotNil(t, a.User)
	assert.Equal(t, 51.0, a.User.Median)
	assert.Empty(t, a.Totals)
	assert.Empty(t, a.Partial)
}

func TestSummarizeWindowOneProcess(t *testing.T) {
	a, ok := SummarizeWindow([]WindowValues{{Wall: 7, User: i64(7)}})
	require.True(t, ok)
	assert.Equal(t, Stats{N: 1, Median: 7, Min: 7, Max: 7}, a.Wall, "MAD 0: callers report no spread for one process")
}

func TestSummarizeWindowRefuses(t *testing.T) {
	_, ok := SummarizeWindow(nil)
	assert.False(t, ok, "no process measured it")
	_, ok = SummarizeWindow([]WindowValues{{Wall: 1, Totals: map[string]float64{"x": math.NaN()}}})
	assert.False(t, ok, "a non-finite total is not summarized")
}

func cloneValues(ps []WindowValues) []WindowValues {
	out := make([]WindowValues, len(ps))
	for i, p := range ps {
		q := p
		q.Totals = map[string]float64{}
		for k, v := range p.Totals {
			q.Totals[k] = v
		}
		out[i] = q
	}
	return out
}
