package measure

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/hooks"
)

func TestCaseLoopBody(t *testing.T) {
	next := 0
	var seen []int
	l := &caseLoop[int]{
		timed: func() int { next++; return next },
		after: func(v int) error {
			seen = append(seen, v)
			if v == 5 {
				return errors.New("five")
			}
			return nil
		},
	}
	require.True(t, l.HasAfter())
	assert.Equal(t, 3*8, l.Reserve(3), "room for three int results")
	allocs := testing.AllocsPerRun(10, func() {
		l.Timed(3)
		l.buf = l.buf[:0]
	})
	assert.Zero(t, allocs, "Timed within the reserved room allocates nothing of its own")

	seen, next = nil, 0
	l.Timed(3)
	assert.Equal(t, []int{1, 2, 3}, l.buf, "each result kept, in order")
	require.NoError(t, l.After())
	assert.Equal(t, []int{1, 2, 3}, seen, "the hook sees every result of the chunk, in order")
	assert.Empty(t, l.buf)

	seen = nil
	l.Reserve(4)
	l.Timed(4) // 4, 5, 6, 7
	assert.EqualError(t, l.After(), "five")
	assert.Equal(t, []int{4, 5}, seen, "the first error stops the checks")
	assert.Equal(t, []int{0, 0, 0, 0}, l.buf[:4], "and every result is released")

	plain := &caseLoop[[]byte]{timed: func() []byte { return make([]byte, 8) }}
	assert.False(t, plain.HasAfter())
	assert.Zero(t, plain.Reserve(100), "no hook: nothing is kept")
	plain.Timed(5)
	assert.Len(t, plain.last, 8, "without a hook only the last result is kept, as the plain loop keeps it")
	assert.NoError(t, plain.After())
}

func TestIterLoopBody(t *testing.T) {
	calls := 0
	l := iterLoop{func() { calls++ }}
	l.Timed(7)
	assert.Equal(t, 7, calls)
	assert.False(t, l.HasAfter())
	assert.Zero(t, l.Reserve(10))
	assert.NoError(t, l.After())
}

// loopRecorder is a hooks.LoopRunner that takes every loop and records its
// body.
type loopRecorder struct{ bodies []hooks.LoopBody }

func (r *loopRecorder) StartWorkload(testing.TB, int) (hooks.WorkloadSession, bool) {
	return nil, true
}

func (r *loopRecorder) Loop(b *testing.B, body hooks.LoopBody) bool {
	r.bodies = append(r.bodies, body)
	return true
}

func (r *loopRecorder) Metric(*testing.B, string, float64, bool) bool { return true }

func TestLoopsGoToTheRunner(t *testing.T) {
	shortBenchtime(t)
	rec := &loopRecorder{}
	hooks.Install(rec)
	defer hooks.Install(nil)
	calls := 0
	testing.Benchmark(func(b *testing.B) {
		Iter(b, func() { calls++ })
		Case(b, "c", nil, func() int { calls++; return 1 }, func(int) error { return nil })
	})
	assert.Zero(t, calls, "the runner owns the loops: nothing ran on its own")
	require.NotEmpty(t, rec.bodies)
	_, isIter := rec.bodies[0].(iterLoop)
	assert.True(t, isIter)
	var sawCase bool
	for _, b := range rec.bodies {
		if c, ok := b.(*caseLoop[int]); ok {
			sawCase = true
			assert.True(t, c.HasAfter())
		}
	}
	assert.True(t, sawCase)
}
