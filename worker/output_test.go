package worker

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

var update = flag.Bool("update", false, "record testdata/bench/*.out from real runs and rewrite the golden files")

// m marks testing's own lines under -test.v=test2json.
const m = "\x16"

// parseText parses output as runBenchmark would, and returns it with what
// was forwarded as the code's output.
func parseText(top, text string) (*benchOutput, string) {
	o := newBenchOutput(top)
	var fwd bytes.Buffer
	o.forward = &fwd
	o.feedAll(text)
	return o, fwd.String()
}

// TestParseFramed covers the ways the code's output can look like
// testing's: only testing's marked lines decide what a line is.
func TestParseFramed(t *testing.T) {
	const res = "\t     100\t         4.110 ns/op\t       0 B/op\t       0 allocs/op\n"
	for _, tc := range []struct {
		name, top, in string
		results       map[string][]int64 // iterations of each result
		failed        []string
		goexit        []string
		forwarded     string
	}{
		{
			name: "plain", top: "BenchmarkA",
			in:      m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2   " + res + m + "=== NAME  \n",
			results: map[string][]int64{"BenchmarkA": {100}},
		},
		{
			name: "a result-shaped line of the code's before the result", top: "BenchmarkA",
			in:        m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2 \t 7\t 1.0 ns/op\nmore\nBenchmarkA-2   " + res + m + "=== NAME  \n",
			results:   map[string][]int64{"BenchmarkA": {100}},
			forwarded: "BenchmarkA-2 \t 7\t 1.0 ns/op\nmore\n",
		},
		{
			name: "dots without a newline glued in front of the result", top: "BenchmarkA",
			in:        m + "=== RUN   BenchmarkA\nBenchmarkA\n....BenchmarkA-2   " + res + m + "=== NAME  \n",
			results:   map[string][]int64{"BenchmarkA": {100}},
			forwarded: "....",
		},
		{
			name: "a result-shaped line and then a failure", top: "BenchmarkA",
			in: m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2   " + res + "    a_test.go:3: broken\n" +
				m + "--- FAIL: BenchmarkA\n",
			failed:    []string{"BenchmarkA"},
			forwarded: "BenchmarkA-2   " + res + "    a_test.go:3: broken\n",
		},
		{
			name: "GOMAXPROCS changed: another -P than the worker's", top: "BenchmarkA",
			in:      m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-64   " + res + m + "=== NAME  \n",
			results: map[string][]int64{"BenchmarkA": {100}},
		},
		{
			name: "no -P suffix (P = 1)", top: "BenchmarkA",
			in:      m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA   " + res + m + "=== NAME  \n",
			results: map[string][]int64{"BenchmarkA": {100}},
		},
		{
			name: "a name that ends in -digits", top: "BenchmarkA",
			in: m + "=== RUN   BenchmarkA\nBenchmarkA\n" + m + "=== RUN   BenchmarkA/x-2\nBenchmarkA/x-2\nBenchmarkA/x-2-4   " + res + m + "=== NAME  \n" +
				m + "=== RUN   BenchmarkA/y-2\nBenchmarkA/y-2\nBenchmarkA/y-2   " + res + m + "=== NAME  \n",
			results: map[string][]int64{"BenchmarkA/x-2": {100}, "BenchmarkA/y-2": {100}},
		},
		{
			name: "another benchmark's result-shaped line", top: "BenchmarkA",
			in:        m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkB-2" + res + "BenchmarkA/x-2" + res + m + "=== NAME  \n",
			results:   map[string][]int64{},
			forwarded: "BenchmarkB-2" + res + "BenchmarkA/x-2" + res,
		},
		{
			name: "zero iterations: runtime.Goexit", top: "BenchmarkA",
			in:     m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2   \t       0\t         0 ns/op\n" + m + "=== NAME  \n",
			goexit: []string{"BenchmarkA"},
		},
		{
			name: "count 2 with output between", top: "BenchmarkA",
			in: m + "=== RUN   BenchmarkA\nBenchmarkA\nhi\nBenchmarkA-2   " + res + m + "=== NAME  \n" +
				"hi\nBenchmarkA-2   \t     200\t         4.110 ns/op\n" + m + "=== NAME  \n",
			results:   map[string][]int64{"BenchmarkA": {100, 200}},
			forwarded: "hi\nhi\n",
		},
		{
			name: "a flood after a candidate is not held", top: "BenchmarkA",
			in: m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2   " + res + strings.Repeat(strings.Repeat("y", 1023)+"\n", 100) +
				m + "=== NAME  \n",
			results:   map[string][]int64{"BenchmarkA": {100}},
			forwarded: strings.Repeat(strings.Repeat("y", 1023)+"\n", 100),
		},
		{
			name: "another goroutine's output between testing's two writes", top: "BenchmarkA",
			in:        m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2   \t.....     100\t         4.110 ns/op\n" + m + "=== NAME  \n",
			results:   map[string][]int64{"BenchmarkA": {100}},
			forwarded: ".....",
		},
		{
			name: "... with tabs and a number in it", top: "BenchmarkA",
			in:        m + "=== RUN   BenchmarkA\nBenchmarkA\nx\tBenchmarkA-2   \ta\tb 7\t3 x/y     100\t         4.110 ns/op\n" + m + "=== NAME  \n",
			results:   map[string][]int64{"BenchmarkA": {100}},
			forwarded: "x\ta\tb 7\t3 x/y",
		},
		{
			name: "... ending a line there", top: "BenchmarkA",
			in: m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2   \ttick\ntick\ntick  12345678\t         4.110 ns/op\n" +
				m + "=== NAME  \n",
			results:   map[string][]int64{"BenchmarkA": {12345678}},
			forwarded: "BenchmarkA-2   \ttick\ntick\ntick  ", // 8 digits: testing pads none
		},
		{
			name: "values without a head are the code's", top: "BenchmarkA",
			in:        m + "=== RUN   BenchmarkA\nBenchmarkA\n     100\t         4.110 ns/op\n" + m + "=== NAME  \n",
			results:   map[string][]int64{},
			forwarded: "     100\t         4.110 ns/op\n",
		},
		{
			name: "a value without a unit is not testing's", top: "BenchmarkA",
			in:        m + "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2 \t10\t1 ns/op\tgarbage\n" + m + "=== NAME  \n",
			results:   map[string][]int64{},
			forwarded: "BenchmarkA-2 \t10\t1 ns/op\tgarbage\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, fwd := parseText(tc.top, tc.in)
			got := map[string][]int64{}
			for name, ss := range o.results {
				for _, s := range ss {
					got[name] = append(got[name], s.Iterations)
				}
			}
			if tc.results == nil {
				tc.results = map[string][]int64{}
			}
			assert.Equal(t, tc.results, got)
			var failed, goexit []string
			for name := range o.failed {
				failed = append(failed, name)
			}
			for name := range o.goexit {
				goexit = append(goexit, name)
			}
			assert.ElementsMatch(t, tc.failed, failed)
			assert.ElementsMatch(t, tc.goexit, goexit)
			assert.Equal(t, tc.forwarded, fwd, "what is forwarded is the code's output, not testing's")
		})
	}
}

