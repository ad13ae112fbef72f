package worker

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/benchsup/benchsup/protocol"
)

// runTests runs the registered tests after Config.After, except those in
// Config.Skip, that match Config.Run through testing.RunTests in testing's
// framed verbose mode (-test.v=test2json), and turns testing's own lines
// into TestEvents: run, pause, cont and pass, fail or skip for every test,
// subtests included, and the output testing attributes to each test. A test
// that ends the process leaves its "run" without an end; the supervisor
// names the culprit from these events and the crash's own text on stderr
// (docs/design.md#containment).
func (w *session) runTests() error {
	registry.mu.Lock()
	all := runOrder(registry.tests, registry.examples, registry.fuzz)
	registry.mu.Unlock()
	if after := w.req.Config.After; after != "" {
		found := false
		for i, t := range all {
			if t.name == after {
				all, found = all[i+1:], true
				break
			}
		}
		if !found {
			return w.fail(protocol.FailureError, fmt.Sprintf("cannot resume after %s: no such test", after), "")
		}
	}
	skip := make(map[string]bool, len(w.req.Config.Skip))
	for _, name := range w.req.Config.Skip {
		skip[name] = true
	}
	var fs flagState
	defer fs.restore()
	if err := fs.set("test.run", w.req.Config.Run); err != nil {
		return err
	}
	if err := fs.set("test.v", "test2json"); err != nil {
		return err
	}
	// -skip, applied by testing's own matcher (as go test -skip): the
	// worker's test already runs, so its name is not subject to it.
	if err := fs.set("test.skip", w.req.Config.SkipPattern); err != nil {
		return err
	}
	st := newTestStream(func(ev protocol.TestEvent) { _ = w.send(ev) })
	st.limits = &testLimits{watch: w.limits, send: func(l protocol.Log) { _ = w.send(l) }}
	capture := captureStdout
	if path := testOutputPath(); path != "" {
		st.batch = true
		capture = func(f func(), line func([]byte) bool) error {
			return captureToFile(path, st.kick, st.idle, f, line)
		}
	}
	// The stream takes frames as testing's only for the tests this binary
	// registered, and a top-level test's run and end only from the
	// wrapper around it (docs/design.md#containment).
	st.known = map[string]bool{}
	for _, t := range all {
		st.known[t.name] = true
	}
	err := capture(func() {
		// testing writes its frames to the os.Stdout of this moment (the
		// capture pipe), whatever the code under test does to os.Stdout
		// later; the sync marks go to the same pipe.
		st.mu.Lock()
		st.pipe = os.Stdout
		st.pipeInfo, _ = st.pipe.Stat()
		st.mu.Unlock()
		capture := os.Stdout
		var kept []runEntry
		for _, t := range all {
			if !skip[t.name] {
				kept = append(kept, t)
			}
		}
		groups := groupEntries(kept)
		for _, g := range groups {
			if st.limits.haltedBy() != "" {
				break // the rest run in a fresh process (rlimit.go)
			}
			// A test of an earlier group may have pointed os.Stdout
			// elsewhere; testing takes the next group's from it.
			os.Stdout = capture
			// Split in groups, one that -run selects nothing of would
			// print testing's "no tests to run" warning: it is left out.
			if len(groups) > 1 && !g.selected(w.req.Config.Run) {
				continue
			}
			if len(g.fuzz) > 0 {
				runFuzzTargets(st, g.fuzz)
				continue
			}
			var tests []testing.InternalTest
			for _, t := range g.tests {
				tests = append(tests, testing.InternalTest{Name: t.Name, F: st.syncAfter(t.F)})
			}
			testing.RunTests(matchString, tests)
		}
	}, st.line)
	st.close()
	return err
}

// syncAfter waits, before f runs and as the last of its cleanups, until
// everything testing and the test wrote to stdout so far reached the
// supervisor. The capture is a pipe inside this process, so what is still
// in it when the process dies is lost: the wait before f makes the
// supervisor know the test started before any of its code runs (a test
// that calls os.Exit at once leaves nothing else), and a test that panics
// runs its cleanups before testing re-panics, so the wait after delivers
// the frames that name a crashing subtest and what the test printed just
// before.
//
// It also marks where the test starts and ends in testing's log of the
// variables the process reads (-test.testlogfile, which the supervisor
// passes), so that a variable can be charged to the test that read it:
// the log records every os.Getenv in order, so a lookup of a name no
// environment has serves as the mark. The end mark is the last cleanup,
// after the test's own.
//
// And it is where the supervisor learns that the test ran and how it
// ended: the run event goes out when the wrapper starts, the end from its
// last cleanup (after the test's parallel subtests and other cleanups),
// from tb.Failed and tb.Skipped, over benchsup's own socket. testing's
// stream, which the code under test can close, redirect or imitate,
// decides no top-level result.
func (st *testStream) syncAfter(f func(*testing.T)) func(*testing.T) {
	return func(t *testing.T) {
		st.bracket(t)
		f(t)
	}
}

