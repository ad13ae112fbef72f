//go:build linux

// Command windows measures how much each source benchsup reads at a workload
// window's edges perturbs the window, and prints the table docs/counters.md's
// workloads section and sources.WindowEdgeCosts quote.
//
//	go run ./bench/windows                 # 61 rounds, 100 ms windows
//	go run ./bench/windows -rounds=81 -dir=/var/tmp
//
// Three windows are measured, each sized to take about -target (100 ms) on
// this host: a CPU window (a fixed amount of arithmetic), a warm read (a
// file in the page cache read through with -buf reads, a fixed number of
// times) and a cold read (a file evicted with fdatasync and
// POSIX_FADV_DONTNEED before each window, read through once). Each runs on
// a goroutine locked to its OS thread, as the worker runs a window.
//
// A configuration is a set of edge sources, read exactly as the worker reads
// them (sources.EdgeReader for the sources every window reads, sources.Open
// and Counter.Start/Stop for the opt-in ones of --window-metrics): the clock
// alone, each always-read source alone, the default set (every always-read
// source, what a window reads when the user asks for nothing), and the
// default set plus each opt-in source. Counters are opened just before their
// window and closed just after it, outside the measured time, so no other
// configuration runs with them open.
//
// Every round runs every (configuration, window) pair once, in an order
// shuffled per round (seeded: -seed), so slow drift of the host spreads over
// all of them. A window's time is the harness's own clock from before the
// opening edge's first read to after the closing edge's last: everything
// the sources cost the user's wall clock. Each source is compared with its
// baseline (the clock alone for an always-read source and for the default
// set, the default set for an opt-in source) round by round: the table
// gives the median of those paired relative differences, a 95% confidence
// interval of that median (distribution-free, from order statistics), the
// median wall times, the baseline's between-round spread (MAD, % of its
// median: the host's noise), and the median time spent in the edge reads
// themselves.
//
// When it runs as root on a host with a writable cgroup2 hierarchy, the
// measurement runs in a child process placed in a fresh cgroup of its own,
// with BENCHSUP_CGROUP naming it, as benchsup's sandbox starts a child, so
// that the cgroup io.pressure reader reads what it reads under benchsup;
// elsewhere that row says why it was not measured.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/sources"
)

var (
	rounds  = flag.Int("rounds", 41, "rounds: each runs every configuration on every window once")
	target  = flag.Duration("target", 100*time.Millisecond, "how long each window should take on this host")
	dir     = flag.String("dir", "", "directory for the read windows' files (default: the current directory; must not be tmpfs)")
	bufKiB  = flag.Int("buf", 64, "read size of the read windows, in KiB")
	seed    = flag.Int64("seed", 1, "seed of the per-round order")
	child   = flag.Bool("child", false, "internal: measure in this process (the parent placed it in a cgroup)")
	warmMiB = flag.Int("warm-size", 4, "size of the warm window's file, in MiB")
	pick    = flag.String("sources", "", "comma-separated rows to measure (thread, process, psi, cgroup, default set, perf-sw, perf-hw, syscalls, raw); empty: all")
	only    = flag.String("only", "", "comma-separated window kinds to run (cpu, warm, cold); empty: all")
)

func main() {
	flag.Parse()
	if runtime.GOOS != "linux" {
		fmt.Fprintln(os.Stderr, "bench/windows: the window sources are Linux's; this is", runtime.GOOS)
		os.Exit(2)
	}
	if !*child {
		if err := reexecInCgroup(); err == nil {
			return
		} else {
			fmt.Fprintf(os.Stderr, "bench/windows: measuring without a cgroup of its own: %v\n", err)
		}
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench/windows:", err)
		os.Exit(1)
	}
}

