// Package integration runs the real benchsup binary over fixture modules
// (integration/testdata/*.txtar, one testscript each) and checks outcome
// classes, that the rest of a run survives every failure, and that no
// fixture process outlives the run.
package integration

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/benchsup/benchsup/internal/timingtest"
	"github.com/benchsup/benchsup/rundoc"
)

var binDir, srcDir, cacheDir, workRoot string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run() // every test skips (endToEnd): nothing to build
	}
	// One end-to-end test more at once than there are CPUs, unless
	// -test.parallel says: a share of each test's time is a sleeping
	// fixture or a deadline waited out, when a test per CPU leaves a CPU
	// idle. Nothing in these tests depends on a quiet host.
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", strconv.Itoa(runtime.GOMAXPROCS(0)+1))
	}
	dir, err := os.MkdirTemp("", "benchsup-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	release, err := openWorkRoot(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer release()
	// The binary is built once, as a user would build it, at the same
	// path every run: the scripts' PATH starts with its directory, and
	// PATH is part of the key of every answer benchsup remembers, so a
	// directory new each run made every run of the suite ask the go
	// command again what the run before had been told.
	binDir = filepath.Join(workRoot, "bin")
	out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "benchsup"), "github.com/benchsup/benchsup/cmd/benchsup").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building benchsup: %v\n%s", err, out)
		return 1
	}
	if srcDir, err = filepath.Abs(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// One cache of test binaries for every script (see runScripts), kept
	// beside the fixture modules from one run of the suite to the next,
	// as a user's cache is kept from one benchsup run to the next: the
	// go command relinks a cached binary only when an input of its build
	// changed, and the layout records beside the binaries spare the two
	// builds of each layout comparison.
	cacheDir = filepath.Join(workRoot, "cache")
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// openWorkRoot sets workRoot, where the tests copy their fixture modules:
// the same directory on every run of the suite, from any checkout, in the
// user's cache directory (never one other users can write). The go
// command keys a compiled package by its directory: at a new path, each
// of some eighty fixture modules compiles its packages and links its test
// binaries again (and, with a toolchain in the module cache, the worker
// benchsup then injects into each module); at the same path, only a run
// whose fixture changed does, so a fresh clone on a host that ran the
// suite before starts warm, as its go build cache does. A second run at the same time
// finds the directory locked and uses one under tmp instead.
func openWorkRoot(tmp string) (release func(), err error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = tmp
	}
	dir := filepath.Join(base, "benchsup-integration", "fixtures")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the fixtures' directory: %w", err)
	}
	release, locked := lockDir(dir)
	if !locked {
		dir = filepath.Join(tmp, "work")
		release = func() {}
	}
	workRoot = dir
	return release, nil
}

// fixtureDirs counts the fixture directories each test has asked for.
var fixtureDirs = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// fixtureDir returns an empty directory for a copy of a fixture module
// (see openWorkRoot), at the same path on every run: named for the test
// and how many the test asked for before.
func fixtureDir(t *testing.T) string {
	t.Helper()
	fixtureDirs.Lock()
	n := fixtureDirs.n[t.Name()]
	fixtureDirs.n[t.Name()]++
	fixtureDirs.Unlock()
	return emptyDir(t, filepath.Join(workRoot, "tests", strings.ReplaceAll(t.Name(), "/", "_"), strconv.Itoa(n)))
}

// emptyDir removes what a previous run left at dir and creates it anew.
func emptyDir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// endToEnd skips t under -short: it builds and measures fixture modules
// through the real CLI, minutes on a 2-core host, while the -short suite is
// the packages' own tests, the quick feedback loop.
func endToEnd(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end through the built CLI (minutes): run without -short")
	}
}

// goEnv are the go command's settings the scripts need to build fixture
// modules without network access beyond what the host already has.
var goEnv = []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOSUMDB", "GOFLAGS", "GONOSUMDB", "GOPRIVATE", "GOTOOLCHAIN"}

