//go:build linux

package sources

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// --- the real kernel: perf-sw is available wherever perf_event_open is ---

// openReal opens names on this host's kernel, or skips the test with the
// reason when perf-sw cannot count here.
func openReal(t *testing.T, names ...string) Counter {
	t.Helper()
	cs, abs := Open(names, Options{})
	if len(cs) != 1 {
		t.Skipf("perf-sw unavailable on this host: %+v", abs)
	}
	if len(abs) != 0 {
		t.Fatalf("absences: %+v", abs)
	}
	t.Cleanup(func() { cs[0].Close() })
	return cs[0]
}

// threadCPU returns the calling thread's CPU time.
func threadCPU(t *testing.T) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// burn keeps the calling thread on the CPU for d of its own CPU time and
// returns the thread CPU time it used.
func burn(t *testing.T, d time.Duration) time.Duration {
	start := threadCPU(t)
	for threadCPU(t)-start < d {
	}
	return threadCPU(t) - start
}

// touchPages faults in n fresh pages and returns them to the kernel.
func touchPages(t *testing.T, n int) {
	t.Helper()
	size := n * unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	unix.Madvise(mem, unix.MADV_NOHUGEPAGE) // one fault per page
	for i := 0; i < size; i += unix.Getpagesize() {
		mem[i] = 1
	}
}

func TestPerfSWCountsThreadsCreatedAfterOpen(t *testing.T) {
	c := openReal(t, "task-clock", "page-faults", "context-switches", "cpu-migrations")
	if got := c.Metrics(); strings.Join(got, ",") != "task-clock,page-faults,context-switches,cpu-migrations" {
		t.Fatalf("Metrics() = %v", got)
	}
	for bracket := 0; bracket < 2; bracket++ {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// Each goroutine locks, and on return ends, its thread: the
		// runtime must create threads during the bracket, which only
		// inheritance can count.
		var mu sync.Mutex
		var burned time.Duration
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				d := burn(t, 10*time.Millisecond)
				mu.Lock()
				burned += d
				mu.Unlock()
			}()
		}
		wg.Wait()
		touchPages(t, 256)
		r, err := c.Stop()
		if err != nil {
			t.Fatal(err)
		}
		checkShape(t, r, c.Metrics())
		if tc := time.Duration(r.Values["task-clock"]); tc < burned*95/100 {
			t.Errorf("bracket %d: task-clock %v < %v burned by threads created during it", bracket, tc, burned)
		}
		if pf := r.Values["page-faults"]; pf < 256 {
			t.Errorf("bracket %d: page-faults %v < 256 pages touched", bracket, pf)
		}
	}
}

func TestPerfSWCountsThreadThatExitsDuringBracket(t *testing.T) {
	// A thread that exists at Open (its group is opened on it directly)
	// and exits inside the bracket must keep what it counted.
	ready, run, done := make(chan struct{}), make(chan struct{}), make(chan time.Duration)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		close(ready)
		<-run
		done <- burn(t, 20*time.Millisecond)
	}()
	<-ready
	c := openReal(t, "task-clock")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	close(run)
	burned := <-done
	time.Sleep(5 * time.Millisecond) // let the thread exit
	r, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if tc := time.Duration(r.Values["task-clock"]); tc < burned*95/100 {
		t.Errorf("task-clock %v < %v burned by a thread that exited", tc, burned)
	}
}

