package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// The crashes under testdata/crashes are the stderr of real test binaries
// (the module of integration/testdata/test_attribution.txtar, run with
// -test.v=test2json -test.paniconexit0), one test selected each.

var attrTests = map[string]bool{}

func init() {
	for _, name := range []string{"TestSeqLogs", "TestParPanics", "TestParSibling", "TestGroup",
		"TestCleanupPanics", "TestLeavesGoroutine", "TestRunsMeanwhile", "TestSubExit0", "TestSubExit3",
		"TestPrintsThenPanics", "TestGoexits", "TestOverflows", "TestHelperSub", "TestExternal",
		"TestStartsHelper", "TestRunsAlone"} {
		attrTests[name] = true
	}
}

func crash(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "crashes", name+".txt"))
	require.NoError(t, err)
	return string(b)
}

// states builds a child's test states: "TestA" running, "TestB=paused",
// "TestC=pass" (ended with that result), in start order.
func states(specs ...string) (map[string]testStatus, []string, []string, map[string]string) {
	status := map[string]testStatus{}
	results := map[string]string{}
	var order, failed []string
	for _, s := range specs {
		name, state, _ := strings.Cut(s, "=")
		order = append(order, name)
		switch state {
		case "":
			status[name] = statusRunning
		case "paused":
			status[name] = statusPaused
		default:
			status[name] = statusEnded
			results[name] = map[string]string{"pass": "passed", "fail": "failed", "skip": "skipped"}[state]
			if state == "fail" {
				failed = append(failed, name)
			}
		}
	}
	return status, order, failed, results
}

func TestBlame(t *testing.T) {
	tests := []struct {
		name   string
		crash  string // a file under testdata/crashes, or "" for no stderr
		pkg    string
		exit   int // the exit status; -1 for a signal
		states []string
		alone  string
		test   string   // the test charged; "" for none
		says   []string // what the reason must mention
	}{
		{"parallel panic with running and paused siblings", "TestParPanics", "example.com/attr", 2,
			[]string{"TestSeqLogs=pass", "TestParPanics", "TestParSibling", "TestGroup=paused", "TestParPanics=fail"},
			"", "TestParPanics", []string{"TestParPanics panicked"}},
		{"parallel subtest panic names the subtest", "TestGroup", "example.com/attr", 2,
			[]string{"TestParPanics=paused", "TestGroup", "TestGroup/boom=fail", "TestGroup/calm"},
			"", "TestGroup", []string{"subtest TestGroup/boom panicked"}},
		{"panic in t.Cleanup", "TestCleanupPanics", "example.com/attr", 2,
			[]string{"TestParPanics=paused", "TestCleanupPanics"},
			"", "TestCleanupPanics", []string{"registered with t.Cleanup panicked"}},
		{"goroutine panics after its test passed, another running", "TestLeavesGoroutine", "example.com/attr", 2,
			[]string{"TestLeavesGoroutine=pass", "TestRunsMeanwhile"},
			"", "TestLeavesGoroutine", []string{"a goroutine TestLeavesGoroutine started panicked after the test had returned", "passed"}},
		{"goroutine panics while its test runs", "TestLeavesGoroutine", "example.com/attr", 2,
			[]string{"TestLeavesGoroutine", "TestRunsMeanwhile"},
			"", "TestLeavesGoroutine", []string{"while the test was running"}},
		{"subtest os.Exit(0)", "TestSubExit0", "example.com/attr", 2,
			[]string{"TestSubExit0", "TestSubExit0/zero=fail"},
			"", "TestSubExit0", []string{"subtest TestSubExit0/zero called os.Exit(0)"}},
		{"subtest os.Exit(3), the only test running", "TestSubExit3", "example.com/attr", 3,
			[]string{"TestParPanics=paused", "TestSubExit3", "TestSubExit3/three"},
			"", "TestSubExit3", []string{"os.Exit(3)", "subtest TestSubExit3/three was the only test running"}},
		{"os.Exit(3) while two tests run", "TestSubExit3", "example.com/attr", 3,
			[]string{"TestParPanics", "TestParSibling"},
			"", "", []string{"could not tell which test", "os.Exit(3)", "running: TestParPanics, TestParSibling"}},
		{"runtime.Goexit in a test", "TestGoexits", "example.com/attr", 2,
			[]string{"TestGoexits"},
			"", "TestGoexits", []string{"TestGoexits called runtime.Goexit"}},
		{"stack overflow, a fatal error with a long trace", "TestOverflows", "example.com/attr", 2,
			[]string{"TestOverflows", "TestParSibling=paused"},
			"", "TestOverflows", []string{"TestOverflows hit a fatal error"}},
		{"subtest function from a helper, one test running", "TestHelperSub", "example.com/attr", 2,
			[]string{"TestHelperSub", "TestHelperSub/h=fail", "TestParPanics=paused"},
			"", "TestHelperSub", []string{"panicked"}},
		{"subtest function from a helper, two tests running", "TestHelperSub", "example.com/attr", 2,
			[]string{"TestHelperSub", "TestHelperSub/h=fail", "TestParPanics"},
			"", "", []string{"could not tell which test"}},
		{"external test package", "TestExternal", "example.com/attr", 2,
			[]string{"TestExternal", "TestParSibling"},
			"", "TestExternal", []string{"TestExternal panicked"}},
		{"goroutine from a helper is no running test's", "unknown", "example.com/attr/unknown", 2,
			[]string{"TestStartsHelper=pass", "TestRunsAlone"},
			"", "", []string{"could not tell which test", "started by example.com/attr/unknown.startLate", "running: TestRunsAlone"}},
		{"goroutine from a helper in a child that ran one test", "unknown", "example.com/attr/unknown", 2,
			[]string{"TestStartsHelper=pass"},
			"TestStartsHelper", "TestStartsHelper", []string{"the only test this process ran"}},
		{"killed by a signal while nothing ran", "", "example.com/attr", -1,
			[]string{"TestSeqLogs=pass", "TestParPanics=paused"},
			"", "", []string{"could not tell which test", "the process died", "paused in t.Parallel: TestParPanics"}},
		{"a test function another test calls is not a test that ran", "TestParPanics", "example.com/attr", 2,
			[]string{"TestSeqLogs"},
			"", "TestSeqLogs", []string{"TestSeqLogs was the only test running"}},
		{"a goroutine of a test that did not run in this child", "TestLeavesGoroutine", "example.com/attr", 2,
			[]string{"TestRunsMeanwhile"},
			"", "", []string{"could not tell which test", "started by example.com/attr.TestLeavesGoroutine"}},
		{"the race detector's exit after every test ended", "race", "example.com/attr", 1,
			[]string{"TestSeqLogs=fail", "TestRunsMeanwhile=pass"},
			"", "", []string{"the race detector reported a data race", "status 1"}},
		{"a panic in another package's test is not this one's", "TestParPanics", "example.com/other", 2,
			[]string{"TestParPanics", "TestParSibling"},
			"", "", []string{"could not tell which test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := crashFacts{pkg: tt.pkg, tests: attrTests, alone: tt.alone}
			if tt.crash != "" {
				f.stderr = crash(t, tt.crash)
			}
			if tt.exit >= 0 {
				f.exited, f.code = true, tt.exit
			}
			f.status, f.order, f.failed, f.results = states(tt.states...)
			v := blame(f)
			assert.Equal(t, tt.test, v.test, "reason: %s", v.reason)
			for _, s := range tt.says {
				assert.Contains(t, v.reason, s)
			}
		})
	}
}

