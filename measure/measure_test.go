package measure

import (
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWorkloadInertUnderGoTest(t *testing.T) {
	shortBenchtime(t)
	calls, windows := 0, 0
	Workload(t, func(w *W) {
		calls++
		w.Files(Cold, "/nonexistent/file") // must do nothing at all
		w.Window("load", func() { windows++ })
	}, Reps(3))
	assert.Equal(t, 1, calls, "a Test runs the body once")
	assert.Equal(t, 1, windows, "a window's closure runs once outside a measurement")

	res := testing.Benchmark(func(b *testing.B) {
		n := 0
		Workload(b, func(w *W) { n++ })
		if n != b.N {
			b.Fatalf("body ran %d times for b.N=%d", n, b.N)
		}
	})
	assert.Positive(t, res.N, "a Benchmark runs the body b.N times")
}

// shortBenchtime makes testing.Benchmark run 100 iterations, not a second.
func shortBenchtime(t *testing.T) {
	f := flag.Lookup("test.benchtime")
	old := f.Value.String()
	require.NoError(t, flag.Set("test.benchtime", "100x"))
	t.Cleanup(func() { flag.Set("test.benchtime", old) })
}

func TestBenchHelpersUnderPlainTesting(t *testing.T) {
	shortBenchtime(t)
	calls, afters := 0, 0
	res := testing.Benchmark(func(b *testing.B) {
		Iter(b, func() { calls++ })
		ReportMetric(b, "widgets", 3, Level)
	})
	assert.Positive(t, res.N)
	assert.Equal(t, 3.0, res.Extra["widgets"])
	assert.GreaterOrEqual(t, calls, res.N, "Iter is a b.N loop")

	testing.Benchmark(func(b *testing.B) {
		Case(b, "enc", []Label{{"size", "1K"}, {"alg", "fast"}}, func() int { calls++; return 7 }, func(v int) error {
			afters++
			assert.Equal(t, 7, v, "after sees timed's result")
			return nil
		})
	})
	assert.Positive(t, afters)
	assert.Equal(t, 42, BlackBox(42))
}

func TestReportRateUnderPlainTesting(t *testing.T) {
	shortBenchtime(t)
	res := testing.Benchmark(func(b *testing.B) {
		Iter(b, func() { time.Sleep(time.Microsecond) })
		ReportMetric(b, "items", 1, Rate)
	})
	rate, ok := res.Extra["items/s"]
	require.True(t, ok, "extra: %v", res.Extra)
	assert.Positive(t, rate)
	assert.Less(t, rate, 1e6, "at most one item per microsecond")
}