func TestParseMetrics(t *testing.T) {
	o, _ := parseText("BenchmarkLoop", m+"=== RUN   BenchmarkLoop\nBenchmarkLoop\n"+
		"BenchmarkLoop-2   \t     100\t       145.8 ns/op\t 685.82 MB/s\t                NaN ratio\t      +Inf rate/s\t         3.500 widgets/op\t       4 B/op\t       0 allocs/op\n"+
		m+"=== NAME  \n")
	require.Len(t, o.results["BenchmarkLoop"], 1)
	s := o.results["BenchmarkLoop"][0]
	assert.Equal(t, int64(14580), s.ElapsedNs)
	assert.Equal(t, uint64(400), *s.AllocBytes)
	assert.Equal(t, uint64(0), *s.Allocs)
	assert.Equal(t, []protocol.Metric{
		{Unit: "MB/s", Value: 685.82},
		{Unit: "ratio", Unmeasured: "the benchmark reported NaN (b.ReportMetric)"},
		{Unit: "rate/s", Unmeasured: "the benchmark reported +Inf (b.ReportMetric)"},
		{Unit: "widgets/op", Value: 3.5},
	}, s.Extra)
	_, err := protocol.AppendFrame(nil, protocol.Result{Samples: []protocol.Sample{s}})
	require.NoError(t, err, "an unmeasured metric travels")
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

// TestHeldStdout: a process the code started that keeps the redirected
// stdout open does not keep the worker waiting.
func TestHeldStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the worker's bound on a held stdout (2 s): run without -short")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	var cmd *exec.Cmd
	var got bytes.Buffer
	start := time.Now()
	c, err := captureOutput(func() {
		fmt.Println("before")
		cmd = exec.Command(sleep, "30")
		cmd.Stdout = os.Stdout
		require.NoError(t, cmd.Start())
	}, func(raw []byte, parsed bool, _ io.Writer) { got.Write(raw) })
	took := time.Since(start)
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	require.NoError(t, err)
	assert.True(t, c.held)
	assert.Less(t, took, 5*time.Second)
	assert.Equal(t, "before\n", got.String())

	// A holder that keeps writing is cut off too, at drainLimit.
	var writer *exec.Cmd
	start = time.Now()
	c, err = captureOutput(func() {
		writer = exec.Command("/bin/sh", "-c", "while :; do echo x; sleep 0.01; done")
		writer.Stdout = os.Stdout
		require.NoError(t, writer.Start())
	}, func([]byte, bool, io.Writer) {})
	took = time.Since(start)
	writer.Process.Kill()
	writer.Wait()
	require.NoError(t, err)
	assert.True(t, c.held)
	assert.GreaterOrEqual(t, took, drainLimit)
	assert.Less(t, took, drainLimit+2*time.Second)

	c, err = captureOutput(func() { fmt.Print("x") }, func([]byte, bool, io.Writer) {})
	require.NoError(t, err)
	assert.Equal(t, captured{}, c, "nothing held the pipe")

	c, err = captureOutput(func() { os.Stdout.Close() }, func([]byte, bool, io.Writer) {})
	require.NoError(t, err)
	assert.Equal(t, captured{closed: true}, c, "the code closed its stdout")
}