func TestParseCrash(t *testing.T) {
	c, ok := parseCrash(crash(t, "TestCleanupPanics"))
	require.True(t, ok)
	assert.Equal(t, "panic: cleanup boom [recovered, repanicked]", c.message)
	assert.Equal(t, []string{"testing.tRunner.func1.2", "testing.tRunner.func1", "panic",
		"example.com/attr.TestCleanupPanics.func1", "testing.(*common).Cleanup.func1",
		"testing.(*common).runCleanup", "testing.tRunner.func2", "testing.tRunner"}, c.frames)
	assert.Equal(t, "testing.(*T).Run", c.createdBy)

	c, ok = parseCrash(crash(t, "TestOverflows"))
	require.True(t, ok)
	assert.Equal(t, "fatal error: stack overflow", c.message)
	assert.Contains(t, c.frames, "example.com/attr.TestOverflows", "the crashed goroutine's frames, past the runtime stack and the elision")

	_, ok = parseCrash("")
	assert.False(t, ok)
	_, ok = parseCrash("some output\nthe test printed panic: in the middle of a line\n")
	assert.False(t, ok)
}

func TestTestOf(t *testing.T) {
	tests := map[string]bool{"TestX": true}
	for fn, want := range map[string]string{
		"example.com/p.TestX":             "TestX",
		"example.com/p.TestX.func1":       "TestX",
		"example.com/p.TestX.func1.2":     "TestX",
		"example.com/p_test.TestX.func3":  "TestX",
		"example.com/p.TestXY":            "",
		"example.com/p.helper":            "",
		"example.com/pp.TestX":            "",
		"example.com/p/sub.TestX":         "",
		"testing.tRunner":                 "",
		"example.com/p.(*server).TestX":   "",
		"example.com/p.TestX[...]":        "TestX",
		"example.com/p.TestX.deferwrap1":  "TestX",
		"example.com/p.TestX.gowrap2":     "TestX",
		"example.com/p.TestX.TestX.func1": "TestX",
	} {
		assert.Equal(t, want, testOf(fn, "example.com/p", tests), fn)
	}
	assert.Equal(t, "TestX", testOf("example.com/a%2eb.TestX.func1", "example.com/a.b", tests), "dots in the last path element are escaped in symbols")
}

