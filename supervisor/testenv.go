package supervisor

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sandbox"
)

// This file tells a user whose test failed that the test's process read an
// environment variable the strict policy did not pass to it. testing
// records the variables a process reads (os.Getenv, os.LookupEnv) in the
// file named by -test.testlogfile, as go test's cache learns them; each
// test child gets its own, read after the child ends. The worker marks
// each top-level test's start and end in it (a lookup of a name starting
// with testLogMark), so a variable is charged to the tests running when
// it was read. testing writes the file when the tests return, so a child
// that crashed leaves at most a part.

// testLogMark starts the names the worker looks up to mark a test's start
// and end in the log; it is the worker's testLogMark (worker/tests.go).
const testLogMark = "benchsup-test "

// testLogSeq numbers the children's test log files within a run.
var testLogSeq atomic.Int64

// testLogPath is a fresh test log file for one child. The worker knows a
// supervisor's by the name (worker/tests.go testLogName): it then writes
// the tests' output to the same path with ".stdout" added.
func (s *supervisor) testLogPath() string {
	return filepath.Join(s.tmp, fmt.Sprintf("benchsup-testlog-%d", testLogSeq.Add(1)))
}

// readTestLog returns the variables a child read, per top-level test
// running when they were read ("" outside any test: TestMain, a goroutine
// of a test that ended), each in the order first read; none when the
// child wrote no log.
func readTestLog(path string) map[string][]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	defer os.Remove(path)
	reads := map[string][]string{}
	var running []string
	add := func(test, name string) {
		if !slices.Contains(reads[test], name) {
			reads[test] = append(reads[test], name)
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		name, ok := strings.CutPrefix(sc.Text(), "getenv ")
		if !ok {
			continue
		}
		if mark, ok := strings.CutPrefix(name, testLogMark); ok {
			if test, ok := strings.CutPrefix(mark, "run "); ok {
				running = append(running, test)
			} else if test, ok := strings.CutPrefix(mark, "end "); ok {
				if i := slices.Index(running, test); i >= 0 {
					running = slices.Delete(running, i, i+1)
				}
			}
			continue
		}
		if len(running) == 0 {
			add("", name)
		}
		for _, test := range running {
			add(test, name)
		}
	}
	return reads
}

// withheld lists, of the variables read, those benchsup's own environment
// has and the children's does not, given the policy; a variable the
// policy names (kept, set or removed on purpose) is the user's choice.
func withheld(read []string, policy sandbox.EnvPolicy, lookup func(string) (string, bool)) []string {
	if policy.Inherit {
		return nil
	}
	named := func(name string) bool {
		if slices.Contains(sandbox.StrictBase(), name) || slices.Contains(policy.Keep, name) || slices.Contains(policy.Remove, name) {
			return true
		}
		for _, kv := range policy.Set {
			if n, _, _ := strings.Cut(kv, "="); n == name {
				return true
			}
		}
		return false
	}
	var out []string
	for _, name := range read {
		if name == protocol.EnvFD || name == sandbox.EnvRun || named(name) {
			continue
		}
		if _, ok := lookup(name); ok {
			out = append(out, name)
		}
	}
	return out
}

// envNote says which withheld variables a failed test (or, for a
// package row, its process outside any test) read and how to pass them.
func envNote(names []string) string {
	if len(names) == 0 {
		return ""
	}
	keep := make([]string, len(names))
	for i, n := range names {
		keep[i] = "--env-keep=" + n
	}
	them, verb := "it", "is"
	if len(names) > 1 {
		them, verb = "them", "are"
	}
	return fmt.Sprintf("read %s, which %s set where benchsup runs but not passed to tests "+
		"(the strict environment policy); if the test needs %s, pass %s with %s",
		strings.Join(names, ", "), verb, them, them, strings.Join(keep, " "))
}
