package protocol

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInterferenceValidate(t *testing.T) {
	tests := []struct {
		name    string
		w       Interference
		wantErr string
	}{
		{"observe", Interference{Response: ResponseObserve, MaxForeign: 0.1}, ""},
		{"pause with cpus", Interference{Response: ResponsePause, MaxForeign: 1, MaxRetakes: 25, SettleNs: 1, PauseMaxNs: 1, CPUs: []int{0, 1}}, ""},
		{"unknown response", Interference{Response: "ignore"}, `response: unknown "ignore"`},
		{"share above one", Interference{Response: ResponseRetake, MaxForeign: 1.5}, "not a share"},
		{"negative share", Interference{Response: ResponseRetake, MaxForeign: -0.1}, "not a share"},
		{"NaN share", Interference{Response: ResponseRetake, MaxForeign: math.NaN()}, "maxForeign"},
		{"negative budget", Interference{Response: ResponseRetake, MaxRetakes: -1}, "maxRetakes"},
		{"budget past a frame", Interference{Response: ResponseRetake, MaxRetakes: MaxSamplesPerFrame + 1}, "maxRetakes"},
		{"negative cpu", Interference{Response: ResponseRetake, CPUs: []int{-1}}, "negative CPU"},
		{"negative pause", Interference{Response: ResponsePause, PauseMaxNs: -1}, "pauseMaxNs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Request{Mode: ModeBenchmark, Config: RequestConfig{Interference: &tt.w}}.Validate()
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "config.interference")
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestWatchRoundTrip(t *testing.T) {
	in := Result{Identity: Identity{Package: "p", Name: "BenchmarkX"}, Samples: []Sample{{Iterations: 3, ElapsedNs: 9,
		Watch: &Watch{HostBusyTicks: 12, TickNs: 1e7, OwnCPUNs: 5, WallNs: 6, CPUs: 2, Disturbed: true}}},
		Retaken:      []Sample{{Iterations: 3, ElapsedNs: 11, Watch: &Watch{CPUs: 2}}},
		Interference: &InterferenceOutcome{Pauses: 1, PausedNs: 7, BudgetExhausted: true, Problem: "p"}}
	frame, err := AppendFrame(nil, in)
	require.NoError(t, err)
	out, err := DecodePayload(frame[4:])
	require.NoError(t, err)
	assert.Equal(t, in, out)

	bad := in
	bad.Retaken = []Sample{{Iterations: 0}}
	frame, err = AppendFrame(nil, bad)
	if err == nil {
		_, err = DecodePayload(frame[4:])
	}
	require.Error(t, err, "a retaken sample is validated as a kept one")
	assert.Contains(t, err.Error(), "retaken[0]")
}