func TestPerfSWCountsThreadsCreatedBetweenBrackets(t *testing.T) {
	// Threads created while the groups are disabled inherit disabled
	// events, which the next Start must enable along with their parents.
	c := openReal(t, "task-clock")
	atOpen, err := sys.threads()
	if err != nil {
		t.Fatal(err)
	}
	const n = 8 // more locked threads than a fresh process has idle
	tids, run, done := make(chan int, n), make(chan struct{}), make(chan time.Duration, n)
	// The threads live until the bracket is read: a thread exiting while
	// Stop reads may not have folded its count into its parent yet (a
	// fresh-clone run saw 32 of 40 ms, once), and exits are the subject
	// of TestPerfSWCountsThreadThatExitsDuringBracket, which waits for the
	// exit before it reads.
	release := make(chan struct{})
	defer close(release)
	for i := 0; i < n; i++ {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			tids <- unix.Gettid()
			<-run
			done <- burn(t, 5*time.Millisecond)
			<-release
		}()
	}
	created := 0
	for i := 0; i < n; i++ {
		if !containsInt(atOpen, <-tids) {
			created++
		}
	}
	if created == 0 {
		t.Skip("the runtime created no thread between the brackets")
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	close(run)
	var burned time.Duration
	for i := 0; i < n; i++ {
		burned += <-done
	}
	r, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if tc := time.Duration(r.Values["task-clock"]); tc < burned*95/100 {
		t.Errorf("task-clock %v < %v burned by %d threads, %d of them created while disabled", tc, burned, n, created)
	}
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

func TestPerfSWStartStopMisuse(t *testing.T) {
	c := openReal(t, "task-clock")
	if _, err := c.Stop(); err == nil {
		t.Error("Stop without Start: no error")
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err == nil {
		t.Error("second Start: no error")
	}
	if _, err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := c.Start(); err == nil {
		t.Error("Start after Close: no error")
	}
}

// checkShape checks the invariants of every reading: each metric has either
// a non-negative value or a reason, never both.
func checkShape(t *testing.T, r Reading, metrics []string) {
	t.Helper()
	for _, m := range metrics {
		v, ok := r.Values[m]
		why, un := r.Unavailable[m]
		switch {
		case ok && un:
			t.Errorf("%s: both value %v and reason %q", m, v, why)
		case !ok && !un:
			t.Errorf("%s: neither value nor reason", m)
		case ok && v < 0:
			t.Errorf("%s: negative value %v", m, v)
		}
	}
}

// --- hosts this one is not, through the fake kernel ---

func TestNoPMU(t *testing.T) {
	f := newFakePerf()
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if a.Type == perfTypeHardware || a.Type == perfTypeRaw {
			return unix.ENOENT
		}
		return nil
	}
	useFake(t, f)
	reps := Probe(Options{})
	hw := reportOf(t, reps, SourcePerfHW)
	if hw.Available {
		t.Fatal("perf-hw available without a PMU")
	}
	for _, want := range []string{"PERF_TYPE_HARDWARE", "instructions", "ENOENT", "breakpoint, software, tracepoint", "no cpu PMU"} {
		if !strings.Contains(hw.Status, want) {
			t.Errorf("perf-hw status %q lacks %q", hw.Status, want)
		}
	}
	if len(hw.Absences) != 1 || len(hw.Absences[0].Metrics) != 7 {
		t.Errorf("perf-hw absences = %+v, want one naming all 7 metrics", hw.Absences)
	}
	if raw := reportOf(t, reps, SourceRaw); raw.Available || !strings.Contains(raw.Status, "ENOENT") {
		t.Errorf("raw report = %+v", raw)
	}
	if sw := reportOf(t, reps, SourcePerfSW); !sw.Available || sw.Status != "" {
		t.Errorf("perf-sw report = %+v", sw)
	}

	cs, abs := Open([]string{"instructions", "ipc", "task-clock"}, Options{})
	if len(cs) != 1 || cs[0].Source() != SourcePerfSW {
		t.Fatalf("counters = %v", sourcesOf(cs))
	}
	defer closeAll(cs)
	if got := absentMetrics(abs); got != "instructions,ipc" {
		t.Errorf("absent = %s", got)
	}
	if f.openFDs() != 2 { // task-clock on threads 100 and 101
		t.Errorf("%d descriptors open, want 2", f.openFDs())
	}
}

func TestParanoidUserOnlyFallback(t *testing.T) {
	f := newFakePerf()
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if a.Bits&perfBitExcludeKernel == 0 {
			return unix.EACCES
		}
		return nil
	}
	useFake(t, f)
	cs, abs := Open([]string{"task-clock", "context-switches", "instructions", "cycles"}, Options{})
	defer closeAll(cs)
	if got := absentMetrics(abs); got != "context-switches" {
		t.Errorf("absent = %s, want context-switches (kernel-mode only)", got)
	}
	if len(cs) != 2 {
		t.Fatalf("counters = %v", sourcesOf(cs))
	}
	for _, c := range cs {
		rep := c.Report()
		if !rep.Available || len(rep.Degraded) != 1 || !strings.Contains(rep.Degraded[0], "user-mode counting only") ||
			!strings.Contains(rep.Degraded[0], "EACCES") || !strings.Contains(rep.Degraded[0], "perf_event_paranoid=2") {
			t.Errorf("%s report = %+v", c.Source(), rep)
		}
		if rep.Status == "" {
			t.Errorf("%s: degraded without a status", c.Source())
		}
		if hasCap(rep, CapKernelCounting) {
			t.Errorf("%s: kernel-counting present under user-only counting", c.Source())
		}
	}
	for _, o := range f.opens {
		if o.pid != 0 && o.attr.Bits&perfBitExcludeKernel == 0 {
			t.Errorf("process-wide open without exclude_kernel: %+v", o.attr)
		}
	}
}

