package supervisor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/sandbox"
)

// testPackages runs every package's tests, packages in parallel.
func (s *supervisor) testPackages(ctx context.Context, plans []*pkgPlan) []report.Row {
	rows := make([][]report.Row, len(plans))
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
		rows[i] = s.testPackage(ctx, plans[i])
	})
	var out []report.Row
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// testRun is what one child reported about the tests it ran.
type testRun struct {
	mu       sync.Mutex
	started  []string             // "run" order
	running  map[string]time.Time // started, not ended
	ended    map[string]protocol.TestEvent
	panicked string            // the test whose panic output arrived
	output   map[string]string // go test's failure block per test
	timedOut string            // the test the supervisor stopped for its deadline
	timers   map[string]*time.Timer
}

// testPackage runs p's tests in as many children as it takes: when a child
// dies, the test it was running is reported with the child's outcome and a
// new child runs every test that has not finished yet.
func (s *supervisor) testPackage(ctx context.Context, p *pkgPlan) []report.Row {
	start := time.Now()
	var rows []report.Row
	finished := map[string]bool{}
	for ctx.Err() == nil {
		var skip []string
		for _, t := range p.tests() {
			if finished[t] {
				skip = append(skip, t)
			}
		}
		tr, out := s.testChild(ctx, p, skip)
		culprit := ""
		if out.Class != sandbox.ClassSuccess {
			culprit = tr.culprit()
		}
		for _, name := range tr.started {
			// A panicking test may report its end before the panic ends the
			// process; the culprit's row comes from the outcome below.
			if ev, ok := tr.ended[name]; ok && !finished[name] && name != culprit {
				finished[name] = true
				row := testRow(p.pkg.ImportPath, name, ev)
				row.Output = tr.output[name]
				if line := firstOutputLine(row.Output); line != "" && row.Error != nil {
					row.Error = ptr(line)
				}
				rows = append(rows, row)
			}
		}
		if out.Class == sandbox.ClassSuccess {
			break
		}
		if culprit == "" {
			// Nothing was running: the child died outside any test
			// (TestMain, startup), so no new child would do better.
			row := errorRow(p.pkg.ImportPath, "", "package", out)
			rows = append(rows, row)
			break
		}
		row := errorRow(p.pkg.ImportPath, culprit, "test", out)
		if o := tr.output[culprit]; o != "" && tr.panicked != culprit { // a panic's trace is on stderr already
			row.Output = o + row.Output
		}
		if tr.timedOut == culprit {
			row.Outcome = outcomeOf(sandbox.ClassExecTimeout)
			msg := fmt.Sprintf("test ran past its %v deadline", s.cfg.TestDeadline)
			if where := hungAt(out.Stacks.Head, p.pkg.ImportPath); where != "" {
				msg += "; " + where
			}
			row.Error = ptr(msg)
		}
		if ev, ok := tr.ended[culprit]; ok {
			row.ElapsedNs = ptr(ev.ElapsedNs)
		} else if t0, ok := tr.running[culprit]; ok {
			row.ElapsedNs = ptr(int64(time.Since(t0)))
		}
		rows = append(rows, row)
		finished[culprit] = true
		if s.cfg.FailFast {
			break
		}
	}
	status := report.OutcomeOK
	for _, r := range rows {
		if r.IsError() {
			status = report.OutcomeTestFail
		}
	}
	pkgRow := report.Row{Package: p.pkg.ImportPath, Kind: "package", Outcome: status,
		ElapsedNs: ptr(int64(time.Since(start))), Processes: []report.ProcessResult{}}
	return append(rows, pkgRow)
}

// testChild runs one child over the tests not in skip, enforcing the
// per-test deadline by ending the child when one test outlives it.
func (s *supervisor) testChild(ctx context.Context, p *pkgPlan, skip []string) (*testRun, sandbox.Outcome) {
	tr := &testRun{running: map[string]time.Time{}, ended: map[string]protocol.TestEvent{},
		timers: map[string]*time.Timer{}, output: map[string]string{}}
	cctx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	// A test past its deadline ends the child as a deadline does: the
	// sandbox first asks it for its goroutines' stacks.
	cancel := func() { cancelCause(sandbox.ErrCallerDeadline) }
	req := protocol.Request{Mode: protocol.ModeTest, Identity: protocol.Identity{Package: p.pkg.ImportPath},
		Config: protocol.RequestConfig{Run: s.cfg.Run, Skip: skip, TestTimeoutNs: int64(s.cfg.TestDeadline)}}
	out := s.run(cctx, s.childConfig(p, p.main()), req, func(m protocol.Message) {
		ev, ok := m.(protocol.TestEvent)
		if !ok {
			return
		}
		tr.mu.Lock()
		defer tr.mu.Unlock()
		switch ev.Action {
		case protocol.TestRun:
			tr.started = append(tr.started, ev.Test)
			tr.running[ev.Test] = time.Now()
			name := ev.Test
			tr.timers[name] = time.AfterFunc(s.cfg.TestDeadline, func() {
				tr.mu.Lock()
				if tr.timedOut == "" {
					tr.timedOut = name
				}
				tr.mu.Unlock()
				cancel()
			})
		case protocol.TestOutput:
			// The worker marks a test's panic with this prefix (see
			// worker.panicPrefix); any other output is a failure block.
			if strings.HasPrefix(ev.Output, "panic: ") && tr.panicked == "" {
				tr.panicked = ev.Test
			}
			tr.output[ev.Test] += ev.Output
		default:
			tr.ended[ev.Test] = ev
			delete(tr.running, ev.Test)
			if t := tr.timers[ev.Test]; t != nil {
				t.Stop()
			}
		}
	})
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, t := range tr.timers {
		t.Stop()
	}
	// A child we ended for a test's deadline is that test's timeout, not a
	// cancellation of the run.
	if out.Class == sandbox.ClassCanceled && tr.timedOut != "" && ctx.Err() == nil {
		out.Class = sandbox.ClassExecTimeout
	}
	return tr, out
}

// culprit names the test a dead child was running: the one that timed out
// or panicked, else the most recently started test that had not ended.
func (tr *testRun) culprit() string {
	if tr.timedOut != "" {
		return tr.timedOut
	}
	if tr.panicked != "" {
		return tr.panicked
	}
	for i := len(tr.started) - 1; i >= 0; i-- {
		if _, ok := tr.running[tr.started[i]]; ok {
			return tr.started[i]
		}
	}
	return ""
}

func testRow(pkg, name string, ev protocol.TestEvent) report.Row {
	row := report.Row{Package: pkg, Name: name, Kind: "test", ElapsedNs: ptr(ev.ElapsedNs), Processes: []report.ProcessResult{}}
	switch ev.Action {
	case protocol.TestPass:
		row.Outcome = "ok"
	case protocol.TestSkip:
		row.Outcome = outcomeOf(sandbox.ClassSkipped)
		row.Skipped = ptr("skipped (testing prints skip reasons only in verbose mode)")
	default:
		row.Outcome = report.OutcomeTestFail
		row.Error = ptr("test failed")
	}
	return row
}

// firstOutputLine is the first non-blank line of a failure block.
func firstOutputLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}
