//go:build linux

// Command load measures what benchsup's supervisor itself costs as a suite
// grows, and prints the tables docs/measurement.md's "At scale" section quotes.
//
//	go run ./bench/load                                  # run: 1,000 and 2,000 identities; list: 10,000 and 20,000
//	go run ./bench/load -only=run -identities=20 -rounds=3
//
// It generates modules of trivial benchmarks (-packages packages; in each,
// a -top share of the identities are top-level functions and the rest
// b.Run sub-benchmarks, -subs to a function; -list-top and -list-subs for
// the list modules, where fewer, larger functions keep the discovery
// children few) at three sizes: a baseline of one identity per package,
// and the two sizes compared, the larger twice the smaller. It builds
// benchsup once (./cmd/benchsup), then, per module:
//
//   - a first `benchsup list --bench='^$'`, which builds every test binary
//     (into the go build cache and benchsup's binary cache) and discovers
//     nothing: the build time, reported apart (a compile where the go build
//     cache lacks the packages: a new -dir), so that the measured
//     invocations find their builds warm;
//   - for the run: `benchsup run --bench -benchtime=1x --repetitions=1
//     --json=FIFO --events=FILE ./...`; the events' timestamps split its
//     wall time into plan and build, discovery, measuring children, and
//     the end (rendering the table and the JSON document);
//   - for the list: a warm `benchsup list --bench='^$'` (what planning and
//     an up-to-date build cost there, since list has no event stream) and
//     `benchsup list ./...`.
//
// What is measured is the supervisor's own process, not its children (the
// go command, the compiler, the test binaries are other processes):
//
//   - peak RSS: VmHWM of /proc/PID/status, read every -poll and, for each
//     pipe benchsup writes (stdout, and --json as a FIFO), whenever data is
//     waiting in it, before it is read. The pipes are shrunk to one page, so
//     a writer that would hold more blocks with what it holds in memory,
//     and is read there: the last reading comes after benchsup's last
//     output but one page. (wait4's ru_maxrss is no use here: it is the
//     largest of the process and its reaped descendants, a linker among
//     them; it is printed for reference.) The RSS at the first byte of the
//     table and at the first byte of the JSON document is printed too: the
//     step between them is what rendering the document added.
//   - CPU time: user plus system time of wait4's rusage (the process and
//     every descendant it reaped) less the descendants' share (cutime and
//     cstime of /proc/PID/stat) at the last reading, when every child has
//     been reaped.
//   - wall time: start to exit.
//
// It then decodes the largest run's document and writes it again with
// rundoc.WriteJSON in its own process, counting the bytes that allocates and
// the writes it makes: a single write of the whole document means the
// encoding was held whole in memory before the first byte left.
//
// Growth is judged on increments over the baseline: linear growth gives
// (large - baseline) / (small - baseline) of the smaller size's increment,
// printed as "linear" next to each ratio. With -rounds above one the
// measured invocations take turns, size by size, and each cell is the
// median over rounds.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/rundoc"
)

