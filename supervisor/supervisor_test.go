package supervisor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/internal/statsconv"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

func TestScanTestFiles(t *testing.T) {
	got, err := scanTestFiles("testdata/scan", []string{"a_test.go", "b_test.go", "c_test.go"})
	require.NoError(t, err)
	assert.Equal(t, testFuncs{
		Tests:      []string{"TestPlain", "Test", "TestÜber", "TestSecondFile"},
		Benchmarks: []string{"BenchmarkPlain", "Benchmark_under", "BenchmarkSecondFile"},
		HasMain:    true,
	}, got)

	_, err = scanTestFiles("testdata/scan", []string{"missing_test.go"})
	assert.Error(t, err)
}

func TestIsTestName(t *testing.T) {
	tests := []struct {
		name, prefix string
		want         bool
	}{
		{"Test", "Test", true},
		{"TestX", "Test", true},
		{"Test_x", "Test", true},
		{"Testx", "Test", false},
		{"Tes", "Test", false},
		{"BenchmarkÉ", "Benchmark", true},
		{"Benchmarké", "Benchmark", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, isTestName(tt.name, tt.prefix), tt.name)
	}
}

func u64(v uint64) *uint64 { return &v }

func process(idx int, nsPerOp ...int64) rundoc.ProcessResult {
	p := rundoc.ProcessResult{Index: idx, Outcome: "ok"}
	for _, ns := range nsPerOp {
		p.Samples = append(p.Samples, rundoc.Sample{Iterations: 10, ElapsedNs: ns * 10,
			AllocBytes: u64(80), Allocs: u64(10), Extra: map[string]float64{"MB/s": float64(ns)}})
	}
	st, _ := stats.Process{Samples: statsconv.Samples(p.Samples)}.NsPerOp()
	ds := statsconv.DocStats(st)
	p.NsPerOp = &ds
	return p
}

func TestSummarize(t *testing.T) {
	t.Run("none", func(t *testing.T) {
		assert.Nil(t, analysis.Summarize(nil))
		assert.Nil(t, analysis.Summarize([]rundoc.ProcessResult{{Outcome: "exit"}}), "a failed process has no samples")
	})
	t.Run("one process has no spread", func(t *testing.T) {
		s := analysis.Summarize([]rundoc.ProcessResult{process(0, 10, 20, 30)})
		require.NotNil(t, s)
		assert.Equal(t, 1, s.Processes)
		assert.Equal(t, 3, s.Samples)
		assert.Equal(t, int64(10), s.Iterations)
		assert.Equal(t, 20.0, s.MedianNs)
		require.NotNil(t, s.WithinMADNs)
		assert.Equal(t, 10.0, *s.WithinMADNs)
		assert.Nil(t, s.Interval, "one process gives no interval over processes")
		assert.Equal(t, 10.0, s.MinNs)
		assert.Equal(t, 30.0, s.MaxNs)
		assert.Equal(t, 8.0, *s.Metrics["B/op"])
		assert.Equal(t, 1.0, *s.Metrics["allocs/op"])
		assert.Equal(t, 20.0, *s.Metrics["MB/s"])
	})
	t.Run("processes are units", func(t *testing.T) {
		s := analysis.Summarize([]rundoc.ProcessResult{process(0, 10, 11, 12), process(1, 30, 31, 32), process(2, 20, 21, 22), {Index: 3, Outcome: "exit"}})
		require.NotNil(t, s)
		assert.Equal(t, 3, s.Processes, "the failed process is not summarized")
		assert.Equal(t, 21.0, s.MedianNs, "median of the per-process medians 11, 21, 31")
		assert.Equal(t, 1.0, *s.WithinMADNs, "within: median of the per-process MADs")
		require.NotNil(t, s.Interval)
		assert.Equal(t, rundoc.Interval{LowNs: 11, HighNs: 31, Confidence: 0.75}, *s.Interval, "the range of 3 process medians, at 75%")
		assert.Equal(t, 10.0, s.MinNs)
		assert.Equal(t, 32.0, s.MaxNs)
	})
	t.Run("one sample per process: no within-process figure; short samples counted", func(t *testing.T) {
		procs := []rundoc.ProcessResult{process(0, 100), process(1, 104), process(2, 99), process(3, 250), process(4, 101)}
		procs[1].Samples[0].Short = true
		s := analysis.Summarize(procs)
		require.NotNil(t, s)
		assert.Nil(t, s.WithinMADNs)
		assert.Equal(t, 101.0, s.MedianNs)
		assert.Equal(t, rundoc.Interval{LowNs: 99, HighNs: 250, Confidence: 0.9375}, *s.Interval, "an outlier process widens only its end")
		assert.Equal(t, 1, s.ShortSamples)
	})
	t.Run("a unit one process lacks is unavailable, not zero", func(t *testing.T) {
		a, b := process(0, 10), process(1, 10)
		b.Samples[0].Extra = nil
		s := analysis.Summarize([]rundoc.ProcessResult{a, b})
		require.Contains(t, s.Metrics, "MB/s")
		assert.Nil(t, s.Metrics["MB/s"])
	})
}

func TestDescribe(t *testing.T) {
	out := sandbox.Outcome{Class: sandbox.ClassExit, Err: &sandbox.ExitError{Code: 2},
		Stderr: sandbox.Capture{Tail: []byte("goroutine noise\npanic: boom [recovered]\n\ngoroutine 1\n")}}
	assert.Equal(t, "child exited with status 2: panic: boom [recovered]", describe(out))
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"zero values are defaults", Config{}, ""},
		{"negative repetitions", Config{Repetitions: -1}, "Repetitions"},
		{"negative sample time", Config{SampleTime: -time.Millisecond}, "SampleTime"},
		{"negative timeout", Config{Timeout: -1}, "Timeout"},
		{"negative perf iterations", Config{PerfIters: -5}, "PerfIters"},
		{"a bench pattern that does not compile", Config{Bench: "Encode/("}, "Bench"},
		{"a run pattern that does not compile", Config{Run: "[a-"}, "Run"},
		{"a slash inside brackets does not split", Config{Bench: "[/]x"}, ""},
		{"a foreign-load limit past the whole host", Config{Mode: ModeBench, Interference: InterferenceConfig{MaxForeign: 2}}, "Interference"},
		{"the watch off takes no limit", Config{Interference: InterferenceConfig{Off: true, MaxForeign: 2}}, ""},
		{"a preflight in test mode", Config{Quiescence: &host.QuiescenceConfig{}}, "Quiescence"},
		{"a preflight with its timeout under its stable interval", Config{Mode: ModeBench, Quiescence: &host.QuiescenceConfig{Stable: time.Second, Timeout: time.Millisecond}}, "Quiescence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.field == "" {
				assert.NoError(t, err)
				return
			}
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.field, ce.Field)
			assert.ErrorIs(t, err, ErrInvalidConfig)
		})
	}
	_, err := Run(context.Background(), Config{Samples: -2})
	assert.ErrorIs(t, err, ErrInvalidConfig, "Run refuses before anything starts")
}

func TestSplitPattern(t *testing.T) {
	for pattern, want := range map[string][]string{
		"":                 {""},
		"A/B":              {"A", "B"},
		"[/]x/y":           {"[/]x", "y"},
		`a\/b/c`:           {`a\/b`, "c"},
		"Encode/size=1K$/": {"Encode", "size=1K$", ""},
	} {
		assert.Equal(t, want, splitPattern(pattern), pattern)
	}
}
