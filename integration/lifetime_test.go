//go:build linux

package integration

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lifetimeModule is a fixture whose test starts grandchildren of every kind
// and then waits to be killed: a plain child, a shell with its own child,
// a daemon in a session of its own (setsid), which a cgroup holds or,
// without one, the environment it inherited (sandbox.EnvRun), and a daemon
// that also cleared its environment, which only a cgroup holds. Each writes
// its pid to $PIDDIR; "ready" says all of them are running.
var lifetimeModule = map[string]string{
	"go.mod": "module example.com/lifetime\n\ngo 1.22\n",
	"life_test.go": `package lifetime

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func record(t *testing.T, name string, pid int) {
	dir := os.Getenv("PIDDIR")
	tmp := filepath.Join(dir, "."+name)
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, name string, sys *syscall.SysProcAttr, env []string, args ...string) {
	c := exec.Command(args[0], args[1:]...)
	c.SysProcAttr = sys
	c.Env = env
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	record(t, name, c.Process.Pid)
}

func TestLeaveEverythingRunning(t *testing.T) {
	record(t, "root", os.Getpid())
	start(t, "child", nil, nil, "sleep", "300")
	start(t, "daemon", &syscall.SysProcAttr{Setsid: true}, nil, "sleep", "300")
	start(t, "daemon-noenv", &syscall.SysProcAttr{Setsid: true}, []string{}, "sleep", "300")
	start(t, "shell", nil, nil, "sh", "-c", "sleep 300 & echo $! > \"$PIDDIR/.grandchild\" && mv \"$PIDDIR/.grandchild\" \"$PIDDIR/grandchild\"; wait")
	for {
		if _, err := os.Stat(filepath.Join(os.Getenv("PIDDIR"), "grandchild")); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	os.WriteFile(filepath.Join(os.Getenv("PIDDIR"), "ready"), nil, 0o644)
	time.Sleep(5 * time.Minute)
}
`,
}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := fixtureDir(t)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// benchsupCmd runs the built benchsup in dir with TMPDIR set to tmp, so
// that its scratch directory can be watched; through the command wrap, if
// any, which must exec it.
func benchsupCmd(dir, tmp string, wrap []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	argv := append(append(wrap[:len(wrap):len(wrap)], filepath.Join(binDir, "benchsup")), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// dead reports whether pid has exited: gone, or a zombie its new parent
// has not reaped yet.
func dead(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && bytes.HasPrefix(stat[i+1:], []byte(" Z"))
}

// cgroupOf returns the directory of pid's cgroup v2, or "" when it has none
// this process can find.
func cgroupOf(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rel, ok := strings.CutPrefix(line, "0::"); ok {
			if mnt := cgroup2Mount(); mnt != "" {
				return filepath.Join(mnt, rel)
			}
		}
	}
	return ""
}

// cgroup2Mount returns where the cgroup2 hierarchy is mounted, "" if it is
// not (only a root mount of it is considered: what CI and most hosts have).
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields := strings.Fields(pre)
		if ok && strings.HasPrefix(post, "cgroup2 ") && len(fields) >= 5 && fields[3] == "/" {
			return fields[4]
		}
	}
	return ""
}

