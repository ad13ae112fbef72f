package worker

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/measure"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// workloadFile is set by a test before it measures BenchmarkFixtureFiles.
var workloadFile string

func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// spinCPU is busy until this process has used cpu more of CPU time and
// at least wall has passed (at most 10 s of wall time; for the longer of
// the two in wall time where the process's CPU time cannot be read): on a
// loaded host a busy loop of a fixed wall time may get no CPU at all (a
// fresh-clone CI run read 0 from a 5 ms one).
func spinCPU(cpu, wall time.Duration) {
	start, err := sources.ProcessCPU()
	if err != nil {
		spin(max(cpu, wall))
		return
	}
	for t0 := time.Now(); time.Since(t0) < 10*time.Second; {
		spin(time.Millisecond)
		if now, err := sources.ProcessCPU(); err != nil || now-start >= cpu && time.Since(t0) >= wall {
			return
		}
	}
}

func init() {
	RegisterBenchmark("BenchmarkFixtureSleepWorkload", func(b *testing.B) {
		measure.Workload(b, func(w *measure.W) { time.Sleep(60 * time.Millisecond) })
	})
	RegisterBenchmark("BenchmarkFixtureSpinWorkload", func(b *testing.B) {
		measure.Workload(b, func(w *measure.W) { spin(60 * time.Millisecond) })
	})
	RegisterBenchmark("BenchmarkFixtureBusySibling", func(b *testing.B) {
		measure.Workload(b, func(w *measure.W) {
			var stop atomic.Bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				for !stop.Load() {
				}
			}()
			runtime.Gosched()
			// The window sleeps until the sibling has burned 60 ms of CPU
			// (at least 150 ms, at most 10 s): on a loaded host a fixed
			// sleep may give it far less.
			w.Window("", func() {
				start, err := sources.ProcessCPU()
				for t0 := time.Now(); time.Since(t0) < 10*time.Second; {
					time.Sleep(10 * time.Millisecond)
					now, nerr := sources.ProcessCPU()
					if err != nil || nerr != nil || now-start >= 60*time.Millisecond && time.Since(t0) >= 150*time.Millisecond {
						break
					}
				}
			})
			stop.Store(true)
			<-done
		})
	})
	RegisterBenchmark("BenchmarkFixtureFiles", func(b *testing.B) {
		measure.Workload(b, func(w *measure.W) {
			read := func() {
				f, err := os.Open(workloadFile)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				buf := make([]byte, 1<<20)
				for {
					if _, err := f.Read(buf); err != nil {
						return
					}
				}
			}
			w.Files(measure.Cold, workloadFile)
			w.Window("cold", read)
			w.Window("unstamped", func() {})
			w.Files(measure.Warm, workloadFile)
			w.Window("warm", func() {
				read()
				w.Files(measure.Cold, workloadFile) // inside an open window: skipped
			})
		})
	})
	RegisterBenchmark("BenchmarkFixtureWorkloadReps", func(b *testing.B) {
		n := 0
		measure.Workload(b, func(w *measure.W) {
			n++
			w.Window("", func() {})
			w.Window("", func() {})
		}, measure.Reps(3))
		if n > 1 { // 0 in discovery, which does not run the body
			b.Fatalf("a body with windows ran %d times", n)
		}
	})
}

func measureWorkload(t *testing.T, name string) []protocol.Window {
	t.Helper()
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeWorkload, Identity: protocol.Identity{Name: name}})
	require.Empty(t, only[protocol.Failure](msgs))
	return only[protocol.Window](msgs)
}

func TestWorkloadDiscovered(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover, Config: protocol.RequestConfig{Bench: "Fixture(SleepWorkload|Loop)$"}})
	kinds := map[string]protocol.ListedKind{}
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			kinds[id.Name] = id.Kind
		}
	}
	assert.Equal(t, map[string]protocol.ListedKind{
		"BenchmarkFixtureLoop":          protocol.ListedBenchmark,
		"BenchmarkFixtureSleepWorkload": protocol.ListedWorkload,
	}, kinds)
}

func TestWorkloadSleepIsOther(t *testing.T) {
	wins := measureWorkload(t, "BenchmarkFixtureSleepWorkload")
	require.Len(t, wins, 1)
	w := wins[0]
	assert.Equal(t, "BenchmarkFixtureSleepWorkload", w.Name, "the whole body is the window")
	assert.Equal(t, "thread", w.Scope)
	assert.GreaterOrEqual(t, w.WallNs, int64(60*time.Millisecond))
	require.NotNil(t, w.OnCPUUserNs)
	require.NotNil(t, w.OnCPUKernelNs)
	assert.Less(t, *w.OnCPUUserNs+*w.OnCPUKernelNs, int64(20*time.Millisecond), "a sleep is not on CPU")
	require.NotNil(t, w.OffCPUOtherNs)
	assert.Greater(t, *w.OffCPUOtherNs, int64(40*time.Millisecond), "the sleep is in other")
	if w.OffCPURunqueueNs != nil {
		assert.Less(t, *w.OffCPURunqueueNs, int64(20*time.Millisecond), "the sleep is not run-queue wait")
	}
	if w.OffCPUDiskNs != nil {
		assert.Less(t, *w.OffCPUDiskNs, int64(20*time.Millisecond), "the sleep is not disk wait")
	} else {
		assert.Contains(t, w.Note, "disk: unattributed", "a nil component says why")
	}
}

