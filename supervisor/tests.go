package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// testPackages runs every package's tests, packages in parallel.
func (s *supervisor) testPackages(ctx context.Context, plans []*pkgPlan) []rundoc.Row {
	rows := make([][]rundoc.Row, len(plans))
	var done int
	var mu sync.Mutex
	parallel(s.cfg.Parallel, len(plans), func(i int) {
		if plans[i].main().binary == "" {
			return
		}
		mu.Lock()
		done++
		s.cfg.Progress(plans[i].pkg.ImportPath, done, len(plans))
		mu.Unlock()
		// The tests the source declares that -run selects; subtests are
		// known only as they run.
		if s.cfg.Events != nil {
			ev := rundoc.Event{Kind: rundoc.EventDiscovery, Package: plans[i].pkg.ImportPath, Identities: []string{}}
			for _, t := range plans[i].tests() {
				if s.runsTest(t) {
					ev.Identities = append(ev.Identities, t)
				}
			}
			s.emit(ev)
		}
		rows[i] = s.testPackage(ctx, plans[i])
		s.results(rows[i]) // final: packageOrder only sorts
	})
	var out []rundoc.Row
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// testRun is what one child reported about the tests it ran.
type testRun struct {
	mu     sync.Mutex
	order  []string              // every test, subtests included, as it started
	status map[string]testStatus // by full name
	ended  map[string]protocol.TestEvent
	endSeq map[string]int         // the order of the ends
	output map[string]*testOutput // by top-level test
	// firstFail is the first test under each top-level test whose fail
	// event arrived: the one whose output explains the failure.
	firstFail map[string]string
	// paused lists, per top-level test, the tests of its tree that
	// paused (t.Parallel), in order, once each.
	paused   map[string][]string
	timedOut string // the test the supervisor stopped for its deadline
	clocks   map[string]*testClock
	// withheld are, per top-level test ("" outside any), the variables
	// the child read that benchsup's environment has and the strict
	// policy did not pass (testenv.go).
	withheld map[string][]string
	// stdout is the end of the stream the worker read testing's output
	// from, a file (worker/tests.go captureToFile), kept when the child
	// died: it holds what the process wrote before it died and the
	// worker had not read.
	stdout string
	// series is the m.Run call the events are from: 1, or the Again of
	// the worker's last Hello (the package's TestMain ran the tests
	// again); failedIn is, per test, the series it first failed in.
	series   int
	failedIn map[string]int
	// lost and imitated are the top-level tests whose end said that
	// testing's stream was lost by then, or that their output imitated
	// testing's frames (protocol.TestEvent); imitatedBeside, for a test
	// not in imitated, names the tests running beside it when that
	// output was printed, any one of which may have printed it.
	lost           map[string]bool
	imitated       map[string]bool
	imitatedBeside map[string][]string
	limits         testLimits // the resource limits the tests changed (testlimits.go)
}

// again records a Hello that starts another series of the Request.
func (tr *testRun) again(h protocol.Hello) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if h.Again > tr.series {
		tr.series = h.Again
	}
}

// firstLost is the first test (in the order the ends came) whose end
// said testing's stream was lost, or "".
func (tr *testRun) firstLost() string {
	first := ""
	for name := range tr.lost {
		if first == "" || tr.endSeq[name] < tr.endSeq[first] {
			first = name
		}
	}
	return first
}

// unended are the top-level tests that started and have no end.
func (tr *testRun) unended() []string {
	var out []string
	for _, name := range tr.order {
		if _, ok := tr.ended[name]; !ok && !strings.Contains(name, "/") {
			out = append(out, name)
		}
	}
	return out
}

// hint adds to a failed row of this child the variables its test (a
// package row: the process outside any test) read that the environment
// policy withheld.
func (tr *testRun) hint(row rundoc.Row) rundoc.Row {
	row = tr.limitNotes(row)
	if note := envNote(tr.withheld[row.Name]); note != "" && row.IsError() {
		who := "this test "
		if row.Name == "" {
			who = "the package's test process, outside any test, "
		}
		row.Notes = append(row.Notes, who+note)
	}
	return row
}

