package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// interrupted adds n not-run rows of kind to doc's package pkg, and a
// canceled one, as a run a SIGINT ended leaves them.
func interrupted(doc rundoc.Document, pkg string, kind rundoc.Kind, prefix string, n int) rundoc.Document {
	why := "the run was interrupted before it started"
	for i := range n {
		doc.Rows = append(doc.Rows, rundoc.Row{Package: pkg, Name: fmt.Sprintf("%s%02d", prefix, i), Kind: kind,
			Outcome: rundoc.OutcomeNotRun, Error: &why})
	}
	stopped := "the run was canceled while this child ran"
	doc.Rows = append(doc.Rows, rundoc.Row{Package: pkg, Name: prefix + "Running", Kind: kind, Outcome: "canceled", Error: &stopped})
	doc.Interrupted = &rundoc.Interruption{Signal: "SIGINT", NotRun: n}
	return doc
}

func TestInterruptedTable(t *testing.T) {
	doc := interrupted(rundoctest.GreenDoc(), rundoctest.GreenDoc().Rows[0].Package, rundoc.KindBenchmark, "BenchmarkLater", 15)
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
	out := buf.String()
	assert.Equal(t, 1, strings.Count(out, "interrupted (SIGINT): 15 benchmarks not run: "), out)
	assert.Contains(t, out, "not run: codec.BenchmarkLater00, codec.BenchmarkLater01", "named as the table names them")
	assert.Contains(t, out, "codec.BenchmarkLater07, … (7 more)\n", "a bounded list")
	assert.NotContains(t, out, "BenchmarkLater08")
	assert.NotContains(t, out, "--- FAIL", "neither the unstarted nor the canceled are failures")
	assert.NotContains(t, out, "not-run")
	assert.Contains(t, out, "BenchmarkLaterRunning", "the one that was running keeps its row")
}

func TestInterruptedTests(t *testing.T) {
	doc := interrupted(rundoctest.TestsDoc(), "github.com/acme/shop/store", rundoc.KindTest, "TestLater", 3)
	var buf bytes.Buffer
	require.NoError(t, WriteTests(&buf, doc, false))
	out := buf.String()
	assert.Contains(t, out, "\ninterrupted (SIGINT): 3 tests not run: TestLater00, TestLater01, TestLater02\n")
	assert.NotContains(t, out, "--- FAIL: TestLater0")
	assert.Contains(t, out, "3 failed, 1 skipped (2 crashed), 3 not run;", "the summary counts them apart from failures")
}

func TestNotRunLines(t *testing.T) {
	ff := "--fail-fast stopped the run after an earlier failure"
	rows := []rundoc.Row{
		{Name: "BenchmarkA", Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeNotRun, Error: &ff},
		{Name: "WorkloadB", Kind: rundoc.KindWorkload, Outcome: rundoc.OutcomeNotRun, Error: &ff},
	}
	got := notRunLines(rundoc.Document{}, rows, func(r rundoc.Row) string { return r.Name })
	assert.Equal(t, []string{"not run: 2 identities (" + ff + "): BenchmarkA, WorkloadB"}, got)
	got = notRunLines(rundoc.Document{}, rows[:1], func(r rundoc.Row) string { return r.Name })
	assert.Equal(t, []string{"not run: 1 benchmark (" + ff + "): BenchmarkA"}, got)
}