func TestTrimWorkerFrames(t *testing.T) {
	in := "panic: boom\n\ngoroutine 7 [running]:\nexample.com/p.TestX(0xc0)\n\t/src/p/x_test.go:9 +0x25\n" +
		"example.com/p/zz_benchsup_0123/worker.(*testStream).syncAfter.func1(0xc0)\n\t/cache/zz_benchsup_0123/worker/tests.go:80 +0x40\n" +
		"testing.tRunner(0xc0, 0xc1)\n\t/go/src/testing/testing.go:2036 +0xea\n"
	want := "panic: boom\n\ngoroutine 7 [running]:\nexample.com/p.TestX(0xc0)\n\t/src/p/x_test.go:9 +0x25\n" +
		"testing.tRunner(0xc0, 0xc1)\n\t/go/src/testing/testing.go:2036 +0xea\n"
	assert.Equal(t, want, trimWorkerFrames(in, "example.com/p"))
}

func TestTrimWorkerFramesDump(t *testing.T) {
	// The shape of a SIGQUIT dump at a test's deadline: the runtime's idle
	// goroutine, testing's main goroutine, benchsup's worker and its
	// reader, the test under its wrapper, a goroutine the test started,
	// and the registers.
	in := "SIGQUIT: quit\nPC=0x48e341 m=0 sigcode=0\n\n" +
		"goroutine 0 gp=0x7740e0 m=0 mp=0x7750e0 [idle]:\nruntime.futex(0x775238)\n\t/go/src/runtime/sys_linux_amd64.s:569 +0x21\nruntime.mcall()\n\t/go/src/runtime/asm_amd64.s:496 +0x55\n\n" +
		"goroutine 1 gp=0xc1 m=nil [chan receive]:\ntesting.(*T).Run(0xc0)\n\t/go/src/testing/testing.go:2109 +0x4e5\nmain.main()\n\t_testmain.go:52 +0x9b\nruntime.main()\n\t/go/src/runtime/proc.go:290 +0x2d5\n\n" +
		"goroutine 21 gp=0xc2 m=nil [chan receive]:\ntesting.RunTests(0xc0)\n\t/go/src/testing/testing.go:2544 +0xb7\nexample.com/p.TestBenchsupWorker(0xc0)\n\t/src/p/zz_benchsup_internal_test.go:18 +0x13\ntesting.tRunner(0xc0, 0x5f4fe8)\n\t/go/src/testing/testing.go:2036 +0xea\ncreated by testing.(*T).Run in goroutine 1\n\t/go/src/testing/testing.go:2101 +0x4c5\n\n" +
		"goroutine 22 gp=0xc3 m=nil [IO wait]:\nbufio.(*Reader).ReadSlice(0xc0, 0xa)\n\t/go/src/bufio/bufio.go:377 +0x29\nexample.com/p/zz_benchsup_0123/worker.splitFramed(0xc0)\n\t/c/zz_benchsup_0123/worker/output.go:40 +0x40\n\n" +
		"goroutine 23 gp=0xc4 m=nil [sleep]:\ntime.Sleep(0x34630b8a000)\n\t/go/src/runtime/time.go:363 +0x165\nexample.com/p.TestHang(0xc0)\n\t/src/p/h_test.go:13 +0x94\n" +
		"example.com/p/zz_benchsup_0123/worker.(*testStream).syncAfter.func1(0xc0)\n\t/c/zz_benchsup_0123/worker/tests.go:80 +0x40\ntesting.tRunner(0xc0, 0xc1)\n\t/go/src/testing/testing.go:2036 +0xea\ncreated by testing.(*T).Run in goroutine 21\n\t/go/src/testing/testing.go:2101 +0x4c5\n\n" +
		"goroutine 24 gp=0xc5 m=nil [select]:\nnet/http.(*Server).Serve(0xc0)\n\t/go/src/net/http/server.go:3300 +0x1\ncreated by example.com/p.TestHang in goroutine 23\n\t/src/p/h_test.go:10 +0x5\n\n" +
		"rax    0xfffffffffffffffc\nrflags 0x246\ncs     0x33\n"
	want := "SIGQUIT: quit\n\n" +
		"goroutine 23 gp=0xc4 m=nil [sleep]:\ntime.Sleep(0x34630b8a000)\n\t/go/src/runtime/time.go:363 +0x165\nexample.com/p.TestHang(0xc0)\n\t/src/p/h_test.go:13 +0x94\n" +
		"testing.tRunner(0xc0, 0xc1)\n\t/go/src/testing/testing.go:2036 +0xea\ncreated by testing.(*T).Run in goroutine 21\n\t/go/src/testing/testing.go:2101 +0x4c5\n\n" +
		"goroutine 24 gp=0xc5 m=nil [select]:\nnet/http.(*Server).Serve(0xc0)\n\t/go/src/net/http/server.go:3300 +0x1\ncreated by example.com/p.TestHang in goroutine 23\n\t/src/p/h_test.go:10 +0x5\n" +
		"[4 goroutines of the runtime, of testing and of benchsup's worker omitted]\n"
	assert.Equal(t, want, trimWorkerFrames(in, "example.com/p"))

	// A crash keeps the goroutine that crashed; when it is benchsup's
	// own (a benchsup bug), whole.
	panicked := "panic: worker bug\n\ngoroutine 22 [running]:\nexample.com/p/zz_benchsup_0123/worker.splitFramed(0xc0)\n\t/c/zz_benchsup_0123/worker/output.go:40 +0x40\ncreated by example.com/p/zz_benchsup_0123/worker.captureOutput in goroutine 21\n\t/c/zz_benchsup_0123/worker/output.go:20 +0x4\n"
	assert.Equal(t, panicked, trimWorkerFrames(panicked, "example.com/p"))
}