func TestPerfRefusedEverywhere(t *testing.T) {
	for _, tc := range []struct {
		errno unix.Errno
		want  []string
	}{
		{unix.EACCES, []string{"EACCES", "perf_event_paranoid=3"}},
		{unix.EPERM, []string{"EPERM", "seccomp"}},
		{unix.ENOSYS, []string{"ENOSYS", "no perf_event_open"}},
	} {
		t.Run(unix.ErrnoName(tc.errno), func(t *testing.T) {
			f := newFakePerf()
			f.openErr = func(*perfEventAttr, int, int) error { return tc.errno }
			k := useFake(t, f)
			writeFile(t, k.paranoid, "3\n")
			reps := Probe(Options{})
			for _, src := range []string{SourcePerfHW, SourcePerfSW, SourceRaw} {
				r := reportOf(t, reps, src)
				if r.Available {
					t.Errorf("%s available", src)
				}
				for _, w := range tc.want {
					if !strings.Contains(r.Status, w) {
						t.Errorf("%s status %q lacks %q", src, r.Status, w)
					}
				}
			}
			if r := reportOf(t, reps, SourceTier0); !r.Available {
				t.Errorf("tier0 unavailable: %+v", r)
			}
			names, _, _ := Select("")
			cs, abs := Open(names, Options{})
			defer closeAll(cs)
			if len(cs) != 1 || cs[0].Source() != SourceTier0 {
				t.Fatalf("counters = %v", sourcesOf(cs))
			}
			if got := absentMetrics(abs); got != "instructions,ipc,branch-misses,task-clock" {
				t.Errorf("absent = %s", got)
			}
			if f.openFDs() != 0 {
				t.Errorf("%d descriptors left open", f.openFDs())
			}
		})
	}
}

func TestOldKernelRefusesInheritedGroupReads(t *testing.T) {
	// Before Linux 4.13, inherit with PERF_FORMAT_GROUP is EINVAL: the
	// events are then read one by one.
	f := newFakePerf()
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if a.Bits&perfBitInherit != 0 && a.ReadFormat&perfFormatGroup != 0 {
			return unix.EINVAL
		}
		return nil
	}
	useFake(t, f)
	cs, abs := Open([]string{"instructions", "cycles", "ipc"}, Options{})
	defer closeAll(cs)
	if len(cs) != 1 || len(abs) != 0 {
		t.Fatalf("counters %v, absences %+v", sourcesOf(cs), abs)
	}
	r := bracket(t, cs[0])
	// Two threads, each accruing 5 ms: instructions 2/µs, cycles 1/µs.
	if r.Values["instructions"] != 20000 || r.Values["cycles"] != 10000 || r.Values["ipc"] != 2 {
		t.Errorf("reading = %+v", r)
	}
	if len(cs[0].Report().Degraded) != 0 {
		t.Errorf("per-event reads reported as degraded: %+v", cs[0].Report())
	}
}

