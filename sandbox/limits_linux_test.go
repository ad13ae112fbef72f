//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/protocol"
)

// fakeCgroup creates dir with files (name -> content), and the probe
// directory the probe would create in it, holding probeFiles: a plain
// directory has none of the files the kernel puts in a new cgroup.
func fakeCgroup(t *testing.T, dir string, files map[string]string, probeFiles ...string) {
	t.Helper()
	probe := filepath.Join(dir, ownedPrefix()+"probe")
	require.NoError(t, os.MkdirAll(probe, 0o755))
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	for _, name := range probeFiles {
		require.NoError(t, os.WriteFile(filepath.Join(probe, name), nil, 0o644))
	}
}

func TestLimitProbe(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) (mountinfo, self string)
		want  LimitSupport
		check func(t *testing.T, root string, p limitProbe)
	}{
		{
			name: "v2 with controllers",
			setup: func(t *testing.T, root string) (string, string) {
				fakeCgroup(t, filepath.Join(root, "unified"), map[string]string{
					"cgroup.controllers":     "cpu io memory pids\n",
					"cgroup.subtree_control": "memory pids\n",
				}, "memory.max", "memory.swap.max", "memory.peak", "pids.max", "cgroup.kill")
				return "41 31 0:38 / " + filepath.Join(root, "unified") + " rw - cgroup2 cgroup2 rw\n", "0::/\n"
			},
			want: LimitSupport{Memory: CgroupV2, MemorySwap: true, Pids: CgroupV2},
			check: func(t *testing.T, root string, p limitProbe) {
				assert.Equal(t, filepath.Join(root, "unified"), p.v2.parent)
				assert.True(t, p.v2Peak)
				assert.True(t, p.v2.hasKill)
				assert.Nil(t, p.memV1)
			},
		},
		{
			name: "hybrid: v1 memory and pids, v2 without controllers",
			setup: func(t *testing.T, root string) (string, string) {
				fakeCgroup(t, filepath.Join(root, "unified"), map[string]string{"cgroup.controllers": "", "cgroup.subtree_control": ""})
				fakeCgroup(t, filepath.Join(root, "memory", "process_api", "x"), nil,
					"memory.limit_in_bytes", "memory.memsw.limit_in_bytes")
				fakeCgroup(t, filepath.Join(root, "pids"), nil, "pids.max")
				mi := "35 31 0:32 / " + filepath.Join(root, "memory") + " rw,relatime - cgroup cgroup rw,memory\n" +
					"39 31 0:36 / " + filepath.Join(root, "pids") + " rw,relatime - cgroup cgroup rw,pids\n" +
					"32 31 0:29 / " + filepath.Join(root, "cpu") + " rw,relatime - cgroup cgroup rw,cpu,cpuacct\n" +
					"41 31 0:37 / " + filepath.Join(root, "unified") + " rw,relatime - cgroup2 cgroup2 rw\n"
				self := "8:pids:/\n4:memory:/process_api/x\n1:cpu,cpuacct:/\n0::/\n"
				return mi, self
			},
			want: LimitSupport{Memory: CgroupV1, MemorySwap: true, Pids: CgroupV1},
			check: func(t *testing.T, root string, p limitProbe) {
				assert.Empty(t, p.v2.parent)
				require.NotNil(t, p.memV1)
				assert.Equal(t, filepath.Join(root, "memory", "process_api", "x"), p.memV1.dir(p.memV1.own))
				require.NotNil(t, p.pidsV1)
				assert.Equal(t, filepath.Join(root, "pids"), p.pidsV1.dir(p.pidsV1.own))
			},
		},
		{
			name: "v1 memory without memsw, mounted from a subtree",
			setup: func(t *testing.T, root string) (string, string) {
				// A container's view: the mount's root is /docker/c1, and
				// /proc/self/cgroup names paths from the hierarchy's root.
				fakeCgroup(t, filepath.Join(root, "memory"), nil, "memory.limit_in_bytes")
				mi := "35 31 0:32 /docker/c1 " + filepath.Join(root, "memory") + " rw - cgroup cgroup rw,memory\n"
				return mi, "4:memory:/docker/c1\n"
			},
			want: LimitSupport{Memory: CgroupV1},
			check: func(t *testing.T, root string, p limitProbe) {
				require.NotNil(t, p.memV1)
				assert.Equal(t, filepath.Join(root, "memory"), p.memV1.dir(p.memV1.own))
			},
		},
		{
			name: "none",
			setup: func(t *testing.T, root string) (string, string) {
				return "32 31 0:29 / " + filepath.Join(root, "cpu") + " rw - cgroup cgroup rw,cpu\n", "1:cpu:/\n"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			mi, self := tt.setup(t, root)
			require.NoError(t, os.WriteFile(filepath.Join(root, "mountinfo"), []byte(mi), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(root, "self"), []byte(self), 0o644))
			p := probeLimitsProc(filepath.Join(root, "mountinfo"), filepath.Join(root, "self"))
			got := p.LimitSupport
			if tt.want.Memory == "" {
				assert.NotEmpty(t, got.MemoryNote, "an absent controller says why")
			}
			if tt.want.Pids == "" {
				assert.NotEmpty(t, got.PidsNote, "an absent controller says why")
			}
			got.MemoryNote, got.PidsNote = "", ""
			assert.Equal(t, tt.want, got)
			if tt.check != nil {
				tt.check(t, root, p)
			}
		})
	}
}

