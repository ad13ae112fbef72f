package supervisor

import (
	"slices"
	"strings"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
)

// A resource limit the code under test sets on itself (setrlimit) is the
// code's, never the host's (docs/design.md#containment): the worker says
// which top-level test changed which limit (a protocol.Log with Limit) and
// whether it set it back. The note goes on that test's row; a child that
// fails after it, with no test of its own to blame, fails that test, not
// the host's files; and a limit the worker could not set back makes the
// child's later tests rerun in a new child (the worker skips them unrun).

// testLimits is what a test mode child's worker said about limits.
type testLimits struct {
	notes  map[string][]string // by top-level test, the worker's texts
	order  []string            // the tests that changed a limit, as reported
	halted string              // the test after which a limit stayed changed
}

// limitLog records a Log from the worker; one naming no limit is not
// about limits. Called with tr.mu held.
func (tr *testRun) limitLog(l protocol.Log) {
	if l.Limit == "" || l.Test == "" {
		return
	}
	lim := &tr.limits
	if lim.notes == nil {
		lim.notes = map[string][]string{}
	}
	if !slices.Contains(lim.order, l.Test) {
		lim.order = append(lim.order, l.Test)
	}
	if !slices.Contains(lim.notes[l.Test], l.Text) {
		lim.notes[l.Test] = append(lim.notes[l.Test], l.Text)
	}
	if !l.Restored && lim.halted == "" {
		lim.halted = l.Test
	}
}

// afterHalt reports whether ev belongs to a test the worker skipped, or
// that ran on, after a limit stayed changed: not a result of this child.
// Called with tr.mu held.
func (tr *testRun) afterHalt(ev protocol.TestEvent) bool {
	return tr.limits.halted != "" && analysis.FunctionOf(ev.Test) != tr.limits.halted
}

// haltedBy is the test after which a limit stayed changed, or "".
func (tr *testRun) haltedBy() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.limits.halted
}

// limitNotes adds to row, a test's, what its test did to the limits.
func (tr *testRun) limitNotes(row rundoc.Row) rundoc.Row {
	for _, n := range tr.limits.notes[row.Name] {
		if !slices.Contains(row.Notes, n) {
			row.Notes = append(row.Notes, n)
		}
	}
	return row
}

// limitVerdict charges a failed child that no test's own crash explains
// to the test that changed a limit: the one whose limit stayed changed,
// else the first to change one. The verdict is empty when no test did. It
// also explains a crash blamed on that test itself: the worker reports a
// limit once the test's code and cleanups ended, so what failed after was
// testing or the worker under the limit.
func (tr *testRun) limitVerdict() verdict {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	test := tr.limits.halted
	if test == "" && len(tr.limits.order) > 0 {
		test = tr.limits.order[0]
	}
	if test == "" {
		return verdict{}
	}
	return verdict{test, "the child failed after this test changed its resource limits (" +
		strings.Join(tr.limits.notes[test], "; ") + ")"}
}

// changedLimits reports whether the worker said a test changed a limit.
func (tr *testRun) changedLimits() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.limits.order) > 0
}

// haltedRow is the row of the test after which a limit stayed changed when
// the child ended well without its result: testing could not write it
// (a file size limit of 0 refuses the worker's capture of testing's output).
func (tr *testRun) haltedRow(pkg, test string) rundoc.Row {
	return rundoc.Row{Package: pkg, Name: test, Kind: "test", Outcome: rundoc.OutcomeTestFail,
		Processes: []rundoc.ProcessResult{}, Notes: slices.Clone(tr.limits.notes[test]),
		Error: ptr("no result: testing's report of this test was lost to the resource limits it changed")}
}

// fileTooLarge reports whether a line of testing's says a write failed
// for a file size limit (EFBIG): the process's own RLIMIT_FSIZE, never a
// full disk.
func fileTooLarge(line string) bool {
	return strings.HasSuffix(strings.TrimSpace(line), "file too large")
}