// testOutput is a top-level test's output, its subtests' included, in the
// order it was printed, bounded: once a piece does not fit, nothing more is
// kept, and omitted counts the output left out, here and, past its own
// bound, by the worker.
type testOutput struct {
	text    strings.Builder
	omitted int
	full    bool
	last    string            // the test whose output came last
	own     map[string]string // per full name, bounded, for messages
}

// addEvent adds one output event. The worker's count of what it left out
// travels in OmittedBytes; its Output, the same count in words, is then
// not the test's.
func (o *testOutput) addEvent(top string, ev protocol.TestEvent) {
	if ev.OmittedBytes > 0 {
		o.omitted += int(ev.OmittedBytes)
		return
	}
	o.add(top, ev.Test, ev.Output)
}

func (o *testOutput) add(top, name, s string) {
	if o.own == nil {
		o.own = map[string]string{}
	}
	if len(o.own[name]) < protocol.MaxTextLen {
		o.own[name] += s
	}
	header := ""
	if strings.HasPrefix(s, "--- ") {
		// A report line names its test.
	} else if name != o.last && name != top && name != "" {
		header = "=== NAME  " + name + "\n"
	} else if name == top && o.last != "" && o.last != top {
		header = "=== NAME  " + name + "\n"
	}
	o.last = name
	if o.full || o.text.Len()+len(header)+len(s) > protocol.MaxTextLen {
		o.full = true
		o.omitted += len(s)
		return
	}
	o.text.WriteString(header)
	o.text.WriteString(s)
}

func (o *testOutput) String() string {
	if o == nil {
		return ""
	}
	s := o.text.String()
	if o.omitted > 0 {
		s += fmt.Sprintf("[%d more bytes of output omitted]\n", o.omitted)
	}
	return s
}

// testClock is a top-level test's deadline: it counts only while the test
// runs, from run or cont to pause or its end, as testing times a test; a
// parallel test waiting for its turn is not running.
type testClock struct {
	left  time.Duration
	since time.Time // zero while stopped
	timer *time.Timer
	ran   time.Duration
}

func (c *testClock) start(fire func()) {
	if !c.since.IsZero() {
		return
	}
	c.since = time.Now()
	c.timer = time.AfterFunc(c.left, fire)
}

func (c *testClock) stop() {
	if c.since.IsZero() {
		return
	}
	c.timer.Stop()
	d := time.Since(c.since)
	c.left -= d
	c.ran += d
	c.since = time.Time{}
}

// elapsed is how long the test ran so far.
func (c *testClock) elapsed() time.Duration {
	if c.since.IsZero() {
		return c.ran
	}
	return c.ran + time.Since(c.since)
}