func TestLimitProbeNotes(t *testing.T) {
	root := t.TempDir()
	mi := filepath.Join(root, "mountinfo")
	self := filepath.Join(root, "self")
	require.NoError(t, os.WriteFile(mi, []byte("32 31 0:29 / /x rw - cgroup cgroup rw,cpu\n"), 0o644))
	require.NoError(t, os.WriteFile(self, []byte("1:cpu:/\n"), 0o644))
	p := probeLimitsProc(mi, self)
	assert.Contains(t, p.MemoryNote, "no cgroup2 hierarchy is mounted")
	assert.Contains(t, p.MemoryNote, "no cgroup v1 hierarchy with the memory controller is mounted")
	assert.Contains(t, p.PidsNote, "no cgroup v1 hierarchy with the pids controller is mounted")
	assert.Contains(t, p.Describe(), "memory unavailable (")
}

func TestCgroupFileParsers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	tests := []struct {
		name    string
		path    string
		key     string
		want    int64
		wantErr bool
	}{
		{"v2 memory.events", write("memory.events", "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n"), "oom_kill", 1, false},
		{"v1 memory.oom_control", write("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"), "oom_kill", 3, false},
		{"pids.events", write("pids.events", "max 12\n"), "max", 12, false},
		{"missing key", write("old.oom_control", "oom_kill_disable 0\nunder_oom 0\n"), "oom_kill", 0, true},
		{"not a number", write("bad.events", "max many\n"), "max", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readKey(tt.path, tt.key)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("v1Path", func(t *testing.T) {
		path := write("cgroup", "9:name=systemd:/\n4:memory:/process_api/x\n2:cpu,cpuacct:/a\n0::/\n")
		for controller, want := range map[string]string{"memory": "/process_api/x", "cpuacct": "/a"} {
			got, err := v1Path(path, controller)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
		_, err := v1Path(path, "pids")
		assert.ErrorContains(t, err, "no line for the pids controller")
	})
}

func withLimitProbe(t *testing.T, p limitProbe) {
	prev := limitOverride
	t.Cleanup(func() { limitOverride = prev })
	limitOverride = &p
}

func TestLimitsRefused(t *testing.T) {
	none := limitProbe{LimitSupport: LimitSupport{MemoryNote: "no memory here", PidsNote: "no pids here"}}
	tests := []struct {
		name   string
		probe  *limitProbe
		cfg    func(*Config)
		field  string
		reason string
	}{
		{"memory without a controller", &none, func(c *Config) { c.MemoryLimit = 64 << 20 }, "MemoryLimit", "no writable memory controller: no memory here"},
		{"pids without a controller", &none, func(c *Config) { c.PidsLimit = 16 }, "PidsLimit", "no writable pids controller: no pids here"},
		{"negative memory", nil, func(c *Config) { c.MemoryLimit = -1 }, "MemoryLimit", "negative"},
		{"negative pids", nil, func(c *Config) { c.PidsLimit = -1 }, "PidsLimit", "negative"},
		{"with CgroupOff", nil, func(c *Config) { c.PidsLimit = 16; c.Cgroup = CgroupOff }, "PidsLimit", "CgroupOff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.probe != nil {
				withLimitProbe(t, *tt.probe)
			}
			cfg := helper("ok")
			tt.cfg(&cfg)
			before := spawnAttempts.Load()
			_, err := Start(cfg)
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.field, ce.Field)
			assert.Contains(t, ce.Reason, tt.reason)
			assert.Equal(t, before, spawnAttempts.Load(), "nothing spawned")
		})
	}
}

