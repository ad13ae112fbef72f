package supervisor

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// TestDroppedExtraNoted: custom metrics a process's samples left out,
// beyond the protocol's bound, are one note on the row, naming them.
func TestDroppedExtraNoted(t *testing.T) {
	funcs := []string{"BenchmarkPercentiles", "BenchmarkOne", "BenchmarkFew", "BenchmarkFrame"}
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode == protocol.ModeDiscover {
			i, fn := function(t, funcs, req)
			return []protocol.Message{progress(protocol.PhaseDiscovery, int64(i), 4), leaves(fn), calibrated(fn, 10)}, sandbox.ClassSuccess
		}
		r := result(req, 5)
		switch req.Identity.Name {
		case "BenchmarkPercentiles":
			r.ExtraDropped, r.ExtraDroppedUnits = 44, []string{"p256-ns", "p257-ns"}
		case "BenchmarkOne":
			r.ExtraDropped, r.ExtraDroppedUnits = 1, []string{"zz/op"}
		}
		for i := range r.Samples {
			for u := range protocol.MaxExtraPerSample {
				if r.ExtraDropped > 0 {
					r.Samples[i].Extra = append(r.Samples[i].Extra, protocol.Metric{Unit: fmt.Sprint("u", u), Value: 1})
				}
			}
		}
		if req.Identity.Name == "BenchmarkFrame" {
			// Kept fewer, to fit one frame.
			r.Samples[0].Extra = []protocol.Metric{{Unit: "a", Value: 1}, {Unit: "b", Value: 2}}
			r.ExtraDropped, r.ExtraDroppedUnits = 254, []string{"c"}
		}
		return []protocol.Message{r}, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2}, sc)
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", funcs, nil)}, nil)
	got := rowsByName(rows)
	assert.Equal(t, rundoc.OutcomeOK, got["BenchmarkPercentiles"].Outcome)
	assert.Equal(t, []string{"44 custom metrics (b.ReportMetric units) beyond the bound of 256 per sample were dropped: p256-ns, p257-ns and 42 more"},
		got["BenchmarkPercentiles"].Notes, "once for both processes")
	assert.Equal(t, []string{"1 custom metric (b.ReportMetric units) beyond the bound of 256 per sample was dropped: zz/op"}, got["BenchmarkOne"].Notes)
	assert.Empty(t, got["BenchmarkFew"].Notes)
	assert.Equal(t, []string{"254 custom metrics (b.ReportMetric units) were dropped, beyond the 2 per sample that one result of 1 samples carries: c and 253 more"},
		got["BenchmarkFrame"].Notes)
}
