package integration

import (
	"fmt"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/benchsup/benchsup/sandbox"
)

// scriptT is the key under which Setup keeps the script's testscript.T,
// so that a command can skip the script.
type scriptT struct{}

// cmdRequireLimits: requirelimits memory|pids... skips the script, with the
// reason, unless this host can give a child each named controller.
func cmdRequireLimits(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 || neg {
		ts.Fatalf("usage: requirelimits memory|pids...")
	}
	sup := sandbox.ProbeLimits()
	for _, c := range args {
		var reason string
		switch c {
		case "memory":
			if sup.Memory == "" {
				reason = "no writable cgroup memory controller: " + sup.MemoryNote
			}
		case "pids":
			if sup.Pids == "" {
				reason = "no writable cgroup pids controller: " + sup.PidsNote
			}
		default:
			ts.Fatalf("requirelimits: unknown controller %q", c)
		}
		if reason != "" {
			ts.Value(scriptT{}).(testscript.T).Skip(reason)
		}
	}
}

// cmdPeak: peak FILE NAME checks that every process of a row has its peak
// memory, a positive number of bytes (! peak: that none has); for a
// test-mode package row, that the row has its children's.
func cmdPeak(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: peak FILE NAME")
	}
	row := findRow(ts, readDoc(ts, args[0]), args[1])
	check := func(what string, peak *int64) {
		if peak != nil && *peak <= 0 {
			ts.Fatalf("%s: peakMemoryBytes %d", what, *peak)
		}
		if has := peak != nil; has == neg {
			ts.Fatalf("%s: peakMemoryBytes present is %v", what, has)
		}
	}
	if row.Kind == "package" {
		// Test mode: the package row carries its children's highest peak.
		check(args[1], row.PeakMemoryBytes)
		return
	}
	if len(row.Processes) == 0 {
		ts.Fatalf("%s: no processes", args[1])
	}
	for _, p := range row.Processes {
		check(fmt.Sprintf("%s: process %d", args[1], p.Index), p.PeakMemoryBytes)
	}
}
