package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

func i64(v int64) *int64 { return &v }

func f64(v float64) *float64 { return &v }

// coldWindow is one process's BenchmarkLoad/cold window.
func coldWindow(proc int, wall, user, kernel, runq, disk, other int64, readBytes float64, effective, note string) rundoc.Window {
	return rundoc.Window{Package: "m/load", Workload: "BenchmarkLoad", Name: "BenchmarkLoad/cold", Process: proc, Reps: 1,
		WallNs: wall, Scope: rundoc.ScopeThread, OnCPUUserNs: i64(user), OnCPUKernelNs: i64(kernel),
		OffCPURunqueueNs: i64(runq), OffCPUDiskNs: i64(disk), OffCPUOtherNs: i64(other), OtherThreadsCPUNs: i64(int64(proc) * 1000),
		Totals: map[string]float64{"tier0.read-bytes": readBytes, "tier0.syscr": 70},
		PSI:    &rundoc.WindowPSI{Scope: "system", IOSomeNs: disk + 10},
		Regime: &rundoc.WindowRegime{Requested: "cold", Effective: effective, ResidentBefore: 100, TotalBytes: 100},
		Note:   note}
}

func TestSummarizeWindows(t *testing.T) {
	const disk = "disk: the child's own cgroup io.pressure (some)"
	windows := []rundoc.Window{
		coldWindow(0, 300, 40, 60, 10, 150, 40, 4096, "cold", disk),
		{Package: "m/load", Workload: "BenchmarkLoad", Name: "BenchmarkLoad/warm", Process: 0, Reps: 1, WallNs: 50,
			Scope: rundoc.ScopeThread, OnCPUUserNs: i64(30), OnCPUKernelNs: i64(20), OffCPUOtherNs: i64(0), Note: disk + "; runqueue: unattributed (x)"},
		coldWindow(1, 320, 42, 58, 20, 160, 40, 4096, "cold", disk),
		{Package: "m/load", Workload: "BenchmarkLoad", Name: "BenchmarkLoad/warm", Process: 1, Reps: 1, WallNs: 70,
			Scope: rundoc.ScopeThread, OnCPUUserNs: i64(30), OnCPUKernelNs: i64(20), OffCPURunqueueNs: i64(1), OffCPUOtherNs: i64(19), Note: disk},
		coldWindow(2, 900, 41, 70, 15, 700, 74, 0, "partial", disk+"; perf-sw counters enabled over this window"),
		// Process 3 measured the cold window, then panicked.
		coldWindow(3, 310, 40, 60, 10, 150, 50, 4096, "cold", disk),
	}
	rows := []rundoc.Row{
		{Package: "m/load", Name: "BenchmarkLoad", Kind: rundoc.KindWorkload, Outcome: "benchmark-failure", Error: ptr("boom"),
			Processes: []rundoc.ProcessResult{
				{Index: 0, Outcome: rundoc.OutcomeOK}, {Index: 1, Outcome: rundoc.OutcomeOK}, {Index: 2, Outcome: rundoc.OutcomeOK},
				{Index: 3, Outcome: "benchmark-failure", Error: ptr("panic: boom")},
			}},
		{Package: "m/load", Name: "BenchmarkPlain", Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK},
	}
	before := windows[5]
	out, sums := analysis.SummarizeWindows(windows, rows)

	require.Len(t, out, len(windows), "every per-process window is kept")
	assert.Equal(t, before, windows[5], "the caller's windows are not modified")
	require.NotNil(t, out[5].Error)
	assert.Equal(t, "benchmark-failure: panic: boom", *out[5].Error, "a window of a process that failed after it says so")
	for _, w := range out[:5] {
		assert.Nil(t, w.Error)
		assert.Nil(t, w.Skipped)
	}

	require.Len(t, sums, 2, "one summary per window name, in order of first measurement")
	cold, warm := sums[0], sums[1]
	assert.Equal(t, "BenchmarkLoad/cold", cold.Name)
	assert.Equal(t, "BenchmarkLoad/warm", warm.Name)

	assert.Equal(t, 3, cold.Processes, "the failed process's window is not summarized")
	assert.Equal(t, 1, cold.Unmeasured)
	assert.Equal(t, rundoc.ScopeThread, cold.Scope)
	assert.Equal(t, &rundoc.WindowStat{Median: 320, Spread: f64(20), Min: 300, Max: 900}, cold.WallNs,
		"median and spread between processes; the slow process does not move them")
	assert.Equal(t, &rundoc.WindowStat{Median: 160, Spread: f64(10), Min: 150, Max: 700}, cold.OffCPUDiskNs)
	assert.Equal(t, 41.0, cold.OnCPUUserNs.Median)
	assert.Equal(t, 60.0, cold.OnCPUKernelNs.Median)
	assert.Equal(t, 15.0, cold.OffCPURunqueueNs.Median)
	assert.Equal(t, 40.0, cold.OffCPUOtherNs.Median)
	assert.Equal(t, 1000.0, cold.OtherThreadsCPUNs.Median)
	assert.Equal(t, 170.0, cold.IOStallNs.Median, "the system io stall, median")
	assert.Equal(t, map[string]*float64{"tier0.read-bytes": f64(4096), "tier0.syscr": f64(70)}, cold.Totals)
	assert.Equal(t, []rundoc.WindowRegimeCount{
		{Requested: "cold", Effective: "cold", Processes: []int{0, 1, 3}},
		{Requested: "cold", Effective: "partial", Processes: []int{2}},
	}, cold.Regimes)
	assert.Equal(t, disk+"; proc 2: perf-sw counters enabled over this window; proc 3 not summarized (error: benchmark-failure: panic: boom)", cold.Note)
	assert.Nil(t, cold.Error)

	assert.Equal(t, 2, warm.Processes)
	assert.Equal(t, &rundoc.WindowStat{Median: 60, Spread: f64(10), Min: 50, Max: 70}, warm.WallNs)
	assert.Nil(t, warm.OffCPURunqueueNs, "process 0 did not attribute it: no median of process 1 alone")
	assert.Nil(t, warm.OffCPUDiskNs)
	assert.Nil(t, warm.IOStallNs, "no PSI reading")
	assert.Equal(t, map[string]*float64{}, warm.Totals)
	assert.Empty(t, warm.Regimes)
	assert.Equal(t, disk+"; proc 0: runqueue: unattributed (x)", warm.Note)
}

