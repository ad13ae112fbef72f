package supervisor

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sandbox"
)

// TestLongNameNotesAndUnmeasured: a leaf listed by its short name is
// requested with its full name and reported by it; what the worker logs
// about a process becomes the row's note; a metric without a value is an
// absence with the worker's reason, never a zero.
func TestLongNameNotesAndUnmeasured(t *testing.T) {
	full := "BenchmarkA/" + strings.Repeat("x", 5000)
	short := protocol.ShortName(full)
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode == protocol.ModeDiscover {
			return []protocol.Message{progress(protocol.PhaseDiscovery, 0, 1),
				protocol.Listing{Identities: []protocol.Listed{{Name: short, FullName: full, Kind: protocol.ListedBenchmark}}},
				progress(protocol.PhaseCalibration, 0, 1),
				protocol.Listing{Identities: []protocol.Listed{{Name: short, FullName: full, Kind: protocol.ListedBenchmark, Iterations: 10,
					Calibration: []protocol.Sample{{Iterations: 10, ElapsedNs: 1000}}}}}}, sandbox.ClassSuccess
		}
		assert.Equal(t, short, req.Identity.Name, "the wire carries the bounded name")
		assert.Equal(t, full, req.FullName, "and the name to run")
		r := result(req, 100)
		r.Samples[0].Extra = []protocol.Metric{{Unit: "ratio", Unmeasured: "the benchmark reported NaN (b.ReportMetric)"}, {Unit: "widgets/op", Value: 2}}
		return []protocol.Message{protocol.Log{Text: "held stdout"}, r}, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2}, sc)
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkA"}, nil)}, nil)
	require.Len(t, rows, 1)
	row := rows[0]
	assert.Equal(t, full, row.Name)
	assert.Equal(t, []string{"held stdout"}, row.Notes, "said once for the row")
	require.NotNil(t, row.Summary)
	v, ok := row.Summary.Metrics["ratio"]
	assert.True(t, ok, "the unit is a column")
	assert.Nil(t, v, "with no value")
	require.NotNil(t, row.Summary.Metrics["widgets/op"])
	assert.Equal(t, 2.0, *row.Summary.Metrics["widgets/op"])
	require.Len(t, row.Absences, 1)
	assert.Equal(t, "ratio", row.Absences[0].Metric)
	assert.Contains(t, row.Absences[0].Reason, "NaN")
	for _, p := range row.Processes {
		for _, s := range p.Samples {
			_, has := s.Extra["ratio"]
			assert.False(t, has, "no number stands for NaN")
		}
	}
}