func TestObserveSubtestResults(t *testing.T) {
	tr := newTestRun()
	for _, e := range []protocol.TestEvent{
		ev("run", "TestA"), ev("run", "TestA/ok"), outputEv("TestA/ok", "    a_test.go:2: fine\n"), ev("pass", "TestA/ok"),
		ev("run", "TestA/skip"), outputEv("TestA/skip", "    a_test.go:3: not here\n"), ev("skip", "TestA/skip"),
		ev("run", "TestA/bad"), outputEv("TestA/bad", "    a_test.go:4: broken\n"), ev("fail", "TestA/bad"),
		ev("fail", "TestA"),
	} {
		tr.observe(e, 0, nil)
	}
	want := "=== NAME  TestA/ok\n    a_test.go:2: fine\n--- PASS: TestA/ok (0.00s)\n" +
		"=== NAME  TestA/skip\n    a_test.go:3: not here\n--- SKIP: TestA/skip (0.00s)\n" +
		"=== NAME  TestA/bad\n    a_test.go:4: broken\n--- FAIL: TestA/bad (0.00s)\n"
	assert.Equal(t, want, tr.output["TestA"].String(), "every subtest's result, as go test -v prints it, once")
	row := tr.testRow("p", "TestA", tr.ended["TestA"])
	assert.Equal(t, "TestA/bad: a_test.go:4: broken", deref(row.Error))
	assert.Equal(t, 1, strings.Count(row.Output, "broken"))
}

// A test's row names the tests of its tree that paused (t.Parallel), in
// order, once each, whatever else paused around them.
func TestObservePaused(t *testing.T) {
	tr := newTestRun()
	for _, e := range []protocol.TestEvent{
		ev("run", "TestP"), ev("pause", "TestP"), ev("run", "TestQ"), ev("pass", "TestQ"), ev("cont", "TestP"),
		ev("run", "TestP/b"), ev("pause", "TestP/b"), ev("run", "TestP/a"), ev("pass", "TestP/a"),
		ev("cont", "TestP/b"), ev("pause", "TestP/b"), ev("cont", "TestP/b"), ev("pass", "TestP/b"), ev("pass", "TestP"),
	} {
		tr.observe(e, 0, nil)
	}
	assert.Equal(t, []string{"TestP", "TestP/b"}, tr.testRow("p", "TestP", tr.ended["TestP"]).Paused)
	assert.Nil(t, tr.testRow("p", "TestQ", tr.ended["TestQ"]).Paused, "a test that never paused names none")
}

// child is a scripted test child: it plays events through observe, with
// pauses, and ends with the given stderr and exit status, or as canceled
// when its context ends first.
type scriptedChild struct {
	steps  []any // protocol.TestEvent, protocol.Log, or time.Duration to wait
	stderr string
	exit   int // 0: success
}

type children struct {
	mu   sync.Mutex
	reqs []protocol.Request
	play func(req protocol.Request) scriptedChild
}

func (cs *children) start(ctx context.Context, _ sandbox.Config, req protocol.Request, observe func(protocol.Message)) sandbox.Outcome {
	cs.mu.Lock()
	cs.reqs = append(cs.reqs, req)
	cs.mu.Unlock()
	c := cs.play(req)
	for _, s := range c.steps {
		switch s := s.(type) {
		case protocol.TestEvent:
			observe(s)
		case protocol.Log:
			observe(s)
		case time.Duration:
			select {
			case <-time.After(s):
			case <-ctx.Done():
				return sandbox.Outcome{Class: sandbox.ClassCanceled, Err: context.Cause(ctx), ExitCode: -1}
			}
		}
	}
	out := sandbox.Outcome{Class: sandbox.ClassSuccess, Stderr: sandbox.Capture{Tail: []byte(c.stderr), Total: int64(len(c.stderr))}}
	if c.exit != 0 {
		out.Class, out.ExitCode, out.Err = sandbox.ClassExit, c.exit, &sandbox.ExitError{Code: c.exit}
	}
	return out
}

