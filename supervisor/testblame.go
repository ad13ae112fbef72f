package supervisor

import (
	"fmt"
	"strings"
)

// This file names the test that ended a test-mode child, from facts only:
// the crash's own text on stderr (the panic or fatal error line, the
// trace of the goroutine that crashed and the function that created it)
// and testing's own events (which tests were running, paused or had ended
// when the process died). See docs/design.md#containment.

// crashTrace is what the Go runtime printed as a process died of a panic or
// a fatal error: the message and the trace of the goroutine that crashed.
type crashTrace struct {
	message   string   // "panic: boom [recovered, repanicked]" or "fatal error: ..."
	frames    []string // functions, innermost first, without arguments
	createdBy string   // the function whose go statement started the goroutine
}

// parseCrash finds the last crash report in stderr. ok is false when
// stderr holds none (os.Exit, a signal from outside, a tail that lost it).
func parseCrash(stderr string) (c crashTrace, ok bool) {
	lines := strings.Split(stderr, "\n")
	start := -1
	for i, line := range lines {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			start = i
		}
	}
	if start < 0 {
		return c, false
	}
	c.message = strings.TrimSpace(lines[start])
	i := start + 1
	for i < len(lines) && !(strings.HasPrefix(lines[i], "goroutine ") && strings.HasSuffix(lines[i], ":")) {
		i++
	}
	for i++; i < len(lines) && lines[i] != ""; i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "\t"), strings.HasPrefix(line, "..."):
		case strings.HasPrefix(line, "created by "):
			fn := strings.TrimPrefix(line, "created by ")
			if j := strings.Index(fn, " in goroutine "); j >= 0 {
				fn = fn[:j]
			}
			c.createdBy = fn
		default:
			c.frames = append(c.frames, funcName(line))
		}
	}
	return c, true
}

// funcName strips the arguments from a trace's function line:
// "testing.(*common).runCleanup(0xc000, 0x5f2cc0?)" is
// "testing.(*common).runCleanup".
func funcName(line string) string {
	if strings.HasSuffix(line, ")") {
		if j := strings.LastIndexByte(line, '('); j > 0 {
			return line[:j]
		}
	}
	return line
}

// has reports whether the crashed goroutine was in fn.
func (c crashTrace) has(fn string) bool {
	for _, f := range c.frames {
		if f == fn {
			return true
		}
	}
	return false
}

// runner reports whether the goroutine that crashed runs a test: testing's
// tRunner starts every test and subtest function, and re-panics a test's
// panic from its own deferred call, on the same goroutine.
func (c crashTrace) runner() bool {
	return c.has("testing.tRunner")
}

// testOf names the top-level test a function belongs to: TestX for
// pkg.TestX, pkg.TestX.func1 (a closure in it: a subtest, a cleanup, a
// goroutine) or pkg_test.TestX. It is "" for any other function.
func testOf(fn, pkg string, tests map[string]bool) string {
	for _, prefix := range []string{pkg + ".", pkg + "_test."} {
		rest, ok := strings.CutPrefix(fn, symbolPath(prefix))
		if !ok {
			continue
		}
		name := rest
		if j := strings.IndexAny(name, ".["); j >= 0 {
			name = name[:j]
		}
		if tests[name] {
			return name
		}
	}
	return ""
}

// symbolPath is an import path prefix as the runtime spells it in symbol
// names: dots in the last path element are escaped.
func symbolPath(prefix string) string {
	dir, last := "", strings.TrimSuffix(prefix, ".")
	if j := strings.LastIndexByte(last, '/'); j >= 0 {
		dir, last = last[:j+1], last[j+1:]
	}
	return dir + strings.ReplaceAll(last, ".", "%2e") + "."
}

// testStatus is where a test stood when its child died.
type testStatus int

const (
	statusRunning testStatus = iota // started or continued
	statusPaused                    // waiting in t.Parallel
	statusEnded                     // testing reported its result
)

// crashFacts are what is known when a test child died.
type crashFacts struct {
	pkg    string
	tests  map[string]bool // the package's top-level tests
	stderr string
	// exited and code: the child exited with this status (not a signal).
	exited bool
	code   int
	// status is every test the child started, subtests included, by
	// full name; order lists them as they started.
	status map[string]testStatus
	order  []string
	// failed lists the tests testing reported failed, in that order;
	// results has each top-level test's reported result.
	failed  []string
	results map[string]string
	// alone says this child was asked to run one test only.
	alone string
}