func TestWorkloadSpinIsOnCPU(t *testing.T) {
	wins := measureWorkload(t, "BenchmarkFixtureSpinWorkload")
	require.Len(t, wins, 1)
	w := wins[0]
	require.NotNil(t, w.OnCPUUserNs)
	onCPU := *w.OnCPUUserNs + *w.OnCPUKernelNs
	if w.OffCPURunqueueNs != nil {
		onCPU += *w.OffCPURunqueueNs // a busy host may preempt the spin: still not "other"
	}
	assert.Greater(t, onCPU, w.WallNs*7/10, "a spin is on CPU (or runnable): %+v", w)
}

func TestWorkloadBusySiblingIsDisclosed(t *testing.T) {
	wins := measureWorkload(t, "BenchmarkFixtureBusySibling")
	require.Len(t, wins, 1)
	w := wins[0]
	require.NotNil(t, w.OtherThreadsCPUNs)
	assert.Greater(t, *w.OtherThreadsCPUNs, int64(20*time.Millisecond), "the sibling's CPU is disclosed: %+v", w)
	assert.Less(t, *w.OnCPUUserNs+*w.OnCPUKernelNs, int64(20*time.Millisecond), "and not folded into the window's thread")
}

func TestWorkloadFilesColdWarm(t *testing.T) {
	dir := t.TempDir()
	workloadFile = filepath.Join(dir, "data.bin")
	require.NoError(t, os.WriteFile(workloadFile, make([]byte, 8<<20), 0o644))
	wins := measureWorkload(t, "BenchmarkFixtureFiles")
	require.Len(t, wins, 3)
	names := []string{wins[0].Name, wins[1].Name, wins[2].Name}
	assert.Equal(t, []string{"BenchmarkFixtureFiles/cold", "BenchmarkFixtureFiles/unstamped", "BenchmarkFixtureFiles/warm"}, names)

	cold, unstamped, warm := wins[0], wins[1], wins[2]
	require.NotNil(t, cold.Regime)
	assert.Equal(t, "cold", cold.Regime.Requested)
	assert.Contains(t, []string{"cold", "partial", "unverified", "not-evictable"}, cold.Regime.Effective)
	assert.Nil(t, unstamped.Regime, "a stamp is consumed by the next window only")
	require.NotNil(t, warm.Regime)
	assert.Equal(t, "warm", warm.Regime.Requested)
	assert.Equal(t, int64(8<<20), warm.Regime.TotalBytes)
	assert.Contains(t, warm.Note, "skipped: called inside an open window")

	total := func(w protocol.Window, name string) (float64, bool) {
		for _, c := range w.Totals {
			if c.Name == name {
				return c.Value, true
			}
		}
		return 0, false
	}
	if cold.Regime.Effective == "cold" {
		rb, ok := total(cold, "tier0.read-bytes")
		require.True(t, ok, "totals: %+v", cold.Totals)
		wb, _ := total(warm, "tier0.read-bytes")
		if rb == 0 && strings.Contains(cold.Note, "") {
			t.Skip("read_bytes did not move for a cold read: the file system does not account reads to /proc/self/io here")
		}
		assert.Greater(t, rb, float64(4<<20), "a cold read comes from the disk")
		assert.Less(t, wb, float64(1<<20), "a warm read does not")
	}
}

func TestWorkloadRepsRepeatWindows(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeWorkload, Identity: protocol.Identity{Name: "BenchmarkFixtureWorkloadReps"}})
	require.Empty(t, only[protocol.Failure](msgs), "the body ran once")
	wins := only[protocol.Window](msgs)
	require.Len(t, wins, 2)
	assert.Equal(t, "BenchmarkFixtureWorkloadReps", wins[0].Name)
	assert.Equal(t, "BenchmarkFixtureWorkloadReps#2", wins[1].Name)
	assert.Equal(t, 3, wins[0].Reps)
}

func TestWorkloadNotAWorkload(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeWorkload, Identity: protocol.Identity{Name: "BenchmarkFixtureLoop"}})
	f := only[protocol.Failure](msgs)
	require.Len(t, f, 1)
	assert.Contains(t, f[0].Message, "does not call measure.Workload")
}

func TestCgroupEnvAgrees(t *testing.T) {
	assert.Equal(t, protocol.EnvCgroup, sources.CgroupEnv, "the sandbox sets what sources reads")
}

func init() {
	RegisterBenchmark("BenchmarkFixtureWorkloadSkip", func(b *testing.B) {
		b.Skip("no corpus on this machine")
		measure.Workload(b, func(w *measure.W) {})
	})
}

func TestWorkloadSkippedBeforeItStarts(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeWorkload, Identity: protocol.Identity{Name: "BenchmarkFixtureWorkloadSkip"}})
	s := only[protocol.Skip](msgs)
	require.Len(t, s, 1)
	assert.Contains(t, s[0].Reason, "no corpus on this machine")
	assert.Empty(t, only[protocol.Failure](msgs))
}