func TestEINVALReprobe(t *testing.T) {
	// An event the PMU rejects whatever the attributes is dropped, and the
	// reason says it is the event, not the combination.
	f := newFakePerf()
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if a.Type == perfTypeHardware && a.Config == perfCountHWBranchMisses {
			return unix.EINVAL
		}
		return nil
	}
	useFake(t, f)
	cs, abs := Open([]string{"instructions", "branch-misses"}, Options{})
	defer closeAll(cs)
	if len(cs) != 1 || absentMetrics(abs) != "branch-misses" || !strings.Contains(abs[0].Reason, "rejects this event") {
		t.Fatalf("counters %v, absences %+v", sourcesOf(cs), abs)
	}

	// EINVAL only with inherit (and not the group-read case): the event
	// opens alone, so the reason blames the combination.
	f = newFakePerf()
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if a.Bits&perfBitInherit != 0 {
			return unix.EINVAL
		}
		return nil
	}
	useFake(t, f)
	cs, abs = Open([]string{"task-clock"}, Options{})
	if len(cs) != 0 || len(abs) != 1 || !strings.Contains(abs[0].Reason, "opens alone") {
		t.Fatalf("counters %v, absences %+v", sourcesOf(cs), abs)
	}
}

func TestPartialPMUDropsOneEvent(t *testing.T) {
	f := newFakePerf()
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if a.Type == perfTypeHardware && a.Config == perfCountHWCacheReferences {
			return unix.ENOENT
		}
		return nil
	}
	useFake(t, f)
	cs, abs := Open([]string{"instructions", "cache-references", "cache-misses"}, Options{})
	defer closeAll(cs)
	if absentMetrics(abs) != "cache-references" || !strings.Contains(abs[0].Reason, "ENOENT") {
		t.Fatalf("absences %+v", abs)
	}
	if got := strings.Join(cs[0].Metrics(), ","); got != "instructions,cache-misses" {
		t.Errorf("Metrics() = %s", got)
	}
}

func TestMultiplexingGroupShrinks(t *testing.T) {
	all := []string{"instructions", "cycles", "ipc", "branches", "branch-misses", "cache-references", "cache-misses"}
	t.Run("LLC pair", func(t *testing.T) {
		f := newFakePerf()
		f.fraction = func(n int) float64 { return map[bool]float64{true: 0.5, false: 1}[n > 4] }
		useFake(t, f)
		cs, abs := Open(all, Options{})
		defer closeAll(cs)
		if absentMetrics(abs) != "cache-references,cache-misses" || !strings.Contains(abs[0].Reason, "50%") || !strings.Contains(abs[0].Reason, "--perf-scaled") {
			t.Fatalf("absences %+v", abs)
		}
		rep := cs[0].Report()
		if len(rep.Degraded) != 1 || !strings.Contains(rep.Degraded[0], "cache-references and cache-misses dropped") {
			t.Errorf("report %+v", rep)
		}
		r := bracket(t, cs[0])
		if len(r.Estimated) != 0 || r.Values["ipc"] != 2 {
			t.Errorf("reading %+v", r)
		}
	})
	t.Run("then branches", func(t *testing.T) {
		f := newFakePerf()
		f.fraction = func(n int) float64 { return map[bool]float64{true: 0.5, false: 1}[n > 2] }
		useFake(t, f)
		cs, abs := Open(all, Options{})
		defer closeAll(cs)
		if absentMetrics(abs) != "cache-references,cache-misses,branches,branch-misses" {
			t.Fatalf("absences %+v", abs)
		}
		if got := strings.Join(cs[0].Metrics(), ","); got != "instructions,cycles,ipc" {
			t.Errorf("Metrics() = %s", got)
		}
	})
	t.Run("even the smallest", func(t *testing.T) {
		f := newFakePerf()
		f.fraction = func(int) float64 { return 0.25 }
		useFake(t, f)
		cs, _ := Open([]string{"instructions", "cycles", "ipc"}, Options{})
		defer closeAll(cs)
		rep := cs[0].Report()
		if len(rep.Degraded) != 1 || !strings.Contains(rep.Degraded[0], "even at its smallest") {
			t.Errorf("report %+v", rep)
		}
		r := bracket(t, cs[0])
		// Running 1.25 ms of 5 ms per thread: counts scale by 4.
		if !r.Estimated["instructions"] || !r.Estimated["ipc"] || r.Values["instructions"] != 20000 || r.Values["ipc"] != 2 {
			t.Errorf("reading %+v", r)
		}
	})
	t.Run("scaled mode keeps the group", func(t *testing.T) {
		f := newFakePerf()
		f.fraction = func(n int) float64 { return map[bool]float64{true: 0.5, false: 1}[n > 4] }
		useFake(t, f)
		cs, abs := Open(all, Options{Scaled: true})
		defer closeAll(cs)
		if len(abs) != 0 {
			t.Fatalf("absences %+v", abs)
		}
		rep := cs[0].Report()
		if !hasCap(rep, CapCountingScaled) || len(rep.Degraded) != 1 || !strings.Contains(rep.Degraded[0], "scaled mode") {
			t.Errorf("report %+v", rep)
		}
		r := bracket(t, cs[0])
		for _, m := range all {
			if !r.Estimated[m] {
				t.Errorf("%s not marked estimated", m)
			}
		}
		if r.Values["cache-misses"] != 2*5000*(perfCountHWCacheMisses+1) {
			t.Errorf("cache-misses = %v", r.Values["cache-misses"])
		}
	})
}