// verdict names the test charged with a child's death and why, in words a
// user understands; test is "" when no test can be named from the facts.
type verdict struct {
	test   string
	reason string
}

// blame names the top-level test that ended a child, from the crash text
// and the events; it never picks a test merely for having started last.
func blame(f crashFacts) verdict {
	c, traced := parseCrash(f.stderr)
	if traced {
		if v, ok := f.fromTrace(c); ok {
			return v
		}
	}
	// No trace names a test. In a child that ran one test only, nothing
	// else could have ended it.
	if f.alone != "" && f.started(f.alone) {
		return verdict{f.alone, f.noTrace(c, traced) + ", and " + f.alone + " was the only test this process ran"}
	}
	// A crash of a test's own goroutine (or no crash text at all: os.Exit,
	// a signal) while exactly one test was running is that test's.
	if !traced || c.runner() || c.createdBy == "" {
		if tops := f.runningTops(); len(tops) == 1 {
			return verdict{tops[0], f.noTrace(c, traced) + " while " + f.leafOf(tops[0]) + " was the only test running"}
		}
	}
	return verdict{"", "could not tell which test: " + f.noTrace(c, traced) + f.suspects()}
}

// fromTrace names the test from the crashed goroutine's trace.
func (f crashFacts) fromTrace(c crashTrace) (verdict, bool) {
	if c.runner() {
		// The innermost frame of a test this child started: a test
		// function another test calls directly is not a test that ran.
		test := ""
		for _, fn := range c.frames {
			if test = testOf(fn, f.pkg, f.tests); test != "" && f.started(test) {
				break
			}
			test = ""
		}
		how := ""
		if test == "" {
			// No frame of a test that ran (a subtest function from a
			// helper): the crashed runner is the one test running, if only
			// one was.
			tops := f.runningTops()
			if len(tops) != 1 {
				return verdict{}, false
			}
			test = tops[0]
			how = " (no frame names a test: the crashed goroutine runs a test, and " + test + " was the only test running)"
		}
		who := test
		if f.subtestRunner(c, test) {
			who = f.crashedSubtest(test)
		}
		switch {
		case strings.Contains(c.message, "unexpected call to os.Exit(0) during test"):
			return verdict{test, who + " called os.Exit(0) during the test, which testing treats as a failure" + how}, true
		case strings.Contains(c.message, "test executed panic(nil) or runtime.Goexit"):
			return verdict{test, who + " called runtime.Goexit (not through t.FailNow or t.SkipNow), which testing treats as a crash" + how}, true
		case c.has("testing.(*common).runCleanup"):
			return verdict{test, "a function " + test + " registered with t.Cleanup " + crashVerb(c.message) + how}, true
		}
		return verdict{test, who + " " + crashVerb(c.message) + how}, true
	}
	test := testOf(c.createdBy, f.pkg, f.tests)
	if test == "" || !f.started(test) {
		return verdict{}, false
	}
	when := "while the test was running"
	if st, ok := f.status[test]; ok && st == statusPaused {
		when = "while the test waited in t.Parallel"
	} else if ok && st == statusEnded {
		when = "after the test had returned"
		if r := f.results[test]; r != "" {
			when += " (testing had reported it: " + r + ")"
		}
	}
	return verdict{test, "a goroutine " + test + " started " + crashVerb(c.message) + " " + when}, true
}

// subtestRunner reports whether the crashed runner goroutine runs a
// subtest of test: the function testing.tRunner called is a closure of
// the test (pkg.TestX.func1), not the test function itself.
func (c crashTrace) subtestRunnerFunc() string {
	for i, fn := range c.frames {
		if fn == "testing.tRunner" && i > 0 {
			return c.frames[i-1]
		}
	}
	return ""
}

func (f crashFacts) subtestRunner(c crashTrace, test string) bool {
	fn := c.subtestRunnerFunc()
	return testOf(fn, f.pkg, f.tests) == test && strings.Contains(strings.TrimPrefix(fn, f.pkg), test+".")
}

