package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// decodeTest2JSON reads a stream back as "action test output" lines, the
// shape gotestsum reads, without times.
func decodeTest2JSON(t *testing.T, stream []byte) []Test2JSONEvent {
	t.Helper()
	var evs []Test2JSONEvent
	sc := bufio.NewScanner(bytes.NewReader(stream))
	for sc.Scan() {
		var ev Test2JSONEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		require.NotNil(t, ev.Time, "every event has its Time: %s", sc.Text())
		evs = append(evs, ev)
	}
	return evs
}

func summarize(evs []Test2JSONEvent) []string {
	var out []string
	for _, ev := range evs {
		parts := []string{ev.Action}
		for _, p := range []string{ev.Package, ev.Test} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		if ev.Output != nil {
			parts = append(parts, strings.TrimSuffix(*ev.Output, "\n"))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func TestWriteTest2JSON(t *testing.T) {
	ns := func(v int64) *int64 { return &v }
	str := func(s string) *string { return &s }
	testDoc := func(rows ...rundoc.Row) rundoc.Document {
		return rundoc.Document{Schema: rundoc.SchemaVersion, Meta: rundoc.Meta{Mode: rundoc.ModeTest}, Rows: rows}
	}
	tests := []struct {
		name string
		doc  rundoc.Document
		want []string
	}{
		{"passing test with subtests, as go test -json prints it", testDoc(
			rundoc.Row{Package: "p", Name: "TestSub", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(64386),
				Output: "=== NAME  TestSub/a\n    m_test.go:13: in a\n--- PASS: TestSub/a (0.00s)\n--- PASS: TestSub/b (0.01s)\n"},
			rundoc.Row{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(18_095_921)},
		), []string{
			"start p",
			"run p TestSub", "output p TestSub === RUN   TestSub",
			"run p TestSub/a", "output p TestSub/a === RUN   TestSub/a",
			"output p TestSub/a     m_test.go:13: in a",
			"output p TestSub/a --- PASS: TestSub/a (0.00s)", "pass p TestSub/a",
			"run p TestSub/b", "output p TestSub/b === RUN   TestSub/b",
			"output p TestSub/b --- PASS: TestSub/b (0.01s)", "pass p TestSub/b",
			"output p TestSub --- PASS: TestSub (0.00s)", "pass p TestSub",
			"output p PASS", "output p ok  \tp\t0.018s", "pass p",
		}},
		{"tests that called t.Parallel: pause and cont right after their run, as go test prints a lone one", testDoc(
			rundoc.Row{Package: "p", Name: "TestPar", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(1),
				Paused: []string{"TestPar", "TestPar/x"},
				Output: "    p_test.go:7: in par\n=== NAME  TestPar/x\n    p_test.go:10: in x\n--- PASS: TestPar/x (0.00s)\n"},
			rundoc.Row{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(1_000_000)},
		), []string{
			"start p",
			"run p TestPar", "output p TestPar === RUN   TestPar",
			"output p TestPar === PAUSE TestPar", "pause p TestPar",
			"cont p TestPar", "output p TestPar === CONT  TestPar",
			"output p TestPar     p_test.go:7: in par",
			"run p TestPar/x", "output p TestPar/x === RUN   TestPar/x",
			"output p TestPar/x === PAUSE TestPar/x", "pause p TestPar/x",
			"cont p TestPar/x", "output p TestPar/x === CONT  TestPar/x",
			"output p TestPar/x     p_test.go:10: in x",
			"output p TestPar/x --- PASS: TestPar/x (0.00s)", "pass p TestPar/x",
			"output p TestPar --- PASS: TestPar (0.00s)", "pass p TestPar",
			"output p PASS", "output p ok  \tp\t0.001s", "pass p",
		}},
		{"failure, skip and a crash", testDoc(
			rundoc.Row{Package: "p", Name: "TestSkip", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeSkipped, ElapsedNs: ns(1), Output: "    x_test.go:3: later\n"},
			rundoc.Row{Package: "p", Name: "TestFail", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeTestFail, ElapsedNs: ns(1), Error: str("x_test.go:5: wrong"), Output: "    x_test.go:5: wrong\n"},
			rundoc.Row{Package: "p", Name: "TestCrash", Kind: rundoc.KindTest, Outcome: "signal", Error: str("killed by SIGSEGV"),
				Output: "=== NAME  TestCrash/deep\npanic: nil map\n", Notes: []string{"charged to TestCrash/deep: the last test running"}},
			rundoc.Row{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeTestFail, ElapsedNs: ns(2_000_000)},
		), []string{
			"start p",
			"run p TestSkip", "output p TestSkip === RUN   TestSkip", "output p TestSkip     x_test.go:3: later",
			"output p TestSkip --- SKIP: TestSkip (0.00s)", "skip p TestSkip",
			"run p TestFail", "output p TestFail === RUN   TestFail", "output p TestFail     x_test.go:5: wrong",
			"output p TestFail --- FAIL: TestFail (0.00s)", "fail p TestFail",
			"run p TestCrash", "output p TestCrash === RUN   TestCrash",
			"run p TestCrash/deep", "output p TestCrash/deep === RUN   TestCrash/deep",
			"output p TestCrash/deep panic: nil map",
			"output p TestCrash     signal: killed by SIGSEGV",
			"output p TestCrash     note: charged to TestCrash/deep: the last test running",
			"output p TestCrash/deep --- FAIL: TestCrash/deep", "fail p TestCrash/deep",
			"output p TestCrash --- FAIL: TestCrash", "fail p TestCrash",
			"output p FAIL", "output p FAIL\tp\t0.002s", "fail p",
		}},
		{"the package's notes before its status line", testDoc(
			rundoc.Row{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(1)},
			rundoc.Row{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(1_000_000),
				Notes: []string{"pids limit 16 reached: 3 forks refused"}},
		), []string{
			"start p",
			"run p TestA", "output p TestA === RUN   TestA", "output p TestA --- PASS: TestA (0.00s)", "pass p TestA",
			"output p note: pids limit 16 reached: 3 forks refused",
			"output p PASS", "output p ok  \tp\t0.001s", "pass p",
		}},
		{"no test files, nothing to run, a build failure", testDoc(
			rundoc.Row{Package: "a", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeSkipped, Skipped: str(rundoc.NoTestFiles)},
			rundoc.Row{Package: "b", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeSkipped, Skipped: str(rundoc.NoTestsToRun)},
			rundoc.Row{Package: "c", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeBuildFailure, Error: str("./c.go:3:1: bad")},
		), []string{
			"start a", "output a ?   \ta\t[no test files]", "skip a",
			"start b", "output b testing: warning: no tests to run", "output b PASS", "output b ok  \tb\t[no tests to run]", "pass b",
			"build-output # c [c.test]", "build-output ./c.go:3:1: bad", "build-fail",
			"start c", "output c FAIL\tc [build failed]", "fail c",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteTest2JSON(&buf, tt.doc))
			evs := decodeTest2JSON(t, buf.Bytes())
			assert.Equal(t, tt.want, summarize(evs))
			for _, ev := range evs {
				if ev.Action == "fail" && ev.Test == "TestCrash" {
					assert.Equal(t, "signal", ev.BenchsupClass)
					assert.Equal(t, "killed by SIGSEGV", ev.BenchsupError)
				}
				if ev.Action == "fail" && ev.Test == "TestFail" {
					assert.Empty(t, ev.BenchsupClass, "a plain failure has no class beyond go test's")
				}
				if ev.Action == "fail" && ev.Package == "c" && ev.Test == "" {
					assert.Equal(t, "c [c.test]", ev.FailedBuild)
				}
				if ev.Test == "TestCrash" && (ev.Action == "pass" || ev.Action == "fail") {
					assert.Nil(t, ev.Elapsed, "a crashed test's time is unknown, not 0")
				}
			}
		})
	}
}

// A benchmark run: the configuration lines, then each leaf's run, its name
// line and one result line per sample, as go test -count prints one per
// run, that benchstat reads back.
func TestWriteTest2JSONBench(t *testing.T) {
	doc := rundoctest.GreenDoc()
	var buf bytes.Buffer
	require.NoError(t, WriteTest2JSON(&buf, doc))
	evs := decodeTest2JSON(t, buf.Bytes())
	got := summarize(evs)
	require.NotEmpty(t, got)
	first := doc.Rows[0]
	assert.Equal(t, "start "+first.Package, got[0])
	assert.Contains(t, got, "output "+first.Package+" goos: "+doc.Meta.OS)
	assert.Contains(t, got, "run "+first.Package+" "+first.Name)
	results := 0
	for _, ev := range evs {
		if ev.Test == first.Name && ev.Output != nil && strings.HasPrefix(*ev.Output, first.Name+"-") {
			results++
			assert.Regexp(t, `^Benchmark\S+\s+\d+\s+\S+ ns/op`, *ev.Output)
		}
		if ev.Test != "" {
			assert.NotEqual(t, "pass", ev.Action, "go test -json ends no passing benchmark: %s", ev.Test)
		}
	}
	samples := 0
	for _, p := range first.Processes {
		if p.Outcome == rundoc.OutcomeOK {
			samples += len(p.Samples)
		}
	}
	assert.Equal(t, samples, results, "one result line per sample")
	assert.Equal(t, "pass", evs[len(evs)-1].Action)
}

// The stream writes each package once its last row is final, in the order
// packages finish, and Finish writes only those it has not written.
func TestTest2JSONStream(t *testing.T) {
	ns := func(v int64) *int64 { return &v }
	str := func(s string) *string { return &s }
	rows := []rundoc.Row{
		{Package: "a", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeSkipped, Skipped: str(rundoc.NoTestFiles)},
		{Package: "b", Name: "TestB", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(1)},
		{Package: "b", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(1e6)},
		{Package: "c", Name: "TestC", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: ns(1)},
		{Package: "c", Name: "", Kind: rundoc.KindPackage, Outcome: "exit", Error: str("exit status 3 after TestC")},
		{Package: "c", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeTestFail, ElapsedNs: ns(2e6)},
		{Package: "d", Build: "HEAD~1", Name: "TestD", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK},
	}
	doc := rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeTest}, Rows: rows}
	var buf bytes.Buffer
	s := NewTest2JSONStream(&buf)
	// c finishes first; b's status row has not come when we look.
	for _, r := range []rundoc.Row{rows[3], rows[1], rows[4], rows[5]} {
		s.Result(r)
	}
	got := summarize(decodeTest2JSON(t, buf.Bytes()))
	require.NotEmpty(t, got)
	assert.Equal(t, "start c", got[0])
	assert.Equal(t, "fail c", got[len(got)-1])
	assert.NotContains(t, strings.Join(got, "\n"), " b", "b is not final yet")

	require.NoError(t, s.Finish(doc))
	all := summarize(decodeTest2JSON(t, buf.Bytes()))
	starts := []string{}
	for _, l := range all {
		if strings.HasPrefix(l, "start ") {
			starts = append(starts, l)
		}
	}
	assert.Equal(t, []string{"start c", "start a", "start b"}, starts, "c as it finished, then the rest in the document's order; no other build's package")
	assert.Contains(t, all, "output c exit: exit status 3 after TestC")
}
