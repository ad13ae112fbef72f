package worker

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

// Recorded -test.v output of testing.RunBenchmarks (Go 1.26, GOMAXPROCS=2).
const recordedSub = "goos: linux\ngoarch: amd64\ncpu: AMD EPYC\n" +
	"BenchmarkSub\n" +
	"BenchmarkSub/n=1\n" +
	"BenchmarkSub/n=1-2         \t     100\t         4.110 ns/op\t       0 B/op\t       0 allocs/op\n" +
	"BenchmarkSub/n=10\n" +
	"    a_test.go:5: sub skipped\n" +
	"--- SKIP: BenchmarkSub/n=10\n"

const recordedLoop = "BenchmarkLoop\n" +
	"BenchmarkLoop-2   \t     100\t       145.8 ns/op\t 685.82 MB/s\t         3.500 widgets/op\t       4 B/op\t       0 allocs/op\n"

const recordedFatal = "BenchmarkFatal\n    a_test.go:4: broken: x=3\n    second line\n--- FAIL: BenchmarkFatal\n"

func parse(top, text string, procs int) *benchOutput {
	o := newBenchOutput(top, procs)
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		o.line(l)
	}
	return o
}

func TestForwardOnlyWhatTheCodePrinted(t *testing.T) {
	o := newBenchOutput("BenchmarkA", 2)
	forwarded := func(s string) bool { return o.line(s) }
	assert.False(t, forwarded("goos: linux"))
	assert.False(t, forwarded("BenchmarkA"))
	assert.False(t, forwarded("BenchmarkA-2 \t10\t3 ns/op"))
	assert.True(t, forwarded("hello from the benchmark"))
	assert.True(t, forwarded("    a_test.go:3: logged"))
	assert.True(t, forwarded("--- FAIL: BenchmarkA"))
	assert.True(t, forwarded("BenchmarkOther"), "not ours: user output")
}

func TestParseSubBenchmarks(t *testing.T) {
	o := parse("BenchmarkSub", recordedSub, 2)
	assert.Equal(t, []string{"BenchmarkSub", "BenchmarkSub/n=1", "BenchmarkSub/n=10"}, o.started)
	assert.Equal(t, []string{"BenchmarkSub/n=1", "BenchmarkSub/n=10"}, o.leaves())
	require.Contains(t, o.results, "BenchmarkSub/n=1")
	require.Len(t, o.results["BenchmarkSub/n=1"], 1)
	s := o.results["BenchmarkSub/n=1"][0]
	assert.Equal(t, int64(100), s.Iterations)
	assert.Equal(t, int64(411), s.ElapsedNs, "4.110 ns/op × 100")
	require.NotNil(t, s.AllocBytes)
	assert.Zero(t, *s.AllocBytes)
	assert.Equal(t, "a_test.go:5: sub skipped", o.skipped["BenchmarkSub/n=10"])
}

func TestParseLoopWithMetrics(t *testing.T) {
	o := parse("BenchmarkLoop", recordedLoop, 2)
	require.Len(t, o.results["BenchmarkLoop"], 1, "the -2 suffix must be stripped")
	s := o.results["BenchmarkLoop"][0]
	assert.Equal(t, int64(14580), s.ElapsedNs)
	assert.Equal(t, uint64(400), *s.AllocBytes)
	assert.Equal(t, uint64(0), *s.Allocs)
	assert.Equal(t, []protocol.Metric{{Unit: "MB/s", Value: 685.82}, {Unit: "widgets/op", Value: 3.5}}, s.Extra)
}

func TestParseFailure(t *testing.T) {
	o := parse("BenchmarkFatal", recordedFatal, 2)
	assert.Equal(t, "a_test.go:4: broken: x=3\nsecond line", o.failed["BenchmarkFatal"])
	assert.Empty(t, o.results)
}

func TestParseIgnoresOtherOutput(t *testing.T) {
	text := "BenchmarkOther\n" + // another function's name: not ours
		"hello from user code\twith a tab\n" +
		"BenchmarkA\n" +
		"BenchmarkA-2 \tnot-a-number\t1 ns/op\n" +
		"BenchmarkA-2 \t10\t1 ns/op\tgarbage\t5 x/op\n"
	o := parse("BenchmarkA", text, 2)
	assert.Equal(t, []string{"BenchmarkA"}, o.started)
	require.Len(t, o.results["BenchmarkA"], 1)
	s := o.results["BenchmarkA"][0]
	assert.Equal(t, int64(10), s.Iterations)
	assert.Equal(t, []protocol.Metric{{Unit: "x/op", Value: 5}}, s.Extra)
	assert.Nil(t, s.AllocBytes, "no B/op printed: unmeasured, not zero")
}

func TestParseSingleProc(t *testing.T) {
	o := parse("BenchmarkA", "BenchmarkA\nBenchmarkA/x-2\nBenchmarkA/x-2 \t10\t3 ns/op\n", 1)
	_, ok := o.results["BenchmarkA/x-2"]
	assert.True(t, ok, "with GOMAXPROCS=1 testing adds no suffix, so -2 is part of the name")
}

func TestExactPattern(t *testing.T) {
	tests := []struct{ in, want string }{
		{"BenchmarkA", "^BenchmarkA$"},
		{"BenchmarkT/n=10", "^BenchmarkT$/^n=10$"},
		{"BenchmarkT/a.b(c)/x#01", `^BenchmarkT$/^a\.b\(c\)$/^x#01$`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, exactPattern(tt.in))
	}
}
