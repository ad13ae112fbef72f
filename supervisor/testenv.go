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
// test child gets its own, read after the child ends. testing writes the
// file when the tests return, so a child that crashed leaves none.

// testLogSeq numbers the children's test log files within a run.
var testLogSeq atomic.Int64

// testLogPath is a fresh test log file for one child.
func (s *supervisor) testLogPath() string {
	return filepath.Join(s.tmp, fmt.Sprintf("testlog-%d", testLogSeq.Add(1)))
}

// readTestLog returns the variables a child read, in the order first read,
// from its test log; none when it wrote no log.
func readTestLog(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	defer os.Remove(path)
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "getenv "); ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
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

// envNote says which withheld variables a failed test's process read and
// how to pass them.
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
	return fmt.Sprintf("this test's process read %s, which %s set where benchsup runs but not passed to tests "+
		"(the strict environment policy); if the test needs %s, pass %s with %s",
		strings.Join(names, ", "), verb, them, them, strings.Join(keep, " "))
}