// requireLimits skips unless this host can give a child the controller.
func requireLimits(t *testing.T, memory, pids bool) LimitSupport {
	t.Helper()
	sup := ProbeLimits()
	if memory && sup.Memory == "" {
		t.Skip("no writable memory controller: " + sup.MemoryNote)
	}
	if pids && sup.Pids == "" {
		t.Skip("no writable pids controller: " + sup.PidsNote)
	}
	return sup
}

func logged(msgs []protocol.Message) []string {
	var out []string
	for _, m := range msgs {
		if l, ok := m.(protocol.Log); ok {
			out = append(out, l.Text)
		}
	}
	return out
}

func TestMemoryLimitOutOfMemory(t *testing.T) {
	sup := requireLimits(t, true, false)
	cfg := helper("alloc")
	cfg.MemoryLimit = 48 << 20
	o, msgs := run(t, cfg)
	require.Equal(t, ClassOutOfMemory, o.Class, "logs %q, stderr %s", logged(msgs), o.Stderr.Tail)
	var oom *OutOfMemoryError
	require.ErrorAs(t, o.Err, &oom)
	assert.ErrorIs(t, o.Err, ErrOutOfMemory)
	assert.Equal(t, int64(48<<20), oom.Limit)
	require.True(t, oom.PeakKnown, o.Resources.PeakMemoryNote)
	// The peak is the cgroup's: near the limit, and past it by no more
	// than the kernel's per-CPU charge batches.
	assert.Greater(t, oom.Peak, int64(32<<20))
	assert.Less(t, oom.Peak, int64(52<<20))
	assert.Contains(t, o.Err.Error(), "killed by the kernel at the 48 MiB limit, peak ")
	assert.Equal(t, sup.Memory, o.Resources.Memory)
	assert.Positive(t, o.Resources.OOMKills)
	assert.Equal(t, -1, o.ExitCode)
	assert.Empty(t, o.ContainmentNote, "every cgroup was removed without trouble")
}

// TestShimOutsideV1Limits: the shim leaves the child's v1 memory and pids
// cgroups once the program started in them, so that the limits, the peak
// and the OOM killer's choice are the program's alone.
func TestShimOutsideV1Limits(t *testing.T) {
	sup := requireLimits(t, true, true)
	if sup.Memory != CgroupV1 && sup.Pids != CgroupV1 {
		t.Skip("no v1 memory or pids controller: cgroup2 keeps the shim in the child's cgroup")
	}
	cfg := shimmed("cgroups")
	cfg.MemoryLimit = 256 << 20
	cfg.PidsLimit = 64
	o, msgs := run(t, cfg)
	require.Equal(t, ClassSuccess, o.Class, "%v", o.Err)
	logs := logged(msgs)
	require.GreaterOrEqual(t, len(logs), 2)
	controllerLine := func(text, controller string) string {
		for _, l := range strings.Split(text, "\n") {
			if f := strings.SplitN(l, ":", 3); len(f) == 3 && slices.Contains(strings.Split(f[1], ","), controller) {
				return f[2]
			}
		}
		return ""
	}
	for _, c := range []struct {
		controller string
		v          string
	}{{"memory", sup.Memory}, {"pids", sup.Pids}} {
		if c.v != CgroupV1 {
			continue
		}
		program, shim := controllerLine(logs[0], c.controller), controllerLine(logs[1], c.controller)
		assert.Contains(t, program, ownedPrefix(), "the program is in the child's %s cgroup", c.controller)
		assert.NotEqual(t, program, shim, "the shim left the child's %s cgroup", c.controller)
	}
	if sup.Pids == CgroupV1 && len(logs) == 3 {
		assert.Equal(t, "pids.max=64", logs[2], "the program's own limit, no longer raised for the shim")
	}
}