// TestEndToEnd runs this package's tests of the built CLI that check
// outcomes, shapes and files, all in parallel (as many at once as
// -test.parallel: one per CPU). Nothing in them depends on a quiet host or
// on elapsed time: a deadline that normal work must beat is set at a scale
// load cannot reach, and a hang is a process that never ends, so the
// tests pass with every CPU busy and on a cold machine (docs/repository.md
// says how that is checked). The tests that measure or judge timing are
// TestTimingEndToEnd's.
func TestEndToEnd(t *testing.T) {
	endToEnd(t)
	for _, e := range shapeTests {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			e.run(t)
		})
	}
}

// TestTimingEndToEnd runs the tests that measure or judge timing (the
// quiet scripts' verdicts, the interference watch, the quiescence
// preflight, the reaper's 2 s deadlines), in the timing suite only
// (internal/timingtest): one at a time, or side by side in lanes, each
// confined to a CPU of its own (lanes_test.go). They start once the host
// is quiet (waitQuietHost), so they see a host only they load, as a
// user's benchsup run would: an A/A comparison measured beside other
// packages' tests saw 50-68% foreign CPU in its samples.
func TestTimingEndToEnd(t *testing.T) {
	timingtest.Require(t)
	endToEnd(t)
	waitQuietHost(t)
	for _, e := range timingTests {
		t.Run(e.name, e.run)
	}
}

// The reaper's limits: how long after benchsup's death a test waits for
// the rest of its run to be gone. The reaper acts at once; the behaviour
// suite waits long enough that only a survivor, not a busy host, fails it,
// and the timing suite holds the reaper to its 2 s (docs/design.md).
const (
	behaviourReapLimit = 60 * time.Second
	reapDeadline       = 2 * time.Second
)

type namedTest struct {
	name string
	run  func(*testing.T)
}

// shapeTests check outcomes, shapes and files; they run in parallel.
var shapeTests = []namedTest{
	{"Scripts", testScripts},
	{"BrowserReport", testBrowserReport},
	{"Faults", testFaults},
	{"HostClaimSerializes", testHostClaimSerializes},
	{"Layout", testLayout},
	{"ReadmeSharding", testReadmeSharding},
	{"Siblings", testSiblings},
	{"InterruptExitStatus", testInterruptExitStatus},
	{"SupervisorKilled", func(t *testing.T) { testSupervisorKilled(t, behaviourReapLimit) }},
	{"StaleRemoved", testStaleRemoved},
	{"SupervisorKilledWhileBuilding", func(t *testing.T) { testSupervisorKilledWhileBuilding(t, behaviourReapLimit) }},
}

// timingTests measure or judge timing; they run one at a time, after the
// host is quiet (the subtests of the first three side by side, in lanes).
var timingTests = []namedTest{
	{"QuietScripts", testQuietScripts},
	{"Interference", testInterference},
	{"HostClaimQuiescence", testHostClaimQuiescence},
	{"SupervisorKilled", func(t *testing.T) { testSupervisorKilled(t, reapDeadline) }},
	{"SupervisorKilledWhileBuilding", func(t *testing.T) { testSupervisorKilledWhileBuilding(t, reapDeadline) }},
}

func testScripts(t *testing.T) { runScripts(t, "testdata", inParallel) }

// testQuietScripts runs the scripts whose verdicts need CPUs that other
// scripts do not load: a comparison that must call a 30% slowdown, an A/A
// comparison that must call no difference, a budget of counting runs that
// cheap benchmarks must fit in. Beside a shape script, building and
// measuring on both CPUs, a measuring script's samples were taken at half
// speed with a spread of tens of percent (the interference watch found 80%
// foreign CPU in every sample). These run in the timing suite, each in a
// lane of its own (lanes_test.go): every process a script starts (benchsup, its
// go commands and children, the go commands the script runs itself) is
// confined to one CPU no other script uses, so a script sees the host a
// user running `taskset -c N benchsup` would, and benchsup watches that CPU
// alone (docs/design.md#host-claim-and-quiescence). On this project's
// 2-CPU VM a spinning loop on one CPU left benchmarks on the other within
// their run-to-run spread (see docs/repository.md).
func testQuietScripts(t *testing.T) { runScripts(t, "testdata/quiet", inLanes) }

