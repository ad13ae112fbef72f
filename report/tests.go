package report

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// WriteTests writes a test run (Meta.Mode == "test") the way go test does:
// per package, in measurement order, a --- FAIL line for every failed or
// crashed test followed by its outcome class, its error and its output tail,
// indented; then the package's ok or FAIL line (FAIL\tpkg [build failed] for
// a build failure, preceded by the compiler output). verbose also lists
// passing and skipped tests. A final line counts the tests:
//
//	benchsup: 12 tests: 10 passed, 1 failed, 1 skipped (1 crashed)
//
// where failed includes crashed, and crashed counts tests whose process
// ended abnormally (any class other than "fail"). Recordings of tests that
// used package record come before it, as a run's table shows them.
func WriteTests(w io.Writer, doc rundoc.Document, verbose bool) error {
	doc = escaped(doc)
	if doc.Meta.Mode != rundoc.ModeTest {
		return fmt.Errorf("report: WriteTests renders a %q document, not mode %q", rundoc.ModeTest, doc.Meta.Mode)
	}
	bw := bufio.NewWriter(w)
	var c testCounts
	var pkgs []string
	for _, r := range doc.Rows {
		if !slices.Contains(pkgs, r.Package) {
			pkgs = append(pkgs, r.Package)
		}
	}
	for _, pkg := range pkgs {
		writePackage(bw, pkg, doc.Rows, verbose, &c)
	}
	_, notRun := splitNotRun(doc.Rows)
	name := func(r rundoc.Row) string { return r.Name }
	if slices.ContainsFunc(notRun, func(r rundoc.Row) bool { return r.Package != notRun[0].Package }) {
		name = func(r rundoc.Row) string { return path.Base(r.Package) + "." + r.Name }
	}
	for _, l := range notRunLines(doc, notRun, name) {
		bw.WriteString(l + "\n")
	}
	if len(doc.Recordings) > 0 {
		// Spans a test recorded with package record (docs/recording.md).
		bw.WriteString("\n")
		writeRecordings(bw, doc.Recordings, TableOptions{}, painter(false))
		bw.WriteString("\n")
	}
	bw.WriteString(c.String() + "\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing test results: %w", err)
	}
	return nil
}

// testCounts tallies a test run for its summary line.
type testCounts struct {
	tests, passed, failed, skipped, crashed int
	notRun                                  int // never started: listed once, not failures
	buildFailed, pkgFailed                  int
}

