package supervisor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// These tests drive the supervisor's discovery, schedule and collection
// with scripted children: no process is started, so each runs in
// milliseconds.

// script answers one request: the messages the child sends, in order, and
// how it ends.
type script func(req protocol.Request) ([]protocol.Message, sandbox.Class)

// scripted is a startFunc playing children by a script, recording every
// request it was given.
type scripted struct {
	mu       sync.Mutex
	requests []protocol.Request
	play     script
	onStart  func(n int) // called before the n-th child (0-based)
	// adjust, if set, changes the Outcome of each child before it is
	// returned (facts the sandbox adds, such as Leftover).
	adjust func(req protocol.Request, o *sandbox.Outcome)
}

func (sc *scripted) start(ctx context.Context, _ sandbox.Config, req protocol.Request, observe func(protocol.Message)) sandbox.Outcome {
	sc.mu.Lock()
	n := len(sc.requests)
	sc.requests = append(sc.requests, req)
	sc.mu.Unlock()
	if sc.onStart != nil {
		sc.onStart(n)
	}
	if ctx.Err() != nil {
		return sandbox.Outcome{Class: sandbox.ClassCanceled, Err: ctx.Err()}
	}
	msgs, class := sc.play(req)
	out := sandbox.Outcome{Class: class, PID: 1000 + n, Hello: &protocol.Hello{ProtocolVersion: protocol.Version, GOMAXPROCS: 2}}
	for _, m := range msgs {
		observe(m)
		switch m := m.(type) {
		case protocol.Failure:
			out.Failure = &m
		case protocol.Skip:
			out.Skip = &m
		}
	}
	if class != sandbox.ClassSuccess && class != sandbox.ClassSkipped && out.Failure == nil {
		out.Err = &sandbox.ExitError{Code: 2}
	}
	if sc.adjust != nil {
		sc.adjust(req, &out)
	}
	return out
}

// scriptedSupervisor is a supervisor whose children are sc, on a host
// that does not confine it: its CPUs are the placement's, or every CPU.
func scriptedSupervisor(t *testing.T, cfg Config, sc *scripted) *supervisor {
	t.Helper()
	cfg.applyDefaults()
	return &supervisor{cfg: cfg, tmp: t.TempDir(), start: sc.start, cpus: cfg.CPUs}
}

// fakePackage is a built package with these benchmark and test functions.
func fakePackage(path string, benchmarks, tests []string) *pkgPlan {
	return &pkgPlan{pkg: &goPackage{ImportPath: path, Name: "p", Dir: "/nonexistent"},
		internal: testFuncs{Benchmarks: benchmarks, Tests: tests}, builds: []*build{{binary: "/nonexistent/p.test"}}}
}

func progress(phase protocol.Phase, done, total int64) protocol.Progress {
	return protocol.Progress{Phase: phase, Done: done, Total: total}
}

func leaves(names ...string) protocol.Listing {
	var l protocol.Listing
	for _, n := range names {
		l.Identities = append(l.Identities, protocol.Listed{Name: n, Kind: protocol.ListedBenchmark})
	}
	return l
}

func calibrated(name string, n int64) protocol.Listing {
	return protocol.Listing{Identities: []protocol.Listed{{Name: name, Kind: protocol.ListedBenchmark, Iterations: n,
		Calibration: []protocol.Sample{{Iterations: n, ElapsedNs: n * 100}}}}}
}

func result(req protocol.Request, nsPerOp int64) protocol.Result {
	n := max(req.Config.Iterations, 1)
	return protocol.Result{Identity: req.Identity, Repetition: req.Repetition, Seed: req.Seed,
		Samples: []protocol.Sample{{Iterations: n, ElapsedNs: n * nsPerOp, Exact: true}}}
}

func rowsByName(rows []rundoc.Row) map[string]rundoc.Row {
	m := map[string]rundoc.Row{}
	for _, r := range rows {
		m[r.Name] = r
	}
	return m
}

// function is the top-level function a discovery request selects: the one
// registered after Config.After, which its -bench pattern names exactly.
func function(t *testing.T, funcs []string, req protocol.Request) (int, string) {
	t.Helper()
	i := 0
	if req.Config.After != "" {
		i = slices.Index(funcs, req.Config.After) + 1
	}
	require.Less(t, i, len(funcs), "after %q", req.Config.After)
	require.True(t, strings.HasPrefix(req.Config.Bench, "^"+funcs[i]+"$"), "pattern %q selects %s", req.Config.Bench, funcs[i])
	return i, funcs[i]
}

