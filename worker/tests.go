package worker

import (
	"fmt"
	"runtime/debug"
	"strings"
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
	blocks := &failBlocks{emit: func(name, text string) {
		_ = w.send(protocol.TestEvent{Action: protocol.TestOutput, Test: name,
			Output: protocol.TruncateText(text, protocol.MaxTextLen)})
	}}
	err := captureStdout(func() { testing.RunTests(matchString, tests) },
		func(s string, _ bool) bool { return blocks.line(s) })
	blocks.flush()
	return err
}

// failBlocks finds, in testing's non-verbose output, each failed top-level
// test's block (the indented lines under "--- FAIL: TestX (0.01s)", subtests
// included) and emits it, so a failure travels with its output as
// under go test.
type failBlocks struct {
	emit func(name, text string)
	name string
	text strings.Builder
}

func (f *failBlocks) line(s string) (forward bool) {
	if rest, ok := strings.CutPrefix(s, "--- FAIL: "); ok {
		f.flush()
		name, _, _ := strings.Cut(rest, " (")
		f.name, _, _ = strings.Cut(name, "/")
		return true
	}
	if f.name != "" && (strings.HasPrefix(s, "    ") || strings.HasPrefix(s, "\t")) {
		if f.text.Len() < protocol.MaxTextLen {
			f.text.WriteString(s + "\n")
		}
		return true
	}
	f.flush()
	return true
}

func (f *failBlocks) flush() {
	if f.name != "" {
		f.emit(f.name, f.text.String())
	}
	f.name = ""
	f.text.Reset()
}

// panicPrefix starts the output event a test's panic sends; the supervisor
// names the test that crashed a child by it.
const panicPrefix = "panic: "

func (w *session) watchTest(name string, f func(*testing.T)) func(*testing.T) {
	return func(t *testing.T) {
		start := time.Now()
		if err := w.send(protocol.TestEvent{Action: protocol.TestRun, Test: name}); err != nil {
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
			_ = w.send(protocol.TestEvent{Action: action, Test: name, ElapsedNs: int64(time.Since(start))})
		})
		defer func() {
			if r := recover(); r != nil {
				out := fmt.Sprintf("%s%v\n\n%s", panicPrefix, r, debug.Stack())
				_ = w.send(protocol.TestEvent{Action: protocol.TestOutput, Test: name,
					Output: protocol.TruncateText(out, protocol.MaxTextLen)})
				panic(r)
			}
		}()
		f(t)
	}
}