// scriptsRun is how runScripts runs a directory's scripts.
type scriptsRun int

const (
	inParallel scriptsRun = iota // as many at once as -test.parallel
	inLanes                      // one per lane at once, each confined to its lane's CPU
)

// runScripts runs the testscripts of dir with the built benchsup and the
// commands of this package, in parallel or in lanes.
func runScripts(t *testing.T, dir string, how scriptsRun) {
	endToEnd(t)
	if runtime.GOOS != "linux" {
		t.Skip("fresh-process children need Linux; benchsup reports that itself, see sandbox")
	}
	vals := map[string]string{}
	out, err := exec.Command("go", append([]string{"env"}, goEnv...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	for i, v := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		vals[goEnv[i]] = v
	}
	params := testscript.Params{
		Dir: dir,
		// The same paths every run (see openWorkRoot); a script's
		// directory is left for inspection until the next run.
		WorkdirRoot: emptyDir(t, filepath.Join(workRoot, "scripts", strings.ReplaceAll(dir, "/", "_"))),
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			// testscript's HOME (/no-home) leaves benchsup without its
			// cache of test binaries, and every run of a script relinked
			// binaries the run before had linked. The cache's key holds
			// the directory, package, flags and environment, so a script
			// shares only with itself; a user's runs share the same way.
			env.Setenv("XDG_CACHE_HOME", cacheDir)
			// A script's commits are the same commits every run, so
			// that the revisions benchsup exports for --against are
			// found in that cache again, as a user's are.
			env.Setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
			env.Setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
			env.Setenv("BENCHSUP_SRC", srcDir)
			env.Values[scriptT{}] = env.T() // for requirelimits
			if err := backdate(env.WorkDir, time.Now().Add(-time.Hour)); err != nil {
				return err
			}
			if how == inLanes {
				// Setup runs on the goroutine that runs the script's
				// commands, and the lane is held until the script ends.
				_, release, err := takeLane()
				if err != nil {
					return err
				}
				env.Defer(release)
			}
			for k, v := range vals {
				env.Setenv(k, v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"outcome":        cmdOutcome,
			"dead":           cmdDead,
			"note":           cmdNote,
			"summary":        cmdSummary,
			"counted":        cmdCounted,
			"windows":        cmdWindows,
			"treehash":       cmdTreeHash,
			"provenance":     cmdProvenance,
			"layoutrecorded": cmdLayoutRecorded,
			"setupcount":     cmdSetupCount,
			"numbers":        cmdNumbers,
			"calibrated":     cmdCalibrated,
			"verdict":        cmdVerdict,
			"samenames":      cmdSameNames,
			"partition":      cmdPartition,
			"events":         cmdEvents,
			"sameidentities": cmdSameIdentities,
			"requirelimits":  cmdRequireLimits,
			"peak":           cmdPeak,
			"sweep":          cmdSweep,
			"variants":       cmdVariants,
			"recording":      cmdRecording,
		},
		Condition: condition,
	}
	testscript.Run(t, params)
}

// backdate sets the modification time of every file and directory below
// dir (a script's fixture, just written) to t, as a user's checkout is
// when they run benchsup: benchsup keeps no go command answer one of
// whose inputs changed in the 2 s before it asked (docs/design.md,
// "Remembered answers"), so without it no run of a script would reuse an
// answer; a file a script writes or edits later is new again and
// invalidates what depended on it, as a user's edit does.
func backdate(dir string, t time.Time) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(path, t, t)
	})
}