func TestBracketsThatCannotBeReported(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fraction float64
		period   uint64
		want     string
	}{
		{"never scheduled", 0, 5e6, "time_running == 0"},
		{"short multiplexed slice", 0.5, 4e5, "under 1 ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePerf()
			useFake(t, f)
			cs, _ := Open([]string{"instructions", "cycles", "ipc"}, Options{Scaled: true})
			defer closeAll(cs)
			f.fraction = func(int) float64 { return tc.fraction }
			f.period = tc.period
			r := bracket(t, cs[0])
			if len(r.Values) != 0 {
				t.Errorf("values %v, want none", r.Values)
			}
			for _, m := range []string{"instructions", "cycles", "ipc"} {
				if !strings.Contains(r.Unavailable[m], tc.want) {
					t.Errorf("%s: reason %q lacks %q", m, r.Unavailable[m], tc.want)
				}
			}
		})
	}
}

func TestThreadSetChangingWhileOpening(t *testing.T) {
	f := newFakePerf()
	k := useFake(t, f)
	spawned := 0
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		switch {
		case pid == 101 && spawned == 0:
			// Thread 101 spawns 102 before its own group is open.
			spawned++
			addThread(t, k, 102)
		case pid == 100 && spawned == 1:
			return unix.ESRCH // ...and thread 100 has since exited
		}
		return nil
	}
	cs, abs := Open([]string{"task-clock"}, Options{})
	defer closeAll(cs)
	if len(cs) != 1 || len(abs) != 0 {
		t.Fatalf("counters %v, absences %+v", sourcesOf(cs), abs)
	}
	pg := cs[0].(*perfCounter).pg
	var tids []int
	for _, g := range pg.groups {
		tids = append(tids, g.tid)
	}
	if len(tids) != 2 || tids[0] != 101 || tids[1] != 102 {
		t.Errorf("groups on threads %v, want [101 102] after one retry", tids)
	}
	if len(cs[0].Report().Degraded) != 0 {
		t.Errorf("degraded after a settled retry: %+v", cs[0].Report())
	}
	// Every descriptor of the abandoned attempt was closed.
	if f.openFDs() != 2 {
		t.Errorf("%d descriptors open, want 2", f.openFDs())
	}
}