func readPid(t *testing.T, dir, name string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// scratchDirs lists benchsup's scratch directories in tmp.
func scratchDirs(tmp string) []string {
	matches, _ := filepath.Glob(filepath.Join(tmp, "benchsup-*"))
	return matches
}

// testSupervisorKilled kills benchsup with SIGKILL while a test it runs has
// grandchildren of every kind, and checks that within limit no process of
// the run is left, nor its cgroup, nor its scratch directory: as the host
// is (a cgroup per child where cgroup2 is writable), and again with the
// cgroup2 hierarchy read-only (process groups only), where a host allows a
// private mount namespace.
func testSupervisorKilled(t *testing.T, limit time.Duration) {
	endToEnd(t)
	// One copy for both cases, one after the other: the go command
	// compiles the injected worker once per module directory.
	mod := writeModule(t, lifetimeModule)
	t.Run("host", func(t *testing.T) { killSupervisor(t, mod, nil, limit) })
	t.Run("process groups only", func(t *testing.T) {
		mnt := cgroup2Mount()
		if mnt == "" {
			t.Skip("no cgroup2 mounted: the host case ran with process groups only")
		}
		// exec keeps the pid: the SIGKILL reaches benchsup itself.
		wrap := []string{"unshare", "--mount", "--propagation", "private", "sh", "-c", `mount -o remount,bind,ro "$0" && exec "$@"`, mnt}
		if out, err := exec.Command(wrap[0], append(wrap[1:], "true")...).CombinedOutput(); err != nil {
			t.Skipf("cannot make cgroup2 read-only in a private mount namespace (needs root and unshare): %v %s", err, out)
		}
		killSupervisor(t, mod, wrap, limit)
	})
}

func killSupervisor(t *testing.T, mod string, wrap []string, limit time.Duration) {
	pids, tmp := t.TempDir(), t.TempDir()
	cmd, out := benchsupCmd(mod, tmp, wrap, "run", "--env-set=PIDDIR="+pids, "--timeout=2m", "--test-timeout=2m", "./...")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	defer func() {
		if !reaped {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	deadline := time.Now().Add(90 * time.Second) // a cold build of the fixture
	for {
		if _, err := os.Stat(filepath.Join(pids, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fixture never got ready; benchsup said:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	names := []string{"root", "child", "shell", "grandchild", "daemon", "daemon-noenv"}
	pid := map[string]int{}
	for _, n := range names {
		pid[n] = readPid(t, pids, n)
	}
	cg := cgroupOf(pid["root"])
	contained := strings.Contains(filepath.Base(cg), "benchsup-")
	if wrap != nil && contained {
		t.Fatalf("the child is in the cgroup %s although cgroup2 is read-only", cg)
	}
	if len(scratchDirs(tmp)) == 0 {
		t.Fatalf("no scratch directory in TMPDIR=%s while running", tmp)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	left := leftAfter(killed, limit, func() (left []string) {
		for _, n := range names {
			if n == "daemon-noenv" && !contained {
				continue
			}
			if !dead(pid[n]) {
				left = append(left, fmt.Sprintf("%s (pid %d)", n, pid[n]))
			}
		}
		if contained {
			if _, err := os.Stat(cg); !errors.Is(err, fs.ErrNotExist) {
				left = append(left, "the cgroup "+cg)
			}
		}
		return append(left, scratchDirs(tmp)...)
	})
	if len(left) > 0 {
		t.Errorf("%v after benchsup was killed, still there: %s", limit, strings.Join(left, ", "))
	} else {
		t.Logf("everything of the run was gone %v after the SIGKILL", time.Since(killed).Round(time.Millisecond))
	}
	cmd.Wait() // returns once the reaper, which shares its stderr, is done
	reaped = true
	t.Run("setsid daemon with a cleared environment", func(t *testing.T) {
		if !contained {
			syscall.Kill(pid["daemon-noenv"], syscall.SIGKILL) // not ours to leave behind
			t.Skipf("no cgroup for the child (its cgroup is %q): a daemon that left its process group and cleared its environment cannot be found after the supervisor's death", cg)
		}
		if !dead(pid["daemon-noenv"]) {
			t.Errorf("daemon %d survived", pid["daemon-noenv"])
		}
	})
}

// testStaleRemoved fabricates what a run killed before its reaper could
// act leaves (a scratch directory and a cgroup with a process still in it,
// named after an owner that is dead) next to a live run's, and checks that
// the next run removes the first and keeps the second.
func testStaleRemoved(t *testing.T) {
	endToEnd(t)
	tmp := t.TempDir()
	// A dead owner: a process that has exited, with the start time it had.
	ghost := exec.Command("true")
	if err := ghost.Start(); err != nil {
		t.Fatal(err)
	}
	ghostStart := startTimeOf(t, ghost.Process.Pid) // a zombie until waited for
	ghost.Wait()
	var ns syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/pid", &ns); err != nil {
		t.Skipf("no pid namespace in /proc: %v", err)
	}
	staleName := fmt.Sprintf("benchsup-%d-%d-%d-1", ghost.Process.Pid, ghostStart, ns.Ino)
	liveName := fmt.Sprintf("benchsup-%d-%d-%d-1", os.Getpid(), startTimeOf(t, os.Getpid()), ns.Ino)
	for _, name := range []string{staleName, liveName} {
		if err := os.MkdirAll(filepath.Join(tmp, name, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	var cgStale, cgLive string
	var inStale *exec.Cmd
	var wrap []string
	if parent := cgroupOf(os.Getpid()); parent != "" {
		// A cgroup of the test's own, with benchsup in it: a run sweeps
		// the stale cgroups beside its own, and the runs of the tests
		// beside this one (and of other packages' tests) would remove
		// the fabricated one first. The name is no run's.
		own := filepath.Join(parent, fmt.Sprintf("stale-removed-test-%d", os.Getpid()))
		if err := os.Mkdir(own, 0o755); err != nil {
			t.Logf("no cgroup of the test's own: %v", err)
		} else {
			defer rmdirWhenEmpty(t, own)
			cgStale, cgLive = filepath.Join(own, staleName), filepath.Join(own, liveName)
			wrap = []string{"sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, own}
			if err := os.Mkdir(cgStale, 0o755); err != nil {
				t.Logf("no stale cgroup: %v", err)
				cgStale, cgLive, wrap = "", "", nil
			} else if err := os.Mkdir(cgLive, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cgStale != "" {
		defer syscall.Rmdir(cgLive)
		defer syscall.Rmdir(cgStale)
		inStale = exec.Command("sleep", "300")
		if err := inStale.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			inStale.Process.Kill()
			inStale.Wait()
		}()
		if err := os.WriteFile(filepath.Join(cgStale, "cgroup.procs"), []byte(strconv.Itoa(inStale.Process.Pid)), 0); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Log("no writable cgroup2: only the scratch directory is checked")
	}

	mod := writeModule(t, map[string]string{
		"go.mod":    "module example.com/quick\n\ngo 1.22\n",
		"q_test.go": "package quick\n\nimport \"testing\"\n\nfunc TestQuick(t *testing.T) {}\n",
	})
	cmd, out := benchsupCmd(mod, tmp, wrap, "run", "-v", "--test-timeout=20s", "./...")
	if err := cmd.Run(); err != nil {
		t.Fatalf("benchsup: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, staleName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dead run's scratch directory: %v, want it removed", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, liveName)); err != nil {
		t.Errorf("the live run's scratch directory: %v, want it kept", err)
	}
	if !strings.Contains(out.String(), "benchsup: removed the directory "+filepath.Join(tmp, staleName)+" of dead run") {
		t.Errorf("-v output does not say the directory was removed:\n%s", out)
	}
	if cgStale == "" {
		return
	}
	if _, err := os.Stat(cgStale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dead run's cgroup: %v, want it removed", err)
	}
	if _, err := os.Stat(cgLive); err != nil {
		t.Errorf("the live run's cgroup: %v, want it kept", err)
	}
	err := inStale.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the process left in the dead run's cgroup ended with %v, want SIGKILL", err)
	}
	if !strings.Contains(out.String(), "killing the process left in it") {
		t.Errorf("-v output does not say a process was killed:\n%s", out)
	}
}

// rmdirWhenEmpty removes the cgroup dir once the processes that were in
// it (benchsup's reaper ends after benchsup) have gone, waiting up to a
// minute.
func rmdirWhenEmpty(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := syscall.Rmdir(dir)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the test's cgroup %s: %v", dir, err)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startTimeOf reads field 22 of /proc/PID/stat.
func startTimeOf(t *testing.T, pid int) uint64 {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	v, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// testSupervisorKilledWhileBuilding kills benchsup while the go command it
// started is building: a -toolexec wrapper stands for a compiler that
// takes its time. The go command and the wrapper are gone within limit
// too (they carry the run's sandbox.EnvRun).
func testSupervisorKilledWhileBuilding(t *testing.T, limit time.Duration) {
	endToEnd(t)
	mod := writeModule(t, map[string]string{
		"go.mod":    "module example.com/slowbuild\n\ngo 1.22\n",
		"s_test.go": "package slowbuild\n\nimport \"testing\"\n\nfunc TestS(t *testing.T) {}\n",
	})
	pids, tmp := t.TempDir(), t.TempDir()
	tool := filepath.Join(t.TempDir(), "slowtool")
	script := "#!/bin/sh\necho $PPID > " + pids + "/.go.$$ && mv " + pids + "/.go.$$ " + pids + "/go.$$\necho $$ > " + pids + "/.tool.$$ && mv " + pids + "/.tool.$$ " + pids + "/tool.$$\nexec sleep 300\n"
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, out := benchsupCmd(mod, tmp, nil, "run", "--test-timeout=20s", "./...")
	cmd.Env = append(cmd.Env, "GOFLAGS=-toolexec="+tool)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	var files []string
	deadline := time.Now().Add(60 * time.Second)
	for len(files) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the go command never ran the tool; benchsup said:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
		files, _ = filepath.Glob(filepath.Join(pids, "tool.*"))
	}
	time.Sleep(100 * time.Millisecond) // let parallel tool runs start too
	files, _ = filepath.Glob(filepath.Join(pids, "[gt]o*.*"))
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	left := leftAfter(killed, limit, func() (left []string) {
		for _, f := range files {
			if p := readPid(t, pids, filepath.Base(f)); !dead(p) {
				left = append(left, fmt.Sprintf("%s (pid %d)", filepath.Base(f), p))
			}
		}
		return append(left, scratchDirs(tmp)...)
	})
	if len(left) > 0 {
		t.Errorf("%v after benchsup was killed during the build, still there: %s", limit, strings.Join(left, ", "))
	} else {
		t.Logf("%d build processes gone %v after the SIGKILL", len(files), time.Since(killed).Round(time.Millisecond))
	}
}

// leftAfter polls still until it finds nothing left or limit has passed
// since killed, and returns what it found last.
func leftAfter(killed time.Time, limit time.Duration, still func() []string) []string {
	for {
		left := still()
		if len(left) == 0 || time.Since(killed) > limit {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}