// testPackage runs p's tests in as many children as it takes. When a child
// dies, the test the facts name (blame) is reported with the child's
// outcome; the tests that were running or paused alongside it were
// interrupted, are charged nothing and run again, with every test that has
// not finished, in a new child. When no test can be named, the crash is
// the package's, and the tests it interrupted then run one per child, where
// a crash can only be their own.
func (s *supervisor) testPackage(ctx context.Context, p *pkgPlan) []rundoc.Row {
	start := time.Now()
	var rows []rundoc.Row
	finished := map[string]bool{}
	tests := map[string]bool{}
	for _, t := range p.tests() {
		tests[t] = true
	}
	var alone []string // tests to run one per child
	var left []string  // the package row's notes
	var peak *int64    // the highest peak memory of the package's children
	lostIn := ""       // the first test whose end said testing's stream was lost
	series := 1        // how many times the package's TestMain ran the tests
	for ctx.Err() == nil {
		only := ""
		for len(alone) > 0 && finished[alone[0]] {
			alone = alone[1:]
		}
		if len(alone) > 0 {
			only = alone[0]
		}
		var skip []string
		for _, t := range p.tests() {
			if finished[t] || (only != "" && t != only) {
				skip = append(skip, t)
			}
		}
		tr, out := s.testChild(ctx, p, skip)
		if note := leftNote(out); note != "" {
			left = append(left, note) // what the package's tests left running: no one test is known to own it
		}
		if pk, _ := peakMemory(out); pk != nil && (peak == nil || *pk > *peak) {
			peak = pk
		}
		for _, n := range resourceNotes(out) {
			// What the limits did to a child is the package's: its tests
			// share the child.
			if !slices.Contains(left, n) {
				left = append(left, n)
			}
		}
		if name := tr.firstLost(); name != "" && lostIn == "" {
			lostIn = name
		}
		if tr.series > series {
			series = tr.series
		}
		progress := false
		v := verdict{}
		facts := tr.facts(p, tests, out, only)
		hostFault := s.scratchWriteFailed(out)
		if tr.changedLimits() {
			hostFault = "" // the code's own limit, not the host (testlimits.go)
		}
		if out.Class != sandbox.ClassSuccess && out.Class != sandbox.ClassCanceled {
			switch {
			case hostFault != "":
				// No test is to blame: the host refused a file of the run.
			case tr.timedOut != "":
				v = verdict{tr.timedOut, ""}
			default:
				v = blame(facts)
				if lv := tr.limitVerdict(); lv.test != "" && (v.test == "" || v.test == lv.test) {
					v = lv // the limit it changed, reported as its code ended, explains it
				}
			}
		}
		for _, name := range tr.order {
			// A crashing test may report its end before the crash ends
			// the process; the culprit's row comes from the outcome below.
			if ev, ok := tr.ended[name]; ok && !strings.Contains(name, "/") && !finished[name] && name != v.test {
				finished[name] = true
				progress = true
				rows = append(rows, tr.hint(tr.testRow(p.pkg.ImportPath, name, ev)))
			}
		}
		if out.Class == sandbox.ClassSuccess {
			if t := tr.haltedBy(); t != "" && only == "" {
				// A limit stayed changed: the tests after t run in a new
				// child (testlimits.go).
				if !finished[t] {
					rows = append(rows, tr.haltedRow(p.pkg.ImportPath, t))
					finished[t] = true
				}
				continue
			}
			// A child that ended well still owes an end for every test it
			// started.
			for _, name := range tr.unended() {
				if !finished[name] {
					finished[name] = true
					rows = append(rows, rundoc.Row{Package: p.pkg.ImportPath, Name: name, Kind: "test", Outcome: rundoc.OutcomeTestFail,
						Processes: []rundoc.ProcessResult{}, Output: tr.output[name].String(),
						Error: ptr("no result: the test started, and its child exited 0 without reporting its end")})
				}
			}
			if only == "" {
				break
			}
			finished[only] = true // it ran to its end, or did not match -run
			continue
		}
		if out.Class == sandbox.ClassCanceled {
			// Nothing is charged: the user ended the run.
			for _, name := range facts.interrupted() {
				row := errorRow(p.pkg.ImportPath, name, "test", out)
				row.Output = trimWorkerFrames(row.Output, p.pkg.ImportPath)
				row.Error = ptr("the run was canceled while this test was running or paused")
				rows = append(rows, row)
			}
			if len(facts.interrupted()) == 0 {
				row := errorRow(p.pkg.ImportPath, "", "package", out)
				row.Output = trimWorkerFrames(row.Output, p.pkg.ImportPath)
				rows = append(rows, row)
			}
			break
		}
		if v.test == "" {
			row := tr.hint(errorRow(p.pkg.ImportPath, "", "package", out))
			row.Output = trimWorkerFrames(row.Output, p.pkg.ImportPath)
			if hostFault != "" {
				row.Outcome = outcomeOf(sandbox.ClassParentIO)
				row.Error = ptr("the host failed a file of the run, not the code under test: " + hostFault + "; " + describe(out))
				rows = append(rows, row)
				// A host that refused this child's file refuses the next
				// one's: every selected test without a result says why,
				// rather than being rerun until the loop gives up on it.
				for _, name := range s.unfinished(p, finished) {
					rows = append(rows, rundoc.Row{Package: p.pkg.ImportPath, Name: name, Kind: "test",
						Outcome: outcomeOf(sandbox.ClassParentIO), Processes: []rundoc.ProcessResult{},
						Error: ptr("no result: the host failed a file of the run before this test's result was read: " + hostFault)})
				}
				break
			}
			if facts.started(only) || len(tr.order) > 0 {
				rerun := len(s.unfinished(p, finished)) > 0
				if rerun {
					row.Error = ptr(v.reason + "; " + describe(out) + " (the package's unfinished tests ran again in new children)")
				} else {
					// It died after every test had its result (a TestMain
					// that exits 1 after m.Run): nothing is left to run.
					row.Error = ptr(v.reason + "; " + describe(out) + " (after every test had its result)")
				}
				rows = append(rows, row)
				if !rerun {
					break
				}
			} else {
				// Nothing ran: the child died outside any test (TestMain,
				// startup), so no new child would do better.
				rows = append(rows, row)
				break
			}
			if !progress {
				alone = append(alone, facts.interrupted()...)
				if len(alone) == 0 || only != "" {
					break
				}
			}
			continue
		}
		rows = append(rows, tr.hint(tr.culpritRow(s, p, v, out)))
		finished[v.test] = true
		if s.cfg.FailFast {
			break
		}
	}
	if ctx.Err() != nil {
		rows = append(rows, notStarted(p, rows, s.runsTest)...)
	}
	status := rundoc.OutcomeOK
	for _, r := range rows {
		if r.IsError() {
			status = rundoc.OutcomeTestFail
		}
	}
	pkgRow := rundoc.Row{Package: p.pkg.ImportPath, Kind: "package", Outcome: status,
		ElapsedNs: ptr(int64(time.Since(start))), Processes: []rundoc.ProcessResult{}, Notes: left,
		PeakMemoryBytes: peak}
	if lostIn != "" {
		// The package is ok only when testing's stream ended as testing
		// ends it (docs/design.md#containment).
		pkgRow.Outcome = rundoc.OutcomeTestFail
		pkgRow.Error = ptr(fmt.Sprintf("testing's output stream was lost during %s (the code closed or replaced the process's stdout): "+
			"the results of that test and those after it are benchsup's own, without their subtests' results and output", lostIn))
	}
	if series > 1 {
		pkgRow.Notes = append(pkgRow.Notes, fmt.Sprintf("the package's TestMain called m.Run %d times: every test ran %d times, and a failure in any run fails its row", series, series))
	}
	// -cover: the package's statements, merged over its children
	// (docs/design.md#coverage).
	cov, err := s.packageCoverage(ctx, p.pkg.ImportPath)
	if err != nil {
		pkgRow.Notes = append(pkgRow.Notes, "coverage: "+firstLine(err.Error()))
	}
	pkgRow.Coverage = cov
	return append(rows, pkgRow)
}