// bracket does syncAfter's waits, marks and events for tb (a test or a
// fuzz target) before its code runs.
func (st *testStream) bracket(tb testing.TB) {
	st.sync()
	// Halted by a limit it could not set back, the child runs no more
	// tests (rlimit.go): skipped before the wrapper's run, so the
	// supervisor, which reruns them in a fresh child, is told nothing.
	st.limits.skipIfHalted(tb)
	st.begin(tb.Name(), tb.Failed)
	os.Getenv(testLogMark + "run " + tb.Name())
	tb.Cleanup(func() {
		// First the limits the test changed (rlimit.go): the mark and
		// the sync write files a file size limit would refuse.
		st.limits.after(tb.Name())
		os.Getenv(testLogMark + "end " + tb.Name())
		st.sync()
		st.finish(tb)
	})
}

// begin marks the top-level test name as running: frames about it and its
// subtests are testing's from now until its end, and what is printed is
// its output. failed, if not nil, reports whether the test has failed so
// far (testing.TB.Failed).
func (st *testStream) begin(name string, failed func() bool) {
	st.smu.Lock()
	defer st.smu.Unlock()
	st.flush()
	st.active[name] = &activeTest{failed: failed}
	st.started[name] = true
	st.cur = name
	t := st.tests[name]
	if t == nil {
		t = &streamTest{}
		st.tests[name] = t
	}
	t.since = time.Now()
	st.emit(protocol.TestEvent{Action: protocol.TestRun, Test: protocol.TruncateText(name, protocol.MaxNameLen)})
}

// finish sends the end of the top-level test tb, as testing will report
// it (FAIL over SKIP over PASS), timed by the stream (run or cont to pause
// or end), with what the stream knows: whether it was lost by now, and
// whether the test's output imitated testing's frames (with the tests
// that ran beside it when that is all the stream can tell). A subtest
// that failed under a test that did not is one such imitation: testing
// fails every parent of a failed test.
func (st *testStream) finish(tb testing.TB) {
	name := tb.Name()
	action := protocol.TestPass
	switch {
	case tb.Failed():
		action = protocol.TestFail
	case tb.Skipped():
		action = protocol.TestSkip
	}
	lost := st.isLost()
	st.smu.Lock()
	defer st.smu.Unlock()
	st.flush()
	ev := protocol.TestEvent{Action: action, Test: protocol.TruncateText(name, protocol.MaxNameLen), Lost: lost}
	if a := st.active[name]; a != nil {
		ev.Imitated = a.imitated || len(a.beside) > 0 || (action != protocol.TestFail && a.subFailed)
		if !a.imitated {
			ev.ImitatedBeside = besideNames(a.beside)
		}
	}
	if t := st.tests[name]; t != nil {
		t.stop(time.Now())
		ev.ElapsedNs = int64(t.running)
	}
	if top := st.tops[name]; top != nil && top.omitted > 0 {
		st.emit(protocol.TestEvent{Action: protocol.TestOutput, Test: ev.Test, OmittedBytes: int64(top.omitted),
			Output: fmt.Sprintf("[%d more bytes of output omitted]\n", top.omitted)})
	}
	for sub := range st.tests {
		if topName(sub) == name {
			delete(st.tests, sub)
		}
	}
	delete(st.tops, name)
	delete(st.active, name)
	st.curTop = nil
	st.ending[name] = true // testing's own end frame follows
	st.emit(ev)
}

// isLost reports whether testing's stream was found lost.
func (st *testStream) isLost() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.lost
}

// intactLocked reports whether the capture testing writes to is still the
// file (or pipe) the reader reads: the code under test may have closed it
// (os.Stdout.Close) or put another file in its descriptor (dup2). st.mu is
// held.
func (st *testStream) intactLocked() bool {
	if st.pipeInfo == nil {
		return true // not known: a stream without a capture (tests)
	}
	fi, err := st.pipe.Stat()
	return err == nil && os.SameFile(fi, st.pipeInfo)
}