func main() {
	o := options{}
	flag.StringVar(&o.dir, "dir", filepath.Join(os.TempDir(), "benchsup-load"), "work directory (benchsup's binary and the generated modules go in it)")
	flag.IntVar(&o.packages, "packages", 40, "packages in every generated module")
	flag.IntVar(&o.identities, "identities", 50, "benchmark identities per package in the larger run module (the smaller has half)")
	flag.IntVar(&o.listIdentities, "list-identities", 500, "identities per package in the larger list module (the smaller has half)")
	flag.IntVar(&o.run.subs, "subs", 5, "sub-benchmarks per b.Run function in the run modules")
	flag.Float64Var(&o.run.top, "top", 0.2, "share of a run module package's identities that are top-level functions; the rest are b.Run sub-benchmarks")
	flag.IntVar(&o.list.subs, "list-subs", 49, "sub-benchmarks per b.Run function in the list modules")
	flag.Float64Var(&o.list.top, "list-top", 0.02, "share of a list module package's identities that are top-level functions (each function is a discovery child of its own)")
	flag.StringVar(&o.only, "only", "", "measure only the run or only the list")
	flag.IntVar(&o.rounds, "rounds", 1, "measured invocations per size, taking turns")
	flag.DurationVar(&o.poll, "poll", 5*time.Millisecond, "how often the supervisor's /proc files are read")
	flag.StringVar(&o.bin, "benchsup", "", "measure this benchsup binary instead of building ./cmd/benchsup")
	flag.Parse()
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// shape is how a module's identities are declared.
type shape struct {
	top  float64 // share of top-level functions
	subs int     // sub-benchmarks per function of the rest
}

type options struct {
	dir                                  string
	packages, identities, listIdentities int
	run, list                            shape
	only                                 string
	rounds                               int
	poll                                 time.Duration
	bin                                  string
}

func (o options) check() error {
	switch {
	case o.packages < 1:
		return fmt.Errorf("-packages must be at least 1, got %d", o.packages)
	case o.identities < 4 || o.listIdentities < 4:
		// Halved, the smaller size must stay above the baseline's one.
		return fmt.Errorf("-identities and -list-identities must be at least 4, got %d and %d", o.identities, o.listIdentities)
	case o.run.subs < 1 || o.list.subs < 1:
		return fmt.Errorf("-subs and -list-subs must be at least 1, got %d and %d", o.run.subs, o.list.subs)
	case o.run.top <= 0 || o.run.top > 1 || o.list.top <= 0 || o.list.top > 1:
		return fmt.Errorf("-top and -list-top must be in (0, 1], got %v and %v", o.run.top, o.list.top)
	case o.only != "" && o.only != "run" && o.only != "list":
		return fmt.Errorf("-only takes run or list, got %q", o.only)
	case o.rounds < 1:
		return fmt.Errorf("-rounds must be at least 1, got %d", o.rounds)
	case o.poll <= 0:
		return fmt.Errorf("-poll must be positive, got %v", o.poll)
	}
	return nil
}

func run(o options, out io.Writer) error {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	bin := o.bin
	if bin == "" {
		root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
		if err != nil {
			return fmt.Errorf("finding the benchsup module (run this from its tree): %w", err)
		}
		bin = filepath.Join(o.dir, "benchsup")
		build := exec.Command("go", "build", "-o", bin, "./cmd/benchsup")
		build.Dir = strings.TrimSpace(string(root))
		if b, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building benchsup: %v: %s", err, b)
		}
	}
	if o.only != "list" {
		sizes := []int{1, o.identities / 2, o.identities}
		res, err := measureSizes(o, bin, "run", sizes)
		if err != nil {
			return err
		}
		printRun(out, o, res)
	}
	if o.only != "run" {
		sizes := []int{1, o.listIdentities / 2, o.listIdentities}
		res, err := measureSizes(o, bin, "list", sizes)
		if err != nil {
			return err
		}
		if o.only != "list" {
			fmt.Fprintln(out)
		}
		printList(out, o, res)
	}
	return nil
}

// size is one module measured and what its invocations gave.
type size struct {
	perPackage int // identities per package
	identities int // in the whole module
	mod        string
	firstBuild time.Duration // the first `list --bench='^$'`
	warm       []measured    // list only: the warm `list --bench='^$'`
	rounds     []measured
	failed     []string // why an invocation was taken again
}