// scratchWriteFailed returns the line in which testing, in a child that
// exited with an error status, said it could not write a file in the run's
// scratch directory (its -test.testlogfile): a full or failing TMPDIR,
// which no test is to blame for. It is "" when the child said no such
// thing.
func (s *supervisor) scratchWriteFailed(out sandbox.Outcome) string {
	if out.Class != sandbox.ClassExit {
		return ""
	}
	for line := range strings.SplitSeq(string(out.Stderr.Tail), "\n") {
		if path, ok := strings.CutPrefix(line, "testing: can't write "); ok && strings.HasPrefix(path, s.tmp+string(filepath.Separator)) &&
			!fileTooLarge(line) { // EFBIG: the process's own file size limit (testlimits.go)
			return line
		}
	}
	return ""
}

// culpritRow is the row of the test charged with its child's death.
func (tr *testRun) culpritRow(s *supervisor, p *pkgPlan, v verdict, out sandbox.Outcome) rundoc.Row {
	row := errorRow(p.pkg.ImportPath, v.test, "test", out)
	row.Paused = slices.Clone(tr.paused[v.test])
	// The child's stdout holds only what the worker forwarded, every
	// test's, which the events already carried: the test's own output,
	// then the crash from stderr.
	noStdout := out
	noStdout.Stdout = sandbox.Capture{}
	own := tr.output[v.test].String()
	if all := outputOf(tr.stdout, v.test); len(all) > len(own) {
		own = all // it printed more before it died than the worker read
	}
	row.Output = own + trimWorkerFrames(output(noStdout), p.pkg.ImportPath)
	if v.reason != "" {
		row.Error = ptr(v.reason + "; " + describe(out))
	}
	if tr.timedOut == v.test {
		row.Outcome = outcomeOf(sandbox.ClassExecTimeout)
		facts := tr.facts(p, nil, out, "")
		msg := fmt.Sprintf("test ran past its %v deadline", s.cfg.TestDeadline)
		if leaf := facts.leafOf(v.test); leaf != v.test {
			msg += " in " + leaf
		}
		if where := hungAt(out.Stacks.Head, p.pkg.ImportPath); where != "" {
			msg += "; " + where
		}
		row.Error = ptr(msg)
	}
	if c := tr.clocks[v.test]; c != nil {
		row.ElapsedNs = ptr(int64(c.elapsed()))
	} else if ev, ok := tr.ended[v.test]; ok {
		row.ElapsedNs = ptr(ev.ElapsedNs)
	}
	return row
}