func (c testCounts) String() string {
	s := fmt.Sprintf("benchsup: %d %s: %d passed, %d failed, %d skipped",
		c.tests, plural(c.tests, "test", "tests"), c.passed, c.failed, c.skipped)
	if c.crashed > 0 {
		s += fmt.Sprintf(" (%d crashed)", c.crashed)
	}
	if c.notRun > 0 {
		s += fmt.Sprintf(", %d not run", c.notRun)
	}
	if c.buildFailed > 0 {
		s += fmt.Sprintf("; %d %s failed to build", c.buildFailed, plural(c.buildFailed, "package", "packages"))
	}
	if c.pkgFailed > 0 {
		s += fmt.Sprintf("; %d %s failed outside any test", c.pkgFailed, plural(c.pkgFailed, "package", "packages"))
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writePackage writes the tests of one package and its status line.
//
// A package may have several package rows: the status row the supervisor
// appends (Outcome "ok", or "fail" when a test failed, with the package's
// elapsed time), and rows for failures outside any test (a build failure,
// a child that died in TestMain). The status row adds no failure of its own;
// each other failing package row gets a block, as go test prints compiler
// output.
func writePackage(w *bufio.Writer, pkg string, rows []rundoc.Row, verbose bool, c *testCounts) {
	failed, buildFailed := false, false
	var elapsedNs *int64
	var skipped *rundoc.Row
	coverage := "" // go test -cover's text, when the run measured it
	for i, r := range rows {
		if r.Package != pkg {
			continue
		}
		if r.Kind == rundoc.KindPackage {
			if r.ElapsedNs != nil {
				elapsedNs = r.ElapsedNs
			}
			if r.Coverage != nil {
				coverage = "coverage: " + r.Coverage.String()
			}
			switch {
			case r.Outcome == rundoc.OutcomeSkipped:
				skipped = &rows[i]
			case r.Outcome == rundoc.OutcomeBuildFailure:
				c.buildFailed++
				failed, buildFailed = true, true
				writeCompilerBlock(w, r)
			case r.Outcome == rundoc.OutcomeTestFail:
				// The status row of a package whose tests failed:
				// those tests were counted and printed already.
				failed = true
				if r.Error != nil || r.Output != "" {
					writeCompilerBlock(w, r)
				}
			case r.IsError():
				c.pkgFailed++
				failed = true
				writeCompilerBlock(w, r)
			}
			continue
		}
		c.tests++
		switch r.Outcome {
		case rundoc.OutcomeOK:
			c.passed++
			if verbose {
				fmt.Fprintf(w, "--- PASS: %s (%s)\n", r.Name, testElapsed(r.ElapsedNs))
				writeIndented(w, r.Output)
			} else {
				// What a passing test wrote to stdout, as go test prints it.
				printed, _ := goTestReport(r.Name, r.Output)
				writeLines(w, printed, "")
			}
		case rundoc.OutcomeNotRun:
			c.notRun++ // listed once, after every package (notRunLines)
		case rundoc.OutcomeSkipped:
			c.skipped++
			if verbose {
				reason := ""
				if r.Skipped != nil && *r.Skipped != "" {
					reason = " (" + oneLine(*r.Skipped) + ")"
				}
				fmt.Fprintf(w, "--- SKIP: %s%s\n", r.Name, reason)
				writeIndented(w, withoutLine(r.Output, r.Skipped))
			}
		default:
			c.failed++
			if r.Outcome != rundoc.OutcomeTestFail {
				c.crashed++
			}
			failed = true
			if r.Outcome == rundoc.OutcomeTestFail && !verbose {
				// A plain failure reads as go test's without -v (-v
				// keeps the whole verbose output): what the test
				// wrote to stdout, then its report.
				printed, body := goTestReport(r.Name, r.Output)
				writeLines(w, printed, "")
				fmt.Fprintf(w, "--- FAIL: %s (%s)\n", r.Name, testElapsed(r.ElapsedNs))
				if r.Error == nil || !containsLine(r.Output, *r.Error) {
					writeIndented(w, outcomeLine(r))
				}
				writeLines(w, body, "    ")
				for _, n := range r.Notes {
					writeIndented(w, "note: "+n)
				}
				continue
			}
			fmt.Fprintf(w, "--- FAIL: %s (%s)\n", r.Name, testElapsed(r.ElapsedNs))
			// A plain failure's message is a line of its output (what
			// t.Error logged): printed once, where the test printed it.
			if r.Outcome != rundoc.OutcomeTestFail || r.Error == nil || !containsLine(r.Output, *r.Error) {
				writeIndented(w, outcomeLine(r))
			}
			writeIndented(w, r.Output)
			for _, n := range r.Notes {
				writeIndented(w, "note: "+n)
			}
		}
	}

	// What happened to the package's children outside any one test (the
	// limits they reached, what they left running): its rows' notes, said
	// before its status line.
	var notes []string
	for _, r := range rows {
		if r.Package == pkg && r.Kind == rundoc.KindPackage {
			for _, n := range r.Notes {
				if !slices.Contains(notes, n) {
					notes = append(notes, n)
				}
			}
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", oneLine(n))
	}
	elapsed := ""
	if elapsedNs != nil {
		elapsed = "\t" + strconv.FormatFloat(float64(*elapsedNs)/1e9, 'f', 3, 64) + "s"
	}
	switch {
	case buildFailed:
		fmt.Fprintf(w, "FAIL\t%s [build failed]\n", pkg)
	case failed:
		if coverage != "" {
			// go test's binary prints it before its status line.
			fmt.Fprintf(w, "%s\n", coverage)
		}
		fmt.Fprintf(w, "FAIL\t%s%s\n", pkg, elapsed)
	case skipped != nil && skipped.Skipped != nil && *skipped.Skipped == rundoc.NoTestsToRun:
		// go test ran the binary and says so after its time; benchsup
		// starts no child for it, so there is no time to show.
		fmt.Fprintf(w, "ok  \t%s\t[%s]\n", pkg, rundoc.NoTestsToRun)
	case skipped != nil:
		reason := "no tests"
		if skipped.Skipped != nil && *skipped.Skipped != "" {
			reason = oneLine(*skipped.Skipped)
		}
		fmt.Fprintf(w, "?   \t%s\t[%s]\n", pkg, reason)
	case coverage != "":
		fmt.Fprintf(w, "ok  \t%s%s\t%s\n", pkg, elapsed, coverage)
	default:
		fmt.Fprintf(w, "ok  \t%s%s\n", pkg, elapsed)
	}
}

// writeCompilerBlock writes a package-level failure the way go test writes
// a build failure: a "# pkg" line, then the message and output unindented.
func writeCompilerBlock(w *bufio.Writer, r rundoc.Row) {
	fmt.Fprintf(w, "# %s\n", r.Package)
	w.WriteString(outcomeLine(r) + "\n")
	for _, l := range lines(r.Output) {
		w.WriteString(l + "\n")
	}
}

// containsLine reports whether a line of text, trimmed, ends with line: a
// subtest's failure message is "TestX/sub: file.go:3: message" and its
// output line "file.go:3: message".
func containsLine(text, line string) bool {
	for _, l := range lines(text) {
		if l = strings.TrimSpace(l); l != "" && strings.HasSuffix(line, l) &&
			(len(l) == len(line) || strings.HasSuffix(line[:len(line)-len(l)], ": ")) {
			return true
		}
	}
	return false
}

// withoutLine is text without the lines that are, trimmed, *line: a skip
// reason shown in its --- SKIP line already.
func withoutLine(text string, line *string) string {
	if line == nil {
		return text
	}
	var b strings.Builder
	for _, l := range lines(text) {
		if strings.TrimSpace(l) != *line {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// outcomeLine is a failure's class and error: "signal: killed by SIGSEGV".
func outcomeLine(r rundoc.Row) string {
	if r.Error != nil && *r.Error != "" {
		return string(r.Outcome) + ": " + *r.Error
	}
	return string(r.Outcome)
}

// testElapsed formats a test's duration as go test does (0.12s), or an em
// dash when it is not known (a test whose process crashed).
func testElapsed(ns *int64) string {
	if ns == nil {
		return dash
	}
	return strconv.FormatFloat(float64(*ns)/1e9, 'f', 2, 64) + "s"
}

func writeLines(w *bufio.Writer, ls []string, indent string) {
	for _, l := range ls {
		w.WriteString(indent + l + "\n")
	}
}