// testLogMark starts the names the worker looks up to mark a test's start
// ("benchsup-test run TestX") and end ("benchsup-test end TestX") in
// testing's log of the variables the process reads.
const testLogMark = "benchsup-test "

// syncPrefix starts the framed line the worker writes into the capture pipe
// to learn that the reader has handled everything before it. testing never
// frames such a line.
const syncPrefix = "benchsup-sync "

// syncTimeout bounds the wait for the reader: a stuck supervisor must not
// hang a test's cleanup.
const syncTimeout = 2 * time.Second

// sync writes a sync mark into the capture pipe and waits until the reader
// has handled it.
//
// A capture the code under test closed or replaced is lost: what testing
// writes no longer reaches the reader. The stream then says so on every
// later end (TestEvent.Lost) and waits for the reader no more.
func (st *testStream) sync() {
	st.mu.Lock()
	if st.pipe == nil || st.closed || st.lost {
		st.mu.Unlock()
		return
	}
	if !st.intactLocked() {
		st.lost = true
		st.mu.Unlock()
		return
	}
	st.seq++
	seq := st.seq
	ch := make(chan struct{})
	st.waiting[seq] = ch
	pipe := st.pipe
	st.mu.Unlock()
	if _, err := fmt.Fprintf(pipe, "%c%s%d\n", frameMarker, syncPrefix, seq); err != nil {
		st.mu.Lock()
		st.lost = true
		delete(st.waiting, seq)
		st.mu.Unlock()
		return
	}
	select {
	case st.kick <- struct{}{}:
	default:
	}
	t := time.NewTimer(syncTimeout)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
		// A slow reader, or a capture replaced since the check above.
		st.mu.Lock()
		if !st.intactLocked() {
			st.lost = true
		}
		st.mu.Unlock()
	}
}

// maxTestOutput bounds the output forwarded per top-level test (its
// subtests included); the rest is counted and the count sent.
const maxTestOutput = protocol.MaxTextLen

// testStream reads testing's -test.v=test2json output, as cmd/test2json
// does: a framed line is testing's own ("=== RUN   TestX", "--- FAIL: TestX
// (0.01s)"), anything else is output of the test the last frame named.
type testStream struct {
	emit   func(protocol.TestEvent)
	limits *testLimits // the resource limits across the tests (rlimit.go)

	kick chan struct{} // wakes a file capture's reader (captureToFile)

	mu       sync.Mutex
	pipe     *os.File
	pipeInfo os.FileInfo // what pipe was when the capture began
	seq      int
	waiting  map[int]chan struct{}
	closed   bool
	lost     bool // the capture was closed or replaced: testing's frames no longer arrive

	// smu guards what follows: the reader's state, which the wrappers
	// around top-level tests (begin, finish) change too.
	smu sync.Mutex

	// known are the top-level tests the binary registered; nil in a
	// stream that replays a capture (tests), which then takes every
	// frame as testing's.
	known   map[string]bool
	started map[string]bool        // top-level tests the wrapper started
	active  map[string]*activeTest // started and not yet ended by the wrapper
	ending  map[string]bool        // ended by the wrapper; testing's end frame not yet read

	cur   string // the test the last frame named: unframed lines are its output
	tests map[string]*streamTest
	tops  map[string]*topOutput
	// curTop is tops[curTopName], the current test's top-level bound, or
	// nil (looked up again).
	curTop     *topOutput
	curTopName string

	// batch joins a test's consecutive output lines into one event, sent
	// before the next frame, when the reader caught up with the writers,
	// or at maxBatch: a test that logs much costs one message per batch,
	// not per line. Only with a file capture, where what a dead process
	// wrote and the worker had not sent is still found.
	batch    bool
	pend     strings.Builder
	pendTest string
}

// maxBatch bounds the output one batched event carries.
const maxBatch = 16 << 10

// flush sends the batched output.
func (st *testStream) flush() {
	if st.pend.Len() == 0 {
		return
	}
	st.emit(protocol.TestEvent{Action: protocol.TestOutput, Test: protocol.TruncateText(st.pendTest, protocol.MaxNameLen), Output: st.pend.String()})
	st.pend.Reset()
}

