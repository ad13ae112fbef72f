package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

func TestWriteTestsGolden(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		name := "tests"
		if verbose {
			name = "tests-verbose"
		}
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteTests(&buf, rundoctest.TestsDoc(), verbose))
			rundoctest.Golden(t, name+".txt", buf.Bytes())

			out := buf.String()
			assert.True(t, strings.HasSuffix(out,
				"benchsup: 7 tests: 4 passed, 2 failed, 1 skipped (1 crashed); 1 package failed to build\n"))
			assert.NotRegexp(t, regexp.MustCompile(`(?m)^\d+ passed, \d+ failed$`), out)
			assert.Contains(t, out, "--- FAIL: TestHuge (—)\n    signal: killed by SIGSEGV\n")
			assert.Contains(t, out, "FAIL\tgithub.com/acme/shop/codec\t1.532s\n")
			assert.Contains(t, out, "ok  \tgithub.com/acme/shop/store\t0.210s\n")
			assert.Contains(t, out, "FAIL\tgithub.com/acme/shop/broken [build failed]\n")
			assert.Equal(t, verbose, strings.Contains(out, "--- PASS: TestPut (0.01s)\n"))
			assert.Equal(t, verbose, strings.Contains(out, "--- SKIP: TestGPU (no CUDA device)\n"))
		})
	}
}

func TestWriteTestsPackages(t *testing.T) {
	tests := []struct {
		name string
		rows []rundoc.Row
		want string
	}{
		{"no package row", []rundoc.Row{{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK}}, "ok  \tp\n"},
		{"package without tests", []rundoc.Row{{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeSkipped, Skipped: rundoctest.Str("no test files")}},
			"?   \tp\t[no test files]\n"},
		{"package crash outside any test", []rundoc.Row{{Package: "p", Kind: rundoc.KindPackage, Outcome: "exit", Error: rundoctest.Str("exit status 2"),
			Output: "panic: init failed\n", ElapsedNs: rundoctest.Ns(5_000_000)}},
			"# p\nexit: exit status 2\npanic: init failed\nFAIL\tp\t0.005s\n"},
		{"status row of a failing package adds no failure", []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeTestFail, Error: rundoctest.Str("test failed")},
			{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeTestFail, ElapsedNs: rundoctest.Ns(20_000_000)},
		}, "--- FAIL: TestA (—)\n    fail: test failed\nFAIL\tp\t0.020s\n"},
		{"crash outside any test next to the status row", []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: rundoctest.Ns(0)},
			{Package: "p", Kind: rundoc.KindPackage, Outcome: "signal", Error: rundoctest.Str("killed by SIGKILL")},
			{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeTestFail, ElapsedNs: rundoctest.Ns(20_000_000)},
		}, "# p\nsignal: killed by SIGKILL\nFAIL\tp\t0.020s\n"},
		{"coverage on the ok line", []rundoc.Row{
			{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: rundoctest.Ns(20_000_000), Coverage: &rundoc.Coverage{Statements: 3, Covered: 2}},
		}, "ok  \tp\t0.020s\tcoverage: 66.7% of statements\n"},
		{"no statements", []rundoc.Row{
			{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: rundoctest.Ns(20_000_000), Coverage: &rundoc.Coverage{}},
		}, "ok  \tp\t0.020s\tcoverage: [no statements]\n"},
		{"coverage of -coverpkg", []rundoc.Row{
			{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: rundoctest.Ns(20_000_000), Coverage: &rundoc.Coverage{Statements: 4, Covered: 1, Packages: "./..."}},
		}, "ok  \tp\t0.020s\tcoverage: 25.0% of statements in ./...\n"},
		{"coverage before FAIL", []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeTestFail, Error: rundoctest.Str("test failed")},
			{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeTestFail, ElapsedNs: rundoctest.Ns(20_000_000), Coverage: &rundoc.Coverage{Statements: 2, Covered: 1}},
		}, "--- FAIL: TestA (—)\n    fail: test failed\ncoverage: 50.0% of statements\nFAIL\tp\t0.020s\n"},
		{"the package's notes before its status line, each once", []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK},
			{Package: "p", Kind: rundoc.KindPackage, Outcome: "exit", Error: rundoctest.Str("exit status 2"), Notes: []string{"pids limit 16 reached: 3 forks refused"}},
			{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeTestFail, ElapsedNs: rundoctest.Ns(20_000_000),
				Notes: []string{"pids limit 16 reached: 3 forks refused", "the kernel's OOM killer killed 1 process at the 64 MiB limit, peak 64.0 MiB"}},
		}, "# p\nexit: exit status 2\nnote: pids limit 16 reached: 3 forks refused\nnote: the kernel's OOM killer killed 1 process at the 64 MiB limit, peak 64.0 MiB\nFAIL\tp\t0.020s\n"},
		{"an ok package's notes", []rundoc.Row{
			{Package: "p", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: rundoctest.Ns(20_000_000), Notes: []string{"pids limit 16 reached: 3 forks refused"}},
		}, "note: pids limit 16 reached: 3 forks refused\nok  \tp\t0.020s\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			doc := rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeTest}, Rows: tt.rows}
			require.NoError(t, WriteTests(&buf, doc, false))
			before, _, ok := strings.Cut(buf.String(), "benchsup: ")
			require.True(t, ok)
			assert.Equal(t, tt.want, before)
		})
	}
}

