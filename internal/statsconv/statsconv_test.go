package statsconv

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/stats"
)

// The document's types must encode exactly as internal/stats' did, field
// for field, or documents would change.
func TestSameJSON(t *testing.T) {
	b, a, f := uint64(96), uint64(2), 0.25
	tests := []struct {
		name string
		s    stats.Sample
	}{
		{"bare", stats.Sample{Iterations: 10, ElapsedNs: 1234}},
		{"every field", stats.Sample{Iterations: 10, ElapsedNs: 1234, AllocBytes: &b, Allocs: &a,
			Extra: map[string]float64{"MB/s": 3}, Exact: true, Short: true, Foreign: &f, Disturbed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal([]stats.Sample{tt.s})
			require.NoError(t, err)
			got, err := json.Marshal(DocSamples([]stats.Sample{tt.s}))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
			assert.Equal(t, []stats.Sample{tt.s}, Samples(DocSamples([]stats.Sample{tt.s})))
		})
	}
	st := stats.Stats{N: 3, Median: 2, MAD: 1, Min: 1, Max: 3}
	want, _ := json.Marshal(st)
	got, _ := json.Marshal(DocStats(st))
	assert.Equal(t, string(want), string(got))
	assert.Equal(t, st, Stats(DocStats(st)))
	assert.Nil(t, Samples(nil))
	assert.Nil(t, DocSamples(nil))
}