func TestDiscoveryOneChildPerFunction(t *testing.T) {
	funcs := []string{"BenchmarkA", "BenchmarkB", "BenchmarkC", "BenchmarkD", "BenchmarkE", "BenchmarkF"}
	n := int64(len(funcs))
	var mu sync.Mutex
	children := map[string]int{}
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode != protocol.ModeDiscover {
			return []protocol.Message{result(req, 100)}, sandbox.ClassSuccess
		}
		i, fn := function(t, funcs, req)
		mu.Lock()
		children[fn]++
		attempt := children[fn]
		mu.Unlock()
		// Every child goes on past its function to the end of the
		// registry, where the pattern selects nothing.
		rest := func() []protocol.Message {
			var m []protocol.Message
			for j := int64(i + 1); j < n; j++ {
				m = append(m, progress(protocol.PhaseDiscovery, j, n))
			}
			return m
		}
		switch fn {
		case "BenchmarkA", "BenchmarkD":
			return append([]protocol.Message{progress(protocol.PhaseDiscovery, int64(i), n), leaves(fn),
				progress(protocol.PhaseCalibration, 0, 1), calibrated(fn, 50)}, rest()...), sandbox.ClassSuccess
		case "BenchmarkB": // dies in its listing run
			return []protocol.Message{progress(protocol.PhaseDiscovery, int64(i), n)}, sandbox.ClassExit
		case "BenchmarkC": // its second leaf dies while calibrating, then it resumes
			if attempt == 1 {
				assert.Empty(t, req.Config.Skip)
				return []protocol.Message{
					progress(protocol.PhaseDiscovery, int64(i), n), leaves("BenchmarkC/x", "BenchmarkC/y"),
					progress(protocol.PhaseCalibration, 0, 2), calibrated("BenchmarkC/x", 60),
					progress(protocol.PhaseCalibration, 1, 2),
				}, sandbox.ClassSignal
			}
			assert.Equal(t, []string{"BenchmarkC/x", "BenchmarkC/y"}, req.Config.Skip, "past the leaves done or charged")
			return append([]protocol.Message{progress(protocol.PhaseDiscovery, int64(i), n),
				leaves("BenchmarkC/x", "BenchmarkC/y")}, rest()...), sandbox.ClassSuccess
		case "BenchmarkE": // calibrated, then a goroutine it left panics
			return append([]protocol.Message{progress(protocol.PhaseDiscovery, int64(i), n), leaves(fn),
				progress(protocol.PhaseCalibration, 0, 1), calibrated(fn, 70)}, rest()...), sandbox.ClassExit
		}
		// BenchmarkF, the last, is listed as a workload.
		return []protocol.Message{progress(protocol.PhaseDiscovery, int64(i), n),
			protocol.Listing{Identities: []protocol.Listed{{Name: fn, Kind: protocol.ListedWorkload}}}}, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2}, sc)
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", funcs, nil)}, nil)
	got := rowsByName(rows)

	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"BenchmarkA", "BenchmarkB", "BenchmarkC/x", "BenchmarkC/y", "BenchmarkD", "BenchmarkE", "BenchmarkF"}, names,
		"rows in source order, whatever order the children ended in")
	assert.Equal(t, rundoc.Outcome("ok"), got["BenchmarkA"].Outcome)
	assert.Equal(t, rundoc.Outcome("exit"), got["BenchmarkB"].Outcome, "the function that died in its listing run is one error row")
	assert.Equal(t, rundoc.Outcome("ok"), got["BenchmarkC/x"].Outcome, "calibrated before its sibling died: measured")
	assert.Equal(t, rundoc.Outcome("signal"), got["BenchmarkC/y"].Outcome, "the leaf that died calibrating is charged alone")
	assert.Contains(t, *got["BenchmarkC/y"].Error, "while calibrating")
	assert.Equal(t, rundoc.Outcome("ok"), got["BenchmarkD"].Outcome, "a neighbour's crash does not reach it")
	assert.Equal(t, rundoc.Outcome("exit"), got["BenchmarkE"].Outcome, "a death after its own function returned is its own")
	assert.Contains(t, *got["BenchmarkE"].Error, "after the function returned")
	assert.Equal(t, rundoc.Outcome("ok"), got["BenchmarkF"].Outcome, "the function after it is discovered and measured")
	for name, n := range map[string]int64{"BenchmarkA": 50, "BenchmarkC/x": 60, "BenchmarkD": 50} {
		require.NotNil(t, got[name].Calibration, name)
		assert.Equal(t, n, got[name].Calibration.N, name)
		require.Len(t, got[name].Processes, 2, name)
		for _, p := range got[name].Processes {
			assert.Equal(t, n, p.Samples[0].Iterations, "%s: every process measures the calibrated N", name)
		}
	}
	assert.Len(t, got["BenchmarkF"].Processes, 2)
	assert.Equal(t, map[string]int{"BenchmarkA": 1, "BenchmarkB": 1, "BenchmarkC": 2, "BenchmarkD": 1, "BenchmarkE": 1, "BenchmarkF": 1}, children,
		"one child per function, and one more for the function resumed past a leaf")
	for _, r := range sc.requests {
		if r.Mode == protocol.ModeDiscover {
			assert.Equal(t, int64(DefaultSampleTime), r.Config.MinSampleNs, "discovery calibrates")
		}
	}
}