func readDoc(ts *testscript.TestScript, path string) rundoc.Document {
	var doc rundoc.Document
	if err := json.Unmarshal([]byte(ts.ReadFile(path)), &doc); err != nil {
		ts.Fatalf("%s: %v", path, err)
	}
	return doc
}

func findRow(ts *testscript.TestScript, doc rundoc.Document, name string) rundoc.Row {
	for _, r := range doc.Rows {
		if r.Name == name || (name == r.Package && r.Name == "") {
			return r
		}
	}
	ts.Fatalf("no row named %s", name)
	return rundoc.Row{}
}

// cmdOutcome: outcome FILE NAME CLASS [SUBSTRING] checks a row's outcome
// class and that its error or skip reason contains SUBSTRING. A benchmark
// with outcome ok must have samples from every process.
func cmdOutcome(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 || len(args) > 4 || neg {
		ts.Fatalf("usage: outcome FILE NAME CLASS [SUBSTRING]")
	}
	row := findRow(ts, readDoc(ts, args[0]), args[1])
	if string(row.Outcome) != args[2] {
		ts.Fatalf("%s: outcome %s, want %s (error: %v)", args[1], row.Outcome, args[2], deref(row.Error))
	}
	if len(args) == 4 {
		text := deref(row.Error) + deref(row.Skipped) + row.Output
		if !strings.Contains(text, args[3]) {
			ts.Fatalf("%s: %q does not mention %q", args[1], text, args[3])
		}
	}
	if row.Kind == "benchmark" && row.Outcome == "ok" {
		if row.Summary == nil || row.Summary.Samples == 0 || row.Summary.MedianNs <= 0 {
			ts.Fatalf("%s: ok without measurements: %+v", args[1], row.Summary)
		}
		for _, p := range row.Processes {
			if p.NsPerOp == nil || len(p.Samples) == 0 {
				ts.Fatalf("%s: process %d has no samples", args[1], p.Index)
			}
		}
	}
}

// cmdSummary: summary FILE NAME PROCESSES SAMPLES checks a benchmark row's
// process and sample counts.
func cmdSummary(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 || neg {
		ts.Fatalf("usage: summary FILE NAME PROCESSES SAMPLES")
	}
	row := findRow(ts, readDoc(ts, args[0]), args[1])
	procs, _ := strconv.Atoi(args[2])
	samples, _ := strconv.Atoi(args[3])
	if row.Summary == nil || row.Summary.Processes != procs || row.Summary.Samples != samples || len(row.Processes) != procs {
		ts.Fatalf("%s: summary %+v with %d processes, want %d processes and %d samples", args[1], row.Summary, len(row.Processes), procs, samples)
	}
	if procs > 1 && row.Summary.Interval == nil {
		ts.Fatalf("%s: several processes but no between-process spread", args[1])
	}
}

// cmdCounted: counted FILE NAME METRICS checks that each listed metric is a
// column of the document and that the row has, for it, either a value or
// an absence with a reason (an unavailable source's reason counts too):
// never a bare null, never a value for an unavailable source.
func cmdCounted(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: counted FILE NAME METRICS")
	}
	doc := readDoc(ts, args[0])
	row := findRow(ts, doc, args[1])
	if row.Summary == nil {
		ts.Fatalf("%s: no summary", args[1])
	}
	columns := map[string]rundoc.Column{}
	for _, c := range doc.Columns {
		columns[c.Name] = c
	}
	unavailable := map[string]string{}
	for _, s := range doc.Meta.Sources {
		if !s.Available {
			unavailable[s.Source] = s.Status
		}
	}
	for _, m := range strings.Split(args[2], ",") {
		col, ok := columns[m]
		if !ok {
			ts.Fatalf("%s is not a column of %s", m, args[0])
		}
		v, ok := row.Summary.Counted[m]
		if !ok {
			ts.Fatalf("%s: counted has no key %s", args[1], m)
		}
		reason := ""
		for _, a := range row.Absences {
			if a.Metric == m {
				reason = a.Reason
			}
		}
		switch {
		case v != nil && unavailable[col.Source] != "":
			ts.Fatalf("%s: %s = %v although %s is unavailable", args[1], m, *v, col.Source)
		case v != nil && *v < 0:
			ts.Fatalf("%s: %s = %v is negative", args[1], m, *v)
		case v == nil && reason == "":
			ts.Fatalf("%s: %s is null without a reason", args[1], m)
		case v != nil:
			ts.Logf("%s: %s = %v", args[1], m, *v)
		default:
			ts.Logf("%s: %s absent: %s", args[1], m, reason)
		}
	}
	if row.CountIterations == nil || *row.CountIterations <= 0 || row.CountMethod == "" {
		ts.Fatalf("%s: no counting iterations or method recorded", args[1])
	}
}