// crashedSubtest names the subtest of top whose runner crashed: the last
// one testing reported failed (testing reports a panicking subtest failed
// before it re-panics, and the worker waits for that report to arrive in
// top's cleanup, which testing runs next), or else the one running.
func (f crashFacts) crashedSubtest(top string) string {
	for i := len(f.failed) - 1; i >= 0; i-- {
		if strings.HasPrefix(f.failed[i], top+"/") {
			return "subtest " + f.failed[i]
		}
	}
	return f.leafOf(top)
}

// crashVerb is "panicked" or "hit a fatal error".
func crashVerb(msg string) string {
	if strings.HasPrefix(msg, "fatal error: ") {
		return "hit a fatal error"
	}
	return "panicked"
}

// noTrace says how the process died when no trace names a test.
func (f crashFacts) noTrace(c crashTrace, traced bool) string {
	switch {
	case traced && c.runner():
		return "a test's goroutine " + crashVerb(c.message)
	case traced && c.createdBy != "":
		return "a goroutine started by " + c.createdBy + " " + crashVerb(c.message)
	case traced:
		return "the process " + crashVerb(c.message)
	case f.exited && raceReported(f.stderr):
		// testing fails the test running when the race detector counts
		// a race; in benchsup's child that is also its own entry test,
		// which holds every test of the process, so the process exits 1
		// after all of them ended (66: the detector's exit code).
		return fmt.Sprintf("the race detector reported a data race (WARNING: DATA RACE on stderr), for which the process exited with status %d", f.code)
	case f.exited:
		return fmt.Sprintf("os.Exit(%d) or log.Fatal ended the process (status %d, no panic printed)", f.code, f.code)
	}
	return "the process died"
}

// raceReported reports whether stderr holds a report of the race
// detector (a -race build).
func raceReported(stderr string) bool {
	return strings.Contains(stderr, "\nWARNING: DATA RACE\n") || strings.HasPrefix(stderr, "WARNING: DATA RACE\n")
}

// started reports whether the top-level test started in the child.
func (f crashFacts) started(test string) bool {
	_, ok := f.status[test]
	return ok
}

// runningTops lists the top-level tests running (not paused, not ended).
func (f crashFacts) runningTops() []string {
	var out []string
	for _, name := range f.order {
		if !strings.Contains(name, "/") && f.status[name] == statusRunning {
			out = append(out, name)
		}
	}
	return out
}

// leafOf names what of top was running: its one running subtest deepest
// down ("subtest TestX/a/b"), or the test itself.
func (f crashFacts) leafOf(top string) string {
	var leaves []string
	for _, name := range f.order {
		if !strings.HasPrefix(name, top+"/") || f.status[name] != statusRunning {
			continue
		}
		// A parent waiting in t.Run stays running: keep the deepest.
		if n := len(leaves); n > 0 && strings.HasPrefix(name, leaves[n-1]+"/") {
			leaves[n-1] = name
			continue
		}
		leaves = append(leaves, name)
	}
	if len(leaves) == 1 {
		return "subtest " + leaves[0]
	}
	return top
}

// interrupted lists the top-level tests that were running or paused when
// the child died.
func (f crashFacts) interrupted() []string {
	var out []string
	for _, name := range f.order {
		if !strings.Contains(name, "/") && f.status[name] != statusEnded {
			out = append(out, name)
		}
	}
	return out
}

// suspects names the tests that were running or paused, for a message.
func (f crashFacts) suspects() string {
	var running, paused []string
	for _, name := range f.interrupted() {
		if f.status[name] == statusPaused {
			paused = append(paused, name)
		} else {
			running = append(running, name)
		}
	}
	s := ""
	if len(running) > 0 {
		s += "; running: " + strings.Join(running, ", ")
	}
	if len(paused) > 0 {
		s += "; paused in t.Parallel: " + strings.Join(paused, ", ")
	}
	if s == "" {
		s = "; no test was running"
	}
	return s
}

// workerFrame reports whether a trace's function line belongs to benchsup
// (docs/design.md#injection): the injected worker, benchsup's own worker
// package, or the generated entry point TestBenchsupWorker. Its frames say
// nothing about the code under test.
func workerFrame(fn string) bool {
	return strings.HasPrefix(fn, "zz_benchsup_") || strings.Contains(fn, "/zz_benchsup_") || strings.HasPrefix(fn, "github.com/benchsup/benchsup/worker.") ||
		strings.Contains(fn, ".TestBenchsupWorker(")
}