// facts gathers what the child told for blame.
func (tr *testRun) facts(p *pkgPlan, tests map[string]bool, out sandbox.Outcome, alone string) crashFacts {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	f := crashFacts{pkg: p.pkg.ImportPath, tests: tests, stderr: string(out.Stderr.Tail),
		status: map[string]testStatus{}, order: append([]string(nil), tr.order...), alone: alone}
	for k, v := range tr.status {
		f.status[k] = v
	}
	f.results = map[string]string{}
	for name, ev := range tr.ended {
		f.results[name] = map[protocol.TestAction]string{protocol.TestPass: "passed",
			protocol.TestFail: "failed", protocol.TestSkip: "skipped"}[ev.Action]
		if ev.Action == protocol.TestFail {
			f.failed = append(f.failed, name)
		}
	}
	slices.SortFunc(f.failed, func(a, b string) int { return tr.endSeq[a] - tr.endSeq[b] })
	var exit *sandbox.ExitError
	if errors.As(out.Err, &exit) {
		f.exited, f.code = true, exit.Code
	}
	return f
}

// unfinished lists the tests of p the run selects that have no row yet.
func (s *supervisor) unfinished(p *pkgPlan, finished map[string]bool) []string {
	var names []string
	for _, name := range p.tests() {
		if !finished[name] && s.runsTest(name) {
			names = append(names, name)
		}
	}
	return names
}

func newTestRun() *testRun {
	return &testRun{status: map[string]testStatus{}, ended: map[string]protocol.TestEvent{}, endSeq: map[string]int{},
		output: map[string]*testOutput{}, firstFail: map[string]string{}, paused: map[string][]string{}, clocks: map[string]*testClock{},
		series: 1, failedIn: map[string]int{}, lost: map[string]bool{}, imitated: map[string]bool{}, imitatedBeside: map[string][]string{}}
}