// measureSizes generates one module per size (identities per package) and
// measures what for each, the sizes taking turns round by round.
func measureSizes(o options, bin, what string, perPackage []int) ([]*size, error) {
	var sizes []*size
	for _, n := range perPackage {
		s := &size{perPackage: n, identities: n * o.packages, mod: filepath.Join(o.dir, fmt.Sprintf("%s-%d", what, n*o.packages))}
		sh := o.run
		if what == "list" {
			sh = o.list
		}
		if err := generate(s.mod, o.packages, n, sh); err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "load: %s: %d identities: building (list --bench='^$')\n", what, s.identities)
		m, err := invoke(o, bin, s.mod, []string{"list", "--bench=^$", "./..."}, false)
		if err != nil {
			return nil, err
		}
		s.firstBuild = m.wall
		sizes = append(sizes, s)
	}
	for r := range o.rounds {
		for _, s := range sizes {
			fmt.Fprintf(os.Stderr, "load: %s: %d identities: round %d of %d\n", what, s.identities, r+1, o.rounds)
			if what == "list" {
				m, err := invoke(o, bin, s.mod, []string{"list", "--bench=^$", "./..."}, false)
				if err != nil {
					return nil, err
				}
				s.warm = append(s.warm, m)
			}
			// An invocation that did not list or measure every identity is
			// counted, reported and taken again, once.
			for attempt := 0; ; attempt++ {
				var m measured
				var err error
				if what == "list" {
					if m, err = invoke(o, bin, s.mod, []string{"list", "./..."}, false); err == nil {
						if got := listed(m.stdout); got != s.identities {
							err = fmt.Errorf("list of %s: %d benchmark identities listed, %d generated:\n%s", s.mod, got, s.identities, errorLines(m.stdout))
						}
					}
				} else {
					if m, err = invoke(o, bin, s.mod, []string{"run", "--bench", "-benchtime=1x", "--repetitions=1"}, true); err == nil {
						if err = m.checkRun(s.identities); err == nil {
							m.ph, err = m.phases()
						}
						if err != nil {
							err = fmt.Errorf("run of %s: %w", s.mod, err)
						}
					}
				}
				if err == nil {
					s.rounds = append(s.rounds, m)
					break
				}
				if attempt == 1 {
					return nil, err
				}
				s.failed = append(s.failed, err.Error())
				fmt.Fprintf(os.Stderr, "load: taken again: %v\n", err)
			}
		}
	}
	return sizes, nil
}

// listed counts the benchmark identities a list printed without an error.
func listed(stdout []byte) int {
	n := 0
	for _, line := range strings.Split(string(stdout), "\n") {
		f := strings.Split(line, "\t")
		if len(f) == 3 && f[1] == "benchmark" {
			n++
		}
	}
	return n
}

// errorLines are a list's error entries.
func errorLines(stdout []byte) string {
	var errs []string
	for _, line := range strings.Split(string(stdout), "\n") {
		if strings.Contains(line, "\terror: ") {
			errs = append(errs, line)
		}
	}
	return strings.Join(errs, "\n")
}

