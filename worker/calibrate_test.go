package worker

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

func TestNextN(t *testing.T) {
	tests := []struct {
		name                string
		goal, lastN, lastNs int64
		want                int64
	}{
		{"aims 20% past the goal", 1000, 10, 100, 120},
		{"grows at most 100-fold", 1_000_000, 1, 10, 100},
		{"grows at least by one", 100, 5, 1000, 6},
		{"a run that took no time grows 100-fold", 1000, 3, 0, 300},
		{"never beyond testing's cap", 1 << 40, 1e8, 1, maxIterations},
		{"no overflow on a huge goal", 1 << 62, 1 << 20, 1, 100 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, nextN(tt.goal, tt.lastN, tt.lastNs))
		})
	}
}

func TestFitTwo(t *testing.T) {
	run := func(n, ns int64) protocol.Sample { return protocol.Sample{Iterations: n, ElapsedNs: ns} }
	tests := []struct {
		name string
		a, b protocol.Sample
		want fit
		ok   bool
	}{
		{"proportional: no fixed part", run(100, 1000), run(200, 2000), fit{}, false},
		{"a fixed part of half the shorter run", run(100, 1000), run(200, 1500), fit{fixedNs: 500, perIterNs: 5}, true},
		{"in either order", run(200, 1500), run(100, 1000), fit{fixedNs: 500, perIterNs: 5}, true},
		{"a small fixed part is noise, not fitted", run(100, 1000), run(200, 1800), fit{}, false},
		{"Ns too close to tell a fixed part from noise", run(100, 1000), run(120, 1100), fit{}, false},
		{"slower per iteration at more iterations is no fit", run(100, 1000), run(200, 900), fit{}, false},
		{"the same N is no fit", run(100, 1000), run(100, 1500), fit{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := fitTwo(tt.a, tt.b)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNextCandidate(t *testing.T) {
	run := func(n, ns int64) protocol.Sample { return protocol.Sample{Iterations: n, ElapsedNs: ns} }
	assert.Equal(t, int64(200), nextCandidate(1000, []protocol.Sample{run(100, 500)}), "one run: the ratio")
	assert.Equal(t, int64(400), nextCandidate(1000, []protocol.Sample{run(100, 400), run(200, 600)}), "two: the secant through them")
	assert.Equal(t, int64(100*7), nextCandidate(1e12, []protocol.Sample{run(7, 10)}), "at most 100-fold")
	assert.Equal(t, int64(1), nextCandidate(10, []protocol.Sample{run(3, 1000)}), "at least one")
	assert.Equal(t, int64(100), nextCandidate(500, []protocol.Sample{run(100, 900), run(200, 1000)}), "a secant below one iteration: the ratio")
	assert.Equal(t, int64(50), nextCandidate(1000, []protocol.Sample{run(300, 1000), run(100, 2000)}), "the larger N faster: the ratio")
}

func TestWithFixedCost(t *testing.T) {
	tests := []struct {
		name        string
		target      int64
		f           fit
		n, sampleNs int64
	}{
		{"a twentieth of the target: the target", 200e6, fit{fixedNs: 10e6, perIterNs: 1e6}, 190, 200e6},
		{"larger: go test's 1 s run", 200e6, fit{fixedNs: 40e6, perIterNs: 3e6}, 320, maxSampleNs},
		{"just over a twentieth: go test's 1 s run too", 200e6, fit{fixedNs: 11e6, perIterNs: 1e6}, 989, maxSampleNs},
		{"a target longer than 1 s is kept", 2e9, fit{fixedNs: 200e6, perIterNs: 1e6}, 1800, 2e9},
		{"a short target: five times it", 1e6, fit{fixedNs: 100e3, perIterNs: 1e3}, 4900, 5e6},
		{"a short target: twenty times a larger fixed part", 1e6, fit{fixedNs: 500e3, perIterNs: 1e3}, 9500, 10e6},
		{"at most maxSampleNs", 200e6, fit{fixedNs: 5e8, perIterNs: 1e6}, 500, maxSampleNs},
		{"at least one iteration", 200e6, fit{fixedNs: 1.9e9, perIterNs: 1e9}, 1, maxSampleNs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, sample := withFixedCost(tt.target, tt.f)
			assert.Equal(t, tt.n, n)
			assert.Equal(t, tt.sampleNs, sample)
		})
	}
}

func TestChooseN(t *testing.T) {
	run := func(n, ns int64) protocol.Sample { return protocol.Sample{Iterations: n, ElapsedNs: ns} }
	tests := []struct {
		name   string
		target int64
		runs   []protocol.Sample
		want   int64
		err    bool
	}{
		{"median of three resists one disturbed run", 1_000_000, []protocol.Sample{run(100, 10_000), run(100, 50_000), run(100, 11_000)}, 9091, false},
		{"even count: mean of the middle two", 1000, []protocol.Sample{run(10, 100), run(10, 300)}, 50, false},
		{"slower than the target: one iteration", 1000, []protocol.Sample{run(1, 5000)}, 1, false},
		{"faster than testing's cap allows", 1 << 40, []protocol.Sample{run(1000, 1)}, maxIterations, false},
		{"no time at all", 1000, []protocol.Sample{run(5000, 0), run(5000, 0), run(5000, 0)}, 0, true},
		{"no runs", 1000, nil, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chooseN(tt.target, tt.runs)
			if tt.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// fakeRuns is a benchmark whose iteration costs perOp nanoseconds, with the
// runs it was asked for recorded.
type fakeRuns struct {
	perOp float64
	asked []int64
}

func (f *fakeRuns) run(n int64) (*protocol.Sample, error) {
	f.asked = append(f.asked, n)
	return &protocol.Sample{Iterations: n, ElapsedNs: int64(float64(n) * f.perOp)}, nil
}

// replay is a recorded calibration: the runs of one iteration took ones,
// in order; a run of any other N took times[N].
func replay(t *testing.T, ones []int64, times map[int64]int64) func(n int64) (*protocol.Sample, error) {
	return func(n int64) (*protocol.Sample, error) {
		ns, ok := times[n]
		switch {
		case ok:
		case n == 1 && len(ones) > 0:
			ns, ones = ones[0], ones[1:]
		default:
			t.Fatalf("run(%d) beyond the recorded runs", n)
		}
		return &protocol.Sample{Iterations: n, ElapsedNs: ns}, nil
	}
}

func TestCalibrate(t *testing.T) {
	t.Run("ramps to a sixteenth, confirms three times, checks with one whole sample", func(t *testing.T) {
		f := &fakeRuns{perOp: 10}
		n, runs, err := calibrate(200_000_000, f.run)
		require.NoError(t, err)
		assert.Equal(t, int64(20_000_000), n)
		assert.Len(t, runs, len(f.asked))
		k := len(f.asked)
		ramp := f.asked[k-2]
		assert.Equal(t, []int64{ramp, ramp, ramp, n}, f.asked[k-4:], "three runs at the final ramp N, one at N")
		assert.GreaterOrEqual(t, float64(ramp)*f.perOp, float64(rampGoal(200_000_000)))
		var spent float64
		for _, n := range f.asked[:k-1] {
			spent += float64(n) * f.perOp
		}
		assert.Less(t, spent, 0.4*200_000_000, "ramping and confirming cost well under half a sample; the check one sample")
	})
	t.Run("a large fixed cost per run lengthens the sample", func(t *testing.T) {
		// 60 ms once per run (pools re-created after testing's forced GC),
		// then 3 ms per iteration.
		run := func(n int64) (*protocol.Sample, error) {
			return &protocol.Sample{Iterations: n, ElapsedNs: 60_000_000 + 3_000_000*n}, nil
		}
		c, err := calibrateFull(200_000_000, run)
		require.NoError(t, err)
		require.NotNil(t, c.fixed)
		assert.InDelta(t, 60e6, c.fixed.fixedNs, 1)
		assert.InDelta(t, 3e6, c.fixed.perIterNs, 1)
		assert.Equal(t, int64(1_000_000_000), c.sampleNs, "go test's run")
		assert.Equal(t, int64(313), c.n, "(1000 ms - 60 ms) / 3 ms")
	})
	t.Run("a fit must explain the short runs too", func(t *testing.T) {
		f := fit{fixedNs: 60e6, perIterNs: 3e6}
		assert.True(t, f.explains([]protocol.Sample{{Iterations: 4, ElapsedNs: 72e6}}), "paid by short runs too")
		assert.False(t, f.explains([]protocol.Sample{{Iterations: 4, ElapsedNs: 12e6}}), "short runs without it")
		assert.True(t, f.explains([]protocol.Sample{{Iterations: 4, ElapsedNs: 72e6}, {Iterations: 4, ElapsedNs: 70e6}, {Iterations: 4, ElapsedNs: 30e6}}),
			"one short run that paid less does not veto the cost the others show")
		assert.False(t, f.explains([]protocol.Sample{{Iterations: 4, ElapsedNs: 72e6}, {Iterations: 4, ElapsedNs: 12e6}, {Iterations: 4, ElapsedNs: 14e6}}),
			"most short runs without it")
		assert.True(t, f.explains([]protocol.Sample{{Iterations: 4, ElapsedNs: 150e6}, {Iterations: 4, ElapsedNs: 60e6}, {Iterations: 4, ElapsedNs: 200e6}}),
			"short runs that paid more than the fit: a larger fixed cost, not none")
		assert.False(t, f.explains(nil))
	})
	t.Run("a fixed cost that varies from run to run still lengthens the sample", func(t *testing.T) {
		// fastjson's BenchmarkParse/canada/fastjson (RunParallel over a
		// sync.Pool of parsers that testing's forced GC empties), recorded
		// on 2026-12-03: three runs of one iteration paid 67, 67 and 45 ms,
		// and no whole-sample check landed. With every short run required
		// to fit, N was 18 and ns/op 2.5 times go test's.
		c, err := calibrateFull(200_000_000, replay(t, []int64{67595810, 67276407, 45391382},
			map[int64]int64{3: 78979500, 8: 89052840, 63: 146118231}))
		require.NoError(t, err)
		require.NotNil(t, c.fixed, "the checks at 8 and 63 show a fixed part of about 81 ms")
		assert.Equal(t, maxSampleNs, c.sampleNs)
		assert.InDelta(t, 887, float64(c.n), 5, "(1000 ms - 80.7 ms) / 1.04 ms")
	})
	t.Run("short runs that paid more than the fit do not veto it", func(t *testing.T) {
		// The same benchmark in another process of the same day: runs of
		// one iteration took 102, 41 and 148 ms, checks at 2, 5 and 17
		// iterations 86, 59 and 124 ms; N was 17 for 200 ms.
		c, err := calibrateFull(200_000_000, replay(t, []int64{102_100_000, 40_800_000, 147_900_000},
			map[int64]int64{2: 85_700_000, 5: 58_500_000, 17: 123_600_000}))
		require.NoError(t, err)
		require.NotNil(t, c.fixed)
		assert.Greater(t, c.sampleNs, int64(200_000_000), "the sample is lengthened")
		assert.Greater(t, c.n, int64(17))
	})
	t.Run("a slow start: checked with whole samples, N lands on the target", func(t *testing.T) {
		// The first 20 iterations of every run cost 5 ms each, the rest 0.5 ms:
		// a short run predicts far too small an N.
		run := func(n int64) (*protocol.Sample, error) {
			cold := min(n, 20)
			return &protocol.Sample{Iterations: n, ElapsedNs: cold*5_000_000 + (n-cold)*500_000}, nil
		}
		c, err := calibrateFull(200_000_000, run)
		require.NoError(t, err)
		s, _ := run(c.n)
		assert.InDelta(t, float64(c.sampleNs), float64(s.ElapsedNs), 0.2*float64(c.sampleNs), "a sample at N takes about the sample time")
	})
	t.Run("no check lands on a busy host: the median of the checks, never an unchecked N", func(t *testing.T) {
		// What xxhash's BenchmarkSum64/4B met on a loaded 2-core host: about
		// 4 ns per iteration, whole samples disturbed unevenly. The third
		// check's secant pointed below one iteration, and N was 1.
		times := map[int64]int64{1: 431, 100: 1071, 10000: 27500, 1000000: 5249000, 2857686: 9744709}
		confirm := []int64{16539586, 17722870, 30343102}
		checks := []float64{7.578, 15.11, 6.38} // ns per iteration of each whole-sample check
		run := func(n int64) (*protocol.Sample, error) {
			ns, ok := times[n]
			switch {
			case ok:
			case n == 4398826 && len(confirm) > 0:
				ns, confirm = confirm[0], confirm[1:]
			case len(checks) > 0:
				ns, checks = int64(float64(n)*checks[0]), checks[1:]
			default:
				t.Fatalf("run(%d) beyond the recorded runs", n)
			}
			return &protocol.Sample{Iterations: n, ElapsedNs: ns}, nil
		}
		c, err := calibrateFull(200_000_000, run)
		require.NoError(t, err)
		assert.Empty(t, checks, "three checks")
		// None lands within 20% of 200 ms; the median of the checks' times
		// per iteration, 7.6 ns, gives N of about 26 million.
		assert.InDelta(t, 26.4e6, float64(c.n), 0.5e6)
		assert.Nil(t, c.fixed)
	})
	t.Run("no clear fixed cost: the median ratio", func(t *testing.T) {
		c, err := calibrateFull(200_000_000, (&fakeRuns{perOp: 100}).run)
		require.NoError(t, err)
		assert.Nil(t, c.fixed)
		assert.Equal(t, int64(200_000_000), c.sampleNs)
		assert.Equal(t, int64(2_000_000), c.n)
	})
	t.Run("one iteration longer than the target is N = 1 at once", func(t *testing.T) {
		f := &fakeRuns{perOp: 300_000_000}
		n, runs, err := calibrate(200_000_000, f.run)
		require.NoError(t, err)
		assert.Equal(t, int64(1), n)
		assert.Len(t, runs, 1)
	})
	t.Run("a benchmark that reports no time fails instead of scaling for minutes", func(t *testing.T) {
		f := &fakeRuns{perOp: 0}
		_, _, err := calibrate(200_000_000, f.run)
		require.ErrorIs(t, err, errNoTime)
		assert.LessOrEqual(t, len(f.asked), 3, "stops by %d iterations: %v", zeroTimeAfter, f.asked)
	})
	t.Run("an identity that ends stops calibration", func(t *testing.T) {
		calls := 0
		_, _, err := calibrate(1000, func(int64) (*protocol.Sample, error) { calls++; return nil, nil })
		assert.NoError(t, err)
		assert.Equal(t, 1, calls)
		boom := errors.New("pipe closed")
		_, _, err = calibrate(1000, func(int64) (*protocol.Sample, error) { return nil, boom })
		assert.ErrorIs(t, err, boom)
	})
}