func ev(action protocol.TestAction, test string) protocol.TestEvent {
	return protocol.TestEvent{Action: action, Test: test, ElapsedNs: int64(time.Millisecond)}
}

func outputEv(test, text string) protocol.TestEvent {
	return protocol.TestEvent{Action: protocol.TestOutput, Test: test, Output: text}
}

func TestTestPackageChargesFromFacts(t *testing.T) {
	late := crash(t, "TestLeavesGoroutine")
	cs := &children{play: func(req protocol.Request) scriptedChild {
		switch strings.Join(req.Config.Skip, ",") {
		case "":
			// TestLeavesGoroutine passes; its goroutine panics while
			// TestRunsMeanwhile runs and TestParSibling is paused.
			return scriptedChild{steps: []any{
				ev("run", "TestParSibling"), ev("pause", "TestParSibling"),
				ev("run", "TestLeavesGoroutine"), outputEv("TestLeavesGoroutine", "    x_test.go:3: started it\n"), ev("pass", "TestLeavesGoroutine"),
				ev("run", "TestRunsMeanwhile"), outputEv("TestRunsMeanwhile", "half way\n"),
			}, stderr: late, exit: 2}
		case "TestLeavesGoroutine":
			return scriptedChild{steps: []any{
				ev("run", "TestParSibling"), ev("pause", "TestParSibling"),
				ev("run", "TestRunsMeanwhile"), ev("pass", "TestRunsMeanwhile"),
				ev("run", "TestSkips"), outputEv("TestSkips", "    x_test.go:9: no network here\n"), ev("skip", "TestSkips"),
				ev("run", "TestFails"), ev("run", "TestFails/inner"), outputEv("TestFails/inner", "    x_test.go:12: inner failure\n"),
				ev("fail", "TestFails/inner"), ev("fail", "TestFails"),
				ev("cont", "TestParSibling"), ev("pass", "TestParSibling"),
			}}
		}
		t.Fatalf("unexpected skip list %v", req.Config.Skip)
		return scriptedChild{}
	}}
	s := scriptedSupervisor(t, Config{}, nil)
	s.start = cs.start
	rows := rowsByName(s.testPackage(context.Background(), fakePackage("example.com/attr", nil,
		[]string{"TestParSibling", "TestLeavesGoroutine", "TestRunsMeanwhile", "TestSkips", "TestFails"})))
	require.Len(t, cs.reqs, 2)

	late2 := rows["TestLeavesGoroutine"]
	assert.Equal(t, rundoc.Outcome("exit"), late2.Outcome, "the test that started the goroutine is charged, though it passed")
	assert.Contains(t, deref(late2.Error), "after the test had returned")
	assert.Contains(t, late2.Output, "started it", "with its own output")
	assert.Contains(t, late2.Output, "panic: late boom", "and the crash")
	assert.Equal(t, rundoc.Outcome("ok"), rows["TestRunsMeanwhile"].Outcome, "the test running alongside was rerun")
	assert.NotContains(t, rows["TestRunsMeanwhile"].Output, "half way", "its interrupted run's output is not its result's")
	assert.Equal(t, rundoc.Outcome("ok"), rows["TestParSibling"].Outcome, "the paused test was rerun")
	assert.Equal(t, "x_test.go:9: no network here", deref(rows["TestSkips"].Skipped))
	assert.Equal(t, "TestFails/inner: x_test.go:12: inner failure", deref(rows["TestFails"].Error))
	assert.Contains(t, rows["TestFails"].Output, "--- FAIL: TestFails/inner")
}

func TestTestPackageRunsSuspectsAloneWhenNoTestCanBeNamed(t *testing.T) {
	// Two parallel tests run when the process exits with status 3 and
	// nothing ended: each then runs alone, where TestB exits again and is
	// charged, and TestA passes.
	cs := &children{play: func(req protocol.Request) scriptedChild {
		switch strings.Join(req.Config.Skip, ",") {
		case "":
			return scriptedChild{steps: []any{ev("run", "TestA"), ev("pause", "TestA"), ev("run", "TestB"), ev("pause", "TestB"),
				ev("cont", "TestA"), ev("cont", "TestB")}, exit: 3}
		case "TestB,TestC": // TestA alone
			return scriptedChild{steps: []any{ev("run", "TestA"), ev("pause", "TestA"), ev("cont", "TestA"), ev("pass", "TestA")}}
		case "TestA,TestC": // TestB alone
			return scriptedChild{steps: []any{ev("run", "TestB"), ev("pause", "TestB"), ev("cont", "TestB")}, exit: 3}
		case "TestA,TestB":
			return scriptedChild{steps: []any{ev("run", "TestC"), ev("pass", "TestC")}}
		}
		t.Fatalf("unexpected skip list %v", req.Config.Skip)
		return scriptedChild{}
	}}
	s := scriptedSupervisor(t, Config{}, nil)
	s.start = cs.start
	all := s.testPackage(context.Background(), fakePackage("example.com/p", nil, []string{"TestA", "TestB", "TestC"}))
	rows := rowsByName(all)
	assert.Equal(t, rundoc.Outcome("ok"), rows["TestA"].Outcome)
	assert.Equal(t, rundoc.Outcome("exit"), rows["TestB"].Outcome)
	assert.Contains(t, deref(rows["TestB"].Error), "os.Exit(3)")
	assert.Equal(t, rundoc.Outcome("ok"), rows["TestC"].Outcome)
	var pkgErr *rundoc.Row
	for i, r := range all {
		if r.Kind == "package" && r.Name == "" && r.Outcome == "exit" {
			pkgErr = &all[i]
		}
	}
	require.NotNil(t, pkgErr, "the first crash is the package's: no test could be named")
	assert.Contains(t, deref(pkgErr.Error), "could not tell which test")
	assert.Contains(t, deref(pkgErr.Error), "running: TestA, TestB")
	assert.Len(t, cs.reqs, 4)
}