// cmdWindows: windows FILE NAME PROCESSES KIND checks the windows named
// NAME: one per process, and each shaped as KIND says: "sleep" (off CPU,
// in other), "cold" or "warm" (the regime stamped and achieved, and the
// file read from the disk only when cold).
func cmdWindows(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 || neg {
		ts.Fatalf("usage: windows FILE NAME PROCESSES KIND")
	}
	doc := readDoc(ts, args[0])
	procs, _ := strconv.Atoi(args[2])
	seen := map[int]bool{}
	for _, w := range doc.Windows {
		if w.Name != args[1] {
			continue
		}
		seen[w.Process] = true
		if w.WallNs <= 0 || w.OffCPUOtherNs == nil {
			ts.Fatalf("%s: unmeasured window %+v", w.Name, w)
		}
		switch kind := args[3]; kind {
		case "sleep":
			if w.OnCPUUserNs == nil || *w.OnCPUUserNs+*w.OnCPUKernelNs > w.WallNs/2 || *w.OffCPUOtherNs < w.WallNs/2 {
				ts.Fatalf("%s: a sleep is not off CPU in other: %+v", w.Name, w)
			}
		case "cold", "warm":
			if w.Regime == nil || w.Regime.Requested != kind {
				ts.Fatalf("%s: regime %+v, want %s requested", w.Name, w.Regime, kind)
			}
			rb, ok := w.Totals["tier0.read-bytes"]
			if w.Regime.Effective == "cold" && ok && rb < float64(w.Regime.TotalBytes)/2 {
				ts.Fatalf("%s: cold, yet read_bytes %v of %d", w.Name, rb, w.Regime.TotalBytes)
			}
			if w.Regime.Effective == "warm" && ok && rb > float64(w.Regime.TotalBytes)/4 {
				ts.Fatalf("%s: warm, yet read_bytes %v of %d", w.Name, rb, w.Regime.TotalBytes)
			}
			ts.Logf("%s (process %d): %s -> %s, read_bytes %v", w.Name, w.Process, w.Regime.Requested, w.Regime.Effective, rb)
		default:
			ts.Fatalf("unknown kind %s", kind)
		}
	}
	if len(seen) != procs {
		ts.Fatalf("%s: windows from %d processes, want %d", args[1], len(seen), procs)
	}
}

