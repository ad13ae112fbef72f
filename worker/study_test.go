package worker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

// TestStudyAblations: each ablation of the agreement study still measures
// the requested N exactly; the ramp runs the function as go test would
// first (more calls of its setup than the probe and the sample), and
// nocapture reads the result from the B.
func TestStudyAblations(t *testing.T) {
	for _, tc := range []struct {
		study    string
		minSetup int // calls of the setup: the probe and the sample, plus the ramp's
	}{
		{"", 2},
		{"nocapture", 2},
		{"ramp", 4}, // the ramp's probe, at least one predicted N, then the probe and the sample
	} {
		t.Run(tc.study, func(t *testing.T) {
			t.Setenv(StudyEnv, tc.study)
			setupRuns = 0
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureSetup"},
				Config: protocol.RequestConfig{Iterations: 1000, Samples: 1, MinSampleNs: 1e6}})
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1)
			require.Len(t, r[0].Samples, 1)
			assert.Equal(t, int64(1000), r[0].Samples[0].Iterations)
			assert.True(t, r[0].Samples[0].Exact)
			if tc.study == "" || tc.study == "nocapture" {
				assert.Equal(t, tc.minSetup, setupRuns)
			} else {
				assert.GreaterOrEqual(t, setupRuns, tc.minSetup)
			}
		})
	}
}
