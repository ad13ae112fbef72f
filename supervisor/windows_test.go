package supervisor

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
)

func i64(v int64) *int64 { return &v }

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

func TestFinishWindows(t *testing.T) {
	s := &supervisor{cfg: Config{WindowMetrics: []string{"minflt", "task-clock"}}}
	doc := &rundoc.Document{}
	s.finishWindows(doc, nil)
	assert.Nil(t, doc.WindowSummaries)
	assert.Nil(t, doc.Meta.Knobs.WindowMetrics, "no workload ran: the knob is absent")

	doc.Windows = []rundoc.Window{coldWindow(0, 300, 40, 60, 10, 150, 40, 4096, "cold", "")}
	s.finishWindows(doc, nil)
	assert.Len(t, doc.WindowSummaries, 1)
	assert.Equal(t, []string{"minflt", "task-clock"}, doc.Meta.Knobs.WindowMetrics)
}