// cmdDead: dead DIR [FILE] checks that every process whose pid a fixture
// wrote to a file in DIR is gone (a zombie counts as gone: it runs nothing).
// A file named *.escaped holds a process that left its process group: only
// cgroup containment can catch it, so with FILE (the run's JSON document)
// saying the run had none, it is reported and not checked.
func cmdDead(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 || neg {
		ts.Fatalf("usage: dead DIR [FILE]")
	}
	cgroup := true
	if len(args) == 2 {
		doc := readDoc(ts, args[1])
		cgroup = doc.Meta.Containment == "cgroup"
		if !cgroup {
			ts.Logf("containment %q (%s): escaped processes are not checked", doc.Meta.Containment, doc.Meta.ContainmentNote)
		}
	}
	dir := ts.MkAbs(args[0])
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	if len(entries) == 0 {
		ts.Fatalf("no pid files in %s: the fixtures did not run", dir)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		ts.Check(err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		ts.Check(err)
		if strings.HasSuffix(e.Name(), ".escaped") && !cgroup {
			killEscaped(pid) // the fixture's own process: do not leave it behind
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone
		}
		// The state follows the parenthesized command name.
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			continue
		}
		ts.Fatalf("%s: process %d survived the run: %s", e.Name(), pid, stat)
	}
}

// cmdNote: note FILE NAME SUBSTRING checks that one of a row's notes
// contains SUBSTRING (! note: that none does).
func cmdNote(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: note FILE NAME SUBSTRING")
	}
	row := findRow(ts, readDoc(ts, args[0]), args[1])
	found := slices.ContainsFunc(row.Notes, func(n string) bool { return strings.Contains(n, args[2]) })
	if found == neg {
		ts.Fatalf("%s: notes %q: mention of %q is %v", args[1], row.Notes, args[2], found)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// cmdTreeHash: treehash DIR prints one hash of every path, mode and file
// content under DIR, so a script can prove a run left the user's tree
// byte-identical.
func cmdTreeHash(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: treehash DIR")
	}
	root := ts.MkAbs(args[0])
	h := sha256.New()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s\x00%v\x00", rel, info.Mode())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h.Write(data)
			n++
		}
		return nil
	})
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%x (%d files)\n", h.Sum(nil), n)
}

// cmdProvenance: provenance FILE PACKAGES [GOLINE] checks that the
// document proves, for each of PACKAGES packages, that the measured build
// is the plain go test build: equal go line, build list hash, GODEBUG
// default and toolchain, with the build list and toolchain really read;
// GOLINE, when given, is the go line every package must have.
func cmdProvenance(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 || neg {
		ts.Fatalf("usage: provenance FILE PACKAGES [GOLINE]")
	}
	pv := readDoc(ts, args[0]).Meta.Provenance
	n, _ := strconv.Atoi(args[1])
	if len(pv.Builds) != n {
		ts.Fatalf("provenance of %d packages, want %d: %+v", len(pv.Builds), n, pv.Builds)
	}
	if !strings.HasPrefix(pv.Toolchain, "go") {
		ts.Fatalf("no toolchain recorded: %+v", pv)
	}
	for _, b := range pv.Builds {
		if !b.Same || b.Plain != b.Measured || b.Note != "" {
			ts.Fatalf("%s: plain and measured builds differ: %+v", b.Package, b)
		}
		if !strings.HasPrefix(b.Plain.BuildList, "sha256:") || b.Plain.Modules < 1 || b.Plain.Toolchain != pv.Toolchain {
			ts.Fatalf("%s: build facts not read: %+v", b.Package, b.Plain)
		}
		if len(args) == 3 {
			if b.Plain.GoLine != args[2] {
				ts.Fatalf("%s: go line %q, want %q", b.Package, b.Plain.GoLine, args[2])
			}
		}
		ts.Logf("%s: go line %q, %d modules %s, GODEBUG %q, %s (%s)", b.Package, b.Plain.GoLine, b.Plain.Modules,
			b.Plain.BuildList[:15], b.Plain.DefaultGODEBUG, b.Plain.Toolchain, pv.Injection)
	}
}