// testChild runs one child over the tests not in skip, enforcing the
// per-test deadline by ending the child when one test outlives it.
func (s *supervisor) testChild(ctx context.Context, p *pkgPlan, skip []string) (*testRun, sandbox.Outcome) {
	tr := newTestRun()
	cctx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	req := protocol.Request{Mode: protocol.ModeTest, Identity: protocol.Identity{Package: p.pkg.ImportPath},
		Config: protocol.RequestConfig{Run: s.cfg.Run, SkipPattern: s.cfg.Skip, Skip: skip, TestTimeoutNs: int64(s.cfg.TestDeadline)}}
	cfg := s.childConfig(p, p.main())
	testLog := s.testLogPath()
	cfg.Args = append(slices.Clip(cfg.Args), "-test.testlogfile="+testLog)
	who := rundoc.Event{Package: p.pkg.ImportPath}
	s.processStart(who, req)
	out := s.run(cctx, cfg, req, func(m protocol.Message) {
		switch m := m.(type) {
		case protocol.TestEvent:
			tr.observe(m, s.cfg.TestDeadline, func() { cancelCause(sandbox.ErrCallerDeadline) })
		case protocol.Hello:
			tr.again(m)
		case protocol.Log:
			tr.mu.Lock()
			tr.limitLog(m)
			tr.mu.Unlock()
		}
	})
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if out.Class != sandbox.ClassSuccess {
		tr.stdout = readTail(testLog+".stdout", maxStdoutTail)
	}
	os.Remove(testLog + ".stdout")
	tr.withheld = map[string][]string{}
	for test, read := range readTestLog(testLog) {
		tr.withheld[test] = withheld(read, s.cfg.Env, os.LookupEnv)
	}
	for _, c := range tr.clocks {
		c.stop()
	}
	// A child we ended for a test's deadline is that test's timeout, not a
	// cancellation of the run.
	if out.Class == sandbox.ClassCanceled && tr.timedOut != "" && ctx.Err() == nil {
		out.Class = sandbox.ClassExecTimeout
		who.Error = ptr(fmt.Sprintf("test %s ran past its %v deadline", tr.timedOut, s.cfg.TestDeadline))
	}
	s.processEnd(who, req, out) // after that reclassification, as the rows see it
	return tr, out
}

// expire ends the child for name's deadline, once its clock ran out: the
// first test to time out is the one the child is charged with.
func (tr *testRun) expire(name string, cancel func()) {
	tr.mu.Lock()
	if tr.timedOut == "" {
		tr.timedOut = name
	}
	tr.mu.Unlock()
	cancel()
}

// observe records one event. A test past its deadline ends the child as a
// deadline does (cancel): the sandbox first asks it for its goroutines'
// stacks.
func (tr *testRun) observe(ev protocol.TestEvent, deadline time.Duration, cancel func()) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.afterHalt(ev) {
		return // not this child's result: it runs again in a new one (testlimits.go)
	}
	name, top := ev.Test, analysis.FunctionOf(ev.Test)
	clock := tr.clocks[name] // top-level tests only
	switch ev.Action {
	case protocol.TestRun:
		if _, ok := tr.status[name]; !ok {
			tr.order = append(tr.order, name)
		}
		tr.status[name] = statusRunning
		if name == top && deadline > 0 {
			clock = &testClock{left: deadline}
			tr.clocks[name] = clock
		}
		if clock != nil {
			clock.start(func() { tr.expire(name, cancel) })
		}
	case protocol.TestCont:
		tr.status[name] = statusRunning
		if clock != nil {
			clock.start(func() { tr.expire(name, cancel) })
		}
	case protocol.TestPause:
		tr.status[name] = statusPaused
		if !slices.Contains(tr.paused[top], name) {
			tr.paused[top] = append(tr.paused[top], name)
		}
		if clock != nil {
			clock.stop()
		}
	case protocol.TestOutput:
		o := tr.output[top]
		if o == nil {
			o = &testOutput{}
			tr.output[top] = o
		}
		o.addEvent(top, ev)
	default:
		tr.status[name] = statusEnded
		// Run again by a TestMain that called m.Run again, a test that
		// failed in any run fails, as under go test.
		if prev, ok := tr.ended[name]; !ok || prev.Action != protocol.TestFail || ev.Action == protocol.TestFail {
			tr.ended[name] = ev
		}
		if _, ok := tr.endSeq[name]; !ok {
			tr.endSeq[name] = len(tr.endSeq)
		}
		if ev.Action == protocol.TestFail && tr.failedIn[name] == 0 {
			tr.failedIn[name] = tr.series
		}
		if ev.Lost {
			tr.lost[name] = true
		}
		switch {
		case ev.Imitated && len(ev.ImitatedBeside) == 0:
			tr.imitated[name] = true
		case ev.Imitated:
			for _, other := range ev.ImitatedBeside {
				if !slices.Contains(tr.imitatedBeside[name], other) {
					tr.imitatedBeside[name] = append(tr.imitatedBeside[name], other)
				}
			}
		}
		if clock != nil {
			clock.stop()
			delete(tr.clocks, name)
		}
		if ev.Action == protocol.TestFail {
			if _, ok := tr.firstFail[top]; !ok {
				tr.firstFail[top] = name
			}
		}
		if name != top {
			// A subtest's result, as testing prints it under -v: its
			// output above it has its name, and a skip its reason.
			o := tr.output[top]
			if o == nil {
				o = &testOutput{}
				tr.output[top] = o
			}
			o.add(top, name, fmt.Sprintf("--- %s: %s (%.2fs)\n", resultWord[ev.Action], name, time.Duration(ev.ElapsedNs).Seconds()))
		}
	}
}