// activeTest is what the stream knows of a top-level test the wrapper
// runs.
type activeTest struct {
	failed func() bool // testing.TB.Failed; nil in tests of the stream
	paused bool        // by testing's frames: in t.Parallel, waiting to go on
	// imitated says its output imitated testing's frames while it was
	// the only test running; beside names the others running when a
	// line imitating them was printed beside it (stdout does not say
	// which of them printed it).
	imitated bool
	beside   map[string]bool
	// subFailed says a subtest failed, by the frames.
	subFailed bool
}

// knownPassing reports whether a is a running test that testing has not
// failed so far (false when a is nil or the stream cannot ask).
func (a *activeTest) knownPassing() bool {
	return a != nil && a.failed != nil && !a.failed()
}

// besideNames is beside in order, at most protocol.MaxImitatedBeside of
// them, each within protocol.MaxNameLen.
func besideNames(beside map[string]bool) []string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(beside)) {
		if len(names) == protocol.MaxImitatedBeside {
			break
		}
		names = append(names, protocol.TruncateText(name, protocol.MaxNameLen))
	}
	return names
}

// streamTest is what the stream knows of one test.
type streamTest struct {
	since   time.Time     // when it last started running; zero while paused
	running time.Duration // time it ran before that
}

// topOutput bounds the output of one top-level test and its subtests.
type topOutput struct {
	sent    int
	omitted int
	full    bool // the bound was reached: nothing more is sent
}

func newTestStream(emit func(protocol.TestEvent)) *testStream {
	return &testStream{emit: emit, kick: make(chan struct{}, 1), waiting: map[int]chan struct{}{},
		tests: map[string]*streamTest{}, tops: map[string]*topOutput{},
		started: map[string]bool{}, active: map[string]*activeTest{}, ending: map[string]bool{}}
}

// testFrames are testing's status lines in framed verbose mode that name a
// test, and the event each one is.
var testFrames = []struct {
	prefix string
	action protocol.TestAction
}{
	{"=== RUN   ", protocol.TestRun},
	{"=== PAUSE ", protocol.TestPause},
	{"=== CONT  ", protocol.TestCont},
	{"--- PASS: ", protocol.TestPass},
	{"--- FAIL: ", protocol.TestFail},
	{"--- SKIP: ", protocol.TestSkip},
	{"=== NAME  ", ""}, // names the test later output belongs to
	{"=== NAME", ""},   // the same with no test, its trailing spaces lost
	{"=== ATTR  ", ""},
	{"=== ARTIFACTS ", ""},
}

// line handles one line of the captured stdout, as written; see
// captureStdout. Only the code's own lines are forwarded to the real
// stdout.
func (st *testStream) line(raw []byte) (forward bool) {
	st.smu.Lock()
	defer st.smu.Unlock()
	line := bytes.TrimSuffix(raw, newline)
	if len(line) == 0 || line[0] != frameMarker {
		st.output(line)
		return true
	}
	s := string(line[1:])
	st.flush() // what came before the frame goes first
	if rest, ok := strings.CutPrefix(s, syncPrefix); ok {
		seq, _ := strconv.Atoi(rest)
		st.mu.Lock()
		ch := st.waiting[seq]
		delete(st.waiting, seq)
		st.mu.Unlock()
		if ch != nil {
			close(ch)
		}
		return false
	}
	for _, f := range testFrames {
		rest, ok := strings.CutPrefix(strings.TrimLeft(s, " "), f.prefix)
		if !ok {
			continue
		}
		name := strings.TrimSpace(rest)
		if f.action == protocol.TestPass || f.action == protocol.TestFail || f.action == protocol.TestSkip {
			name, _, _ = strings.Cut(name, " (") // testing never puts a space in a name
		}
		if f.prefix == "=== ATTR  " || f.prefix == "=== ARTIFACTS " {
			name, _, _ = strings.Cut(name, " ")
		}
		switch st.judge(f.action, name) {
		case frameForged:
			// The code printed it: its output, as go test -v shows it.
			st.imitation()
			st.output(line[1:])
			return true
		case frameQuiet:
			return false
		}
		st.cur = name
		if f.action != "" {
			st.event(f.action, name)
		}
		return false
	}
	// Testing's other framed lines (PASS, FAIL at the end) say nothing
	// about one test.
	return false
}

// frameVerdict is what the stream makes of a frame naming a test.
type frameVerdict int

const (
	frameTesting frameVerdict = iota // testing's: taken as an event
	frameQuiet                       // testing's, about what the wrapper reports: dropped
	frameForged                      // not testing's: the code's output
)