func TestDiscoveryOfAPackageThatNeverStarts(t *testing.T) {
	// The first function's child ends before it reaches its function (a
	// TestMain that exits, an init that panics): the package is one row,
	// and no other child is started.
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		return nil, sandbox.ClassExit
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2}, sc)
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkA", "BenchmarkB", "BenchmarkC"}, nil)}, nil)
	require.Len(t, rows, 1)
	assert.Equal(t, rundoc.KindPackage, rows[0].Kind)
	assert.Equal(t, rundoc.Outcome("exit"), rows[0].Outcome)
	assert.Contains(t, *rows[0].Error, "before any benchmark function started")
	assert.Len(t, sc.requests, 1)
}

func TestDiscoveryInParallelWithinBounds(t *testing.T) {
	// Two packages of four slow functions, -p 3: the first function
	// of each package first, then the others alongside, never more than
	// three children at a time.
	var mu sync.Mutex
	running, most := 0, 0
	var pkgs []*pkgPlan
	funcs := []string{"BenchmarkA", "BenchmarkB", "BenchmarkC", "BenchmarkD"}
	for _, path := range []string{"example.com/p", "example.com/q"} {
		pkgs = append(pkgs, fakePackage(path, funcs, nil))
	}
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode != protocol.ModeDiscover {
			return []protocol.Message{result(req, 100)}, sandbox.ClassSuccess
		}
		i, fn := function(t, funcs, req)
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		// The others wait (a while) for a third to run alongside, so that
		// a slow host cannot hide the bound.
		for deadline := time.Now().Add(time.Second); fn != "BenchmarkA" && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			n := running
			mu.Unlock()
			if n >= 3 {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return []protocol.Message{progress(protocol.PhaseDiscovery, int64(i), 4), leaves(fn), calibrated(fn, 10)}, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 1, Parallel: 3}, sc)
	rows, _, _ := s.benchmarks(context.Background(), pkgs, nil)
	require.Len(t, rows, 8)
	for k, r := range rows {
		assert.Equal(t, pkgs[k/4].pkg.ImportPath, r.Package)
		assert.Equal(t, funcs[k%4], r.Name)
		assert.Equal(t, rundoc.Outcome("ok"), r.Outcome, r.Name)
	}
	assert.Equal(t, 3, most, "at most -p discovery children at once, and that many when there is work")
}