// resultWord is testing's word for a result.
var resultWord = map[protocol.TestAction]string{protocol.TestPass: "PASS", protocol.TestFail: "FAIL", protocol.TestSkip: "SKIP"}

// testRow is the row of a test that ended with testing's own result.
func (tr *testRun) testRow(pkg, name string, ev protocol.TestEvent) rundoc.Row {
	row := rundoc.Row{Package: pkg, Name: name, Kind: "test", ElapsedNs: ptr(ev.ElapsedNs), Processes: []rundoc.ProcessResult{},
		Paused: slices.Clone(tr.paused[name])}
	o := tr.output[name]
	row.Output = o.String()
	switch ev.Action {
	case protocol.TestPass:
		row.Outcome = "ok"
	case protocol.TestSkip:
		row.Outcome = outcomeOf(sandbox.ClassSkipped)
		reason := ""
		if o != nil {
			reason = lastOutputLine(o.own[name])
		}
		if reason == "" {
			reason = "skipped without a reason (t.SkipNow)"
		}
		row.Skipped = ptr(reason)
	default:
		row.Outcome = rundoc.OutcomeTestFail
		msg := "test failed"
		if first := tr.firstFail[name]; o != nil && first != "" {
			line := failureLine(o.own[first])
			if line != "" {
				msg = line
			} else if first != name {
				msg = "subtest " + first + " failed"
			}
			if first != name && line != "" {
				msg = first + ": " + msg
			}
		}
		if tr.lost[name] && msg == "test failed" {
			msg = "test failed; its output was lost with testing's stream"
		}
		row.Error = ptr(msg)
	}
	if tr.lost[name] {
		if name == tr.firstLost() {
			row.Notes = append(row.Notes, lostHereNote)
		}
		row.Notes = append(row.Notes, lostNote)
	}
	if tr.imitated[name] {
		row.Notes = append(row.Notes, imitatedNote)
	} else if beside := tr.imitatedBeside[name]; len(beside) > 0 {
		row.Notes = append(row.Notes, imitatedBesideNote(beside))
	}
	if n := tr.failedIn[name]; n > 1 {
		row.Notes = append(row.Notes, fmt.Sprintf("failed in run %d: the package's TestMain ran the tests %d times (m.Run called again)", n, tr.series))
	}
	return row
}

// The notes of a test row whose end said what became of testing's stream.
const (
	lostNote = "testing's output stream was lost by this test's end (the code closed or replaced the process's stdout): " +
		"its result is benchsup's own, from its *testing.T; its subtests' results and output after the loss are missing"
	lostHereNote = "testing's output stream was first found lost at this test's end: this test, or code it started, closed or replaced the process's stdout"
	imitatedNote = "its output imitated testing's framing (=== RUN, --- PASS or --- FAIL lines): benchsup took those lines as output, not as results"
)

// imitatedBesideNote is the note of a test that ran in parallel with the
// tests beside when a line imitating testing's framing was printed.
func imitatedBesideNote(beside []string) string {
	names := strings.Join(beside, ", ")
	if len(beside) >= protocol.MaxImitatedBeside {
		names = "among them " + names
	}
	return "its output, or that of a test running in parallel with it (" + names + "), imitated testing's framing " +
		"(=== RUN, --- PASS or --- FAIL lines): stdout does not say which test printed a line; benchsup took those lines as output, not as results"
}