// judge tells testing's frames from the code's imitations. testing frames
// a test of this binary only while the worker's wrapper around its
// top-level test runs, but for the top-level test's own run (just before
// the wrapper starts) and end (just after the wrapper ended): those two
// the wrapper reports itself, so they are dropped. Any other frame, about
// a test that does not exist, is not running or already ended, is forged.
func (st *testStream) judge(action protocol.TestAction, name string) frameVerdict {
	if st.known == nil || name == "" {
		return frameTesting
	}
	top := topName(name)
	if !st.known[top] {
		return frameForged
	}
	switch isEnd := action == protocol.TestPass || action == protocol.TestFail || action == protocol.TestSkip; {
	case name == top && action == protocol.TestRun:
		if st.started[top] {
			return frameForged
		}
		return frameQuiet
	case name == top && isEnd:
		if st.ending[top] {
			delete(st.ending, top)
			return frameQuiet
		}
		return frameForged
	case action == protocol.TestFail && st.active[top].knownPassing():
		// testing fails every parent of a failed subtest before it
		// prints the subtest's end: a FAIL under a test that has not
		// failed was printed by the code.
		return frameForged
	case st.active[top] != nil || st.ending[top]:
		return frameTesting
	}
	return frameForged
}

// imitation charges a forged frame to the test whose output it is: the
// only top-level test running (started, not paused in t.Parallel), or,
// with several running, each of them, beside the others: stdout does not
// say which goroutine wrote a line, and the test the frames named last is
// no more likely than the others to have printed it.
func (st *testStream) imitation() {
	var running []string
	for name, a := range st.active {
		if !a.paused {
			running = append(running, name)
		}
	}
	switch len(running) {
	case 0: // all paused by the frames, which the code can forge too
		running = slices.Collect(maps.Keys(st.active))
	case 1:
		st.active[running[0]].imitated = true
		return
	}
	for _, name := range running {
		a := st.active[name]
		if a.beside == nil {
			a.beside = map[string]bool{}
		}
		for _, other := range running {
			if other != name {
				a.beside[other] = true
			}
		}
	}
}

// event sends the event for a frame, timing the test by the frames: it
// runs from run or cont to pause or its end, as testing counts it.
func (st *testStream) event(action protocol.TestAction, name string) {
	now := time.Now()
	t := st.tests[name]
	if t == nil {
		t = &streamTest{}
		st.tests[name] = t
	}
	ev := protocol.TestEvent{Action: action, Test: protocol.TruncateText(name, protocol.MaxNameLen)}
	if a := st.active[name]; a != nil && (action == protocol.TestPause || action == protocol.TestCont) {
		a.paused = action == protocol.TestPause
	}
	switch action {
	case protocol.TestRun, protocol.TestCont:
		t.since = now
	case protocol.TestPause:
		t.stop(now)
	default: // an end
		t.stop(now)
		ev.ElapsedNs = int64(t.running)
		delete(st.tests, name)
		if a := st.active[topName(name)]; a != nil && action == protocol.TestFail && topName(name) != name {
			a.subFailed = true
		}
		if top := st.tops[topName(name)]; top != nil && top.omitted > 0 && topName(name) == name {
			st.emit(protocol.TestEvent{Action: protocol.TestOutput, Test: ev.Test, OmittedBytes: int64(top.omitted),
				Output: fmt.Sprintf("[%d more bytes of output omitted]\n", top.omitted)})
		}
		if topName(name) == name {
			delete(st.tops, name)
			st.curTop = nil
		}
	}
	st.emit(ev)
}

func (t *streamTest) stop(now time.Time) {
	if !t.since.IsZero() {
		t.running += now.Sub(t.since)
		t.since = time.Time{}
	}
}

// output forwards line, and a newline, as output of the current test,
// within the bound of its top-level test. Past the bound a line is only
// counted, without a copy: a test printing millions of lines costs the
// worker no allocation per line.
func (st *testStream) output(line []byte) {
	top := st.top()
	if top.full {
		n := len(line)
		if !utf8.Valid(line) {
			n = len(strings.ToValidUTF8(string(line), "\uFFFD"))
		}
		top.omitted += n + 1
		return
	}
	// What a test prints is any bytes; the protocol carries text. Mended
	// here, so that a test printing binary loses no event to a frame the
	// supervisor would refuse.
	s := strings.ToValidUTF8(string(line), "\uFFFD") + "\n"
	if room := maxTestOutput - top.sent; len(s) > room {
		// The line that reaches the bound is cut (at a character's
		// boundary), and nothing after it is sent: the text sent is a
		// head of the output, without gaps.
		top.full = true
		cut := protocol.TruncateText(s, room)
		top.omitted += len(s) - len(cut)
		if cut == "" {
			return
		}
		s = cut
	}
	top.sent += len(s)
	if !st.batch {
		st.emit(protocol.TestEvent{Action: protocol.TestOutput, Test: protocol.TruncateText(st.cur, protocol.MaxNameLen), Output: s})
		return
	}
	if st.pendTest != st.cur || st.pend.Len()+len(s) > maxBatch {
		st.flush()
		st.pendTest = st.cur
	}
	st.pend.WriteString(s)
}