// reexecInCgroup runs this program again with -child, in a fresh cgroup2
// cgroup, and waits for it. It returns an error, having run nothing, when
// no such cgroup can be made here.
func reexecInCgroup() error {
	parent, err := cgroupParent()
	if err != nil {
		return err
	}
	name := fmt.Sprintf("benchsup-windows-%d", os.Getpid())
	cg := filepath.Join(parent, name)
	if err := os.Mkdir(cg, 0o755); err != nil {
		return err
	}
	defer os.Remove(cg)
	fd, err := syscall.Open(cg, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, append([]string{"-child"}, os.Args[1:]...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), sources.CgroupEnv+"="+name)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/windows:", err)
		os.Exit(1)
	}
	return nil
}

// cgroupParent finds a cgroup2 directory in which this process may create a
// cgroup: its own cgroup's, then the hierarchy's root.
func cgroupParent() (string, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	var points []string
	for _, line := range strings.Split(string(mi), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if f := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(f) >= 5 && f[3] == "/" {
			points = append(points, f[4])
		}
	}
	if len(points) == 0 {
		return "", errors.New("no cgroup2 hierarchy mounted at its root")
	}
	own := ""
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				own = p
			}
		}
	}
	var tried []string
	for _, d := range []string{filepath.Join(points[0], own), points[0]} {
		probe := filepath.Join(d, fmt.Sprintf("benchsup-windows-probe-%d", os.Getpid()))
		if err := os.Mkdir(probe, 0o755); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		os.Remove(probe)
		return d, nil
	}
	return "", fmt.Errorf("no writable cgroup2 directory: %s", strings.Join(tried, "; "))
}

// config is one set of edge sources.
type config struct {
	name    string
	reader  sources.EdgeReader
	metrics []string // opt-in counters (sources.Open), started after the opening edge
}

// comparison is one source measured against its baseline.
type comparison struct {
	source, what string // the source and what reading it costs
	cfg, base    string // configuration names
}

// window is one kind of measured window.
type window struct {
	kind string
	prep func() error // outside the measured time
	body func()
}

