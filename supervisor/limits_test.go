package supervisor

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
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
			wantNotes: []string{"the kernel's OOM killer killed 1 process at the 1 GiB limit, peak 1024.0 MiB"},
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

// TestLimitNotesFromEveryChild: what the limits did to a child is on the
// row whatever the child was for: the discovery child that listed and
// calibrated a benchmark (which ended well), its measured processes, and
// in test mode the package's children.
func TestLimitNotesFromEveryChild(t *testing.T) {
	pids := sandbox.Resources{Pids: "v1", PidsLimit: 16, PidsRefused: 3, OOMKills: 0, LimitHits: -1}
	oom := sandbox.Resources{Memory: "v1", MemoryLimit: 64 << 20, PeakMemory: 64 << 20, PeakMemoryKnown: true, OOMKills: 1, LimitHits: 5, LimitReached: true}
	const pidsNote = "pids limit 16 reached: 3 forks refused"
	const oomNote = "the kernel's OOM killer killed 1 process at the 64 MiB limit, peak 64.0 MiB"

	t.Run("benchmarks", func(t *testing.T) {
		funcs := []string{"BenchmarkForkFirst", "BenchmarkOOM"}
		sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
			if req.Mode == protocol.ModeDiscover {
				i, fn := function(t, funcs, req)
				return []protocol.Message{progress(protocol.PhaseDiscovery, int64(i), 2), leaves(fn), calibrated(fn, 10)}, sandbox.ClassSuccess
			}
			return []protocol.Message{result(req, 5)}, sandbox.ClassSuccess
		}}
		sc.adjust = func(req protocol.Request, o *sandbox.Outcome) {
			switch {
			case req.Mode == protocol.ModeDiscover && req.Config.After == "":
				o.Resources = pids // only the child that calibrated it forked
			case req.Identity.Name == "BenchmarkOOM" && req.Mode != protocol.ModeDiscover:
				o.Resources = oom // each measured process's grandchild
			}
		}
		s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 2}, sc)
		rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", funcs, nil)}, nil)
		got := rowsByName(rows)
		assert.Equal(t, rundoc.OutcomeOK, got["BenchmarkForkFirst"].Outcome)
		assert.Equal(t, []string{"in discovery: " + pidsNote}, got["BenchmarkForkFirst"].Notes)
		assert.Equal(t, rundoc.OutcomeOK, got["BenchmarkOOM"].Outcome, "the root survived its grandchild")
		assert.Equal(t, []string{oomNote + " (in the first of the 2 processes it happened to)"}, got["BenchmarkOOM"].Notes)
	})
	t.Run("tests", func(t *testing.T) {
		ev := func(action protocol.TestAction, test string) protocol.TestEvent {
			return protocol.TestEvent{Action: action, Test: test}
		}
		sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
			return []protocol.Message{ev("run", "TestA"), ev("pass", "TestA")}, sandbox.ClassSuccess
		}}
		sc.adjust = func(_ protocol.Request, o *sandbox.Outcome) {
			o.Resources = pids
			o.Resources.Memory, o.Resources.MemoryLimit, o.Resources.PeakMemory, o.Resources.PeakMemoryKnown = oom.Memory, oom.MemoryLimit, oom.PeakMemory, true
			o.Resources.OOMKills = 1
		}
		s := scriptedSupervisor(t, Config{}, sc)
		rows := s.testPackage(context.Background(), fakePackage("example.com/p", nil, []string{"TestA"}))
		got := rowsByName(rows)
		assert.Equal(t, rundoc.OutcomeOK, got[""].Outcome)
		assert.Equal(t, []string{pidsNote + "; " + oomNote}, got[""].Notes, "the package row: its tests share the child")
	})
}
