package worker

import (
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// runTests runs the registered tests after Config.After, except those in
// Config.Skip, that match Config.Run through testing.RunTests, sending a "run" TestEvent as each
// top-level test starts and a pass, fail or skip event once it and all its
// subtests have finished. A test that ends the process leaves its "run"
// without an end: that is how the supervisor names the crashing test and
// resumes without it in a new process.
func (w *session) runTests() error {
	registry.mu.Lock()
	all := append([]testing.InternalTest(nil), registry.tests...)
	registry.mu.Unlock()
	if after := w.req.Config.After; after != "" {
		found := false
		for i, t := range all {
			if t.Name == after {
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
	var tests []testing.InternalTest
	for _, t := range all {
		if !skip[t.Name] {
			tests = append(tests, testing.InternalTest{Name: t.Name, F: w.watchTest(t.Name, t.F)})
		}
	}
	var fs flagState
	defer fs.restore()
	if err := fs.set("test.run", w.req.Config.Run); err != nil {
		return err
	}
	testing.RunTests(matchString, tests)
	return nil
}

func (w *session) watchTest(name string, f func(*testing.T)) func(*testing.T) {
	return func(t *testing.T) {
		start := time.Now()
		if err := w.conn.Send(protocol.TestEvent{Action: protocol.TestRun, Test: name}); err != nil {
			t.Fatalf("benchsup worker: %v", err)
		}
		// Registered first, so it runs last: after the test's own cleanups
		// and after its parallel subtests finished.
		t.Cleanup(func() {
			action := protocol.TestPass
			switch {
			case t.Skipped():
				action = protocol.TestSkip
			case t.Failed():
				action = protocol.TestFail
			}
			_ = w.conn.Send(protocol.TestEvent{Action: action, Test: name, ElapsedNs: int64(time.Since(start))})
		})
		defer func() {
			if r := recover(); r != nil {
				out := fmt.Sprintf("panic: %v\n\n%s", r, debug.Stack())
				_ = w.conn.Send(protocol.TestEvent{Action: protocol.TestOutput, Test: name,
					Output: protocol.TruncateText(out, protocol.MaxTextLen)})
				panic(r)
			}
		}()
		f(t)
	}
}
