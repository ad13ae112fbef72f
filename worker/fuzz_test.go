package worker

import (
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

// seedsSeen records the values FuzzSeedsPass's fuzz function was called
// with, to tell the seeds ran, the corpus file's included.
var seedsSeen []string

func init() {
	RegisterFuzzMain(func(targets []testing.InternalFuzzTarget) {
		testing.MainStart(testFuzzDeps{}, nil, nil, targets, nil).Run()
	})
	RegisterTest("TestSeedsFirst", func(t *testing.T) {})
	RegisterFuzz("FuzzSeedsPass", func(f *testing.F) {
		f.Add("x", 1)
		f.Add("yy", 2)
		f.Fuzz(func(t *testing.T, s string, n int) { seedsSeen = append(seedsSeen, s) })
	})
	RegisterFuzz("FuzzSeedsFail", func(f *testing.F) {
		f.Add("ok")
		f.Add("bad")
		f.Fuzz(func(t *testing.T, s string) {
			if s == "bad" {
				t.Errorf("seed %q is bad", s)
			}
		})
	})
	RegisterExample("ExampleSeeds", func() {}, "", false)
}

// testFuzzDeps is, for this test binary, the test dependencies the
// supervisor generates for a package with fuzz targets (fuzzMainTemplate
// in supervisor/inject.go), for this toolchain.
type testFuzzDeps struct{}

type testCorpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}

func (testFuzzDeps) ImportPath() string                        { return "" }
func (testFuzzDeps) ModulePath() string                        { return "" }
func (testFuzzDeps) MatchString(pat, str string) (bool, error) { return MatchString(pat, str) }
func (testFuzzDeps) SetPanicOnExit0(bool)                      {}
func (testFuzzDeps) StartCPUProfile(io.Writer) error           { return errors.New("no profiles here") }
func (testFuzzDeps) StopCPUProfile()                           {}
func (testFuzzDeps) StartTestLog(io.Writer)                    {}
func (testFuzzDeps) StopTestLog() error                        { return nil }
func (testFuzzDeps) WriteProfileTo(string, io.Writer, int) error {
	return errors.New("no profiles here")
}
func (testFuzzDeps) ResetCoverage()    {}
func (testFuzzDeps) SnapshotCoverage() {}
func (testFuzzDeps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []testCorpusEntry, []reflect.Type, string, string) error {
	return ErrNotFuzzing
}
func (testFuzzDeps) RunFuzzWorker(func(testCorpusEntry) error) error { return ErrNotFuzzing }
func (testFuzzDeps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}
func (testFuzzDeps) ReadCorpus(dir string, types []reflect.Type) ([]testCorpusEntry, error) {
	paths, values, err := ReadSeedCorpus(dir, types)
	out := make([]testCorpusEntry, len(paths))
	for i := range paths {
		out[i].Path, out[i].Values = paths[i], values[i]
	}
	return out, err
}
func (testFuzzDeps) CheckCorpus(vals []any, types []reflect.Type) error {
	return CheckSeedValues(vals, types)
}

// Test mode runs fuzz targets' seed corpora as go test does without -fuzz:
// after the Test functions, before the examples, each seed a subtest
// (f.Add's "seed#N", a corpus file its name), a failing seed failing its
// target with testing's message.
func TestServeTestsRunsSeedCorpora(t *testing.T) {
	seedsSeen = nil
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "Seeds"}})
	var got []string
	outputs := map[string]string{}
	for _, e := range only[protocol.TestEvent](msgs) {
		if e.Action == protocol.TestOutput {
			outputs[e.Test] += e.Output
			continue
		}
		got = append(got, string(e.Action)+" "+e.Test)
	}
	assert.Equal(t, []string{
		"run TestSeedsFirst", "pass TestSeedsFirst",
		"run FuzzSeedsPass", "run FuzzSeedsPass/seed#0", "pass FuzzSeedsPass/seed#0",
		"run FuzzSeedsPass/seed#1", "pass FuzzSeedsPass/seed#1",
		"run FuzzSeedsPass/file1", "pass FuzzSeedsPass/file1", "pass FuzzSeedsPass",
		"run FuzzSeedsFail", "run FuzzSeedsFail/seed#0", "pass FuzzSeedsFail/seed#0",
		"run FuzzSeedsFail/seed#1", "fail FuzzSeedsFail/seed#1", "fail FuzzSeedsFail",
		"run ExampleSeeds", "pass ExampleSeeds",
	}, got)
	assert.Equal(t, []string{"x", "yy", "from a file"}, seedsSeen)
	assert.Regexp(t, `fuzz_test\.go:\d+: seed "bad" is bad`, outputs["FuzzSeedsFail/seed#1"])

	// -run selects seeds by subtest pattern, and resuming after a fuzz
	// target runs what follows it.
	msgs = exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "FuzzSeedsPass/file1"}})
	assert.Equal(t, []string{"run FuzzSeedsPass", "run FuzzSeedsPass/file1", "pass FuzzSeedsPass/file1", "pass FuzzSeedsPass"}, actions(msgs))

	msgs = exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "Seeds", After: "FuzzSeedsPass", Skip: []string{"FuzzSeedsFail"}}})
	assert.Equal(t, []string{"run ExampleSeeds", "pass ExampleSeeds"}, actions(msgs))
}

