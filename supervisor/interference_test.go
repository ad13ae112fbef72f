package supervisor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

func TestInterferenceConfig(t *testing.T) {
	assert.Nil(t, InterferenceConfig{Off: true}.request(nil))
	assert.Nil(t, InterferenceConfig{Off: true}.Policy())

	req := InterferenceConfig{}.request([]int{1})
	require.NotNil(t, req, "the zero value watches")
	assert.Equal(t, protocol.Interference{Response: protocol.ResponseObserve, MaxForeign: DefaultMaxForeign, MaxRetakes: DefaultMaxRetakes,
		SettleNs: int64(DefaultSettle), PauseMaxNs: int64(DefaultPauseMax), CPUs: []int{1}}, *req)
	p := InterferenceConfig{}.Policy()
	assert.Equal(t, protocol.ResponseObserve, p.Response)
	assert.Zero(t, p.PauseMaxNs, "pause settings are recorded only for pause")
	assert.NotEmpty(t, p.Scope)
	p = InterferenceConfig{Response: protocol.ResponsePause, PauseMax: time.Second}.Policy()
	assert.Equal(t, int64(time.Second), p.PauseMaxNs)
	assert.Equal(t, int64(DefaultSettle), p.SettleNs)

	for _, bad := range []InterferenceConfig{{Response: "ignore"}, {MaxForeign: 1.5}, {MaxForeign: -0.1}, {MaxRetakes: -1}, {PauseMax: -time.Second}} {
		err := bad.Validate()
		assert.ErrorIs(t, err, ErrInterferenceConfig, "%+v", bad)
	}
	assert.NoError(t, InterferenceConfig{Response: protocol.ResponseRetake, MaxForeign: 0.2, MaxRetakes: 3}.Validate())
	assert.NoError(t, InterferenceConfig{Off: true, Response: "ignored when off"}.Validate())
}

func TestProcessInterference(t *testing.T) {
	quiet := &protocol.Watch{HostBusyTicks: 10, TickNs: 1e7, OwnCPUNs: 1e8, WallNs: 1e8, CPUs: 2}
	loud := &protocol.Watch{HostBusyTicks: 20, TickNs: 1e7, OwnCPUNs: 1e8, WallNs: 1e8, CPUs: 2, Disturbed: true}
	short := &protocol.Watch{HostBusyTicks: 1, TickNs: 1e7, OwnCPUNs: 1e7, WallNs: 1e7, CPUs: 2}

	in, retaken := processInterference(&protocol.Result{Samples: []protocol.Sample{{Iterations: 1}}})
	assert.Nil(t, in, "no watch: nothing recorded")
	assert.Nil(t, retaken)

	res := &protocol.Result{
		Samples: []protocol.Sample{{Iterations: 1, ElapsedNs: 1e8, Watch: quiet}, {Iterations: 1, ElapsedNs: 1e8, Watch: loud},
			{Iterations: 1, ElapsedNs: 1e7, Watch: short}},
		Retaken:      []protocol.Sample{{Iterations: 1, ElapsedNs: 2e8, Watch: loud}},
		Interference: &protocol.InterferenceOutcome{Pauses: 1, PausedNs: 3e8, BudgetExhausted: true},
	}
	in, retaken = processInterference(res)
	require.NotNil(t, in)
	assert.Equal(t, 4, in.Samples)
	assert.Equal(t, 2, in.Disturbed, "the kept loud sample and the retaken one")
	assert.Equal(t, 1, in.Retakes)
	assert.Equal(t, 1, in.TooShort)
	assert.True(t, in.BudgetExhausted)
	require.NotNil(t, in.MaxForeign)
	assert.InDelta(t, 0.5, *in.MaxForeign, 1e-9)
	require.Len(t, retaken, 1)
	assert.True(t, retaken[0].Disturbed)
	require.NotNil(t, retaken[0].Foreign)
	assert.InDelta(t, 0.5, *retaken[0].Foreign, 1e-9)

	kept := samples(res.Samples)
	watched(kept, res.Samples)
	assert.False(t, kept[0].Disturbed)
	assert.True(t, kept[1].Disturbed)
	assert.Nil(t, kept[2].Foreign, "a window too short to tell has no share, never 0")
}

// TestInterferenceRows: benchmark requests carry the policy (and the
// placed CPUs, which the document names), discovery requests do not; a child's retakes reach its
// process and the row, with a notes line, and stay out of the summary.
func TestInterferenceRows(t *testing.T) {
	loud := &protocol.Watch{HostBusyTicks: 20, TickNs: 1e7, OwnCPUNs: 1e8, WallNs: 1e8, CPUs: 2, Disturbed: true}
	quiet := &protocol.Watch{HostBusyTicks: 10, TickNs: 1e7, OwnCPUNs: 1e8, WallNs: 1e8, CPUs: 2}
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode == protocol.ModeDiscover {
			return []protocol.Message{progress(protocol.PhaseDiscovery, 0, 1), leaves("BenchmarkX"), calibrated("BenchmarkX", 10)}, sandbox.ClassSuccess
		}
		res := result(req, 5)
		res.Samples[0].Watch = quiet
		res.Interference = &protocol.InterferenceOutcome{}
		if req.Repetition == 1 {
			res.Retaken = []protocol.Sample{{Iterations: 10, ElapsedNs: 5000, Exact: true, Watch: loud}}
		}
		return []protocol.Message{res}, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2, CPUs: []int{1},
		Interference: InterferenceConfig{Response: protocol.ResponseRetake, MaxRetakes: 3}}, sc)
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkX"}, nil)}, nil)
	for _, req := range sc.requests {
		if req.Mode == protocol.ModeDiscover {
			assert.Nil(t, req.Config.Interference, "discovery is not watched")
			continue
		}
		require.NotNil(t, req.Config.Interference)
		assert.Equal(t, protocol.ResponseRetake, req.Config.Interference.Response)
		assert.Equal(t, 3, req.Config.Interference.MaxRetakes)
		assert.Equal(t, []int{1}, req.Config.Interference.CPUs, "the placed CPUs are the watched ones")
	}
	if m := s.meta(nil); assert.NotNil(t, m.Interference) {
		assert.Equal(t, "1", m.Interference.CPUs, "the document names the watched CPUs")
	}
	require.Len(t, rows, 1)
	r := rows[0]
	require.NotNil(t, r.Interference)
	assert.Equal(t, rundoc.RowInterference{Samples: 3, Disturbed: 1, Retakes: 1, MaxForeign: r.Interference.MaxForeign}, *r.Interference)
	require.Len(t, r.Processes, 2)
	assert.Empty(t, r.Processes[0].Retaken)
	assert.Len(t, r.Processes[1].Retaken, 1)
	require.NotNil(t, r.Summary)
	assert.Equal(t, 2, r.Summary.Samples, "a retaken sample is in no statistic")
	var note string
	for _, n := range r.Notes {
		if strings.HasPrefix(n, "interference: ") {
			note = n
		}
	}
	assert.Equal(t, "interference: 1 of 3 samples disturbed (max 50% foreign CPU), 1 retaken", note)
}