// outputCases are small benchmarks, nasty about what they print, whose real
// output under -test.v=test2json is recorded in testdata/bench/NAME.out
// (go test -run TestParseRecorded -update records it again, with this
// toolchain) and parsed into testdata/bench/NAME.golden.
var outputCases = []struct {
	name  string
	f     func(*testing.B)
	n     int64
	count int
	check func(t *testing.T, o *benchOutput, top string)
}{
	{name: "Plain", n: 10, count: 1, f: func(b *testing.B) {
		for i := 0; i < b.N; i++ {
		}
	}, check: func(t *testing.T, o *benchOutput, top string) {
		assert.Len(t, o.results[top], 1)
	}},
	{name: "Dots", n: 10, count: 2, f: func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fmt.Print(".")
		}
	}, check: func(t *testing.T, o *benchOutput, top string) {
		require.Len(t, o.results[top], 2)
		assert.Equal(t, int64(10), o.results[top][0].Iterations)
	}},
	{name: "DotPerIteration", n: maxLine + 500, count: 1, f: func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fmt.Print(".")
		}
	}, check: func(t *testing.T, o *benchOutput, top string) {
		require.Len(t, o.results[top], 1, "the result ends a line longer than maxLine")
		assert.Equal(t, int64(maxLine+500), o.results[top][0].Iterations)
	}},
	{name: "Spammer", n: 10, count: 2, f: func(b *testing.B) {
		// Another goroutine prints without pause until the capture ends,
		// so its output lands around and inside testing's result lines.
		w := os.Stdout
		go func() {
			for i := 0; i < 20000; i++ {
				if _, err := w.Write([]byte(".")); err != nil {
					return
				}
			}
		}()
		for i := 0; i < b.N; i++ {
		}
	}, check: func(t *testing.T, o *benchOutput, top string) {
		require.Len(t, o.results[top], 2)
		assert.Equal(t, int64(10), o.results[top][1].Iterations)
	}},
	{name: "FakeResult", n: 10, count: 1, f: func(b *testing.B) {
		fmt.Printf("%s-%d   \t 1000000\t 1.000 ns/op\n", b.Name(), runtime.GOMAXPROCS(0))
		for i := 0; i < b.N; i++ {
		}
	}, check: func(t *testing.T, o *benchOutput, top string) {
		require.Len(t, o.results[top], 1)
		assert.Equal(t, int64(10), o.results[top][0].Iterations, "the real result, not the printed one")
	}},
	{name: "FakeResultThenFatal", n: 10, count: 1, f: func(b *testing.B) {
		fmt.Printf("%s-%d   \t 1000000\t 1.000 ns/op\n", b.Name(), runtime.GOMAXPROCS(0))
		fmt.Print("partial")
		b.Fatal("broken")
	}, check: func(t *testing.T, o *benchOutput, top string) {
		assert.Empty(t, o.results)
		assert.Contains(t, o.failed[top], "broken")
	}},
	{name: "Gomaxprocs", n: 10, count: 1, f: func(b *testing.B) {
		b.Run("first", func(b *testing.B) {
			runtime.GOMAXPROCS(1) // left so, as the benchmark does
			for i := 0; i < b.N; i++ {
			}
		})
		b.Run("second", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
			}
		})
	}, check: func(t *testing.T, o *benchOutput, top string) {
		assert.Len(t, o.results[top+"/first"], 1)
		assert.Len(t, o.results[top+"/second"], 1)
	}},
	{name: "LongName", n: 10, count: 1, f: func(b *testing.B) {
		b.Run(strings.Repeat("x", 5000), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
			}
		})
	}, check: func(t *testing.T, o *benchOutput, top string) {
		assert.Len(t, o.results[top+"/"+strings.Repeat("x", 5000)], 1)
	}},
	{name: "Metrics", n: 10, count: 1, f: func(b *testing.B) {
		for i := 0; i < b.N; i++ {
		}
		b.ReportMetric(math.NaN(), "ratio")
		b.ReportMetric(math.Inf(1), "rate/s")
		b.ReportMetric(2.5, "widgets/op")
	}, check: func(t *testing.T, o *benchOutput, top string) {
		require.Len(t, o.results[top], 1)
		var units []string
		for _, e := range o.results[top][0].Extra {
			units = append(units, e.Unit)
			assert.Equal(t, e.Unit != "widgets/op", e.Unmeasured != "", e.Unit)
		}
		assert.Equal(t, []string{"rate/s", "ratio", "widgets/op"}, units)
	}},
	{name: "Goexit", n: 10, count: 1, f: func(b *testing.B) {
		b.Run("sub", func(b *testing.B) { runtime.Goexit() })
	}, check: func(t *testing.T, o *benchOutput, top string) {
		assert.Empty(t, o.results)
		assert.Equal(t, 1, o.goexit[top+"/sub"])
	}},
	{name: "LogAndSkip", n: 10, count: 1, f: func(b *testing.B) {
		b.Run("log", func(b *testing.B) {
			b.Log("a log line")
			for i := 0; i < b.N; i++ {
			}
		})
		b.Run("skip", func(b *testing.B) {
			fmt.Print("no newline")
			b.Skip("not today")
		})
	}, check: func(t *testing.T, o *benchOutput, top string) {
		assert.Len(t, o.results[top+"/log"], 1)
		assert.Contains(t, o.skipped[top+"/skip"], "not today")
	}},
}

