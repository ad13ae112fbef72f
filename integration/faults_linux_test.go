//go:build linux

package integration

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/rundoc"
)

// A faultRun is what one run of benchsup under a host fault left.
type faultRun struct {
	pid            int    // benchsup's own (the wrappers exec it)
	events         string // its --events stream
	exit           int
	stdout, stderr string
	doc            *rundoc.Document // the --json document; nil if none was written
}

// runUnderFault runs benchsup in dir, through wrap (a command that must
// exec it, so that the pid is benchsup's), with env added to this
// process's, the document and the event stream written to files of their
// own (--json, --events), and during, if not nil, called with benchsup's
// pid and the event stream's path once it runs. It returns once benchsup
// and its reaper, which holds its stderr, have exited.
func runUnderFault(t *testing.T, dir string, wrap, env []string, during func(pid int, events string), args ...string) faultRun {
	t.Helper()
	out, events := filepath.Join(t.TempDir(), "run.json"), filepath.Join(t.TempDir(), "events")
	argv := append(append(wrap[:len(wrap):len(wrap)], filepath.Join(binDir, "benchsup"), "run", "--json="+out, "--events="+events), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		during(cmd.Process.Pid, events)
	}
	err := cmd.Wait()
	r := faultRun{pid: cmd.Process.Pid, events: events, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.Exited():
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("benchsup did not exit: %v\nstdout:\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Errorf("benchsup crashed:\n%s", r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		doc := readJSON[rundoc.Document](t, out)
		r.doc = &doc
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
	return r
}

// row finds the row of package pkg named name in the document, and checks
// that the table shows it too. With name "", it is the package's row that
// says what went wrong, if one does (test mode adds a verdict row, "fail",
// to a package's error row).
func (r faultRun) row(t *testing.T, pkg, name string) rundoc.Row {
	t.Helper()
	if r.doc == nil {
		t.Fatalf("no JSON document written")
	}
	match := func(row rundoc.Row) bool { return row.Package == pkg && row.Name == name }
	i := slices.IndexFunc(r.doc.Rows, func(row rundoc.Row) bool { return match(row) && row.Error != nil })
	if i < 0 {
		i = slices.IndexFunc(r.doc.Rows, match)
	}
	if i < 0 {
		t.Fatalf("no row %s %s in the document", pkg, name)
	}
	shown := name
	if shown == "" {
		shown = pkg
	}
	if !strings.Contains(r.stdout, shown) {
		t.Errorf("the table does not show %s:\n%s", shown, r.stdout)
	}
	return r.doc.Rows[i]
}

// measured checks that a row ran to its end: ok, and for a benchmark, with
// samples.
func measured(t *testing.T, row rundoc.Row) {
	t.Helper()
	if row.Outcome != "ok" {
		t.Errorf("%s %s: %s (%s), want ok", row.Package, row.Name, row.Outcome, deref(row.Error))
		return
	}
	if row.Kind == "benchmark" && (row.Summary == nil || row.Summary.Samples == 0) {
		t.Errorf("%s %s: ok without samples", row.Package, row.Name)
	}
}

// faulted checks that a row failed with outcome class (or one of the
// classes class lists, separated by |) and that what it says names the
// fault.
func faulted(t *testing.T, row rundoc.Row, class rundoc.Outcome, fault string) {
	t.Helper()
	text := deref(row.Error) + "\n" + row.Output
	if !slices.Contains(strings.Split(string(class), "|"), string(row.Outcome)) || !strings.Contains(text, fault) {
		t.Errorf("%s %s: %s (%s), want %s naming %q", row.Package, row.Name, row.Outcome, text, class, fault)
	}
}

// leftBehind lists what of run r is still there, polling for up to
// behaviourReapLimit (a survivor, not a slow exit on a busy host):
// processes whose environment carries the run's sandbox.EnvRun value (the
// go command, children without a cgroup, their descendants) or that are in
// the process group of a child its event stream names, the run's cgroups,
// and the entries of each of dirs (its TMPDIR, say) other than those named
// in keep.
func leftBehind(r faultRun, dirs []string, keep ...string) []string {
	marker := []byte("\x00BENCHSUP_RUN=benchsup-" + strconv.Itoa(r.pid) + "-")
	prefix := "benchsup-" + strconv.Itoa(r.pid) + "-"
	groups := map[string]bool{} // every child leads a process group of its own
	if data, err := os.ReadFile(r.events); err == nil {
		evs, _ := parseEvents(data)
		for _, e := range evs {
			if e.Kind == rundoc.EventProcessEnd && e.PID > 0 {
				groups[strconv.Itoa(e.PID)] = true
			}
		}
	}
	deadline := time.Now().Add(behaviourReapLimit)
	for {
		var left []string
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			n, _ := strconv.Atoi(filepath.Base(p))
			if dead(n) {
				continue
			}
			env, err := os.ReadFile(p + "/environ")
			if err == nil && bytes.Contains(append([]byte{0}, env...), marker) {
				left = append(left, "process "+p+" (its environment names the run)")
				continue
			}
			stat, _ := os.ReadFile(p + "/stat")
			// The process group is the third field after the command name.
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
				if f := strings.Fields(string(stat[i+1:])); len(f) > 2 && groups[f[2]] {
					left = append(left, "process "+p+" (in the process group of child "+f[2]+")")
				}
			}
		}
		if mnt := cgroup2Mount(); mnt != "" {
			filepath.WalkDir(mnt, func(path string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return nil
				}
				if strings.HasPrefix(d.Name(), prefix) {
					left = append(left, "cgroup "+path)
					return fs.SkipDir
				}
				if strings.Count(strings.TrimPrefix(path, mnt), "/") > 3 {
					return fs.SkipDir
				}
				return nil
			})
		}
		for _, dir := range dirs {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if !slices.Contains(keep, e.Name()) {
					left = append(left, filepath.Join(dir, e.Name()))
				}
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// nothingLeft fails t with whatever leftBehind finds.
func nothingLeft(t *testing.T, r faultRun, dirs []string, keep ...string) {
	t.Helper()
	if left := leftBehind(r, dirs, keep...); len(left) > 0 {
		t.Errorf("left behind by the run: %s", strings.Join(left, ", "))
	}
}

// nothingLeftIn fails t with left, what leftBehind found of run r in the
// mount namespace that held its TMPDIR, and with whatever of r's
// processes and cgroups leftBehind finds from here.
func nothingLeftIn(t *testing.T, r faultRun, left []string) {
	t.Helper()
	if len(left) > 0 {
		t.Errorf("left behind by the run: %s", strings.Join(left, ", "))
	}
	nothingLeft(t, r, nil)
}

// inMountNamespace calls fn on a thread of its own that has a private
// mount namespace, so that what fn mounts is seen only by it and by the
// processes it starts (a fork copies the forking thread's namespace), and
// is gone, with the thread, once fn and those processes have ended: no
// mount is ever left on the host. It skips t where the host allows no
// such namespace.
func inMountNamespace(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the runtime ends the thread with this goroutine,
		// and no other goroutine ever runs in its namespace.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			done <- fmt.Errorf("unshare: %w", err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			done <- fmt.Errorf("making mounts private: %w", err)
			return
		}
		fn()
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Skipf("no private mount namespace (needs CAP_SYS_ADMIN): %v", err)
	}
}

