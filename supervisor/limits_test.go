package supervisor

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

func TestCheckLimits(t *testing.T) {
	sup := sandbox.ProbeLimits()
	type test struct {
		name    string
		cfg     Config
		field   string // "" when accepted
		problem string
	}
	tests := []test{
		{"none", Config{}, "", ""},
		{"negative memory", Config{MemoryLimit: -1}, "MemoryLimit", "must not be negative"},
		{"negative pids", Config{PidsLimit: -3}, "PidsLimit", "must not be negative"},
	}
	// What this host can do decides the rest: accepted with a controller,
	// refused with the probe's reason without one.
	mem := Config{MemoryLimit: 64 << 20}
	if sup.Memory == "" {
		tests = append(tests, test{"memory without a controller", mem, "MemoryLimit", sup.MemoryNote})
	} else {
		tests = append(tests, test{"memory with a controller", mem, "", ""})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkLimits(tt.cfg)
			if tt.field == "" {
				assert.NoError(t, err)
				return
			}
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			assert.True(t, errors.Is(err, ErrInvalidConfig))
			assert.Equal(t, tt.field, ce.Field)
			assert.Contains(t, ce.Problem, tt.problem)
		})
	}
}

func TestResourceNotesAndPeak(t *testing.T) {
	tests := []struct {
		name      string
		out       sandbox.Outcome
		wantPeak  *int64
		wantNotes []string
		wantMeta  rundoc.Limits
	}{
		{
			name:     "measured, nothing happened",
			out:      sandbox.Outcome{PID: 7, Resources: sandbox.Resources{Memory: "v1", PeakMemory: 5 << 20, PeakMemoryKnown: true, OOMKills: 0, LimitHits: -1}},
			wantPeak: ptr(int64(5 << 20)),
			wantMeta: rundoc.Limits{MemoryBytes: 1 << 30, MemoryCgroup: "v1"},
		},
		{
			name: "pids limit reached",
			out: sandbox.Outcome{PID: 7, Resources: sandbox.Resources{Memory: "v2", Pids: "v2", PidsLimit: 16, PidsRefused: 3,
				PeakMemory: 1 << 20, PeakMemoryKnown: true, OOMKills: 0, LimitHits: -1}},
			wantPeak:  ptr(int64(1 << 20)),
			wantNotes: []string{"pids limit 16 reached: 3 forks refused"},
			wantMeta:  rundoc.Limits{MemoryBytes: 1 << 30, MemoryCgroup: "v2", PidsCgroup: "v2"},
		},
		{
			name:      "a memory cgroup that could not be read",
			out:       sandbox.Outcome{PID: 7, Resources: sandbox.Resources{Memory: "v1", PeakMemoryNote: "reading the cgroup failed: gone", OOMKills: -1, LimitHits: -1}},
			wantNotes: []string{"peak memory unavailable: reading the cgroup failed: gone"},
			wantMeta:  rundoc.Limits{MemoryBytes: 1 << 30, MemoryCgroup: "v1"},
		},
		{
			name: "out of memory: the root's kill is the error, not a note",
			out: sandbox.Outcome{PID: 7, Class: sandbox.ClassOutOfMemory, Resources: sandbox.Resources{Memory: "v1", MemoryLimit: 1 << 30,
				PeakMemory: 1 << 30, PeakMemoryKnown: true, OOMKills: 1, LimitHits: 9}},
			wantPeak: ptr(int64(1 << 30)),
			wantMeta: rundoc.Limits{MemoryBytes: 1 << 30, MemoryCgroup: "v1"},
		},
		{
			name: "out of memory, and a grandchild killed too",
			out: sandbox.Outcome{PID: 7, Class: sandbox.ClassOutOfMemory, Resources: sandbox.Resources{Memory: "v1", MemoryLimit: 1 << 30,
				PeakMemory: 1 << 30, PeakMemoryKnown: true, OOMKills: 2, LimitHits: 9}},
			wantPeak:  ptr(int64(1 << 30)),
			wantNotes: []string{"the kernel's OOM killer killed 1 process at the 1 GiB limit"},
			wantMeta:  rundoc.Limits{MemoryBytes: 1 << 30, MemoryCgroup: "v1"},
		},
		{
			name:     "no memory controller: said once, in meta",
			out:      sandbox.Outcome{PID: 7, Resources: sandbox.Resources{PeakMemoryNote: "no memory controller: x", OOMKills: -1, LimitHits: -1}},
			wantMeta: rundoc.Limits{MemoryBytes: 1 << 30, PeakMemoryAbsent: "no memory controller: x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peak, _ := peakMemory(tt.out)
			assert.Equal(t, tt.wantPeak, peak)
			assert.Equal(t, tt.wantNotes, resourceNotes(tt.out))
			assert.Equal(t, &tt.wantMeta, limitsMeta(Config{MemoryLimit: 1 << 30}, tt.out.Resources))
		})
	}
}