// windowBody, when set, runs inside BenchmarkFixtureWindowMetrics's window.
var windowBody func()

func init() {
	RegisterBenchmark("BenchmarkFixtureWindowMetrics", func(b *testing.B) {
		measure.Workload(b, func(w *measure.W) {
			w.Window("", func() {
				if windowBody != nil {
					windowBody()
				}
				spinCPU(5*time.Millisecond, 0)
			})
		})
	})
}

// windowCounter plays an opt-in window source (perf-sw's task-clock).
type windowCounter struct {
	on             bool
	starts, closes int
}

func (c *windowCounter) Source() string { return sources.SourcePerfSW }
func (c *windowCounter) Report() sources.Report {
	return sources.Report{Source: sources.SourcePerfSW, Available: true}
}
func (c *windowCounter) Metrics() []string { return []string{"task-clock"} }
func (c *windowCounter) Close() error      { c.closes++; return nil }
func (c *windowCounter) Start() error      { c.on = true; c.starts++; return nil }
func (c *windowCounter) Stop() (sources.Reading, error) {
	c.on = false
	return sources.Reading{Values: map[string]float64{"task-clock": 5e6}}, nil
}

func totalsOf(w protocol.Window) map[string]float64 {
	out := map[string]float64{}
	for _, c := range w.Totals {
		out[c.Name] = c.Value
	}
	return out
}

// TestWorkloadBenchmarkMetricsNotAtWindowEdges pins issue #9's first
// defect: the metrics of the benchmarks' counting passes (--metrics) are
// never enabled at a window's edges; without window metrics a window reads
// only the default edge set, and its note discloses no counter.
func TestWorkloadBenchmarkMetricsNotAtWindowEdges(t *testing.T) {
	openCounters = func(names []string, _ sources.Options) ([]sources.Counter, []sources.Absence) {
		t.Errorf("a workload opened counters for %v", names)
		return nil, nil
	}
	defer func() { openCounters = sources.Open }()
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeWorkload, Identity: protocol.Identity{Name: "BenchmarkFixtureWindowMetrics"},
		Config: protocol.RequestConfig{Metrics: []string{"instructions", "task-clock", "minflt", "syscr"}}})
	require.Empty(t, only[protocol.Failure](msgs))
	wins := only[protocol.Window](msgs)
	require.Len(t, wins, 1)
	for name := range totalsOf(wins[0]) {
		assert.True(t, strings.HasPrefix(name, "tier0."), "total %s: only the process reading's tier0 counts", name)
	}
	assert.Contains(t, totalsOf(wins[0]), "tier0.minflt", "the default edge set's counts")
	assert.NotContains(t, wins[0].Note, "enabled over this window")
}

// TestWorkloadWindowMetrics: tier0 window metrics come from the process
// reading (no counter opened for them); the others are opened once,
// enabled exactly over each window, their totals attached, and every
// window's note discloses their measured cost and what could not be read.
func TestWorkloadWindowMetrics(t *testing.T) {
	fake := &windowCounter{}
	var asked []string
	openCounters = func(names []string, _ sources.Options) ([]sources.Counter, []sources.Absence) {
		asked = append(asked, names...)
		return []sources.Counter{fake}, []sources.Absence{{Capability: sources.CapCounting, Metrics: []string{"instructions"}, Reason: "no PMU here (test)"}}
	}
	sawOn := false
	windowBody = func() { sawOn = fake.on }
	defer func() { openCounters, windowBody = sources.Open, nil }()

	msgs := exchange(t, protocol.Request{Mode: protocol.ModeWorkload, Identity: protocol.Identity{Name: "BenchmarkFixtureWindowMetrics"},
		Config: protocol.RequestConfig{WindowMetrics: []string{"task-clock", "cpu-user", "cpu-sys", "maxrss", "minflt", "instructions"}}})
	require.Empty(t, only[protocol.Failure](msgs))
	wins := only[protocol.Window](msgs)
	require.Len(t, wins, 1)
	w := wins[0]

	assert.Equal(t, []string{"task-clock", "instructions"}, asked, "tier0's metrics open no counter")
	assert.True(t, sawOn, "the opt-in counter is enabled while the window runs")
	assert.False(t, fake.on, "and disabled after it")
	assert.Equal(t, 1, fake.closes, "opened once, closed at the end")

	totals := totalsOf(w)
	assert.Equal(t, 5e6, totals["perf-sw.task-clock"])
	assert.Greater(t, totals["tier0.cpu-user"]+totals["tier0.cpu-sys"], 0.0, "cpu-user and cpu-sys from the process reading")
	assert.Greater(t, totals["tier0.maxrss"], float64(1<<20), "maxrss is the level, in bytes")
	assert.Contains(t, totals, "tier0.minflt")

	assert.Contains(t, w.Note, sources.WindowCostNote(sources.SourcePerfSW), "the measured cost is disclosed")
	assert.Contains(t, w.Note, "window metrics not read: instructions: no PMU here (test)")
}