// generate writes a module of packages × perPackage trivial benchmark
// identities: a top share of them top-level functions, the rest
// sub-benchmarks, subs to a function.
func generate(dir string, packages, perPackage int, sh shape) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/load\n\ngo 1.22\n"), 0o644); err != nil {
		return err
	}
	tops := max(1, int(math.Round(sh.top*float64(perPackage))))
	for p := range packages {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%03d\n\nimport (\n\t\"strconv\"\n\t\"testing\"\n)\n\nvar sink int\n\nvar _ = strconv.Itoa\n", p)
		for i := range tops {
			fmt.Fprintf(&b, "\nfunc BenchmarkTop%04d(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += i ^ %d\n\t}\n}\n", i, i)
		}
		for f, left := 0, perPackage-tops; left > 0; f++ {
			n := min(sh.subs, left)
			left -= n
			fmt.Fprintf(&b, "\nfunc BenchmarkSub%04d(b *testing.B) {\n\tfor k := 0; k < %d; k++ {\n"+
				"\t\tb.Run(\"case\"+strconv.Itoa(k), func(b *testing.B) {\n\t\t\tfor i := 0; i < b.N; i++ {\n\t\t\t\tsink += i ^ k\n\t\t\t}\n\t\t})\n\t}\n}\n", f, n)
		}
		pkg := filepath.Join(dir, fmt.Sprintf("p%03d", p))
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(pkg, "p_test.go"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// measured is one invocation of benchsup.
type measured struct {
	wall    time.Duration
	ownCPU  time.Duration // wait4's user+system less the reaped descendants' (see the package comment)
	peak    int64         // VmHWM at the last reading, bytes
	atTable int64         // VmHWM when the first byte of stdout was waiting, bytes; 0: none came
	atJSON  int64         // VmHWM when the first byte of the JSON document was waiting, bytes
	treeRSS int64         // wait4's ru_maxrss: the largest of the process and its descendants, bytes
	reads   int           // readings of /proc/PID/status that found the process
	stdout  []byte
	doc     []byte
	events  []byte
	start   time.Time
	ph      phases // run only: its wall time split by its events
}

// invoke runs benchsup with args in dir, watching its own process; with
// withFiles, --json goes to a FIFO this side reads and --events to a file.
func invoke(o options, bin, dir string, args []string, withFiles bool) (measured, error) {
	var m measured
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return m, err
	}
	defer stdoutR.Close()
	shrink(stdoutR)
	var fifo *fifoReader
	eventsPath := filepath.Join(o.dir, "events.ndjson")
	if withFiles {
		if fifo, err = openFIFO(filepath.Join(o.dir, "doc.fifo")); err != nil {
			stdoutW.Close()
			return m, err
		}
		defer fifo.close()
		args = append(slices.Clip(args), "--json="+fifo.path, "--events="+eventsPath, "./...")
	}
	stderr, err := os.Create(filepath.Join(o.dir, "stderr.txt"))
	if err != nil {
		stdoutW.Close()
		return m, err
	}
	defer stderr.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdoutW, stderr
	m.start = time.Now()
	err = cmd.Start()
	stdoutW.Close()
	if err != nil {
		return m, err
	}
	w := &watcher{pid: cmd.Process.Pid}
	var wg sync.WaitGroup
	var stdoutErr, docErr error
	wg.Go(func() { m.stdout, m.atTable, stdoutErr = w.drain(int(stdoutR.Fd())) })
	if fifo != nil {
		wg.Go(func() { m.doc, m.atJSON, docErr = w.drain(fifo.fd) })
	}
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		t := time.NewTicker(o.poll)
		defer t.Stop()
		for {
			w.read()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	// Wait for the exit without reaping, so that the PID read from /proc
	// is still this process until the readings stop.
	var info unix.Siginfo
	for {
		err = unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	m.wall = time.Since(m.start)
	close(stop)
	<-polled
	w.stop()
	if err != nil {
		return m, fmt.Errorf("waiting for benchsup: %w", err)
	}
	if fifo != nil {
		fifo.closeWriter() // the reader sees the end once benchsup's side is closed too
	}
	wg.Wait()
	waitErr := cmd.Wait()
	if err := errors.Join(stdoutErr, docErr); err != nil {
		return m, err
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) && exit.ExitCode() == 1 && bytes.Contains(m.stdout, []byte("\terror: ")) {
		// A list with error entries: the caller judges them.
		waitErr = nil
	}
	if waitErr != nil {
		tail, _ := os.ReadFile(stderr.Name())
		return m, fmt.Errorf("benchsup %s in %s: %v\n%s", strings.Join(args, " "), dir, waitErr, lastLines(tail, 20))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return m, errors.New("no rusage for benchsup's process")
	}
	total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	m.ownCPU = total - w.children
	m.treeRSS = ru.Maxrss << 10
	m.peak, m.reads = w.hwm, w.reads
	if m.reads == 0 {
		return m, errors.New("benchsup's /proc/PID/status was never read: it exited too soon")
	}
	if withFiles {
		if m.events, err = os.ReadFile(eventsPath); err != nil {
			return m, err
		}
	}
	return m, nil
}

// watcher reads the supervisor's /proc files.
type watcher struct {
	pid      int
	mu       sync.Mutex
	stopped  bool
	reads    int
	hwm      int64         // VmHWM, bytes
	children time.Duration // cutime + cstime: what the reaped descendants spent
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on every
// Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// read takes one reading; one of an exited process (a zombie has no
// VmHWM) is ignored.
func (w *watcher) read() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return w.hwm
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(w.pid) + "/status")
	if err != nil {
		return w.hwm
	}
	hwm, ok := statusKB(status, "VmHWM:")
	if !ok {
		return w.hwm
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(w.pid) + "/stat")
	if err != nil {
		return w.hwm
	}
	// The fields after the command's closing parenthesis, from state (3).
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 15 || f[0] == "Z" {
		return w.hwm
	}
	cu, err1 := strconv.ParseInt(f[13], 10, 64)
	cs, err2 := strconv.ParseInt(f[14], 10, 64)
	if err1 != nil || err2 != nil {
		return w.hwm
	}
	w.reads++
	w.hwm = max(w.hwm, hwm<<10)
	w.children = time.Duration(cu+cs) * clockTick
	return w.hwm
}

func (w *watcher) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
}

// statusKB is the value of a "Name:   N kB" line of /proc/PID/status.
func statusKB(status []byte, name string) (int64, bool) {
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// drain reads fd to its end, taking a reading of the process each time
// data is waiting and before it is read: a writer blocked on the full pipe
// still holds, in memory, whatever it has left to write. It returns the
// data and the VmHWM of the reading before the first byte.
func (w *watcher) drain(fd int) ([]byte, int64, error) {
	var data []byte
	var first int64
	buf := make([]byte, 1<<16)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return data, first, err
		}
		hwm := w.read()
		n, err := unix.Read(fd, buf)
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return data, first, err
		case n == 0:
			return data, first, nil
		}
		if len(data) == 0 {
			first = hwm
		}
		data = append(data, buf[:n]...)
	}
}