// cmdLayoutRecorded: layoutrecorded FILE checks that each build of a
// run's document has its layout recorded beside its cached binary, with
// the layout the document gives: the record that spares the next run go
// test's build of the package (supervisor/layout.go).
func cmdLayoutRecorded(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: layoutrecorded FILE")
	}
	builds := readDoc(ts, args[0]).Meta.Provenance.Builds
	if len(builds) == 0 {
		ts.Fatalf("no builds in %s", args[0])
	}
	for _, b := range builds {
		if b.Binary == "" {
			ts.Fatalf("%s: no cached binary", b.Package)
		}
		data, err := os.ReadFile(b.Binary + ".layout")
		if err != nil {
			ts.Fatalf("%s: no layout record beside its binary: %v", b.Package, err)
		}
		var rec struct {
			Layout string `json:"layout"`
		}
		if err := json.Unmarshal(data, &rec); err != nil || rec.Layout != b.Layout {
			ts.Fatalf("%s: layout record %s (%v), want the document's layout %q", b.Package, data, err, b.Layout)
		}
	}
}

// cmdSetupCount: setupcount FILE NAME PREFIX COUNT checks that every
// process of the benchmark NAME ran its setup exactly COUNT times: the
// fixture appends a line per setup to PREFIX.<pid> (PREFIX a path whose
// last element names the benchmark's file).
func cmdSetupCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 || neg {
		ts.Fatalf("usage: setupcount FILE NAME PREFIX COUNT")
	}
	row := findRow(ts, readDoc(ts, args[0]), args[1])
	want, err := strconv.Atoi(args[3])
	ts.Check(err)
	if len(row.Processes) == 0 {
		ts.Fatalf("%s: no processes", args[1])
	}
	for _, p := range row.Processes {
		data, err := os.ReadFile(ts.MkAbs(args[2]) + "." + strconv.Itoa(p.PID))
		ts.Check(err)
		if n := strings.Count(string(data), "\n"); n != want {
			ts.Fatalf("%s: process %d (pid %d) ran its setup %d times, want %d", args[1], p.Index, p.PID, n, want)
		}
	}
}

// cmdNumbers: numbers FILE NAME UNIT LOW HIGH checks that the row's summary
// metric UNIT lies in [LOW, HIGH) and that every process's samples are
// exact.
func cmdNumbers(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 5 || neg {
		ts.Fatalf("usage: numbers FILE NAME UNIT LOW HIGH")
	}
	row := findRow(ts, readDoc(ts, args[0]), args[1])
	low, err := strconv.ParseFloat(args[3], 64)
	ts.Check(err)
	high, err := strconv.ParseFloat(args[4], 64)
	ts.Check(err)
	if row.Summary == nil || row.Summary.Metrics[args[2]] == nil {
		ts.Fatalf("%s: no %s", args[1], args[2])
	}
	if v := *row.Summary.Metrics[args[2]]; v < low || v >= high {
		ts.Fatalf("%s: %s = %v, want in [%v, %v)", args[1], args[2], v, low, high)
	}
	for _, p := range row.Processes {
		for _, s := range p.Samples {
			if !s.Exact {
				ts.Fatalf("%s: process %d has a sample rebuilt from the printed line", args[1], p.Index)
			}
		}
	}
}

// cmdCalibrated: calibrated FILE NAME exact|printed checks that the row was
// calibrated once, to the N every process measured, and whether its
// samples' totals are exact or rebuilt from testing's printed line.
func cmdCalibrated(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: calibrated FILE NAME exact|printed")
	}
	row := findRow(ts, readDoc(ts, args[0]), args[1])
	c := row.Calibration
	if c == nil || c.N <= 0 || len(c.Runs) < 3 || c.TargetNs <= 0 {
		ts.Fatalf("%s: not calibrated: %+v", args[1], c)
	}
	for _, p := range row.Processes {
		for _, s := range p.Samples {
			if s.Iterations != c.N {
				ts.Fatalf("%s: process %d measured N=%d, calibrated %d", args[1], p.Index, s.Iterations, c.N)
			}
			if s.Exact != (args[2] == "exact") {
				ts.Fatalf("%s: sample exact=%v, want %s", args[1], s.Exact, args[2])
			}
		}
	}
}
