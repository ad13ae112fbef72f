package liveusage

import (
	"errors"
	"testing"
	"time"

	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/stretchr/testify/assert"
)

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// reading is a Usage at t0+at from the child's cgroup.
func reading(at, cpu time.Duration, mem int64) sandbox.Usage {
	return sandbox.Usage{At: t0.Add(at), CPU: cpu, CPUSource: sandbox.UsageCgroup, Memory: mem, MemorySource: sandbox.UsageCgroup}
}

func with(u sandbox.Usage, f func(*sandbox.Usage)) sandbox.Usage {
	f(&u)
	return u
}

func TestBetween(t *testing.T) {
	s := time.Second
	first := reading(0, 0, 10<<20)
	tests := []struct {
		name             string
		first, prev, cur sandbox.Usage
		want             report.LiveUsage
	}{
		{"one core", first, reading(s, 1*s, 10<<20), reading(2*s, 2*s, 12<<20),
			report.LiveUsage{CPUPercent: 100, Cores: 1, RSS: 12 << 20, RSSGrowth: 2 << 20}},
		{"one and a half cores", first, reading(s, 0, 0), reading(3*s, 3*s, 10<<20),
			report.LiveUsage{CPUPercent: 150, Cores: 1.5, RSS: 10 << 20}},
		{"idle is a measured zero", first, reading(s, s, 0), reading(2*s, s, 8<<20),
			report.LiveUsage{CPUPercent: 0, Cores: 0, RSS: 8 << 20, RSSGrowth: -(2 << 20)}},
		{"a quarter core over half a second", first, reading(s, s, 0), reading(1500*time.Millisecond, s+125*time.Millisecond, 10<<20),
			report.LiveUsage{CPUPercent: 25, Cores: 0.25, RSS: 10 << 20}},
		{"one reading: no cpu", first, first, first,
			report.LiveUsage{NoCPU: true, RSS: 10 << 20}},
		{"cpu source changed", first, reading(s, s, 0),
			with(reading(2*s, 5*s, 10<<20), func(u *sandbox.Usage) { u.CPUSource = sandbox.UsageProcessGroup }),
			report.LiveUsage{NoCPU: true, RSS: 10 << 20}},
		{"cpu went backwards", first, reading(s, 5*s, 0), reading(2*s, 4*s, 10<<20),
			report.LiveUsage{NoCPU: true, RSS: 10 << 20}},
		{"no cpu figure", first, reading(s, s, 0),
			with(reading(2*s, 0, 10<<20), func(u *sandbox.Usage) { u.CPUSource = "" }),
			report.LiveUsage{NoCPU: true, RSS: 10 << 20}},
		{"no memory figure", first, reading(s, 0, 0),
			with(reading(2*s, s, 0), func(u *sandbox.Usage) { u.MemorySource = "" }),
			report.LiveUsage{CPUPercent: 100, Cores: 1, NoRSS: true}},
		{"memory source changed since the first", first, reading(s, 0, 0),
			with(reading(2*s, s, 3<<20), func(u *sandbox.Usage) { u.MemorySource = sandbox.UsageRootProcess }),
			report.LiveUsage{CPUPercent: 100, Cores: 1, NoRSS: true}},
		{"/proc fallbacks are labeled",
			with(first, func(u *sandbox.Usage) {
				u.CPUSource, u.MemorySource = sandbox.UsageProcessGroup, sandbox.UsageRootProcess
			}),
			with(reading(s, s, 0), func(u *sandbox.Usage) { u.CPUSource = sandbox.UsageProcessGroup }),
			with(reading(2*s, 3*s, 11<<20), func(u *sandbox.Usage) {
				u.CPUSource, u.MemorySource = sandbox.UsageProcessGroup, sandbox.UsageRootProcess
			}),
			report.LiveUsage{CPUPercent: 200, Cores: 2, RSS: 11 << 20, RSSGrowth: 1 << 20, Label: "cpu: process group, rss: root process only"}},
		{"cgroup v1 memory is the cgroup's",
			with(first, func(u *sandbox.Usage) { u.MemorySource = sandbox.UsageCgroupV1 }),
			reading(s, 0, 0),
			with(reading(2*s, s, 11<<20), func(u *sandbox.Usage) { u.MemorySource = sandbox.UsageCgroupV1 }),
			report.LiveUsage{CPUPercent: 100, Cores: 1, RSS: 11 << 20, RSSGrowth: 1 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Between(tt.first, tt.prev, tt.cur)
			assert.InDelta(t, tt.want.CPUPercent, got.CPUPercent, 1e-9)
			assert.InDelta(t, tt.want.Cores, got.Cores, 1e-9)
			got.CPUPercent, got.Cores, tt.want.CPUPercent, tt.want.Cores = 0, 0, 0, 0
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTracker(t *testing.T) {
	var tr Tracker
	u, why := tr.Live()
	assert.Nil(t, u)
	assert.Equal(t, "no reading yet", why)

	tr.Add(reading(0, 0, 10<<20), nil)
	u, _ = tr.Live()
	assert.Equal(t, &report.LiveUsage{NoCPU: true, RSS: 10 << 20}, u, "one reading: memory, no cpu")

	tr.Add(reading(time.Second, 500*time.Millisecond, 11<<20), nil)
	tr.Add(reading(2*time.Second, 2500*time.Millisecond, 13<<20), nil)
	u, _ = tr.Live()
	assert.Equal(t, &report.LiveUsage{CPUPercent: 200, Cores: 2, RSS: 13 << 20, RSSGrowth: 3 << 20}, u, "between the last two; growth since the first")

	tr.Add(sandbox.Usage{}, errors.New("sandbox: usage unavailable: the child has exited"))
	u, why = tr.Live()
	assert.Nil(t, u)
	assert.Contains(t, why, "exited")
}