func TestOnlyFunction(t *testing.T) {
	for _, tc := range []struct {
		pattern, fn, want string
		ok                bool
	}{
		{"", "BenchmarkA", "^BenchmarkA$", true},
		{".", "BenchmarkA", "^BenchmarkA$", true},
		{"A", "BenchmarkA", "^BenchmarkA$", true},
		{"A", "BenchmarkB", "", false},
		{"A/x", "BenchmarkA", "^BenchmarkA$/x", true},
		{"A/x|B/y", "BenchmarkB", "^BenchmarkB$/y", true},
		{"Bench/x|A/y", "BenchmarkA", "^BenchmarkA$/x|^BenchmarkA$/y", true},
		{"(A|B)/x/z", "BenchmarkB", "^BenchmarkB$/x/z", true},
		{"[/|]/x", "Benchmark|", "^Benchmark\\|$/x", true},
		{"A\\/x", "BenchmarkA/x", "^BenchmarkA/x$", true},
		{"A b/x y", "BenchmarkA_b", "^BenchmarkA_b$/x y", true}, // testing rewrites a space in a pattern as in a name
	} {
		t.Run(tc.pattern+"_"+tc.fn, func(t *testing.T) {
			got, ok := onlyFunction(tc.pattern, tc.fn)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestScheduleInterleavesRepetitions(t *testing.T) {
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode == protocol.ModeDiscover {
			return []protocol.Message{progress(protocol.PhaseDiscovery, 0, 1), leaves("BenchmarkX/a", "BenchmarkX/b"),
				calibrated("BenchmarkX/a", 10), calibrated("BenchmarkX/b", 20)}, sandbox.ClassSuccess
		}
		return []protocol.Message{result(req, 5)}, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 3}, sc)
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkX"}, nil)}, nil)
	var order []string
	seeds := map[uint64]bool{}
	for _, r := range sc.requests[1:] {
		order = append(order, fmt.Sprintf("%s#%d", r.Identity.Name, r.Repetition))
		seeds[r.Seed] = true
	}
	assert.Equal(t, []string{"BenchmarkX/a#0", "BenchmarkX/b#0", "BenchmarkX/a#1", "BenchmarkX/b#1", "BenchmarkX/a#2", "BenchmarkX/b#2"}, order,
		"repetition k of every identity before repetition k+1 of any")
	assert.Len(t, seeds, 6, "every process its own seed")
	for _, r := range rows {
		require.NotNil(t, r.Summary, r.Name)
		assert.Equal(t, 3, r.Summary.Processes, r.Name)
		assert.NotNil(t, r.Summary.Interval, "%s: three processes give an interval", r.Name)
	}
}

func TestFailFastStopsScheduling(t *testing.T) {
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode == protocol.ModeDiscover {
			return []protocol.Message{progress(protocol.PhaseDiscovery, 0, 1), leaves("BenchmarkX/a", "BenchmarkX/b"),
				calibrated("BenchmarkX/a", 10), calibrated("BenchmarkX/b", 10)}, sandbox.ClassSuccess
		}
		if req.Identity.Name == "BenchmarkX/a" {
			return []protocol.Message{protocol.Failure{Class: protocol.FailureFatal, Message: "boom"}}, sandbox.ClassFailure
		}
		return []protocol.Message{result(req, 5)}, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2, FailFast: true}, sc)
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkX"}, nil)}, nil)
	got := rowsByName(rows)
	assert.Equal(t, rundoc.Outcome("benchmark-failure"), got["BenchmarkX/a"].Outcome)
	assert.Equal(t, rundoc.OutcomeNotRun, got["BenchmarkX/b"].Outcome)
	assert.Contains(t, *got["BenchmarkX/b"].Error, "--fail-fast")
	assert.Len(t, sc.requests, 2, "discovery and the failing child; nothing after")
}

func TestCancelLeavesTheRestNotRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode == protocol.ModeDiscover {
			return []protocol.Message{progress(protocol.PhaseDiscovery, 0, 1), leaves("BenchmarkX/a", "BenchmarkX/b"),
				calibrated("BenchmarkX/a", 10), calibrated("BenchmarkX/b", 10)}, sandbox.ClassSuccess
		}
		return []protocol.Message{result(req, 5)}, sandbox.ClassSuccess
	}}
	sc.onStart = func(n int) {
		if n == 2 { // discovery, a#0, then the user presses Ctrl-C
			cancel()
		}
	}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2}, sc)
	rows, _, _ := s.benchmarks(ctx, []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkX"}, nil)}, nil)
	got := rowsByName(rows)
	a, b := got["BenchmarkX/a"], got["BenchmarkX/b"]
	require.Len(t, a.Processes, 1, "a measured once before the cancel")
	assert.Equal(t, rundoc.Outcome("ok"), a.Outcome)
	assert.Equal(t, rundoc.Outcome("canceled"), b.Outcome, "the child started as the run was canceled")
	assert.Len(t, sc.requests, 3, "nothing starts after the cancel")
}