// actions renders msgs' test events other than output as "action test".
func actions(msgs []protocol.Message) []string {
	var got []string
	for _, e := range only[protocol.TestEvent](msgs) {
		if e.Action != protocol.TestOutput {
			got = append(got, string(e.Action)+" "+e.Test)
		}
	}
	return got
}

// Fuzz targets without a generated fuzz main (a generator bug) fail by
// name, saying why, rather than not running.
func TestFuzzTargetsWithoutFuzzMain(t *testing.T) {
	registry.mu.Lock()
	saved := registry.fuzzMain
	registry.fuzzMain = nil
	registry.mu.Unlock()
	defer func() {
		registry.mu.Lock()
		registry.fuzzMain = saved
		registry.mu.Unlock()
	}()
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "FuzzSeedsPass"}})
	assert.Equal(t, []string{"run FuzzSeedsPass", "fail FuzzSeedsPass"}, actions(msgs))
	var out string
	for _, e := range only[protocol.TestEvent](msgs) {
		out += e.Output
	}
	assert.Contains(t, out, "no fuzz main was generated")
}

// The nested testing.M points os.Stderr at the capture; runFuzzTargets
// puts it back, and leaves testing's flags as it found them (a flag it
// clears, as -test.testlogfile, which go test sets, holds its value again).
func TestRunFuzzTargetsRestores(t *testing.T) {
	stderr := os.Stderr
	before := map[string]string{}
	flag.VisitAll(func(f *flag.Flag) { before[f.Name] = f.Value.String() })
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "FuzzSeedsPass"}})
	require.NotEmpty(t, only[protocol.TestEvent](msgs))
	assert.Same(t, stderr, os.Stderr)
	after := map[string]string{}
	flag.VisitAll(func(f *flag.Flag) { after[f.Name] = f.Value.String() })
	assert.Equal(t, before, after)
	assert.Contains(t, before, "test.testlogfile")
}

func TestRunOrderAndGroups(t *testing.T) {
	noop := func(*testing.T) {}
	fz := func(*testing.F) {}
	tests := []testing.InternalTest{{Name: "TestA", F: noop}, {Name: "TestB", F: noop}, {Name: "ExampleA", F: noop}}
	fuzz := []testing.InternalFuzzTarget{{Name: "FuzzA", Fn: fz}, {Name: "FuzzB", Fn: fz}}
	entries := runOrder(tests, 1, fuzz)
	var names []string
	for _, e := range entries {
		names = append(names, e.name)
	}
	assert.Equal(t, []string{"TestA", "TestB", "FuzzA", "FuzzB", "ExampleA"}, names)

	groups := groupEntries(entries)
	require.Len(t, groups, 3)
	assert.Equal(t, []string{"TestA", "TestB"}, groups[0].names)
	assert.Len(t, groups[0].tests, 2)
	assert.Equal(t, []string{"FuzzA", "FuzzB"}, groups[1].names)
	assert.Len(t, groups[1].fuzz, 2)
	assert.Empty(t, groups[1].tests)
	assert.Equal(t, []string{"ExampleA"}, groups[2].names)

	// No fuzz target: tests and examples stay one group.
	assert.Len(t, groupEntries(runOrder(tests, 1, nil)), 1)
	assert.Empty(t, groupEntries(nil))

	for _, tc := range []struct {
		pattern string
		group   int
		want    bool
	}{
		{"", 1, true},
		{"FuzzB", 1, true},
		{"FuzzB/seed#0", 1, true},
		{"^FuzzA$|TestX", 1, true},
		{"TestA", 1, false},
		{"TestA", 0, true},
		{"Fuzz", 2, false},
		{"^Fuzz[AB]/file", 1, true},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			assert.Equal(t, tc.want, groups[tc.group].selected(tc.pattern))
		})
	}
}