func TestTestDeadlineCountsOnlyRunning(t *testing.T) {
	// TestPar waits paused for four tests that together outlast the
	// deadline, then runs briefly; TestHang runs past its deadline while
	// TestAlong runs alongside it, from half a deadline later. Each test
	// that passes beats the deadline by 350 ms, and TestHang's deadline
	// comes 250 ms before TestAlong's: with a 50 ms deadline and 20 ms
	// between, a busy host ran one past it, and expired both at once.
	const deadline = 500 * time.Millisecond
	const seq = 150 * time.Millisecond
	cs := &children{play: func(req protocol.Request) scriptedChild {
		switch strings.Join(req.Config.Skip, ",") {
		case "":
			return scriptedChild{steps: []any{
				ev("run", "TestPar"), ev("pause", "TestPar"),
				ev("run", "TestSeq"), seq, ev("pass", "TestSeq"),
				ev("run", "TestSeq2"), seq, ev("pass", "TestSeq2"),
				ev("run", "TestSeq3"), seq, ev("pass", "TestSeq3"),
				ev("run", "TestSeq4"), seq, ev("pass", "TestSeq4"),
				ev("cont", "TestPar"), 10 * time.Millisecond, ev("pass", "TestPar"),
				ev("run", "TestHang"), ev("pause", "TestHang"), ev("run", "TestAlong"), ev("pause", "TestAlong"),
				ev("cont", "TestHang"), deadline / 2, ev("cont", "TestAlong"), time.Minute,
			}}
		case "TestPar,TestSeq,TestSeq2,TestSeq3,TestSeq4,TestHang":
			return scriptedChild{steps: []any{ev("run", "TestAlong"), ev("pass", "TestAlong")}}
		}
		t.Fatalf("unexpected skip list %v", req.Config.Skip)
		return scriptedChild{}
	}}
	s := scriptedSupervisor(t, Config{TestDeadline: deadline}, nil)
	s.start = cs.start
	rows := rowsByName(s.testPackage(context.Background(), fakePackage("example.com/p", nil,
		[]string{"TestPar", "TestSeq", "TestSeq2", "TestSeq3", "TestSeq4", "TestHang", "TestAlong"})))
	assert.Equal(t, rundoc.Outcome("ok"), rows["TestPar"].Outcome, "a paused test is not running: %v", deref(rows["TestPar"].Error))
	assert.Equal(t, rundoc.Outcome("execution-timeout"), rows["TestHang"].Outcome)
	assert.Contains(t, deref(rows["TestHang"].Error), "deadline")
	assert.Equal(t, rundoc.Outcome("ok"), rows["TestAlong"].Outcome, "the test running alongside is rerun, not charged")
	require.Len(t, cs.reqs, 2)
}

func TestTestPackageCanceledChargesNoTest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := &children{play: func(req protocol.Request) scriptedChild {
		time.AfterFunc(20*time.Millisecond, cancel)
		return scriptedChild{steps: []any{ev("run", "TestA"), ev("pass", "TestA"),
			ev("run", "TestB"), ev("run", "TestC"), ev("pause", "TestC"), time.Minute}}
	}}
	s := scriptedSupervisor(t, Config{}, nil)
	s.start = cs.start
	rows := rowsByName(s.testPackage(ctx, fakePackage("example.com/p", nil, []string{"TestA", "TestB", "TestC", "TestD"})))
	assert.Equal(t, rundoc.Outcome("ok"), rows["TestA"].Outcome)
	for _, name := range []string{"TestB", "TestC"} {
		assert.Equal(t, rundoc.Outcome("canceled"), rows[name].Outcome, name)
		assert.Contains(t, deref(rows[name].Error), "canceled")
	}
	// Nothing starts after the cancel: the test never started is a not-run
	// row, named once, not a missing one.
	assert.Equal(t, rundoc.OutcomeNotRun, rows["TestD"].Outcome)
	assert.Equal(t, "the run was interrupted before it started", deref(rows["TestD"].Error))
	assert.Len(t, cs.reqs, 1)
}