func TestThreadSetNeverSettles(t *testing.T) {
	f := newFakePerf()
	k := useFake(t, f)
	next := 200
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if pid == 101 {
			addThread(t, k, next)
			next++
		}
		return nil
	}
	cs, _ := Open([]string{"task-clock"}, Options{})
	defer closeAll(cs)
	rep := cs[0].Report()
	if len(rep.Degraded) != 1 || !strings.Contains(rep.Degraded[0], "kept creating threads") {
		t.Errorf("report %+v", rep)
	}
}

func TestProbeLeavesNothingOpen(t *testing.T) {
	f := newFakePerf()
	useFake(t, f)
	Probe(Options{})
	if n := f.openFDs(); n != 0 {
		t.Errorf("%d descriptors left open by Probe", n)
	}
	cs, _ := Open([]string{"task-clock", "instructions", "raw:r00c0"}, Options{})
	closeAll(cs)
	if n := f.openFDs(); n != 0 {
		t.Errorf("%d descriptors left open by Close", n)
	}
}

func TestRawEventsRideTheirOwnGroup(t *testing.T) {
	f := newFakePerf()
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if a.Type == perfTypeRaw && a.Config == 0xbad {
			return unix.EINVAL
		}
		return nil
	}
	useFake(t, f)
	names, warns, _ := Select("instructions,raw:r00C0,raw:rbad")
	if len(warns) != 0 {
		t.Fatal(warns)
	}
	cs, abs := Open(names, Options{})
	defer closeAll(cs)
	if got := strings.Join(sourcesOf(cs), ","); got != "perf-hw,raw" {
		t.Fatalf("counters %s", got)
	}
	if absentMetrics(abs) != "raw:rbad" || abs[0].Capability != CapRawEvents {
		t.Errorf("absences %+v", abs)
	}
	raw := cs[1]
	if got := strings.Join(raw.Metrics(), ","); got != "raw:r00c0" {
		t.Errorf("raw Metrics() = %s", got)
	}
	for _, o := range f.opens {
		if o.attr.Type == perfTypeRaw && o.attr.Config != 0xc0 && o.attr.Config != 0xbad {
			t.Errorf("raw event opened with config %#x", o.attr.Config)
		}
	}
	r := bracket(t, raw)
	if r.Values["raw:r00c0"] != 2*5000*0xc1 {
		t.Errorf("reading %+v", r)
	}
}

// --- helpers ---

func bracket(t *testing.T, c Counter) Reading {
	t.Helper()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	r, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, r, c.Metrics())
	return r
}

func reportOf(t *testing.T, reps []Report, src string) Report {
	t.Helper()
	for _, r := range reps {
		if r.Source == src {
			return r
		}
	}
	t.Fatalf("no report for %s in %+v", src, reps)
	return Report{}
}

func sourcesOf(cs []Counter) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Source())
	}
	return out
}

func closeAll(cs []Counter) {
	for _, c := range cs {
		c.Close()
	}
}

func absentMetrics(abs []Absence) string {
	var out []string
	for _, a := range abs {
		out = append(out, a.Metrics...)
	}
	return strings.Join(out, ",")
}

func hasCap(r Report, c Capability) bool {
	for _, x := range r.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

func TestStartDoesNotAllocate(t *testing.T) {
	// What Start allocates after the first counter is enabled (or after
	// tier0's first snapshot) would be counted as the body's.
	names := []string{"task-clock", "minflt", "rchar"}
	cs, _ := Open(names, Options{})
	defer closeAll(cs)
	if len(cs) == 0 {
		t.Skip("nothing opens on this host")
	}
	for _, c := range cs {
		least := ^uint64(0)
		for i := 0; i < 20; i++ {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&m1)
			if _, err := c.Stop(); err != nil {
				t.Fatal(err)
			}
			if n := m1.Mallocs - m0.Mallocs; n < least {
				least = n
			}
		}
		if least != 0 {
			t.Errorf("%s: Start allocates %d times", c.Source(), least)
		}
	}
}