// TestParseRecorded parses the recorded output of each of outputCases and
// compares what the parser made of it with the golden file; with -update
// it first runs the cases for real, as the worker runs a benchmark.
func TestParseRecorded(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs) // a case leaves it at 1, as its benchmark does
	for _, tc := range outputCases {
		t.Run(tc.name, func(t *testing.T) {
			top := "BenchmarkOutput" + tc.name
			in := filepath.Join("testdata", "bench", tc.name+".out")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(in), 0o755))
				require.NoError(t, os.WriteFile(in, record(t, top, tc.f, tc.n, tc.count), 0o644))
			}
			text, err := os.ReadFile(in)
			require.NoError(t, err)
			o, fwd := parseText(top, string(text))
			tc.check(t, o, top)
			got := renderParsed(o, fwd)
			golden := strings.TrimSuffix(in, ".out") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got)
		})
	}
}

// record runs f as runBenchmark runs a benchmark and returns what it wrote
// to stdout, testing's marks included.
func record(t *testing.T, top string, f func(*testing.B), n int64, count int) []byte {
	var fs flagState
	defer fs.restore()
	for _, kv := range [][2]string{
		{"test.bench", exactPattern(top)},
		{"test.benchtime", strconv.FormatInt(n, 10) + "x"},
		{"test.benchmem", "true"},
		{"test.v", "test2json"},
		{"test.count", strconv.Itoa(count)},
	} {
		require.NoError(t, fs.set(kv[0], kv[1]))
	}
	var buf bytes.Buffer
	_, err := captureOutput(func() {
		testing.RunBenchmarks(matchString, []testing.InternalBenchmark{{Name: top, F: f}})
	}, func(raw []byte, _ bool, _ io.Writer) { buf.Write(raw) })
	require.NoError(t, err)
	return buf.Bytes()
}