func TestOutputOf(t *testing.T) {
	// testing's framed stream as the worker's file capture holds it when
	// the process died: TestA passed, TestB printed and exited, with a
	// partial line and a subtest.
	stream := "\x16=== RUN   TestA\nfrom A\n\x16--- PASS: TestA (0.00s)\n" +
		"\x16=== RUN   TestB\n\x16benchsup-sync 3\nfrom B\n\x16=== RUN   TestB/sub\n    b_test.go:4: sub log\n" +
		"\x16    --- PASS: TestB/sub (0.00s)\npartial\x16=== NAME  TestB\nlast words\n"
	want := "from B\n=== NAME  TestB/sub\n    b_test.go:4: sub log\n--- PASS: TestB/sub (0.00s)\npartial\n=== NAME  TestB\nlast words\n"
	assert.Equal(t, want, outputOf(stream, "TestB"))
	assert.Equal(t, "from A\n", outputOf(stream, "TestA"))
	assert.Empty(t, outputOf("", "TestB"))

	path := filepath.Join(t.TempDir(), "stdout")
	require.NoError(t, os.WriteFile(path, []byte("first line\nsecond line\nthird\n"), 0o644))
	assert.Equal(t, "third\n", readTail(path, 8), "the tail starts at a line")
	assert.Equal(t, "first line\nsecond line\nthird\n", readTail(path, 1<<20))
	assert.Empty(t, readTail(filepath.Join(t.TempDir(), "none"), 10))
}

func TestTestPackageChargesNoTestForTheHostsFault(t *testing.T) {
	run := func(t *testing.T, path func(s *supervisor) string) ([]rundoc.Row, map[string]rundoc.Row, *children) {
		s := scriptedSupervisor(t, Config{}, nil)
		line := "testing: can't write " + path(s) + ": write " + path(s) + ": no space left on device\n"
		cs := &children{play: func(req protocol.Request) scriptedChild {
			if len(req.Config.Skip) == 0 {
				return scriptedChild{steps: []any{ev("run", "TestA"), ev("pass", "TestA"), ev("run", "TestB"), ev("pass", "TestB"),
					ev("run", "TestC")}, stderr: line, exit: 2}
			}
			return scriptedChild{steps: []any{ev("run", "TestC"), ev("pass", "TestC")}}
		}}
		s.start = cs.start
		all := s.testPackage(context.Background(), fakePackage("example.com/p", nil, []string{"TestA", "TestB", "TestC"}))
		rows := rowsByName(all)
		assert.Equal(t, rundoc.Outcome("ok"), rows["TestA"].Outcome, "a test that passed keeps its result")
		assert.Equal(t, rundoc.Outcome("ok"), rows["TestB"].Outcome, "a test that passed keeps its result")
		return all, rows, cs
	}
	t.Run("the run's file", func(t *testing.T) {
		// testing's log, in the run's scratch directory, on a full TMPDIR:
		// no test is charged, and no new child would fare better.
		all, rows, cs := run(t, func(s *supervisor) string { return filepath.Join(s.tmp, "benchsup-testlog-1") })
		assert.Len(t, cs.reqs, 1)
		assert.Equal(t, rundoc.Outcome("parent-io"), rows["TestC"].Outcome, "the test without a result")
		assert.Contains(t, deref(rows["TestC"].Error), "no result: the host failed a file of the run")
		assert.Contains(t, deref(rows["TestC"].Error), "no space left on device")
		var pkgErr *rundoc.Row
		for i, r := range all {
			if r.Kind == "package" && r.Error != nil {
				pkgErr = &all[i]
			}
		}
		require.NotNil(t, pkgErr, "the package's row says what went wrong")
		assert.Equal(t, rundoc.Outcome("parent-io"), pkgErr.Outcome)
		assert.Contains(t, deref(pkgErr.Error), "the host failed a file of the run, not the code under test: testing: can't write ")
		assert.Contains(t, pkgErr.Output, "no space left on device")
	})
	t.Run("the code's file", func(t *testing.T) {
		// A file the code under test chose (a profile, say) is its own:
		// the one test running is charged, as for any exit.
		all, rows, _ := run(t, func(*supervisor) string { return "/elsewhere/cpu.out" })
		assert.Equal(t, rundoc.Outcome("exit"), rows["TestC"].Outcome)
		assert.Contains(t, deref(rows["TestC"].Error), "TestC was the only test running")
		for _, r := range all {
			assert.NotEqual(t, rundoc.Outcome("parent-io"), r.Outcome, "%s %s", r.Kind, r.Name)
		}
	})
}