func TestTestModeResumesPastACrash(t *testing.T) {
	ev := func(action protocol.TestAction, test string) protocol.TestEvent {
		return protocol.TestEvent{Action: action, Test: test, ElapsedNs: int64(time.Millisecond)}
	}
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		switch strings.Join(req.Config.Skip, ",") {
		case "":
			return []protocol.Message{ev("run", "TestA"), ev("pass", "TestA"), ev("run", "TestB"),
				ev("output", "TestB")}, sandbox.ClassExit // TestB dies
		case "TestA,TestB":
			return []protocol.Message{ev("run", "TestC"), ev("pass", "TestC")}, sandbox.ClassSuccess
		}
		t.Fatalf("unexpected skip list %v", req.Config.Skip)
		return nil, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{}, sc)
	rows := s.testPackage(context.Background(), fakePackage("example.com/p", nil, []string{"TestA", "TestB", "TestC"}))
	got := rowsByName(rows)
	assert.Equal(t, rundoc.Outcome("ok"), got["TestA"].Outcome)
	assert.Equal(t, rundoc.Outcome("exit"), got["TestB"].Outcome, "the test running when the child died is charged")
	assert.Equal(t, rundoc.Outcome("ok"), got["TestC"].Outcome, "and every later test runs in a new child")
	assert.Equal(t, rundoc.OutcomeTestFail, got[""].Outcome, "the package row")
	require.Len(t, sc.requests, 2)
}

func TestInterleave(t *testing.T) {
	a, b := &benchIdentity{name: "A"}, &benchIdentity{name: "B"}
	ended := &benchIdentity{name: "E", row: &rundoc.Row{Outcome: rundoc.OutcomeSkipped}}
	var got []string
	for _, j := range interleave([]*benchIdentity{a, ended, b}, 3) {
		got = append(got, fmt.Sprintf("%s%d", j.id.name, j.rep))
	}
	assert.Equal(t, []string{"A0", "B0", "A1", "B1", "A2", "B2"}, got, "an identity that ended in discovery gets no process")
	assert.Empty(t, interleave(nil, 5))
}

func TestSchedulePicksEachIdentitysBuild(t *testing.T) {
	// Two builds of one package (a comparison's working tree and another
	// revision): every process runs the binary of its identity's build.
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		return []protocol.Message{result(req, 5)}, sandbox.ClassSuccess
	}}
	var paths []string
	start := sc.start
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2}, sc)
	s.start = func(ctx context.Context, cfg sandbox.Config, req protocol.Request, observe func(protocol.Message)) sandbox.Outcome {
		paths = append(paths, cfg.Path)
		return start(ctx, cfg, req, observe)
	}
	p := fakePackage("example.com/p", []string{"BenchmarkX"}, nil)
	p.builds = append(p.builds, &build{variant: "HEAD~1", binary: "/nonexistent/old.test"})
	ids := []*benchIdentity{
		{plan: p, build: p.builds[0], name: "BenchmarkX", n: 10, sampleTime: time.Millisecond},
		{plan: p, build: p.builds[1], name: "BenchmarkX", n: 10, sampleTime: time.Millisecond},
	}
	s.measure(context.Background(), ids)
	assert.Equal(t, []string{"/nonexistent/p.test", "/nonexistent/old.test", "/nonexistent/p.test", "/nonexistent/old.test"}, paths)
	for _, id := range ids {
		assert.Len(t, id.procs, 2)
	}
}

func TestLeftoverProcessesAreNoted(t *testing.T) {
	// A benchmark whose processes leave a daemon holding their output: the
	// sandbox killed it and said so; the row keeps the first account and
	// how many processes did it. Discovery's own is noted as such.
	const left = "when the child exited, 1 process it had started was still running (sleep pid 7), holding its stdout open; it was killed with its process group"
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode == protocol.ModeDiscover {
			i, fn := function(t, []string{"BenchmarkDaemon", "BenchmarkClean"}, req)
			return []protocol.Message{progress(protocol.PhaseDiscovery, int64(i), 2), leaves(fn), calibrated(fn, 10)}, sandbox.ClassSuccess
		}
		return []protocol.Message{result(req, 5)}, sandbox.ClassSuccess
	}}
	sc.adjust = func(req protocol.Request, o *sandbox.Outcome) {
		switch {
		case req.Mode == protocol.ModeDiscover && req.Config.After == "":
			o.Leftover = left
		case req.Identity.Name == "BenchmarkDaemon" && req.Repetition > 0:
			o.Leftover = left
			if req.Repetition == 2 {
				o.DrainNote = "stdout still open 250ms after the child was reaped, held by a process outside its containment: closed without reading to the end"
			}
		}
	}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 3}, sc)
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkDaemon", "BenchmarkClean"}, nil)}, nil)
	got := rowsByName(rows)
	assert.Equal(t, rundoc.Outcome("ok"), got["BenchmarkDaemon"].Outcome, "what it left does not fail it")
	assert.Equal(t, []string{"in discovery: " + left, left + " (2 of its processes left something running)"}, got["BenchmarkDaemon"].Notes)
	assert.Empty(t, got["BenchmarkClean"].Notes)
}