func TestParseCorpusValue(t *testing.T) {
	for _, tc := range []struct {
		line string
		want any
		err  string
	}{
		{`[]byte("a\x00b")`, []byte("a\x00b"), ""},
		{`string("hi")`, "hi", ""},
		{"string(`raw`)", "raw", ""},
		{`int(-12)`, -12, ""},
		{`int8(0x7f)`, int8(127), ""},
		{`int16(-3)`, int16(-3), ""},
		{`int32(5)`, int32(5), ""},
		{`int64(9)`, int64(9), ""},
		{`uint(3)`, uint(3), ""},
		{`uint8(255)`, uint8(255), ""},
		{`uint16(1)`, uint16(1), ""},
		{`uint32(1)`, uint32(1), ""},
		{`uint64(1)`, uint64(1), ""},
		{`byte('a')`, byte('a'), ""},
		{`byte(10)`, byte(10), ""},
		{`rune('é')`, 'é', ""},
		{`rune(65)`, int32(65), ""},
		{`bool(true)`, true, ""},
		{`bool(false)`, false, ""},
		{`float32(1.5)`, float32(1.5), ""},
		{`float64(2)`, float64(2), ""},
		{`float64(-Inf)`, math.Inf(-1), ""},
		{`float64(+Inf)`, math.Inf(1), ""},
		{`math.Float64frombits(0x3ff0000000000000)`, float64(1), ""},
		{`math.Float32frombits(0x3f800000)`, float32(1), ""},
		{`int(x)`, nil, "literal value required for primitive type"},
		{`int8(300)`, nil, "value out of range"},
		{`byte('世')`, nil, "can only encode single byte"},
		{`bool(1)`, nil, "malformed bool"},
		{`string(1)`, nil, "string literal value required"},
		{`[4]byte("a")`, nil, "expected []byte or primitive type"},
		{`complex128(1)`, nil, "expected []byte or primitive type"},
		{`strings.Repeat("a")`, nil, "invalid selector type"},
		{`int(1, 2)`, nil, "expected call expression with 1 argument; got 2"},
		{`7`, nil, "expected call expression"},
		{`int(+1)`, nil, "unsupported operation on int/float: +"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			got, err := parseCorpusValue([]byte(tc.line))
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, reflect.TypeOf(tc.want), reflect.TypeOf(got))
		})
	}
	nan, err := parseCorpusValue([]byte(`float64(NaN)`))
	require.NoError(t, err)
	assert.True(t, math.IsNaN(nan.(float64)))
}

func TestUnmarshalCorpusFile(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []any
		err        string
	}{
		{"values", "go test fuzz v1\nstring(\"a\")\n\n  int(1)  \n", []any{"a", 1}, ""},
		{"crlf", "go test fuzz v1\r\nbool(true)\r\n", []any{true}, ""},
		{"empty", "", nil, "cannot unmarshal empty string"},
		{"version only", "go test fuzz v1", nil, "must include version and at least one value"},
		{"other version", "go test fuzz v2\nint(1)\n", nil, "unknown encoding version: go test fuzz v2"},
		{"bad line", "go test fuzz v1\nint(x)\n", nil, `malformed line "int(x)"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := unmarshalCorpusFile([]byte(tc.data))
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// readCorpus reads every file of the directory, skips subdirectories,
// names each malformed or mistyped file in its error and still returns
// the good ones; no directory is no corpus.
func TestReadCorpus(t *testing.T) {
	types := []reflect.Type{reflect.TypeOf(""), reflect.TypeOf(0)}
	paths, values, err := readCorpus(filepath.Join(t.TempDir(), "absent"), types)
	assert.NoError(t, err)
	assert.Empty(t, paths)
	assert.Empty(t, values)

	dir := t.TempDir()
	write := func(name, data string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	write("a", "go test fuzz v1\nstring(\"s\")\nint(2)\n")
	write("b", "go test fuzz v1\nint(2)\n")
	write("c", "go test fuzz v1\nint(2)\nstring(\"s\")\n")
	write("d", "nonsense\nint(1)\n")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	paths, values, err = readCorpus(dir, types)
	assert.Equal(t, []string{filepath.Join(dir, "a")}, paths)
	assert.Equal(t, [][]any{{"s", 2}}, values)
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 3)
	assert.Contains(t, lines[0], `"`+filepath.Join(dir, "b")+`": wrong number of values in corpus entry: 1, want 2`)
	assert.Contains(t, lines[1], `"`+filepath.Join(dir, "c")+`": mismatched types in corpus entry: [int string], want [string int]`)
	assert.Contains(t, lines[2], `"`+filepath.Join(dir, "d")+`": unmarshal: unknown encoding version: nonsense`)
}