func TestWriteTestsErrors(t *testing.T) {
	assert.ErrorContains(t, WriteTests(&bytes.Buffer{}, rundoctest.GreenDoc(), false), `mode "bench"`)
	assert.ErrorIs(t, WriteTests(rundoctest.FailWriter{}, rundoctest.TestsDoc(), false), rundoctest.ErrWrite)
}

func TestWriteTestsOutput(t *testing.T) {
	tests := []struct {
		name    string
		verbose bool
		rows    []rundoc.Row
		want    string
	}{
		{"a failure's message is a line of its output: printed once", false, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeTestFail, Error: rundoctest.Str("a_test.go:3: want 4"),
				Output: "printed\n    a_test.go:3: want 4\n", ElapsedNs: rundoctest.Ns(0)},
		}, "printed\n--- FAIL: TestA (0.00s)\n    a_test.go:3: want 4\nFAIL\tp\n"},
		{"a subtest's failure message names the subtest", false, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeTestFail, Error: rundoctest.Str("TestA/x: a_test.go:3: bad"),
				Output: "=== NAME  TestA/x\n    a_test.go:3: bad\n--- FAIL: TestA/x (0.00s)\n", ElapsedNs: rundoctest.Ns(0)},
		}, "--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/x (0.00s)\n        a_test.go:3: bad\nFAIL\tp\n"},
		{"a message not in the output is printed", false, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeTestFail, Error: rundoctest.Str("subtest TestA/x failed"),
				Output: "--- FAIL: TestA/x (0.00s)\n", ElapsedNs: rundoctest.Ns(0)},
		}, "--- FAIL: TestA (0.00s)\n    fail: subtest TestA/x failed\n    --- FAIL: TestA/x (0.00s)\nFAIL\tp\n"},
		{"a crash keeps benchsup's explanation above the crash text", false, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: "exit", Error: rundoctest.Str("TestA panicked; panic: boom"),
				Output: "panic: boom\n"},
		}, "--- FAIL: TestA (—)\n    exit: TestA panicked; panic: boom\n    panic: boom\nFAIL\tp\n"},
		{"notes follow a failure", false, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeTestFail, Error: rundoctest.Str("a_test.go:3: no token"),
				Output: "    a_test.go:3: no token\n", ElapsedNs: rundoctest.Ns(0), Notes: []string{"pass it with --env-keep=TOKEN"}},
		}, "--- FAIL: TestA (0.00s)\n    a_test.go:3: no token\n    note: pass it with --env-keep=TOKEN\nFAIL\tp\n"},
		{"quiet: a passing test's output is not shown", false, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, Output: "    a_test.go:3: hello\n", ElapsedNs: rundoctest.Ns(0)},
		}, "ok  \tp\n"},
		{"quiet: what a passing test printed to stdout is shown, as go test shows it", false, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, Output: "printed\n    a_test.go:3: hello\n", ElapsedNs: rundoctest.Ns(0)},
		}, "printed\nok  \tp\n"},
		{"verbose: a passing test's output", true, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, Output: "printed\n    a_test.go:3: hello\n", ElapsedNs: rundoctest.Ns(0)},
		}, "--- PASS: TestA (0.00s)\n    printed\n        a_test.go:3: hello\nok  \tp\n"},
		{"verbose: a skip's reason once, its other output below", true, []rundoc.Row{
			{Package: "p", Name: "TestA", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeSkipped, Skipped: rundoctest.Str("a_test.go:4: no GPU"),
				Output: "    a_test.go:3: probing\n    a_test.go:4: no GPU\n", ElapsedNs: rundoctest.Ns(0)},
		}, "--- SKIP: TestA (a_test.go:4: no GPU)\n        a_test.go:3: probing\nok  \tp\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			doc := rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeTest}, Rows: tt.rows}
			require.NoError(t, WriteTests(&buf, doc, tt.verbose))
			before, _, ok := strings.Cut(buf.String(), "benchsup: ")
			require.True(t, ok)
			assert.Equal(t, tt.want, before)
		})
	}
}