func TestMemoryLimitNotReached(t *testing.T) {
	requireLimits(t, true, false)
	if testing.Short() {
		t.Skip("allocates 256 MiB")
	}
	cfg := helper("alloc")
	cfg.MemoryLimit = 2 << 30 // past what an int32 holds
	o, msgs := run(t, cfg)
	require.Equal(t, ClassSuccess, o.Class, "%v", o.Err)
	assert.Contains(t, logged(msgs), "allocated=268435456")
	assert.Zero(t, o.Resources.OOMKills)
	assert.Zero(t, o.Resources.LimitHits, "never near the limit")
	assert.False(t, o.Resources.LimitReached)
	assert.Empty(t, o.Resources.Note())
	require.True(t, o.Resources.PeakMemoryKnown)
	assert.Greater(t, o.Resources.PeakMemory, int64(256<<20))
}

func TestMemoryLimitReclaim(t *testing.T) {
	requireLimits(t, true, false)
	cfg := helper("pagecache")
	cfg.MemoryLimit = 48 << 20
	o, msgs := run(t, cfg)
	require.Equal(t, ClassSuccess, o.Class, "%v", o.Err)
	assert.Contains(t, logged(msgs), "read=67108864")
	// Its page cache and heap reach the limit: reclaimed, not killed,
	// and named, since reclaim can slow what is measured.
	assert.Zero(t, o.Resources.OOMKills)
	assert.True(t, o.Resources.LimitReached, "%+v", o.Resources)
	assert.Contains(t, o.Resources.Note(), "memory limit 48 MiB reached")
}

func TestPidsLimitForkBomb(t *testing.T) {
	sup := requireLimits(t, false, true)
	cfg := helper("forkbomb")
	cfg.PidsLimit = 16
	o, msgs := run(t, cfg)
	assert.Equal(t, sup.Pids, o.Resources.Pids)
	assert.Equal(t, int64(16), o.Resources.PidsLimit)
	require.Positive(t, o.Resources.PidsRefused, "class %v, logs %q, stderr %s", o.Class, logged(msgs), o.Stderr.Tail)
	assert.Contains(t, o.Resources.Note(), "pids limit 16 reached: ")
	assert.Contains(t, o.Resources.Note(), " refused")
	assert.Empty(t, o.ContainmentNote, "every cgroup was removed without trouble")
}

func TestPeakMemoryOrdinaryChild(t *testing.T) {
	sup := ProbeLimits()
	o, _ := run(t, helper("ok"))
	require.Equal(t, ClassSuccess, o.Class)
	if sup.Memory == "" {
		assert.False(t, o.Resources.PeakMemoryKnown)
		assert.Contains(t, o.Resources.PeakMemoryNote, "no memory controller")
		return
	}
	assert.Equal(t, sup.Memory, o.Resources.Memory)
	require.True(t, o.Resources.PeakMemoryKnown, o.Resources.PeakMemoryNote)
	assert.Positive(t, o.Resources.PeakMemory)
	assert.Empty(t, o.Resources.Note(), "nothing happened to it")
	assert.Empty(t, o.ContainmentNote, "every cgroup was removed without trouble")

	cfg := helper("ok")
	cfg.Cgroup = CgroupOff
	o, _ = run(t, cfg)
	assert.False(t, o.Resources.PeakMemoryKnown)
	assert.Equal(t, "cgroup containment is off (CgroupOff)", o.Resources.PeakMemoryNote)
}