// failureLine picks, from a failed test's own output, the first line
// testing logged (t.Error, t.Fatal, t.Log: indented, "file.go:12: ..."),
// else the first non-blank line.
func failureLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(line, "    "); ok {
			if file, _, ok := strings.Cut(rest, ": "); ok && strings.Contains(file, ".go:") && !strings.Contains(file, " ") {
				return strings.TrimSpace(rest)
			}
		}
	}
	return firstOutputLine(s)
}

// lastOutputLine is the last non-blank line of s, trimmed: the reason a
// test gave t.Skip is the last thing it logged.
func lastOutputLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if line := strings.TrimSpace(lines[i]); line != "" {
			return line
		}
	}
	return ""
}

// firstOutputLine is the first non-blank line of s.
func firstOutputLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// maxStdoutTail bounds how much of a dead child's output stream is read.
const maxStdoutTail = 1 << 20

// readTail returns the last n bytes of a file, from the start of a line;
// "" when there is no such file.
func readTail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(0, fi.Size()-n)
	b := make([]byte, fi.Size()-off)
	k, _ := f.ReadAt(b, off)
	b = b[:k]
	if off > 0 {
		if i := strings.IndexByte(string(b), '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// frameMarker starts testing's own lines in its framed verbose mode
// (-test.v=test2json), as in the worker.
const frameMarker = "\x16"

// outputOf reads top's output, its subtests' included, from testing's
// framed stream as the worker does (worker/tests.go testStream): a framed
// line names the test later lines belong to; a subtest's result line is
// kept, as go test -v prints it.
func outputOf(stream, top string) string {
	if stream == "" {
		return ""
	}
	o := &testOutput{}
	cur := ""
	for _, line := range strings.SplitAfter(stream, "\n") {
		// A marker inside a line starts a line of its own.
		for _, part := range splitMarkers(line) {
			text, framed := strings.CutPrefix(part, frameMarker)
			if !framed {
				if part != "" && analysis.FunctionOf(cur) == top {
					o.add(top, cur, strings.TrimSuffix(part, "\n")+"\n")
				}
				continue
			}
			text = strings.TrimLeft(strings.TrimRight(text, "\n"), " ")
			for _, f := range []string{"=== RUN   ", "=== PAUSE ", "=== CONT  ", "=== NAME  ", "--- PASS: ", "--- FAIL: ", "--- SKIP: "} {
				rest, ok := strings.CutPrefix(text, f)
				if !ok {
					continue
				}
				name, _, _ := strings.Cut(strings.TrimSpace(rest), " (")
				cur = name
				if strings.HasPrefix(f, "--- ") && name != top && analysis.FunctionOf(name) == top {
					o.add(top, name, text+"\n")
				}
				break
			}
		}
	}
	return o.String()
}

// splitMarkers cuts a line before every frame marker that does not start
// it.
func splitMarkers(line string) []string {
	var parts []string
	for {
		i := strings.Index(line[min(1, len(line)):], frameMarker)
		if i < 0 {
			return append(parts, line)
		}
		i++
		parts = append(parts, line[:i])
		line = line[i:]
	}
}

// notStarted is a not-run row for every selected test of p (-run and
// -skip, as selected reads them) that an
// interruption left without a row: an interrupted run names what it never
// started, rather than counting fewer tests than it selected.
func notStarted(p *pkgPlan, rows []rundoc.Row, selected func(string) bool) []rundoc.Row {
	has := map[string]bool{}
	for _, r := range rows {
		has[r.Name] = true
	}
	var out []rundoc.Row
	for _, name := range p.tests() {
		if !has[name] && selected(name) {
			out = append(out, rundoc.Row{Package: p.pkg.ImportPath, Name: name, Kind: "test",
				Outcome: rundoc.OutcomeNotRun, Processes: []rundoc.ProcessResult{}, Error: ptr(interruptedBeforeStart)})
		}
	}
	return out
}
