package worker

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// RegisterExample adds an Example function that has an output comment, in
// source order. Generated code calls it from init. The example runs as a
// test of its own name, after every Test function, as under go test: so
// -run, the test deadline and crash containment treat it as any test.
func RegisterExample(name string, f func(), output string, unordered bool) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.tests = append(registry.tests, testing.InternalTest{Name: name, F: exampleTest(f, output, unordered)})
	registry.examples++
}

// exampleTest is an example as a test: a mismatch prints go test's
// "got:/want:" block as the test's output and fails it.
func exampleTest(f func(), output string, unordered bool) func(*testing.T) {
	return func(t *testing.T) {
		if msg := runExample(f, output, unordered); msg != "" {
			fmt.Print(msg)
			t.Fail()
		}
	}
}

// runExample runs f as testing's runExample does: it captures what f
// writes to os.Stdout and returns exampleMismatch's message for it, or ""
// when it matches. When f panics (or calls runtime.Goexit), what it
// printed so far is written out before the panic goes on, so that the
// crash report keeps it.
func runExample(f func(), output string, unordered bool) (msg string) {
	stdout := os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Sprintf("benchsup worker: capturing the example's output: %v\n", err)
	}
	os.Stdout = w
	outC := make(chan string)
	go func() {
		var buf strings.Builder
		io.Copy(&buf, r)
		r.Close()
		outC <- buf.String()
	}()
	finished := false
	defer func() {
		w.Close()
		os.Stdout = stdout
		got := <-outC
		if !finished {
			fmt.Fprint(stdout, got)
			return
		}
		msg = exampleMismatch(got, output, unordered)
	}()
	f()
	finished = true
	return ""
}

// exampleMismatch is testing's check of an example's output: "" when got
// matches want, else the message go test prints.
func exampleMismatch(got, want string, unordered bool) string {
	g, wt := strings.TrimSpace(got), strings.TrimSpace(want)
	if unordered {
		if !slices.Equal(sortedLines(g), sortedLines(wt)) {
			return fmt.Sprintf("got:\n%s\nwant (unordered):\n%s\n", got, want)
		}
		return ""
	}
	if g != wt {
		return fmt.Sprintf("got:\n%s\nwant:\n%s\n", g, wt)
	}
	return ""
}

// sortedLines splits s into lines and sorts them. (The injected worker
// builds with toolchains from go1.22: no iterator functions.)
func sortedLines(s string) []string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return lines
}