// TestNotStartedHonoursSkip: an interrupted run lists as not run only the
// tests it selected, -skip included; a test -skip leaves out was never to
// run.
func TestNotStartedHonoursSkip(t *testing.T) {
	s := &supervisor{cfg: Config{Run: "^Test", Skip: "^TestSlow$"}}
	p := fakePackage("example.com/p", nil, []string{"TestA", "TestSlow", "TestB"})
	done := []rundoc.Row{{Package: "example.com/p", Name: "TestA"}}
	var names []string
	for _, r := range notStarted(p, done, s.runsTest) {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"TestB"}, names)
}

// TestTestOutputKeepsTheWorkersCount: the worker's count of what it left
// out past its bound (protocol.TestEvent's ElapsedNs on its note) reaches
// the row exactly, beside what the supervisor's own bound left out, and
// the note's words are not taken for output; once a piece does not fit,
// no later one is kept either.
func TestTestOutputKeepsTheWorkersCount(t *testing.T) {
	tr := newTestRun()
	chunk := strings.Repeat("x", 999) + "\n"
	events := []protocol.TestEvent{ev("run", "TestLoud")}
	for range protocol.MaxTextLen / len(chunk) {
		events = append(events, outputEv("TestLoud", chunk))
	}
	events = append(events, outputEv("TestLoud", chunk), outputEv("TestLoud", "short\n"),
		protocol.TestEvent{Action: protocol.TestOutput, Test: "TestLoud", OmittedBytes: 1234567, Output: "[1234567 more bytes of output omitted]\n"},
		ev("pass", "TestLoud"))
	for _, e := range events {
		tr.observe(e, 0, nil)
	}
	row := tr.testRow("p", "TestLoud", tr.ended["TestLoud"])
	want := strings.Repeat(chunk, protocol.MaxTextLen/len(chunk)) +
		"[" + strconv.Itoa(len(chunk)+len("short\n")+1234567) + " more bytes of output omitted]\n"
	assert.Equal(t, want, row.Output)
	assert.Equal(t, "ok", string(row.Outcome))
}

// A TestMain that runs the tests twice: a failure in either series fails
// the row, with a note; a lost stream and an imitation are noted.
func TestObserveSeriesAndIntegrity(t *testing.T) {
	tests := []struct {
		name    string
		events  []protocol.TestEvent
		outcome rundoc.Outcome
		notes   []string
	}{
		{"fails in the first series only", []protocol.TestEvent{ev("run", "TestA"), ev("fail", "TestA"), {}, ev("run", "TestA"), ev("pass", "TestA")},
			rundoc.OutcomeTestFail, nil},
		{"fails in the second series", []protocol.TestEvent{ev("run", "TestA"), ev("pass", "TestA"), {}, ev("run", "TestA"), ev("fail", "TestA")},
			rundoc.OutcomeTestFail, []string{"failed in run 2"}},
		{"passes in both", []protocol.TestEvent{ev("run", "TestA"), ev("pass", "TestA"), {}, ev("run", "TestA"), ev("pass", "TestA")},
			"ok", nil},
		{"lost and imitated", []protocol.TestEvent{ev("run", "TestA"), {Action: protocol.TestPass, Test: "TestA", Lost: true, Imitated: true}},
			"ok", []string{"first found lost", "output stream was lost", "imitated testing's framing"}},
		{"imitated beside others, in both series", []protocol.TestEvent{ev("run", "TestA"),
			{Action: protocol.TestPass, Test: "TestA", Imitated: true, ImitatedBeside: []string{"TestB"}}, {},
			ev("run", "TestA"), {Action: protocol.TestPass, Test: "TestA", Imitated: true, ImitatedBeside: []string{"TestC", "TestB"}}},
			"ok", []string{"or that of a test running in parallel with it (TestB, TestC), imitated testing's framing"}},
		{"imitated alone once", []protocol.TestEvent{ev("run", "TestA"),
			{Action: protocol.TestPass, Test: "TestA", Imitated: true, ImitatedBeside: []string{"TestB"}}, {},
			ev("run", "TestA"), {Action: protocol.TestPass, Test: "TestA", Imitated: true}},
			"ok", []string{"its output imitated testing's framing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTestRun()
			for _, e := range tt.events {
				if e.Action == "" { // the second m.Run's Hello
					tr.again(protocol.Hello{Again: 2})
					continue
				}
				tr.observe(e, 0, nil)
			}
			row := tr.testRow("p", "TestA", tr.ended["TestA"])
			assert.Equal(t, tt.outcome, row.Outcome)
			require.Len(t, row.Notes, len(tt.notes))
			for i, n := range tt.notes {
				assert.Contains(t, row.Notes[i], n)
			}
			assert.Empty(t, tr.unended())
		})
	}
	tr := newTestRun()
	tr.observe(ev("run", "TestA"), 0, nil)
	tr.observe(ev("run", "TestA/sub"), 0, nil)
	assert.Equal(t, []string{"TestA"}, tr.unended(), "a started top-level test without an end")
}