// renderParsed is the golden form of what the parser made of an output.
func renderParsed(o *benchOutput, forwarded string) string {
	var b strings.Builder
	short := func(name string) string {
		if len(name) > 80 {
			return fmt.Sprintf("%s…(%d bytes)", name[:60], len(name))
		}
		return name
	}
	for _, name := range o.started {
		fmt.Fprintf(&b, "started %s\n", short(name))
	}
	names := func(m map[string]bool) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	set := map[string]bool{}
	for k := range o.results {
		set[k] = true
	}
	for _, name := range names(set) {
		for _, s := range o.results[name] {
			fmt.Fprintf(&b, "result %s: n=%d ns=%d", short(name), s.Iterations, s.ElapsedNs)
			if s.Allocs != nil {
				fmt.Fprintf(&b, " B=%d allocs=%d", *s.AllocBytes, *s.Allocs)
			}
			for _, e := range s.Extra {
				if e.Unmeasured != "" {
					fmt.Fprintf(&b, " %s=— (%s)", e.Unit, e.Unmeasured)
				} else {
					fmt.Fprintf(&b, " %s=%g", e.Unit, e.Value)
				}
			}
			b.WriteString("\n")
		}
	}
	for _, kv := range []struct {
		what string
		m    map[string]string
	}{{"failed", o.failed}, {"skipped", o.skipped}} {
		set := map[string]bool{}
		for k := range kv.m {
			set[k] = true
		}
		for _, name := range names(set) {
			fmt.Fprintf(&b, "%s %s: %q\n", kv.what, short(name), kv.m[name])
		}
	}
	set = map[string]bool{}
	for k := range o.goexit {
		set[k] = true
	}
	for _, name := range names(set) {
		fmt.Fprintf(&b, "goexit %s: %d runs\n", short(name), o.goexit[name])
	}
	fmt.Fprintf(&b, "forwarded:\n%s", squeeze(forwarded))
	return b.String()
}

// squeeze writes each run of more than 16 equal bytes of s as <N×c>, so
// that a golden file stays readable.
func squeeze(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > 16 {
			fmt.Fprintf(&b, "<%d×%q>", j-i, s[i])
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// TestLineFullOfTheName: a line the code printed full of the benchmark's
// name and tabs is the code's output, forwarded whole, and testing's real
// result after it still parses. Before parseResult bounded its tries, each
// such line cost time quadratic in its length (found by FuzzBenchOutput);
// BenchmarkLineFullOfTheName measures it.
func TestLineFullOfTheName(t *testing.T) {
	junk := strings.Repeat("B\t", 20000) + "\n"
	const res = "B\t     100\t         4.110 ns/op\n"
	o, fwd := parseText("B", m+"=== RUN   B\n"+junk+res+m+"=== NAME\n")
	assert.Equal(t, junk, fwd)
	require.Len(t, o.results["B"], 1)
	assert.Equal(t, int64(100), o.results["B"][0].Iterations)
	assert.Equal(t, int64(411), o.results["B"][0].ElapsedNs)
}

func BenchmarkLineFullOfTheName(b *testing.B) {
	for _, n := range []int{1000, 16000} {
		text := m + "=== RUN   B\n" + strings.Repeat("B\t", n) + "\n"
		b.Run(fmt.Sprintf("occurrences=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				parseText("B", text)
			}
		})
	}
}
