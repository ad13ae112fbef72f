package supervisor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/report"
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
	return out
}

// scriptedSupervisor is a supervisor whose children are sc.
func scriptedSupervisor(t *testing.T, cfg Config, sc *scripted) *supervisor {
	t.Helper()
	cfg.applyDefaults()
	return &supervisor{cfg: cfg, tmp: t.TempDir(), start: sc.start}
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

func rowsByName(rows []report.Row) map[string]report.Row {
	m := map[string]report.Row{}
	for _, r := range rows {
		m[r.Name] = r
	}
	return m
}

func TestDiscoveryResumesAfterACrash(t *testing.T) {
	funcs := []string{"BenchmarkA", "BenchmarkB", "BenchmarkC", "BenchmarkD"}
	discovery := 0
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode != protocol.ModeDiscover {
			return []protocol.Message{result(req, 100)}, sandbox.ClassSuccess
		}
		discovery++
		switch discovery {
		case 1: // A lists and calibrates; B dies in its listing run.
			assert.Empty(t, req.Config.After)
			return []protocol.Message{
				progress(protocol.PhaseDiscovery, 0, 4), leaves("BenchmarkA"),
				progress(protocol.PhaseCalibration, 0, 1), calibrated("BenchmarkA", 50),
				progress(protocol.PhaseDiscovery, 1, 4),
			}, sandbox.ClassExit
		case 2: // after B: C's second leaf dies while calibrating.
			assert.Equal(t, "BenchmarkB", req.Config.After)
			assert.Empty(t, req.Config.Skip)
			return []protocol.Message{
				progress(protocol.PhaseDiscovery, 2, 4), leaves("BenchmarkC/x", "BenchmarkC/y"),
				progress(protocol.PhaseCalibration, 0, 2), calibrated("BenchmarkC/x", 60),
				progress(protocol.PhaseCalibration, 1, 2),
			}, sandbox.ClassSignal
		case 3: // C again, skipping what is done, then D.
			assert.Equal(t, "BenchmarkB", req.Config.After, "the function resumes")
			assert.Equal(t, []string{"BenchmarkC/x", "BenchmarkC/y"}, req.Config.Skip, "past the leaves done or charged")
			return []protocol.Message{
				progress(protocol.PhaseDiscovery, 2, 4), leaves("BenchmarkC/x", "BenchmarkC/y"),
				progress(protocol.PhaseDiscovery, 3, 4), leaves("BenchmarkD"),
				progress(protocol.PhaseCalibration, 0, 1), calibrated("BenchmarkD", 70),
			}, sandbox.ClassSuccess
		}
		t.Fatalf("discovery %d: %+v", discovery, req.Config)
		return nil, sandbox.ClassSuccess
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2}, sc)
	rows, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", funcs, nil)})
	got := rowsByName(rows)

	assert.Equal(t, report.Outcome("ok"), got["BenchmarkA"].Outcome)
	assert.Equal(t, report.Outcome("exit"), got["BenchmarkB"].Outcome, "the function that died in its listing run is one error row")
	assert.Equal(t, report.Outcome("ok"), got["BenchmarkC/x"].Outcome, "calibrated before its sibling died: measured")
	assert.Equal(t, report.Outcome("signal"), got["BenchmarkC/y"].Outcome, "the leaf that died calibrating is charged alone")
	assert.Contains(t, *got["BenchmarkC/y"].Error, "while calibrating")
	assert.Equal(t, report.Outcome("ok"), got["BenchmarkD"].Outcome)
	assert.Len(t, rows, 5)
	for name, n := range map[string]int64{"BenchmarkA": 50, "BenchmarkC/x": 60, "BenchmarkD": 70} {
		require.NotNil(t, got[name].Calibration, name)
		assert.Equal(t, n, got[name].Calibration.N, name)
		for _, p := range got[name].Processes {
			assert.Equal(t, n, p.Samples[0].Iterations, "%s: every process measures the calibrated N", name)
		}
	}
	discoveries := 0
	for _, r := range sc.requests {
		if r.Mode == protocol.ModeDiscover {
			discoveries++
			assert.Equal(t, int64(DefaultSampleTime), r.Config.MinSampleNs, "discovery calibrates")
		}
	}
	assert.Equal(t, 3, discoveries)
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
	rows, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkX"}, nil)})
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
	rows, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkX"}, nil)})
	got := rowsByName(rows)
	assert.Equal(t, report.Outcome("benchmark-failure"), got["BenchmarkX/a"].Outcome)
	assert.Equal(t, report.OutcomeNotRun, got["BenchmarkX/b"].Outcome)
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
	rows, _ := s.benchmarks(ctx, []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkX"}, nil)})
	got := rowsByName(rows)
	a, b := got["BenchmarkX/a"], got["BenchmarkX/b"]
	require.Len(t, a.Processes, 1, "a measured once before the cancel")
	assert.Equal(t, report.Outcome("ok"), a.Outcome)
	assert.Equal(t, report.Outcome("canceled"), b.Outcome, "the child started as the run was canceled")
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
	assert.Equal(t, report.Outcome("ok"), got["TestA"].Outcome)
	assert.Equal(t, report.Outcome("exit"), got["TestB"].Outcome, "the test running when the child died is charged")
	assert.Equal(t, report.Outcome("ok"), got["TestC"].Outcome, "and every later test runs in a new child")
	assert.Equal(t, report.OutcomeTestFail, got[""].Outcome, "the package row")
	require.Len(t, sc.requests, 2)
}

func TestInterleave(t *testing.T) {
	a, b := &benchIdentity{name: "A"}, &benchIdentity{name: "B"}
	ended := &benchIdentity{name: "E", row: &report.Row{Outcome: report.OutcomeSkipped}}
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
