package supervisor

import (
	"fmt"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// checkLimits refuses negative limits, and limits no controller on this host
// can apply: a run asked to bound its children never runs them unbounded.
func checkLimits(c Config) error {
	if c.MemoryLimit < 0 {
		return &ConfigError{Field: "MemoryLimit", Problem: fmt.Sprintf("must not be negative, got %d", c.MemoryLimit)}
	}
	if c.PidsLimit < 0 {
		return &ConfigError{Field: "PidsLimit", Problem: fmt.Sprintf("must not be negative, got %d", c.PidsLimit)}
	}
	if c.MemoryLimit == 0 && c.PidsLimit == 0 {
		return nil
	}
	sup := sandbox.ProbeLimits()
	if c.MemoryLimit > 0 && sup.Memory == "" {
		return &ConfigError{Field: "MemoryLimit", Problem: "no cgroup memory controller can be written here: " + sup.MemoryNote}
	}
	if c.PidsLimit > 0 && sup.Pids == "" {
		return &ConfigError{Field: "PidsLimit", Problem: "no cgroup pids controller can be written here: " + sup.PidsNote}
	}
	return nil
}

// limitsMeta is Meta.Limits: the configured limits and the cgroups a child
// (the first) was given.
func limitsMeta(c Config, res sandbox.Resources) *rundoc.Limits {
	l := &rundoc.Limits{MemoryBytes: c.MemoryLimit, Pids: c.PidsLimit, MemoryCgroup: res.Memory, PidsCgroup: res.Pids}
	if res.Memory == "" {
		l.PeakMemoryAbsent = res.PeakMemoryNote
	}
	return l
}

// peakMemory is a process's PeakMemoryBytes, and the note its row gets
// when a memory cgroup was there but could not be read ("" otherwise: a
// host without one says so once, in Meta.Limits).
func peakMemory(out sandbox.Outcome) (*int64, string) {
	r := out.Resources
	switch {
	case r.PeakMemoryKnown:
		return ptr(r.PeakMemory), ""
	case r.Memory != "" && out.PID != 0:
		return nil, "peak memory unavailable: " + r.PeakMemoryNote
	}
	return nil, ""
}

// resourceNotes are the notes a row gets for what the limits did to one of
// its children, whatever its outcome, and for a peak that could not be
// read.
func resourceNotes(out sandbox.Outcome) []string {
	var notes []string
	res := out.Resources
	if out.Class == sandbox.ClassOutOfMemory {
		// The row's error already says the root was killed at the limit:
		// only other kills are news, and reclaim before the kill is not.
		res.OOMKills = max(res.OOMKills-1, 0)
		res.LimitHits, res.LimitReached = -1, false
	}
	if n := res.Note(); n != "" {
		notes = append(notes, n)
	}
	if _, n := peakMemory(out); n != "" {
		notes = append(notes, n)
	}
	return notes
}