// top returns the bound of the current test's top-level test.
func (st *testStream) top() *topOutput {
	name := topName(st.cur)
	if st.curTop != nil && st.curTopName == name {
		return st.curTop
	}
	top := st.tops[name]
	if top == nil {
		top = &topOutput{}
		st.tops[name] = top
	}
	st.curTop, st.curTopName = top, name
	return top
}

// idle sends the batched output when the reader caught up with the
// writers.
func (st *testStream) idle() {
	st.smu.Lock()
	defer st.smu.Unlock()
	st.flush()
}

// close releases any sync still waiting: the reader saw the end of the
// output.
func (st *testStream) close() {
	st.idle()
	st.mu.Lock()
	defer st.mu.Unlock()
	st.closed = true
	for seq, ch := range st.waiting {
		close(ch)
		delete(st.waiting, seq)
	}
}

// topName is the top-level test of a test's full name.
func topName(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

// testOutputPath is the file the tests' stdout goes to: the supervisor's
// test log path (-test.testlogfile, a name starting with testLogName) with
// ".stdout" added, or "" when the supervisor passed none (go test passes
// its own to cache results).
func testOutputPath() string {
	f := flag.Lookup("test.testlogfile")
	if f == nil || !strings.HasPrefix(filepath.Base(f.Value.String()), testLogName) {
		return ""
	}
	return f.Value.String() + ".stdout"
}

// testLogName starts the name of the supervisor's test log files
// (supervisor/testenv.go).
const testLogName = "benchsup-testlog-"

// captureToFile is captureStdout with a file in place of the pipe: what
// the code under test and testing write reaches the file at once, so when
// the process dies (os.Exit, a fatal error, a signal) before the reader
// read it, the supervisor still finds it there; from a pipe inside this
// process it would be lost. The reader follows the file as it grows:
// woken by kick (a sync mark was written) or, without one, within 10 ms.
//
// idle is called on the reader's goroutine whenever it has read all there
// is for now.
func captureToFile(path string, kick <-chan struct{}, idle func(), f func(), line func(raw []byte) (forward bool)) error {
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	r, err := os.Open(path)
	if err != nil {
		w.Close()
		return err
	}
	defer r.Close()
	orig := os.Stdout
	// What is forwarded to the real stdout goes in writes as large as the
	// reader's batches.
	fwd := bufio.NewWriterSize(orig, maxBatch)
	t := &tailReader{f: r, kick: kick, stop: make(chan struct{}), idle: func() {
		fwd.Flush()
		if idle != nil {
			idle()
		}
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer fwd.Flush()
		splitFramed(t, func(raw []byte, parsed bool) {
			if !parsed || line(raw) {
				fwd.Write(raw)
			}
		})
	}()
	os.Stdout = w
	defer func() {
		os.Stdout = orig
		w.Close()
		close(t.stop)
		<-done
	}()
	f()
	return nil
}

// tailReader reads a file as it grows, until stop is closed; then to its
// end.
type tailReader struct {
	f    *os.File
	kick <-chan struct{}
	idle func()
	stop chan struct{}
}

func (t *tailReader) Read(p []byte) (int, error) {
	wait := time.Millisecond
	for {
		n, err := t.f.Read(p)
		if n > 0 || (err != nil && err != io.EOF) {
			return n, err
		}
		if t.idle != nil {
			t.idle()
		}
		timer := time.NewTimer(wait)
		select {
		case <-t.stop:
			timer.Stop()
			n, err := t.f.Read(p)
			if n == 0 && err == nil {
				err = io.EOF
			}
			return n, err
		case <-t.kick:
			wait = time.Millisecond
		case <-timer.C:
			wait = min(2*wait, 10*time.Millisecond)
		}
		timer.Stop()
	}
}
