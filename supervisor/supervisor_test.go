package supervisor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/sandbox"
)

func TestScanTestFiles(t *testing.T) {
	got, err := scanTestFiles("testdata/scan", []string{"a_test.go", "b_test.go", "c_test.go"})
	require.NoError(t, err)
	// The package-level names, which the generated file's imports must
	// leave alone: functions (methods are not), types, in every file.
	for _, name := range []string{"TestMain", "Testlower", "TestGeneric", "r", "T", "TestSecondFile"} {
		assert.True(t, got.declared[name], name)
	}
	assert.False(t, got.declared["TestMethod"], "a method is no package-level name")
	got.declared = nil
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
		{"--vs in benchmark mode", Config{Mode: ModeBench, Vs: "impl", VsReference: "fnv", VsIterations: VsShared}, ""},
		{"--vs in test mode", Config{Vs: "impl"}, "Vs"},
		{"--vs with builds to compare", Config{Mode: ModeBench, Vs: "impl", Against: []string{"HEAD~1"}}, "Vs"},
		{"--vs with an element for a key", Config{Mode: ModeBench, Vs: "impl=fnv"}, "Vs"},
		{"--vs with a key of two levels", Config{Mode: ModeBench, Vs: "a/b"}, "Vs"},
		{"a --vs reference without a key", Config{Mode: ModeBench, VsReference: "fnv"}, "VsReference"},
		{"--vs iterations without a key", Config{Mode: ModeBench, VsIterations: VsShared}, "VsIterations"},
		{"--vs iterations of another kind", Config{Mode: ModeBench, Vs: "impl", VsIterations: "mine"}, "VsIterations"},
		{"--vs with a threshold out of range", Config{Mode: ModeBench, Vs: "impl", Compare: analysis.CompareConfig{Threshold: -1}}, "Threshold"},
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