func TestSummarizeWindowsEdges(t *testing.T) {
	t.Run("one process: no spread", func(t *testing.T) {
		w := coldWindow(0, 300, 40, 60, 10, 150, 40, 4096, "cold", "")
		w.Totals["perf-sw.task-clock"] = 5
		_, sums := analysis.SummarizeWindows([]rundoc.Window{w}, nil)
		require.Len(t, sums, 1)
		assert.Equal(t, &rundoc.WindowStat{Median: 300, Min: 300, Max: 300}, sums[0].WallNs)
		assert.Equal(t, f64(5), sums[0].Totals["perf-sw.task-clock"])
		assert.Empty(t, sums[0].Note)
	})
	t.Run("a total some processes lack is null", func(t *testing.T) {
		a := coldWindow(0, 300, 40, 60, 10, 150, 40, 4096, "cold", "")
		b := coldWindow(1, 300, 40, 60, 10, 150, 40, 4096, "cold", "")
		a.Totals["perf-sw.task-clock"] = 5
		_, sums := analysis.SummarizeWindows([]rundoc.Window{a, b}, nil)
		v, ok := sums[0].Totals["perf-sw.task-clock"]
		assert.True(t, ok)
		assert.Nil(t, v)
	})
	t.Run("mixed scopes: no component", func(t *testing.T) {
		a := coldWindow(0, 300, 40, 60, 10, 150, 40, 4096, "cold", "")
		b := coldWindow(1, 310, 40, 60, 10, 150, 40, 4096, "cold", "")
		b.Scope = rundoc.ScopeProcess
		_, sums := analysis.SummarizeWindows([]rundoc.Window{a, b}, nil)
		assert.Equal(t, rundoc.ScopeMixed, sums[0].Scope)
		assert.Equal(t, 305.0, sums[0].WallNs.Median)
		assert.Nil(t, sums[0].OnCPUUserNs)
		assert.NotNil(t, sums[0].OtherThreadsCPUNs, "other threads' CPU is process-wide in either scope")
	})
	t.Run("no process measured it", func(t *testing.T) {
		w := coldWindow(0, 300, 40, 60, 10, 150, 40, 4096, "cold", "disk: x")
		rows := []rundoc.Row{{Package: "m/load", Name: "BenchmarkLoad", Kind: rundoc.KindWorkload, Outcome: rundoc.OutcomeSkipped,
			Processes: []rundoc.ProcessResult{{Index: 0, Outcome: rundoc.OutcomeSkipped, Error: ptr("no corpus")}}}}
		out, sums := analysis.SummarizeWindows([]rundoc.Window{w}, rows)
		assert.Equal(t, ptr("no corpus"), out[0].Skipped)
		require.Len(t, sums, 1)
		s := sums[0]
		assert.Equal(t, 0, s.Processes)
		assert.Equal(t, 1, s.Unmeasured)
		assert.Nil(t, s.WallNs, "no numbers without a measured window")
		assert.Equal(t, ptr("no corpus"), s.Skipped)
		assert.Equal(t, "disk: x", s.Note)
		assert.Len(t, s.Regimes, 1, "the stamp predates the window and is kept")
	})
}

func ptr[T any](v T) *T { return &v }
