package supervisor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
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
