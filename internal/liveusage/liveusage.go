// Package liveusage turns readings of a running child's usage
// (sandbox.Usage) into what the live displays show (report.LiveUsage): its
// CPU as a percentage and as occupied cores over the time between two
// readings, and its memory with the growth since the first reading. It is
// shared by the progress line of `benchsup run` and the live view of
// `benchsup record`; see docs/design.md, "Live displays".
package liveusage

import (
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/sandbox"
)

// Between returns the usage shown at cur: the CPU time used from prev to
// cur over the wall time between them (150% is 1.5 cores busy on average),
// and cur's memory with its growth since first. A figure is marked not
// measured when a reading lacks it, when its source changed between the
// readings (a cgroup's figure less a /proc one means nothing), or when no
// wall time passed; a CPU time that went backwards (a process of the group
// left it) is not measured either. first and prev may be the same reading,
// or cur itself: then the CPU is not measured.
func Between(first, prev, cur sandbox.Usage) report.LiveUsage {
	var u report.LiveUsage
	wall := cur.At.Sub(prev.At)
	cpu := cur.CPU - prev.CPU
	if cur.CPUSource == "" || cur.CPUSource != prev.CPUSource || wall <= 0 || cpu < 0 {
		u.NoCPU = true
	} else {
		u.Cores = float64(cpu) / float64(wall)
		u.CPUPercent = 100 * u.Cores
	}
	if cur.MemorySource == "" || cur.MemorySource != first.MemorySource {
		u.NoRSS = true
	} else {
		u.RSS = cur.Memory
		u.RSSGrowth = cur.Memory - first.Memory
	}
	u.Label = label(cur, u)
	return u
}

// label names the sources of u's figures that are weaker than the child's
// own cgroup; "" when there are none.
func label(cur sandbox.Usage, u report.LiveUsage) string {
	var s string
	if !u.NoCPU && cur.CPUSource == sandbox.UsageProcessGroup {
		s = "cpu: process group"
	}
	if !u.NoRSS && cur.MemorySource == sandbox.UsageRootProcess {
		if s != "" {
			s += ", "
		}
		s += "rss: root process only"
	}
	return s
}

// Tracker follows one child: each Add is a reading, and Live what the
// display shows after it. It is not safe for concurrent use.
type Tracker struct {
	first, prev sandbox.Usage
	n           int
	live        *report.LiveUsage
	reason      string
}

// Add takes a reading, or the error of one that failed (the child exited,
// nothing readable: the display then shows no usage, and Live says why).
func (t *Tracker) Add(u sandbox.Usage, err error) {
	if err != nil {
		t.live, t.reason = nil, err.Error()
		return
	}
	if t.n == 0 {
		t.first, t.prev = u, u
	}
	lu := Between(t.first, t.prev, u)
	t.live, t.reason = &lu, ""
	t.prev = u
	t.n++
}

// Live returns the usage to show after the latest Add, or nil and the
// reason there is none.
func (t *Tracker) Live() (*report.LiveUsage, string) {
	if t.live == nil && t.reason == "" {
		return nil, "no reading yet"
	}
	return t.live, t.reason
}