// shrink makes a pipe one page long, so that a writer of more blocks (and
// is read) with what it holds in memory.
func shrink(f *os.File) {
	unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, os.Getpagesize())
}

// fifoReader is a FIFO benchsup writes its document to (--json accepts a
// FIFO, opened without blocking, which needs a reader already there).
type fifoReader struct {
	path string
	fd   int // the read end, blocking
	wfd  int // a write end of our own, so that reads wait for benchsup's instead of ending; -1 once closed
}

func openFIFO(path string) (*fifoReader, error) {
	os.Remove(path)
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("making the FIFO %s: %w", path, err)
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	wfd, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, unix.O_RDONLY); err != nil { // blocking reads
		unix.Close(fd)
		unix.Close(wfd)
		return nil, err
	}
	unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, os.Getpagesize())
	return &fifoReader{path: path, fd: fd, wfd: wfd}, nil
}

func (f *fifoReader) closeWriter() {
	if f.wfd >= 0 {
		unix.Close(f.wfd)
		f.wfd = -1
	}
}

func (f *fifoReader) close() {
	f.closeWriter()
	unix.Close(f.fd)
	os.Remove(f.path)
}

// checkRun checks that the run measured every generated identity.
func (m *measured) checkRun(identities int) error {
	var d rundoc.Document
	if err := json.Unmarshal(m.doc, &d); err != nil {
		return fmt.Errorf("reading its document (%d bytes): %w", len(m.doc), err)
	}
	ok := 0
	for _, r := range d.Rows {
		if r.Kind == "benchmark" && r.Outcome == rundoc.OutcomeOK && len(r.Processes) == 1 {
			ok++
		}
	}
	if ok != identities {
		return fmt.Errorf("%d identities measured, %d generated", ok, identities)
	}
	return nil
}

// phases splits a run's wall time by its events: plan and build (to the
// last build event), discovery (to the last discovery child's end),
// measuring (to the last measuring child's end), and the end (to the exit:
// the done event, the table and the JSON document).
type phases struct {
	build, discover, measure, end time.Duration
	events                        int
}

func (m *measured) phases() (phases, error) {
	var p phases
	var lastBuild, lastDiscover, lastMeasure time.Time
	sc := bufio.NewScanner(bytes.NewReader(m.events))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var ev struct{ Kind, Phase, Time string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return p, fmt.Errorf("event %d: %w", p.events+1, err)
		}
		p.events++
		t, err := time.Parse(time.RFC3339Nano, ev.Time)
		if err != nil {
			return p, fmt.Errorf("event %d: %w", p.events, err)
		}
		switch {
		case ev.Kind == rundoc.EventBuild:
			lastBuild = t
		case ev.Kind == rundoc.EventProcessEnd && ev.Phase == "discover":
			lastDiscover = t
		case ev.Kind == rundoc.EventProcessEnd && ev.Phase == "benchmark":
			lastMeasure = t
		}
	}
	if err := sc.Err(); err != nil {
		return p, err
	}
	if lastBuild.IsZero() || lastDiscover.IsZero() || lastMeasure.IsZero() {
		return p, errors.New("the events lack a build, a discovery child or a measuring child")
	}
	end := m.start.Add(m.wall)
	p.build = lastBuild.Sub(m.start)
	p.discover = lastDiscover.Sub(lastBuild)
	p.measure = lastMeasure.Sub(lastDiscover)
	p.end = end.Sub(lastMeasure)
	return p, nil
}