func TestDescribeNamesTheCause(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  sandbox.Outcome
		want []string
	}{
		{"version mismatch", sandbox.Outcome{Class: sandbox.ClassMalformed,
			Err: &protocol.VersionError{Supervisor: 4, Worker: 3, WorkerVer: "v0.3.0"}},
			[]string{"protocol version mismatch", "benchsup v0.3.0", "speaks version 3", "speaks version 4",
				"go run github.com/benchsup/benchsup/cmd/benchsup@v0.3.0", "the test binary is rebuilt"}},
		{"exit before the worker", sandbox.Outcome{Class: sandbox.ClassExit, Err: &sandbox.ExitError{Code: 1, BeforeWorker: true},
			Stderr: sandbox.Capture{Tail: []byte("panic: init failed\n\ngoroutine 1 [running]:\n")}},
			[]string{"child exited with status 1 before benchsup's worker started (in the package's initialization or its TestMain): panic: init failed"}},
		{"startup timeout", sandbox.Outcome{Class: sandbox.ClassStartupTimeout, Err: &sandbox.TimeoutError{Phase: sandbox.PhaseStartup, Limit: 10 * time.Second}},
			[]string{"startup timeout: the child had not started benchsup's worker after 10s (--startup-timeout with --bench; --timeout in test mode): it was still in the package's initialization or its TestMain"}},
		{"execution timeout", sandbox.Outcome{Class: sandbox.ClassExecTimeout, Err: &sandbox.TimeoutError{Phase: sandbox.PhaseExecution, Limit: 20 * time.Second}},
			[]string{"execution timeout: the child was still running after 20s (--timeout bounds each child)"}},
		{"canceled", sandbox.Outcome{Class: sandbox.ClassCanceled, Err: &sandbox.CanceledError{Cause: context.Canceled}},
			[]string{"the run was canceled while this child ran"}},
		{"canceled with a cause", sandbox.Outcome{Class: sandbox.ClassCanceled, Err: &sandbox.CanceledError{Cause: errors.New("interrupt signal received")}},
			[]string{"the run was canceled while this child ran (interrupt signal received)"}},
		{"malformed", sandbox.Outcome{Class: sandbox.ClassMalformed, Err: &protocol.MalformedError{Kind: protocol.KindResult, Reason: "unexpected result"}},
			[]string{"the child sent what benchsup's protocol does not allow (a benchsup bug, or code under test that wrote to the protocol's descriptor): "}},
		{"exit 0 before the worker", sandbox.Outcome{Class: sandbox.ClassMalformed, Err: &sandbox.NoDoneError{BeforeWorker: true}},
			[]string{"the test binary exited with status 0 before benchsup's worker started: its TestMain returned, or called os.Exit, without calling m.Run"}},
		{"parent I/O", sandbox.Outcome{Class: sandbox.ClassParentIO, Err: &sandbox.IOError{Op: "spawn", Err: syscall.EMFILE}},
			[]string{"benchsup's own side of the child failed (spawn): too many open files"}},
		{"stopped", sandbox.Outcome{Class: sandbox.ClassSignal, Err: &sandbox.StoppedError{Signal: stopSignal, Wait: 500 * time.Millisecond}},
			[]string{"child stopped by SIGSTOP and not continued within 500ms: benchsup continued it and killed it"}},
		{"no thread for the runtime", sandbox.Outcome{Class: sandbox.ClassExit, Err: &sandbox.ExitError{Code: 2, BeforeWorker: true},
			Stderr: sandbox.Capture{Tail: []byte("runtime: failed to create new OS thread (have 2 already; errno=11)\nruntime: may need to increase max user processes (ulimit -u)\nfatal error: newosproc\n")}},
			[]string{"the host refused the child a thread, not the code under test: runtime: failed to create new OS thread (have 2 already; errno=11): resource temporarily unavailable",
				"child exited with status 2 before benchsup's worker started"}},
		{"no memory for a thread", sandbox.Outcome{Class: sandbox.ClassExit, Err: &sandbox.ExitError{Code: 2},
			Stderr: sandbox.Capture{Tail: []byte("runtime: failed to create new OS thread (have 9 already; errno=12)\nfatal error: newosproc\n")}},
			[]string{"child exited with status 2: fatal error: newosproc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "stopped" && stopSignal == 0 {
				t.Skip("sandbox names signals on Linux only")
			}
			got := describe(tc.out)
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			assert.NotContains(t, got, "sandbox:", "no package prefix")
		})
	}
}
