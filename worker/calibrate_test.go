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

func TestCalibrate(t *testing.T) {
	t.Run("ramps to an eighth, confirms three times, scales to the target", func(t *testing.T) {
		f := &fakeRuns{perOp: 10}
		n, runs, err := calibrate(200_000_000, f.run)
		require.NoError(t, err)
		assert.Equal(t, int64(20_000_000), n)
		assert.Len(t, runs, len(f.asked))
		last := f.asked[len(f.asked)-1]
		assert.Equal(t, []int64{last, last, last}, f.asked[len(f.asked)-3:], "three runs at the final ramp N")
		assert.GreaterOrEqual(t, float64(last)*f.perOp, float64(rampGoal(200_000_000)))
		var spent float64
		for _, n := range f.asked {
			spent += float64(n) * f.perOp
		}
		assert.Less(t, spent, 0.6*200_000_000, "calibration costs about half a sample")
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