// median of f over the rounds.
func median(ms []measured, f func(measured) float64) float64 {
	xs := make([]float64, len(ms))
	for i, m := range ms {
		xs[i] = f(m)
	}
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

func wall(m measured) float64    { return m.wall.Seconds() }
func ownCPU(m measured) float64  { return m.ownCPU.Seconds() }
func peakMiB(m measured) float64 { return float64(m.peak) / (1 << 20) }

func printRun(out io.Writer, o options, sizes []*size) {
	fmt.Fprintf(out, "run: benchsup run --bench -benchtime=1x --repetitions=1 --json=FIFO --events=FILE ./... over %d packages (%.0f%% top-level functions, the rest b.Run sub-benchmarks, %d to a function); median of %d round(s)\n\n",
		o.packages, 100*o.run.top, o.run.subs, o.rounds)
	fmt.Fprintln(out, "| identities | first build (apart) | wall | plan+build | discovery | measuring | end (table, JSON) | own CPU | peak RSS | RSS at table | RSS at JSON | JSON | events | RSS of tree |")
	fmt.Fprintln(out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range sizes {
		ph := func(f func(phases) time.Duration) float64 {
			return median(s.rounds, func(m measured) float64 { return f(m.ph).Seconds() })
		}
		events := median(s.rounds, func(m measured) float64 { return float64(m.ph.events) })
		fmt.Fprintf(out, "| %d | %.1f s | %.1f s | %.1f s | %.1f s | %.1f s | %.2f s | %.2f s | %.1f MiB | %.1f MiB | %.1f MiB | %.2f MiB | %.0f lines, %.2f MiB | %.0f MiB |\n",
			s.identities, s.firstBuild.Seconds(), median(s.rounds, wall),
			ph(func(p phases) time.Duration { return p.build }), ph(func(p phases) time.Duration { return p.discover }),
			ph(func(p phases) time.Duration { return p.measure }), ph(func(p phases) time.Duration { return p.end }),
			median(s.rounds, ownCPU), median(s.rounds, peakMiB),
			median(s.rounds, func(m measured) float64 { return float64(m.atTable) / (1 << 20) }),
			median(s.rounds, func(m measured) float64 { return float64(m.atJSON) / (1 << 20) }),
			median(s.rounds, func(m measured) float64 { return float64(len(m.doc)) / (1 << 20) }),
			events, median(s.rounds, func(m measured) float64 { return float64(len(m.events)) / (1 << 20) }),
			median(s.rounds, func(m measured) float64 { return float64(m.treeRSS) / (1 << 20) }))
	}
	largest := sizes[len(sizes)-1].rounds[0]
	if c, err := jsonCost(largest.doc); err != nil {
		fmt.Fprintf(out, "\nreport.WriteJSON in this process: %v\n", err)
	} else {
		fmt.Fprintf(out, "\nreport.WriteJSON in this process, on the %d-identity document (%.2f MiB as JSON, %.2f MiB of heap decoded): "+
			"allocated %.2f MiB, in %d writes, the largest %.2f MiB\n",
			sizes[len(sizes)-1].identities, float64(len(largest.doc))/(1<<20), float64(c.live)/(1<<20),
			float64(c.allocated)/(1<<20), c.writes, float64(c.largest)/(1<<20))
	}
	growth(out, sizes, map[string]func(measured) float64{
		"wall":      wall,
		"measuring": func(m measured) float64 { return m.ph.measure.Seconds() },
		"own CPU":   ownCPU,
		"peak RSS":  peakMiB,
	}, []string{"wall", "measuring", "own CPU", "peak RSS"})
	retaken(out, sizes)
}

func printList(out io.Writer, o options, sizes []*size) {
	fmt.Fprintf(out, "list: benchsup list ./... over %d packages (%.0f%% top-level functions, the rest b.Run sub-benchmarks, %d to a function); median of %d round(s)\n\n",
		o.packages, 100*o.list.top, o.list.subs, o.rounds)
	fmt.Fprintln(out, "| identities | first build (apart) | plan+build (warm list --bench='^$') | its peak RSS | wall | own CPU | peak RSS | RSS at first line | output | RSS of tree |")
	fmt.Fprintln(out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range sizes {
		fmt.Fprintf(out, "| %d | %.1f s | %.1f s | %.1f MiB | %.1f s | %.2f s | %.1f MiB | %.1f MiB | %.2f MiB | %.0f MiB |\n",
			s.identities, s.firstBuild.Seconds(), median(s.warm, wall), median(s.warm, peakMiB),
			median(s.rounds, wall), median(s.rounds, ownCPU), median(s.rounds, peakMiB),
			median(s.rounds, func(m measured) float64 { return float64(m.atTable) / (1 << 20) }),
			median(s.rounds, func(m measured) float64 { return float64(len(m.stdout)) / (1 << 20) }),
			median(s.rounds, func(m measured) float64 { return float64(m.treeRSS) / (1 << 20) }))
	}
	growth(out, sizes, map[string]func(measured) float64{"wall": wall, "own CPU": ownCPU, "peak RSS": peakMiB},
		[]string{"wall", "own CPU", "peak RSS"})
	retaken(out, sizes)
}

// retaken prints why invocations were taken again: nothing is dropped
// unsaid.
func retaken(out io.Writer, sizes []*size) {
	for _, s := range sizes {
		for _, f := range s.failed {
			fmt.Fprintf(out, "\n%d identities: an invocation was taken again: %s\n", s.identities, f)
		}
	}
}

// growth prints, per quantity, the increment over the baseline per
// identity at both sizes and the ratio of the two increments, next to
// the ratio linear growth gives.
func growth(out io.Writer, sizes []*size, quantities map[string]func(measured) float64, order []string) {
	base, small, large := sizes[0], sizes[1], sizes[2]
	linear := float64(large.identities-base.identities) / float64(small.identities-base.identities)
	fmt.Fprintf(out, "\n| over the baseline (%d identities) | per identity at %d | per identity at %d | growth %d→%d (linear: %.2f×) |\n",
		base.identities, small.identities, large.identities, small.identities, large.identities, linear)
	fmt.Fprintln(out, "|---|---:|---:|---:|")
	for _, name := range order {
		f := quantities[name]
		b := median(base.rounds, f)
		ds, dl := median(small.rounds, f)-b, median(large.rounds, f)-b
		unit, scale := "ms", 1e3
		if name == "peak RSS" {
			unit, scale = "KiB", 1024
		}
		fmt.Fprintf(out, "| %s | %.2f %s | %.2f %s | %.2f× |\n", name,
			scale*ds/float64(small.identities-base.identities), unit,
			scale*dl/float64(large.identities-base.identities), unit, dl/ds)
	}
}

// writeCost is what rundoc.WriteJSON costs on one document.
type writeCost struct {
	live      uint64 // heap the decoded document holds
	allocated uint64 // bytes WriteJSON allocated
	writes    int    // Write calls on its writer
	largest   int    // the largest of them, bytes
}

// jsonCost decodes a run's document and writes it again with
// rundoc.WriteJSON to a writer that keeps nothing, counting what that
// allocates (runtime.MemStats.TotalAlloc) and how it writes: one write of
// the whole document means it was held whole in memory first.
func jsonCost(data []byte) (writeCost, error) {
	var c writeCost
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	var d rundoc.Document
	if err := json.Unmarshal(data, &d); err != nil {
		return c, err
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	c.live = m1.HeapAlloc - min(m0.HeapAlloc, m1.HeapAlloc)
	w := &countingWriter{}
	err := rundoc.WriteJSON(w, d)
	runtime.ReadMemStats(&m2)
	runtime.KeepAlive(&d)
	c.allocated, c.writes, c.largest = m2.TotalAlloc-m1.TotalAlloc, w.writes, w.largest
	return c, err
}

type countingWriter struct{ writes, largest int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	w.largest = max(w.largest, len(p))
	return len(p), nil
}

// lastLines is the end of a command's output, for an error.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