// machineryFrame reports whether a function line is the runtime's or
// testing's own: a goroutine made only of these (the garbage collector's,
// testing's main goroutine) says nothing about the code under test either.
func machineryFrame(fn string) bool {
	for _, p := range []string{"runtime.", "internal/", "testing.", "main.main(", "os/signal."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// trimWorkerFrames makes a crash's or a goroutine dump's text read as the
// code under test's: it drops benchsup's frames (a function line and its
// file line) from every trace, the goroutines that are benchsup's (any
// frame of the worker and none of pkg's: its reader, the goroutine that
// runs the tests) or only the runtime's and testing's, and the registers a
// SIGQUIT dump ends with. The crashing goroutine of a panic or fatal error
// is always kept, whole when it is benchsup's. What it dropped is counted
// in a last line.
func trimWorkerFrames(s, pkg string) string {
	lines := strings.Split(s, "\n")
	var out []string
	dropped := 0
	crashed := false // the first goroutine after a panic or fatal error line
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			crashed = true
		}
		if isGoroutineHeader(line) {
			end := i + 1
			for end < len(lines) && lines[end] != "" && !isGoroutineHeader(lines[end]) {
				end++
			}
			block := lines[i:end]
			ours := benchsupGoroutine(block, pkg)
			// A crash of benchsup's own goroutine is benchsup's bug: its
			// frames are the report.
			whole := crashed && ours
			if !crashed && ours {
				dropped++
				i = end // and the blank line after it
				continue
			}
			crashed = false
			out = append(out, line)
			for j := 1; j < len(block); j++ {
				if !whole && workerFrame(block[j]) && !strings.HasPrefix(block[j], "\t") && j+1 < len(block) && strings.HasPrefix(block[j+1], "\t") {
					j++
					continue
				}
				out = append(out, block[j])
			}
			i = end - 1
			continue
		}
		if isRegisterLine(line) {
			continue
		}
		out = append(out, line)
	}
	text := strings.Join(out, "\n")
	if dropped > 0 {
		text = strings.TrimRight(text, "\n") + fmt.Sprintf("\n[%d %s of the runtime, of testing and of benchsup's worker omitted]\n",
			dropped, map[bool]string{true: "goroutine", false: "goroutines"}[dropped == 1])
	}
	return text
}

// isGoroutineHeader matches "goroutine 7 [running]:" and a SIGQUIT dump's
// "goroutine 7 gp=0xc000 m=nil [sleep]:".
func isGoroutineHeader(line string) bool {
	return strings.HasPrefix(line, "goroutine ") && strings.HasSuffix(line, ":")
}

// benchsupGoroutine reports whether a goroutine's trace (its header, then
// function and file lines) runs benchsup's worker and no function of pkg
// (a top-level test runs under the worker's wrapper: its goroutine has
// both), or only the runtime's and testing's code.
func benchsupGoroutine(block []string, pkg string) bool {
	worker, machinery, own := false, true, false
	for _, line := range block[1:] {
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "...") {
			continue
		}
		fn := strings.TrimPrefix(line, "created by ")
		switch {
		case workerFrame(fn):
			worker = true
		case machineryFrame(fn):
		default:
			machinery = false
			if pkg != "" && (strings.HasPrefix(fn, symbolPath(pkg+".")) || strings.HasPrefix(fn, symbolPath(pkg+"_test."))) {
				own = true
			}
		}
	}
	return machinery || (worker && !own)
}

// isRegisterLine matches a line of the registers the runtime prints after
// a SIGQUIT dump ("rax    0x5", "rflags 0x246") and its "PC=0x48e341 m=0
// sigcode=0" line.
func isRegisterLine(line string) bool {
	if strings.HasPrefix(line, "PC=0x") {
		return true
	}
	name, value, ok := strings.Cut(line, " ")
	if !ok || len(name) > 6 || name == "" {
		return false
	}
	value = strings.TrimLeft(value, " ")
	if !strings.HasPrefix(value, "0x") || strings.ContainsAny(value, " \t") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
