package report

import (
	"regexp"
	"strings"
)

// A test row's output is what the test printed under -test.v (the
// worker runs tests verbosely, to follow them): its own log lines
// indented by four spaces, what it wrote to stdout unindented, "=== NAME"
// and "=== RUN" lines where its subtests took turns, and a subtest's
// "--- FAIL" line when it ended. go test without -v prints something
// else, and users read benchsup's failures beside go test's: what the
// test wrote to stdout as it ran, then "--- FAIL: TestX (0.01s)" with the
// test's log lines and, in place, the report of each failed subtest, each
// level indented four spaces more (testing's (*T).report and
// flushToParent). goTestReport rebuilds that from the verbose output.

var (
	// chattyMarker is testing's line when a test (re)starts printing.
	chattyMarker = regexp.MustCompile(`^=== (RUN|NAME|CONT|PAUSE)\s+(\S.*)$`)
	// chattyResult is a test's result line; subtests' are indented.
	chattyResult = regexp.MustCompile(`^\s*--- (FAIL|PASS|SKIP): (\S+) \(([^)]*)\)$`)
)

// goTestReport splits a test's verbose output into what go test prints as
// the test runs (stdout lines) and the body under its --- FAIL line (its
// log lines and its failed subtests' reports, indented as go test indents
// them, relative to the --- FAIL line).
func goTestReport(name, output string) (printed, body []string) {
	blocks := map[string][]string{} // each test's lines, until it ends
	current := name
	for _, l := range lines(output) {
		if m := chattyMarker.FindStringSubmatch(l); m != nil {
			if m[1] != "PAUSE" {
				current = m[2]
			}
			continue
		}
		if m := chattyResult.FindStringSubmatch(l); m != nil {
			sub := m[2]
			if sub == name {
				continue
			}
			own := blocks[sub]
			delete(blocks, sub)
			// Without -v testing reports only failures; a passed or
			// skipped subtest's logs are dropped with it.
			if m[1] == "FAIL" {
				parent := parentTest(sub, name)
				blocks[parent] = append(blocks[parent], "--- FAIL: "+sub+" ("+m[3]+")")
				for _, bl := range own {
					blocks[parent] = append(blocks[parent], "    "+bl)
				}
			}
			if current == sub {
				current = parentTest(sub, name)
			}
			continue
		}
		if rest, ok := strings.CutPrefix(l, "    "); ok {
			blocks[current] = append(blocks[current], rest)
			continue
		}
		printed = append(printed, l)
	}
	return printed, blocks[name]
}

// parentTest is the parent of subtest sub, down to the top-level test
// top.
func parentTest(sub, top string) string {
	if i := strings.LastIndexByte(sub, '/'); i > 0 && len(sub[:i]) >= len(top) {
		return sub[:i]
	}
	return top
}
