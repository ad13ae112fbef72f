package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

var (
	setupRuns int   // BenchmarkFixtureSetup's setup, per call of the function
	halfSink  []int // BenchmarkFixtureHalfAlloc's allocations escape here
)

func init() {
	RegisterBenchmark("BenchmarkFixtureSetup", func(b *testing.B) {
		setupRuns++ // an expensive setup before ResetTimer
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
		}
	})
	RegisterBenchmark("BenchmarkFixtureHalfAlloc", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if i%2 == 0 {
				halfSink = make([]int, 4)
			}
		}
	})
	RegisterBenchmark("BenchmarkFixtureNoTime", func(b *testing.B) {
		b.Run("zeroed", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
			}
			b.ReportMetric(0, "ns/op") // replaces the time testing prints
		})
	})
}

// TestSetupOncePerSample: with SkipProbe (an expensive setup), testing's
// probe run at N=1 is skipped for a leaf, so the setup of a top-level
// benchmark runs once per sample, and once per process with the default
// single sample; without it the probe runs first, as under go test.
func TestSetupOncePerSample(t *testing.T) {
	for _, samples := range []int{1, 3} {
		for _, skip := range []bool{true, false} {
			setupRuns = 0
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureSetup"},
				Config: protocol.RequestConfig{Iterations: 1000, Samples: samples, SkipProbe: skip}})
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1)
			require.Len(t, r[0].Samples, samples)
			want := samples
			if !skip {
				want = 2 * samples // the probe, then the sample
			}
			assert.Equal(t, want, setupRuns, "samples %d, skip probe %v", samples, skip)
		}
	}
	t.Run("N = 1: the probe run is the sample", func(t *testing.T) {
		setupRuns = 0
		msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureSetup"},
			Config: protocol.RequestConfig{Iterations: 1, Samples: 1}})
		require.Len(t, only[protocol.Result](msgs), 1)
		assert.Equal(t, 1, setupRuns)
	})
}

// TestExactTotals: the totals of a top-level leaf are read from B, so a
// fractional allocs/op survives (testing prints 0 allocs/op for 0.5).
func TestExactTotals(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureHalfAlloc"},
		Config: protocol.RequestConfig{Iterations: 1000, Samples: 2}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	for _, s := range r[0].Samples {
		assert.True(t, s.Exact)
		assert.Equal(t, int64(1000), s.Iterations)
		require.NotNil(t, s.Allocs)
		// One allocation every other iteration: 0.5 allocs/op, which the
		// printed line truncates to 0. The runtime's counters are
		// process-wide, so the test's own goroutines (the supervisor side
		// of the pipe) may add a few.
		assert.GreaterOrEqual(t, *s.Allocs, uint64(500))
		assert.Less(t, *s.Allocs, uint64(550))
		assert.GreaterOrEqual(t, *s.AllocBytes, uint64(500*32))
	}
	t.Run("a sub-benchmark leaf has only the printed line", func(t *testing.T) {
		msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureTable/n=x"},
			Config: protocol.RequestConfig{Iterations: 100, Samples: 1}})
		r := only[protocol.Result](msgs)
		require.Len(t, r, 1)
		assert.False(t, r[0].Samples[0].Exact)
	})
}

// TestDiscoveryCalibrates: with a sample target, discovery lists every
// benchmark leaf with one N for all its processes and the runs it was
// chosen from; a leaf that reports no time is listed with the reason.
func TestDiscoveryCalibrates(t *testing.T) {
	target := 2 * time.Millisecond
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover,
		Config: protocol.RequestConfig{Bench: "FixtureSetup|FixtureTable|FixtureNoTime|FixtureSkip$", MinSampleNs: int64(target)}})
	listed := map[string]protocol.Listed{}
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			listed[id.Name] = id
		}
	}
	for _, name := range []string{"BenchmarkFixtureSetup", "BenchmarkFixtureTable/n=x", "BenchmarkFixtureTable/n=xxxxxxxxxx"} {
		l, ok := listed[name]
		require.True(t, ok, name)
		assert.Positive(t, l.Iterations, name)
		assert.GreaterOrEqual(t, len(l.Calibration), confirmRuns, name)
		assert.Empty(t, l.Problem, name)
	}
	assert.True(t, listed["BenchmarkFixtureSetup"].Calibration[0].Exact)
	assert.Positive(t, listed["BenchmarkFixtureSetup"].SetupNs, "what a call spends outside its timer is measured")
	noTime := listed["BenchmarkFixtureNoTime/zeroed"]
	assert.Zero(t, noTime.Iterations)
	assert.Contains(t, noTime.Problem, "reports no elapsed time")
	assert.Contains(t, listed["BenchmarkFixtureSkip"].Skipped, "fixture skips")
}