// TestSpawnerStuckInChildCgroup makes the spawning thread's move back to its
// own v1 cgroups fail: the next spawn is refused until the move succeeds.
func TestSpawnerStuckInChildCgroup(t *testing.T) {
	p := probeLimits()
	if p.memV1 == nil {
		t.Skip("the memory controller is not a cgroup v1 hierarchy here: " + p.Describe())
	}
	home := p.memV1.dir(p.memV1.own)
	var fail atomic.Bool
	prev := writeTasks
	t.Cleanup(func() { writeTasks = prev })
	// Assigned before the spawn, read by the spawner goroutine after it
	// receives the request: the queue orders them.
	writeTasks = func(f *os.File, dir string, tid int) error {
		if dir == home && fail.Load() {
			return errors.New("injected failure")
		}
		return prev(f, dir, tid)
	}
	fail.Store(true)
	o, _ := run(t, helper("ok"))
	assert.Equal(t, ClassSuccess, o.Class, "the child itself is where it belongs")

	_, err := Start(helper("ok"))
	var ioe *IOError
	require.ErrorAs(t, err, &ioe)
	assert.Contains(t, err.Error(), "still in an earlier child's cgroups")

	fail.Store(false)
	o, _ = run(t, helper("ok"))
	assert.Equal(t, ClassSuccess, o.Class, "%v", o.Err)
	got, err := v1Path("/proc/self/cgroup", "memory")
	require.NoError(t, err)
	assert.Equal(t, p.memV1.own, got)
	assert.True(t, strings.HasPrefix(home, p.memV1.point))
}

// TestPeakOnlyCgroupNotEntered makes the spawning thread's move into a
// child's v1 memory cgroup fail when no limit was asked: the child still
// runs, outside it, and its peak is missing with the reason, never read
// from a cgroup it was never in. With a limit, the spawn is refused.
func TestPeakOnlyCgroupNotEntered(t *testing.T) {
	p := probeLimits()
	if p.memV1 == nil {
		t.Skip("the memory controller is not a cgroup v1 hierarchy here: " + p.Describe())
	}
	home := p.memV1.dir(p.memV1.own)
	prev := writeTasks
	t.Cleanup(func() { writeTasks = prev })
	writeTasks = func(f *os.File, dir string, tid int) error {
		if dir != home && strings.HasPrefix(dir, p.memV1.point) {
			return errors.New("injected failure")
		}
		return prev(f, dir, tid)
	}
	o, _ := run(t, helper("ok"))
	assert.Equal(t, ClassSuccess, o.Class, "%v", o.Err)
	assert.False(t, o.Resources.PeakMemoryKnown)
	assert.Empty(t, o.Resources.Memory)
	assert.Equal(t, "the child could not be started in its cgroup v1 memory cgroup: injected failure", o.Resources.PeakMemoryNote)

	cfg := helper("ok")
	cfg.MemoryLimit = 64 << 20
	_, err := Start(cfg)
	var ioe *IOError
	require.ErrorAs(t, err, &ioe)
	assert.Contains(t, err.Error(), "injected failure")
}

