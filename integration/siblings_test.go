package integration

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/rundoc"
)

// testSiblings is issue 21's point 4 on a fixture shaped like roaring64's
// BenchmarkIteratorAlloc: the parent checks, between its b.Run calls, what
// the sub-benchmark before left, so run alone every leaf but the first is
// never reached. Every leaf is measured, each but the first after the
// leaves before it, and says so in its note and its JSON (calibration and
// every process); a leaf that fails after its sibling too keeps the
// failure. The default metrics are counted, so the counting pass runs
// after the siblings as well.
func testSiblings(t *testing.T) {
	endToEnd(t)
	mod := fixtureModule(t, "siblings")
	jsonOut := filepath.Join(t.TempDir(), "run.json")
	argv := []string{"run", "--bench", "--repetitions=2", "--sample-time=10ms", "--json=" + jsonOut, "."}
	cmd := exec.Command(filepath.Join(binDir, "benchsup"), argv...)
	cmd.Dir = mod
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("benchsup %s: %v, want exit status 1 (BenchmarkBroken/fails fails)\n%s", strings.Join(argv, " "), err, out)
	}
	table := string(out)
	t.Logf("table:\n%s", table)
	doc := readJSON[rundoc.Document](t, jsonOut)
	rows := map[string]rundoc.Row{}
	for _, r := range doc.Rows {
		rows[r.Name] = r
	}
	note := func(before string) string {
		return "run after " + before + " testing runs before it in its function, in the same process and at its N (their results discarded): " +
			"run alone, it never ran, as its parent failed before reaching it"
	}
	for _, tt := range []struct {
		name  string
		after int64
		note  string
	}{
		{"BenchmarkCardinality/simple_iteration_with_alloc", 0, ""},
		{"BenchmarkCardinality/simple_iteration", 1, note("the leaf")},
		{"BenchmarkCardinality/reverse_iteration", 2, note("the 2 leaves")},
		{"BenchmarkBroken/setup", 0, ""},
	} {
		r, ok := rows[tt.name]
		if !ok {
			t.Errorf("%s: no row", tt.name)
			continue
		}
		if r.Outcome != rundoc.OutcomeOK || r.Summary == nil {
			t.Errorf("%s: %s (%v), want measured", tt.name, r.Outcome, deref(r.Error))
			continue
		}
		if len(r.Processes) != 2 {
			t.Errorf("%s: %d processes, want 2", tt.name, len(r.Processes))
		}
		for _, p := range r.Processes {
			if p.AfterSiblings != tt.after || p.NsPerOp == nil {
				t.Errorf("%s process %d: afterSiblings %d (ns/op %v), want %d and measured", tt.name, p.Index, p.AfterSiblings, p.NsPerOp != nil, tt.after)
			}
		}
		if c := r.Calibration; c == nil || c.AfterSiblings != tt.after {
			t.Errorf("%s: calibration %+v, want afterSiblings %d", tt.name, c, tt.after)
		}
		hasNote := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "run after ") })
		switch {
		case tt.note == "" && hasNote:
			t.Errorf("%s: notes %q, want none about siblings: it runs alone", tt.name, r.Notes)
		case tt.note != "" && !slices.Contains(r.Notes, tt.note):
			t.Errorf("%s: notes %q, want %q once", tt.name, r.Notes, tt.note)
		case tt.note != "" && !strings.Contains(table, tt.note):
			t.Errorf("%s: the table's notes lack %q", tt.name, tt.note)
		}
	}
	broken, ok := rows["BenchmarkBroken/fails"]
	switch {
	case !ok:
		t.Errorf("BenchmarkBroken/fails: no row")
	case broken.Outcome != "benchmark-failure" || !strings.Contains(deref(broken.Error), "fails after its sibling too"):
		t.Errorf("BenchmarkBroken/fails: %s (%v), want the failure it has after its sibling", broken.Outcome, deref(broken.Error))
	case !slices.Contains(broken.Notes, note("the leaf")):
		t.Errorf("BenchmarkBroken/fails: notes %q, want that it ran after its sibling", broken.Notes)
	}
}