func run(out io.Writer) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	full := *sources.NewEdgeReader()
	clock := sources.EdgeReader{SkipThread: true, SkipProcess: true, SkipPressure: true, SkipCgroup: true}
	one := func(f func(r *sources.EdgeReader)) sources.EdgeReader {
		r := clock
		f(&r)
		return r
	}
	var cgroupNote string
	if _, _, ok, why := sources.ReadCgroupIOPressure(); !ok {
		cgroupNote = why
	}
	configs := []config{
		{name: "clock", reader: clock},
		{name: "thread", reader: one(func(r *sources.EdgeReader) { r.SkipThread = false })},
		{name: "process", reader: one(func(r *sources.EdgeReader) { r.SkipProcess = false })},
		{name: "psi", reader: one(func(r *sources.EdgeReader) { r.SkipPressure = false })},
		{name: "default", reader: full},
	}
	if cgroupNote == "" {
		r := full
		r.SkipThread, r.SkipProcess, r.SkipPressure = true, true, true
		configs = append(configs, config{name: "cgroup", reader: r})
	}
	comparisons := []comparison{
		{"thread", "getrusage(RUSAGE_THREAD) + /proc/thread-self/schedstat", "thread", "clock"},
		{"process", "getrusage(RUSAGE_SELF) + /proc/self/io", "process", "clock"},
		{"psi", "/proc/pressure/{io,memory,cpu}", "psi", "clock"},
	}
	if cgroupNote == "" {
		comparisons = append(comparisons, comparison{"cgroup", "own cgroup io.pressure", "cgroup", "clock"})
	}
	comparisons = append(comparisons, comparison{"default set", "all of the above (what every window reads)", "default", "clock"})
	var absent []string
	if cgroupNote != "" {
		absent = append(absent, "cgroup io.pressure: not measured: "+cgroupNote)
	}
	// tier0's metrics come from the process reader of the default set
	// (the worker reads them nowhere else), so tier0 has no row of its own.
	for _, src := range []string{sources.SourcePerfSW, sources.SourcePerfHW, sources.SourceSyscalls, sources.SourceRaw} {
		var ms []string
		for _, d := range sources.Catalog() {
			if d.Source == src && !strings.Contains(d.Name, "<") {
				ms = append(ms, d.Name)
			}
		}
		if src == sources.SourceRaw {
			ms = []string{"raw:r00c0"} // instructions retired on x86, as a raw code
		}
		cs, abs := sources.Open(ms, sources.Options{})
		for _, c := range cs {
			c.Close()
		}
		if len(cs) == 0 {
			why := "cannot open"
			if len(abs) > 0 {
				why = abs[0].Reason
			}
			absent = append(absent, fmt.Sprintf("%s: not measured: %s", src, why))
			continue
		}
		configs = append(configs, config{name: "default+" + src, reader: full, metrics: ms})
		comparisons = append(comparisons, comparison{src, "counters enabled over the window: " + strings.Join(ms, ", "), "default+" + src, "default"})
	}

	if *pick != "" {
		comparisons = slices.DeleteFunc(comparisons, func(c comparison) bool {
			return !slices.Contains(strings.Split(*pick, ","), c.source)
		})
	}

	windows, sizes, cleanup, err := makeWindows()
	defer cleanup()
	if err != nil {
		return err
	}

	byName := map[string]config{}
	for _, c := range configs {
		byName[c.name] = c
	}
	// One sample is a pair: the configuration and its baseline run back
	// to back, in a random order, so that drift of the host between the two
	// is as small as it can be.
	type pair struct {
		c comparison
		w window
	}
	type result struct{ with, without, cpuWith, cpuWithout, edges []float64 }
	results := map[[2]string]*result{}
	var pairs []pair
	for _, w := range windows {
		for _, c := range comparisons {
			pairs = append(pairs, pair{c, w})
			results[[2]string{w.kind, c.source}] = &result{}
		}
	}
	rng := rand.New(rand.NewSource(*seed))
	started := time.Now()
	for r := 0; r < *rounds; r++ {
		rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		for _, p := range pairs {
			res := results[[2]string{p.w.kind, p.c.source}]
			order := []string{p.c.cfg, p.c.base}
			if rng.Intn(2) == 0 {
				order[0], order[1] = order[1], order[0]
			}
			for _, name := range order {
				m, err := measureWindow(byName[name], p.w)
				if err != nil {
					return fmt.Errorf("%s window, %s: %v", p.w.kind, name, err)
				}
				if name == p.c.cfg {
					res.with = append(res.with, float64(m.wall))
					res.cpuWith = append(res.cpuWith, float64(m.cpu))
					res.edges = append(res.edges, float64(m.edges))
				} else {
					res.without = append(res.without, float64(m.wall))
					res.cpuWithout = append(res.cpuWithout, float64(m.cpu))
				}
			}
		}
		fmt.Fprintf(os.Stderr, "\rround %d of %d", r+1, *rounds)
	}
	fmt.Fprintln(os.Stderr)

	host, _ := os.Hostname()
	var uts syscall.Utsname
	_ = syscall.Uname(&uts)
	fmt.Fprintf(out, "host: %s, %s %s, %d CPUs, %s; go: %s; date: %s\n", host, runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), utsString(uts.Release[:]), runtime.Version(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(out, "rounds: %d (every configuration on every window once per round, shuffled, seed %d), %s in all\n",
		*rounds, *seed, time.Since(started).Round(time.Second))
	fmt.Fprintf(out, "windows: %s\n", sizes)
	if os.Getenv(sources.CgroupEnv) != "" {
		fmt.Fprintf(out, "cgroup: measured in a cgroup of its own (%s=%s), as benchsup's sandbox runs a child\n", sources.CgroupEnv, os.Getenv(sources.CgroupEnv))
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| source | what it reads at each edge | window | vs | Δ wall, median | 95% CI | wall without → with (medians) | noise (MAD) | Δ thread CPU, median | edge reads (median) |")
	fmt.Fprintln(out, "|---|---|---|---|---:|---:|---:|---:|---:|---:|")
	for _, c := range comparisons {
		for _, w := range windows {
			res := results[[2]string{w.kind, c.source}]
			d := relative(res.with, res.without)
			dst, _ := stats.Summarize(d)
			lo, hi := medianCI(d)
			wst, _ := stats.Summarize(res.without)
			ist, _ := stats.Summarize(res.with)
			cst, _ := stats.Summarize(relative(res.cpuWith, res.cpuWithout))
			est, _ := stats.Summarize(res.edges)
			fmt.Fprintf(out, "| %s | %s | %s | %s | %+.2f%% | [%+.2f%%, %+.2f%%] | %s → %s | %.1f%% | %+.1f%% | %s |\n",
				c.source, c.what, w.kind, c.base, dst.Median, lo, hi,
				ms(wst.Median), ms(ist.Median), 100*wst.MAD/wst.Median, cst.Median, us(est.Median))
		}
	}
	for _, a := range absent {
		fmt.Fprintln(out, "\n"+a)
	}
	return nil
}

// measurement is one window measured under one configuration.
type measurement struct {
	wall  time.Duration // from before the opening edge's first read to after the closing edge's last
	edges time.Duration // the part of wall spent in the edge reads and counter starts and stops
	cpu   time.Duration // the window thread's CPU time over wall (getrusage, read outside it)
}

// measureWindow runs one window under one configuration.
func measureWindow(c config, w window) (measurement, error) {
	var counters []sources.Counter
	if len(c.metrics) > 0 {
		counters, _ = sources.Open(c.metrics, sources.Options{})
		defer func() {
			for _, ct := range counters {
				ct.Close()
			}
		}()
	}
	if err := w.prep(); err != nil {
		return measurement{}, err
	}
	r := c.reader
	var open, close sources.Edge
	cpu0 := threadCPU()
	t0 := time.Now()
	r.Open(&open)
	for _, ct := range counters {
		if err := ct.Start(); err != nil {
			return measurement{}, err
		}
	}
	t1 := time.Now()
	w.body()
	t2 := time.Now()
	for _, ct := range counters {
		if _, err := ct.Stop(); err != nil {
			return measurement{}, err
		}
	}
	r.Close(&close)
	t3 := time.Now()
	cpu1 := threadCPU()
	return measurement{wall: t3.Sub(t0), edges: t1.Sub(t0) + t3.Sub(t2), cpu: cpu1 - cpu0}, nil
}

// threadCPU is the calling thread's CPU time (getrusage RUSAGE_THREAD).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// relative returns 100·(with[i]/without[i] − 1) for each pair.
func relative(with, without []float64) []float64 {
	d := make([]float64, len(with))
	for i := range with {
		d[i] = 100 * (with[i]/without[i] - 1)
	}
	return d
}

// makeWindows creates the three windows, each calibrated to about -target.
func makeWindows() ([]window, string, func(), error) {
	var ws []window
	var sizes []string
	want := func(k string) bool { return *only == "" || slices.Contains(strings.Split(*only, ","), k) }

	// CPU: a dependent chain of multiply-adds, n of them.
	var sink uint64
	spin := func(n int) {
		x := sink | 1
		for i := 0; i < n; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		sink = x
	}
	if want("cpu") {
		n := calibrate(func(n int) { spin(n) }, 1<<20)
		ws = append(ws, window{kind: "cpu", prep: func() error { return nil }, body: func() { spin(n) }})
		sizes = append(sizes, fmt.Sprintf("cpu %d multiply-adds", n))
	}

	d := *dir
	if d == "" {
		d = "."
	}
	tmp, err := os.MkdirTemp(d, "benchsup-windows-")
	if err != nil {
		return nil, "", func() {}, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	buf := make([]byte, *bufKiB<<10)
	readAll := func(path string) {
		f, err := os.Open(path)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
		}
	}
	write := func(path string, size int64) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		chunk := make([]byte, 1<<20)
		for i := range chunk {
			chunk[i] = byte(i * 7)
		}
		for n := int64(0); n < size; n += int64(len(chunk)) {
			if _, err := f.Write(chunk); err != nil {
				f.Close()
				return err
			}
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}

	if want("warm") {
		warm := filepath.Join(tmp, "warm")
		if err := write(warm, int64(*warmMiB)<<20); err != nil {
			return nil, "", cleanup, err
		}
		prep := func() error {
			st, err := sources.Prepare(sources.RegimeWarm, warm)
			if err == nil && st.Effective != sources.RegimeWarm {
				err = fmt.Errorf("warm prep: %s (%s)", st.Effective, st.Note)
			}
			return err
		}
		if err := prep(); err != nil {
			return nil, "", cleanup, err
		}
		k := calibrate(func(k int) {
			for i := 0; i < k; i++ {
				readAll(warm)
			}
		}, 1)
		ws = append(ws, window{kind: "warm", prep: prep, body: func() {
			for i := 0; i < k; i++ {
				readAll(warm)
			}
		}})
		sizes = append(sizes, fmt.Sprintf("warm read of %d MiB ×%d in %d KiB reads", *warmMiB, k, *bufKiB))
	}

	if want("cold") {
		cold := filepath.Join(tmp, "cold")
		prep := func() error {
			st, err := sources.Prepare(sources.RegimeCold, cold)
			if err == nil && st.Effective != sources.RegimeCold {
				err = fmt.Errorf("cold prep: %s (%s): put -dir on a disk-backed file system", st.Effective, st.Note)
			}
			return err
		}
		size := int64(64 << 20)
		for try := 0; try < 3; try++ {
			if err := write(cold, size); err != nil {
				return nil, "", cleanup, err
			}
			var times []float64
			for i := 0; i < 3; i++ {
				if err := prep(); err != nil {
					return nil, "", cleanup, err
				}
				t0 := time.Now()
				readAll(cold)
				times = append(times, float64(time.Since(t0)))
			}
			st, _ := stats.Summarize(times)
			next := int64(float64(size) * float64(*target) / st.Median)
			next = min(max(next>>20, 4), 2048) << 20
			if math.Abs(float64(next-size)) < float64(size)/10 {
				break
			}
			size = next
		}
		ws = append(ws, window{kind: "cold", prep: prep, body: func() { readAll(cold) }})
		sizes = append(sizes, fmt.Sprintf("cold read of %d MiB in %d KiB reads", size>>20, *bufKiB))
	}
	return ws, strings.Join(sizes, "; ") + fmt.Sprintf(" (each about %v here)", *target), cleanup, nil
}

// calibrate doubles n from start until f(n) takes at least a tenth of the
// target, then scales it to the target (median of three runs).
func calibrate(f func(int), start int) int {
	n := start
	for {
		t0 := time.Now()
		f(n)
		if d := time.Since(t0); d >= *target/10 {
			break
		}
		n *= 2
	}
	var times []float64
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		f(n)
		times = append(times, float64(time.Since(t0)))
	}
	st, _ := stats.Summarize(times)
	return max(1, int(float64(n)*float64(*target)/st.Median))
}

// medianCI returns a distribution-free 95% confidence interval of the
// median of xs: the order statistics at n/2 ∓ 0.98·√n (the normal
// approximation of the binomial), clamped to the sample.
func medianCI(xs []float64) (lo, hi float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := float64(len(s))
	i := int(math.Floor(n/2 - 0.98*math.Sqrt(n)))
	j := int(math.Ceil(n/2+0.98*math.Sqrt(n))) - 1
	i = min(max(i, 0), len(s)-1)
	j = min(max(j, 0), len(s)-1)
	return s[i], s[j]
}

func ms(ns float64) string { return fmt.Sprintf("%.1f ms", ns/1e6) }

func us(ns float64) string {
	if ns < 1e3 {
		return fmt.Sprintf("%.0f ns", ns)
	}
	return fmt.Sprintf("%.1f µs", ns/1e3)
}

func utsString(b []int8) string {
	var s []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}