// TestLimitFiles writes the limits into, and reads the counters from,
// directories that stand in for a child's cgroups: the v2 path this host
// may not have, and the v1 one.
func TestLimitFiles(t *testing.T) {
	t.Run("v2", func(t *testing.T) {
		dir := t.TempDir()
		p := limitProbe{LimitSupport: LimitSupport{Memory: CgroupV2, MemorySwap: true, Pids: CgroupV2}, v2Peak: true}
		lg := &limitGroups{probe: p, res: Resources{MemoryLimit: 64 << 20, PidsLimit: 16, OOMKills: -1, LimitHits: -1}, wantMem: true, wantPids: true}
		require.True(t, lg.v2Wanted())
		require.NoError(t, lg.setupV2(dir))
		for file, want := range map[string]string{"memory.max": "67108864", "memory.swap.max": "0", "pids.max": "16"} {
			got, err := os.ReadFile(filepath.Join(dir, file))
			require.NoError(t, err)
			assert.Equal(t, want, string(got), file)
		}
		fakeCgroup(t, dir, map[string]string{
			"memory.peak":   "67100672\n",
			"memory.events": "low 0\nhigh 0\nmax 40\noom 1\noom_kill 1\n",
			"pids.events":   "max 12\n",
		})
		res := lg.read()
		assert.Equal(t, Resources{MemoryLimit: 64 << 20, PidsLimit: 16, Memory: CgroupV2, Pids: CgroupV2,
			PeakMemory: 67100672, PeakMemoryKnown: true, OOMKills: 1, LimitHits: 40, LimitReached: true, PidsRefused: 12}, res)
		assert.Equal(t, "pids limit 16 reached: 12 forks refused; the kernel's OOM killer killed 1 process at the 64 MiB limit, peak 64.0 MiB", res.Note())

		lg.probe.v2Peak = false // before Linux 5.19
		res = lg.read()
		assert.False(t, res.PeakMemoryKnown)
		assert.Contains(t, res.PeakMemoryNote, "memory.peak")
	})
	t.Run("v2 without swap accounting, memory only", func(t *testing.T) {
		dir := t.TempDir()
		p := limitProbe{LimitSupport: LimitSupport{Memory: CgroupV2}}
		lg := &limitGroups{probe: p, res: Resources{MemoryLimit: 1 << 30}, wantMem: true}
		require.NoError(t, lg.setupV2(dir))
		_, err := os.Stat(filepath.Join(dir, "memory.swap.max"))
		assert.ErrorIs(t, err, os.ErrNotExist, "not written where the kernel has none")
		_, err = os.Stat(filepath.Join(dir, "pids.max"))
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("v1 counters", func(t *testing.T) {
		mem, pids := t.TempDir(), t.TempDir()
		lg := &limitGroups{res: Resources{MemoryLimit: 32 << 20, PidsLimit: 8, Memory: CgroupV1, Pids: CgroupV1, OOMKills: -1, LimitHits: -1},
			mem: &cgroup{dir: mem}, pids: &cgroup{dir: pids}}
		fakeCgroup(t, mem, map[string]string{
			"memory.max_usage_in_bytes": "33554432\n",
			"memory.oom_control":        "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
			"memory.failcnt":            "118\n",
		})
		fakeCgroup(t, pids, map[string]string{"pids.events": "max 0\n"})
		res := lg.read()
		assert.Equal(t, int64(33554432), res.PeakMemory)
		assert.Equal(t, int64(2), res.OOMKills)
		assert.Equal(t, int64(118), res.LimitHits)
		assert.Zero(t, res.PidsRefused)
		assert.Equal(t, "the kernel's OOM killer killed 2 processes at the 32 MiB limit, peak 32.0 MiB", res.Note())

		// The limit reached without an OOM kill: reclaim, named.
		fakeCgroup(t, mem, map[string]string{"memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n"})
		res = lg.read()
		assert.Equal(t, "memory limit 32 MiB reached 118 times: the kernel reclaimed memory (page cache first) to stay under it, which can slow what was measured", res.Note())

		// No hits counted (memsw on recent kernels), the peak at the limit.
		fakeCgroup(t, mem, map[string]string{"memory.failcnt": "0\n", "memory.max_usage_in_bytes": "33554432\n"})
		res = lg.read()
		assert.True(t, res.LimitReached)
		assert.Equal(t, "memory limit 32 MiB reached: the kernel reclaimed memory (page cache first) to stay under it, which can slow what was measured", res.Note())
		fakeCgroup(t, mem, map[string]string{"memory.max_usage_in_bytes": "33550000\n"})
		res = lg.read()
		assert.False(t, res.LimitReached, "below the limit")
		assert.Empty(t, res.Note())
		fakeCgroup(t, mem, map[string]string{"memory.failcnt": "118\n", "memory.max_usage_in_bytes": "33554432\n"})

		// Without a limit (a cgroup for the peak alone) failcnt is not read.
		lg.res.MemoryLimit = 0
		res = lg.read()
		assert.Equal(t, int64(-1), res.LimitHits)
		lg.res.MemoryLimit = 32 << 20

		// A kernel without the oom_kill counter (before 4.13): the limit's
		// failure count is what is left, and the class says it inferred.
		fakeCgroup(t, mem, map[string]string{"memory.oom_control": "oom_kill_disable 0\nunder_oom 0\n"})
		res = lg.read()
		assert.Equal(t, int64(-1), res.OOMKills)
		assert.Equal(t, int64(118), res.LimitHits)
		f := facts{resources: res, status: exitStatus{known: true, signal: syscall.SIGKILL}}
		class, err := f.classify()
		assert.Equal(t, ClassOutOfMemory, class)
		assert.ErrorContains(t, err, "(inferred: SIGKILL after the limit was hit; this kernel counts no OOM kills)")
	})
}

func TestOutOfMemoryClass(t *testing.T) {
	killed := exitStatus{known: true, signal: syscall.SIGKILL}
	oom := Resources{MemoryLimit: 64 << 20, OOMKills: 1, LimitHits: -1, PeakMemory: 64 << 20, PeakMemoryKnown: true}
	tests := []struct {
		name string
		f    facts
		want Class
	}{
		{"SIGKILL with an OOM kill", facts{status: killed, resources: oom}, ClassOutOfMemory},
		{"SIGKILL without one", facts{status: killed, resources: Resources{OOMKills: 0, LimitHits: -1}}, ClassSignal},
		{"SIGKILL, no memory cgroup", facts{status: killed, resources: Resources{OOMKills: -1, LimitHits: -1}}, ClassSignal},
		{"a descendant OOM-killed, the root exits 1", facts{status: exitStatus{known: true, exited: true, code: 1}, resources: oom}, ClassExit},
		{"a timeout first", facts{status: killed, resources: oom, timeout: &TimeoutError{Phase: PhaseExecution}}, ClassExecTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			class, err := tt.f.classify()
			assert.Equal(t, tt.want, class, "%v", err)
			if class == ClassOutOfMemory {
				assert.EqualError(t, err, "sandbox: out of memory: killed by the kernel at the 64 MiB limit, peak 64.0 MiB")
			}
		})
	}
}

// TestPidsLimitOneV1 checks what the package doc says of a v1 pids limit
// of 1: the spawning thread is one task of the child's cgroup during the
// fork, so the fork itself is refused; nothing is left behind, and the
// next spawn works.
func TestPidsLimitOneV1(t *testing.T) {
	p := probeLimits()
	if p.pidsV1 == nil {
		t.Skip("the pids controller is not a cgroup v1 hierarchy here: " + p.Describe())
	}
	home := p.pidsV1.dir(p.pidsV1.own)
	before, _ := filepath.Glob(filepath.Join(home, ownedPrefix()+"*"))
	cfg := helper("ok")
	cfg.PidsLimit = 1
	cfg.Shim = false // whose threads would raise the limit written by ShimTasks
	_, err := Start(cfg)
	var ioe *IOError
	require.ErrorAs(t, err, &ioe)
	assert.ErrorIs(t, err, syscall.EAGAIN)
	assert.ErrorContains(t, err, "counts the forking thread too")
	after, _ := filepath.Glob(filepath.Join(home, ownedPrefix()+"*"))
	assert.Equal(t, before, after, "the child's pids cgroup was removed")
	o, _ := run(t, helper("ok"))
	assert.Equal(t, ClassSuccess, o.Class, "%v", o.Err)
}

// TestRemoveStaleV1Cgroups: the sweep looks under the v1 parents too, and
// empties and removes a dead run's v1 cgroup (no cgroup.kill, no
// cgroup.freeze there).
func TestRemoveStaleV1Cgroups(t *testing.T) {
	p := probeLimits()
	if p.memV1 == nil {
		t.Skip("the memory controller is not a cgroup v1 hierarchy here: " + p.Describe())
	}
	assert.Contains(t, cgroupParents(), p.memV1.dir(p.memV1.own))
	// Not a name any run's cleanup would take for one of its own.
	parent := filepath.Join(p.memV1.dir(p.memV1.own), fmt.Sprintf("benchsup-test-stale-v1-%d", os.Getpid()))
	require.NoError(t, os.Mkdir(parent, 0o755))
	t.Cleanup(func() { unix.Rmdir(parent) })
	stale := filepath.Join(parent, "benchsup-21-200-7-1")
	require.NoError(t, os.Mkdir(stale, 0o755))
	in := sleeper(t, nil)
	require.NoError(t, (&cgroup{dir: stale}).addProc(in.Process.Pid))

	s := staleSweep{root: fakeProc(t, map[int]uint64{10: 100}), me: owner{pid: 10, start: 100, pidns: 7}, uid: os.Geteuid()}
	s.cgroups(parent)
	_, err := os.Stat(stale)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	killedBy(t, in, 2*time.Second)
	assert.Empty(t, s.failed)
}