// mountTmpfs mounts a tmpfs of size bytes (options added) on a new
// directory of t's, in the calling thread's mount namespace.
func mountTmpfs(t *testing.T, size int, options string) (string, error) {
	dir := t.TempDir()
	data := "size=" + strconv.Itoa(size)
	if options != "" {
		data += "," + options
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, data); err != nil {
		return "", fmt.Errorf("mount tmpfs on %s: %w", dir, err)
	}
	return dir, nil
}

// waitForMeasured waits, for at most 2 minutes (a cold build of a
// fixture), until the event stream at path says that the first child of
// phase ("benchmark", "test") ended, and returns its event: a benchmark
// with one repetition, or a package's tests, are then measured (rows are
// written when the run ends, so their own events come too late).
func waitForMeasured(t *testing.T, path, phase string) (rundoc.Event, bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(path)
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			evs, err := parseEvents(data[:i+1])
			if err != nil {
				t.Errorf("%s: %v", path, err)
				return rundoc.Event{}, false
			}
			for _, e := range evs {
				if e.Kind == rundoc.EventProcessEnd && e.Phase == phase {
					return e, true
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("no %s child ended in %s after 2 minutes", phase, path)
	return rundoc.Event{}, false
}

// steps are the benchmarks of testdata/faults/steps, measured in order.
var steps = []string{"BenchmarkStep1", "BenchmarkStep2", "BenchmarkStep3", "BenchmarkStep4", "BenchmarkStep5", "BenchmarkStep6"}

// stepsArgs measure testdata/faults/steps briefly, one process each.
var stepsArgs = []string{"--bench", "--repetitions=1", "--sample-time=10ms", "--metrics=none", "./..."}

// checkSteps checks the run of testdata/faults/steps that a fault struck
// after its first result: that row measured, in the table and the JSON;
// each later row either measured too (it ran before the fault bit) or
// failed with an outcome naming fault, and at least one did; exit status
// 1 (a row failed) with no stack trace.
func checkSteps(t *testing.T, r faultRun, class rundoc.Outcome, fault string) {
	t.Helper()
	measured(t, r.row(t, "example.com/steps", steps[0]))
	failed := 0
	for _, name := range steps[1:] {
		row := r.row(t, "example.com/steps", name)
		if row.Outcome == "ok" {
			if failed > 0 {
				t.Errorf("%s measured after an earlier row failed with the fault in place", name)
			}
			measured(t, row)
			continue
		}
		failed++
		faulted(t, row, class, fault)
	}
	if failed == 0 {
		t.Errorf("no row failed: the fault did not strike")
	}
	if r.exit != 1 {
		t.Errorf("exit status %d, want 1 (rows failed)", r.exit)
	}
}

// checkPkgs checks the run of testdata/faults/pkgs: each of its ten
// packages either ran its test or says, in a row of its own, that it
// failed with outcome class naming fault. It returns how many failed.
func checkPkgs(t *testing.T, r faultRun, class rundoc.Outcome, fault string) int {
	t.Helper()
	failed := 0
	for i := 1; i <= 10; i++ {
		pkg := "example.com/pkgs/p" + strconv.Itoa(i)
		if row := r.row(t, pkg, ""); row.Error != nil {
			failed++
			faulted(t, row, class, fault)
			continue
		}
		measured(t, r.row(t, pkg, "TestOK"))
	}
	return failed
}

// testFaults breaks the host under a run as a shared host breaks: a full
// temporary directory, too few descriptors, fork failing, a read-only
// module cache. Each ends in a clear error: one line on stderr when
// nothing could be measured, otherwise the rows measured before the fault
// in the table and the JSON document and the rows that could not run
// naming the fault. None leaves a process, a cgroup or a temporary file.
func testFaults(t *testing.T) {
	endToEnd(t)
	if os.Geteuid() != 0 {
		t.Skip("injecting host faults (mounts, cgroups, limits) needs root")
	}

	t.Run("full TMPDIR before the build", func(t *testing.T) {
		t.Parallel()
		mod := fixtureModule(t, "faults/steps")
		var r faultRun
		var tmp string
		var left []string
		inMountNamespace(t, func() {
			var err error
			// Room for nothing benchsup writes before building.
			if tmp, err = mountTmpfs(t, 16<<10, ""); err != nil {
				t.Errorf("%v", err)
				return
			}
			defer unix.Unmount(tmp, unix.MNT_DETACH)
			r = runUnderFault(t, mod, nil, []string{"TMPDIR=" + tmp}, nil, "--bench", "./...")
			left = leftBehind(r, []string{tmp})
		})
		if tmp == "" {
			return
		}
		lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
		last := lines[len(lines)-1]
		if r.exit == 0 || !strings.HasPrefix(last, "benchsup: ") || !strings.Contains(last, "no space left on device") || !strings.Contains(last, tmp) {
			t.Errorf("exit %d, stderr ends %q: want a non-zero exit and one line `benchsup: ...` naming %s and the full disk", r.exit, last, tmp)
		}
		nothingLeftIn(t, r, left)
	})

	t.Run("full TMPDIR mid-run", func(t *testing.T) {
		t.Parallel()
		mod := fixtureModule(t, "faults/fill")
		var tests, benchmarks faultRun
		var leftTests, leftBenchmarks []string
		inMountNamespace(t, func() {
			// Room for the build of the fixture's test binaries (a few MB
			// each); package a's test fills the rest.
			tmp, err := mountTmpfs(t, 48<<20, "")
			if err != nil {
				t.Errorf("%v", err)
				return
			}
			defer unix.Unmount(tmp, unix.MNT_DETACH)
			env := []string{"TMPDIR=" + tmp}
			// One package at a time, so b and c run after a filled the disk.
			tests = runUnderFault(t, mod, nil, env, nil, "-v", "-p", "1", "./...")
			leftTests = leftBehind(tests, []string{tmp}, "fill")
			os.Remove(filepath.Join(tmp, "fill"))
			benchmarks = runUnderFault(t, mod, nil, env, nil, "--bench", "--repetitions=2", "--sample-time=10ms", "--metrics=none", "./...")
			leftBenchmarks = leftBehind(benchmarks, []string{tmp}, "fill")
		})
		if tests.pid == 0 {
			return
		}
		t.Run("tests", func(t *testing.T) {
			measured(t, tests.row(t, "example.com/fill/a", "TestFill"))
			// The children cannot write testing's log in the full TMPDIR:
			// the package rows name the full disk, not the code under
			// test, and a test after the fill either has its result (the
			// worker read it) or says it has none because of the fault.
			for _, id := range [][2]string{{"example.com/fill/a", "TestLater"}, {"example.com/fill/b", "TestAfter"}, {"example.com/fill/c", "TestAfter"}} {
				if row := tests.row(t, id[0], id[1]); row.Outcome == "ok" {
					measured(t, row)
				} else {
					faulted(t, row, "parent-io", "no space left on device")
				}
				faulted(t, tests.row(t, id[0], ""), "parent-io", "no space left on device")
			}
			if tests.exit != 1 {
				t.Errorf("exit status %d, want 1", tests.exit)
			}
			nothingLeftIn(t, tests, leftTests)
		})
		t.Run("benchmarks", func(t *testing.T) {
			// A benchmark's children write nothing in TMPDIR once the
			// binary is built: the run proceeds on a full disk.
			measured(t, benchmarks.row(t, "example.com/fill/a", "BenchmarkAFill"))
			measured(t, benchmarks.row(t, "example.com/fill/a", "BenchmarkB"))
			if benchmarks.exit != 0 {
				t.Errorf("exit status %d, want 0", benchmarks.exit)
			}
			nothingLeftIn(t, benchmarks, leftBenchmarks)
		})
	})

	t.Run("ulimit -n 64", func(t *testing.T) {
		t.Parallel()
		prlimit, err := exec.LookPath("prlimit")
		if err != nil {
			t.Skip("no prlimit (util-linux) to start benchsup with a descriptor limit")
		}
		mod := fixtureModule(t, "faults/pkgs")
		tmp := t.TempDir()
		// Ten packages at once, each a build and a child with its pipes:
		// more descriptors than 64. Which packages get them is a race.
		r := runUnderFault(t, mod, []string{prlimit, "--nofile=64:64", "--"}, []string{"TMPDIR=" + tmp}, nil, "-v", "-p", "10", "./...")
		if r.doc == nil {
			t.Fatal("no JSON document written")
		}
		failed := checkPkgs(t, r, "build-failure|parent-io", "too many open files")
		t.Logf("%d of 10 packages failed for want of descriptors", failed)
		if (failed > 0) != (r.exit == 1) || r.exit > 1 {
			t.Errorf("exit status %d with %d failed packages", r.exit, failed)
		}
		nothingLeft(t, r, []string{tmp})
	})

	t.Run("descriptors run out mid-run", func(t *testing.T) {
		t.Parallel()
		mod := fixtureModule(t, "faults/steps")
		tmp := t.TempDir()
		r := runUnderFault(t, mod, nil, []string{"TMPDIR=" + tmp}, func(pid int, events string) {
			if _, ok := waitForMeasured(t, events, "benchmark"); !ok {
				return
			}
			// The limit bounds a descriptor's number, not how many are
			// open, and an open takes the lowest free number. A limit of
			// 3 keeps stdin, stdout and stderr and fails every new
			// descriptor: a limit at the lowest free number, set while a
			// child's pipes are open, is above the numbers the next spawn
			// reuses once they close, and the fault never strikes.
			lim := unix.Rlimit{Cur: 3, Max: 3}
			if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
				t.Errorf("prlimit: %v", err)
			}
		}, stepsArgs...)
		checkSteps(t, r, "parent-io", "too many open files")
		nothingLeft(t, r, []string{tmp})
	})

	t.Run("fork failing", func(t *testing.T) {
		t.Parallel()
		mod := fixtureModule(t, "faults/steps")
		tmp := t.TempDir()
		r, _ := underPidsLimit(t, mod, tmp, "benchmark", stepsArgs...)
		// A spawn the kernel refused is benchsup's side failing
		// (parent-io); a child that got its process but not its threads
		// exits, and the row says the host refused it a thread.
		checkSteps(t, r, "parent-io|exit", "resource temporarily unavailable")
		nothingLeft(t, r, []string{tmp})
	})

	t.Run("fork failing in test mode", func(t *testing.T) {
		t.Parallel()
		mod := fixtureModule(t, "faults/pkgs")
		tmp := t.TempDir()
		// One package at a time: the fault strikes after the first.
		r, first := underPidsLimit(t, mod, tmp, "test", "-v", "-p", "1", "./...")
		if first.Package == "" {
			return
		}
		measured(t, r.row(t, first.Package, "TestOK"))
		if checkPkgs(t, r, "parent-io|exit|build-failure", "resource temporarily unavailable") == 0 {
			t.Errorf("no package failed: the fault did not strike")
		}
		if r.exit != 1 {
			t.Errorf("exit status %d, want 1 (rows failed)", r.exit)
		}
		nothingLeft(t, r, []string{tmp})
	})

	t.Run("module cache read-only", func(t *testing.T) {
		t.Parallel()
		mod := fixtureModule(t, "faults/rocache")
		proxy := depProxy(t)
		tmp := t.TempDir()
		var r faultRun
		var cache string
		inMountNamespace(t, func() {
			var err error
			// An empty cache nobody, root included, can write.
			if cache, err = mountTmpfs(t, 1<<20, "ro"); err != nil {
				t.Errorf("%v", err)
				return
			}
			defer unix.Unmount(cache, unix.MNT_DETACH)
			env := []string{"GOMODCACHE=" + cache, "GOPROXY=file://" + proxy, "GOSUMDB=off", "GOFLAGS=-mod=mod", "TMPDIR=" + tmp}
			r = runUnderFault(t, mod, nil, env, nil, "--bench", "--repetitions=2", "--sample-time=10ms", "--metrics=none", "./...")
		})
		if cache == "" {
			return
		}
		// What needs nothing from the cache runs; what needs a download
		// is a build failure with the go command's reason and the path.
		measured(t, r.row(t, "example.com/rocache/plain", "BenchmarkPlain"))
		faulted(t, r.row(t, "example.com/rocache/usesdep", ""), "build-failure", "mkdir "+cache)
		faulted(t, r.row(t, "example.com/rocache/usesdep", ""), "build-failure", "read-only file system")
		if r.exit != 1 {
			t.Errorf("exit status %d, want 1", r.exit)
		}
		nothingLeft(t, r, []string{tmp})
	})

	t.Run("module cache read-only with dependencies in it", func(t *testing.T) {
		t.Parallel()
		mod := fixtureModule(t, "faults/rocache")
		cache, tmp := t.TempDir(), t.TempDir()
		env := []string{"GOMODCACHE=" + cache, "GOPROXY=file://" + depProxy(t), "GOSUMDB=off", "GOFLAGS=-mod=mod", "TMPDIR=" + tmp}
		dl := exec.Command("go", "mod", "download")
		dl.Dir, dl.Env = mod, append(os.Environ(), env...)
		if out, err := dl.CombinedOutput(); err != nil {
			t.Fatalf("go mod download: %v\n%s", err, out)
		}
		var r faultRun
		mounted := false
		inMountNamespace(t, func() {
			// The cache as it is, bound read-only over itself: benchsup
			// writes nothing there, so the run needs nothing written.
			if err := unix.Mount(cache, cache, "", unix.MS_BIND, ""); err != nil {
				t.Errorf("bind %s: %v", cache, err)
				return
			}
			defer unix.Unmount(cache, unix.MNT_DETACH)
			if err := unix.Mount("", cache, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
				t.Errorf("remount %s read-only: %v", cache, err)
				return
			}
			mounted = true
			r = runUnderFault(t, mod, nil, env, nil, "--bench", "--repetitions=2", "--sample-time=10ms", "--metrics=none", "./...")
		})
		if !mounted {
			return
		}
		measured(t, r.row(t, "example.com/rocache/plain", "BenchmarkPlain"))
		measured(t, r.row(t, "example.com/rocache/usesdep", "BenchmarkDep"))
		if r.exit != 0 {
			t.Errorf("exit status %d, want 0", r.exit)
		}
		nothingLeft(t, r, []string{tmp})
	})
}

// depProxy serves example.com/dep v1.0.0, which testdata/faults/rocache
// requires, from a file proxy.
func depProxy(t *testing.T) string {
	return fileProxy(t, "example.com/dep", "v1.0.0", map[string]string{
		"go.mod": "module example.com/dep\n\ngo 1.22\n",
		"dep.go": "package dep\n\nfunc Double(x int) int { return 2 * x }\n",
	})
}

// underPidsLimit runs benchsup with args in mod, in a pids cgroup of its
// own, and once its event stream says the first child of phase
// ended, lowers the cgroup's pids.max to the tasks benchsup and its reaper
// have then: no new child and no new thread of theirs. It skips t where
// no pids cgroup can be made. It returns the run and the event.
func underPidsLimit(t *testing.T, mod, tmp, phase string, args ...string) (faultRun, rundoc.Event) {
	t.Helper()
	cg, err := pidsCgroup(t)
	if err != nil {
		t.Skipf("no writable pids cgroup to limit benchsup in: %v", err)
	}
	// The shell enters the cgroup and execs benchsup: everything of the
	// run is counted in it.
	wrap := []string{"sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cg}
	var first rundoc.Event
	r := runUnderFault(t, mod, wrap, []string{"TMPDIR=" + tmp}, func(pid int, events string) {
		var ok bool
		if first, ok = waitForMeasured(t, events, phase); !ok {
			return
		}
		// pids.current would also count a child still exiting.
		procs, err := os.ReadFile(filepath.Join(cg, "cgroup.procs"))
		tasks := 0
		for _, f := range strings.Fields(string(procs)) {
			if exe, _ := os.Readlink("/proc/" + f + "/exe"); exe == filepath.Join(binDir, "benchsup") {
				threads, _ := os.ReadDir("/proc/" + f + "/task")
				tasks += len(threads)
			}
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(cg, "pids.max"), []byte(strconv.Itoa(tasks)), 0)
		}
		if err != nil {
			t.Errorf("lowering pids.max: %v", err)
		}
		t.Logf("pids.max lowered to %d after %s's child ended", tasks, first.Package)
	}, args...)
	return r, first
}

// pidsCgroup makes a pids cgroup of its own for t (v1 where the host has
// the controller mounted there, or a cgroup2 with pids enabled), removed
// when t ends, once whatever was in it has exited.
func pidsCgroup(t *testing.T) (string, error) {
	var parent string
	if _, err := os.Stat("/sys/fs/cgroup/pids/cgroup.procs"); err == nil {
		parent = "/sys/fs/cgroup/pids"
	} else if mnt := cgroup2Mount(); mnt != "" {
		ctl, _ := os.ReadFile(filepath.Join(mnt, "cgroup.subtree_control"))
		if !strings.Contains(string(ctl), "pids") {
			return "", errors.New("no v1 pids hierarchy at /sys/fs/cgroup/pids and pids not enabled in " + mnt)
		}
		parent = mnt
	} else {
		return "", errors.New("no pids controller mounted")
	}
	dir := filepath.Join(parent, fmt.Sprintf("benchsup-faults-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "pids.max")); err != nil {
		unix.Rmdir(dir)
		return "", err
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			err := unix.Rmdir(dir)
			if err == nil || errors.Is(err, fs.ErrNotExist) {
				return
			}
			if time.Now().After(deadline) {
				procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
				t.Errorf("removing the cgroup %s: %v (processes: %q)", dir, err, procs)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	return dir, nil
}

// fileProxy writes a module proxy (GOPROXY=file://DIR) serving one module
// version with the given files, and returns DIR.
func fileProxy(t *testing.T, path, version string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	at := filepath.Join(dir, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, body := range files {
		w, err := zw.Create(path + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"list":            version + "\n",
		version + ".info": `{"Version":"` + version + `","Time":"2024-01-01T00:00:00Z"}`,
		version + ".mod":  files["go.mod"],
		version + ".zip":  zbuf.String(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
