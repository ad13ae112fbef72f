//go:build linux

package sandbox

import (
	"bufio"
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

// family starts a shell leading its own process group, with a background
// grandchild; it returns the shell and the grandchild's pid.
func family(t *testing.T) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run sh: %v", err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return cmd, pid
}

// gone reports whether pid has exited (a zombie nobody reaped counts),
// waiting up to within for it.
func gone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func mustBeAlive(t *testing.T, pid int) {
	t.Helper()
	if gone(pid, 0) {
		t.Errorf("pid %d was killed; it was not the reaper's to kill", pid)
	}
}

func TestRegistry(t *testing.T) {
	killed, grandchild := family(t)
	reused, _ := family(t)    // registered with another start time
	forgotten, _ := family(t) // registered, then deregistered
	start := func(pid int) uint64 {
		s, err := startTime("/proc", pid)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tmp := t.TempDir()
	removed := filepath.Join(tmp, "scratch")
	kept := filepath.Join(tmp, "kept")
	for _, d := range []string{removed, kept} {
		if err := os.MkdirAll(filepath.Join(d, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	group := func(c *exec.Cmd, start uint64) string {
		return strconv.Quote(fmt.Sprintf("%d %d", c.Process.Pid, start))
	}
	lines := []string{
		"+pgrp " + group(killed, start(killed.Process.Pid)),
		"+pgrp " + group(reused, start(reused.Process.Pid)+1),
		"+pgrp " + group(forgotten, start(forgotten.Process.Pid)),
		"-pgrp " + group(forgotten, start(forgotten.Process.Pid)),
		"+remove " + strconv.Quote(removed),
		"+remove " + strconv.Quote(kept),
		"-remove " + strconv.Quote(kept),
		"+cgroup " + strconv.Quote(filepath.Join(tmp, "no-such-cgroup")), // gone already: no problem
		"garbage",
		"+remove unquoted",
	}
	var reg registry
	for _, l := range lines {
		reg.apply(l)
	}
	problems := reg.cleanup()
	if len(problems) != 2 || !strings.Contains(problems[0], "garbage") || !strings.Contains(problems[1], "unquoted") {
		t.Errorf("problems %q, want the two unreadable lines", problems)
	}
	killedBy(t, killed, 2*time.Second)
	if !gone(grandchild, 2*time.Second) {
		t.Errorf("grandchild %d of the registered group survived", grandchild)
	}
	mustBeAlive(t, reused.Process.Pid)
	mustBeAlive(t, forgotten.Process.Pid)
	if _, err := os.Stat(removed); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("registered path: %v, want removed", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("deregistered path: %v", err)
	}
}

// TestReaperProcess runs the real reaper (this test binary, through
// TestMain) and ends the pipe with everything still registered, as a
// supervisor killed with SIGKILL does.
func TestReaperProcess(t *testing.T) {
	// Started before the reaper, so without its EnvRun: only the
	// registration could get it killed, and it is withdrawn.
	done, _ := family(t)
	r, err := StartReaper(ReaperArg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if current.Load() == r {
			r.Close()
		}
	}()
	if _, err := StartReaper(ReaperArg); err == nil {
		t.Error("a second reaper started")
	}
	leader, grandchild := family(t)
	forgetGroup := trackGroup(leader.Process.Pid)
	_ = forgetGroup // not called: as if the supervisor died

	trackGroup(done.Process.Pid)() // cleaned up by the supervisor itself
	if v := os.Getenv(EnvRun); v != strings.TrimSuffix(ownedPrefix(), "-") {
		t.Errorf("with a reaper, %s=%q in this process's environment", EnvRun, v)
	}
	// Started afterwards, registered nowhere, out of every group: found by
	// the EnvRun it inherited, as the go command is.
	stray := sleeper(t, &syscall.SysProcAttr{Setsid: true})

	dir, err := MkdirTemp()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dir), ownedPrefix()) {
		t.Errorf("scratch directory %s is not named after its owner (%s)", dir, ownedPrefix())
	}
	if err := os.WriteFile(filepath.Join(dir, "x.test"), []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}

	var inCgroup *exec.Cmd
	var cgDir string
	if sup := probeCgroupProc("/proc/self/mountinfo", "/proc/self/cgroup"); sup.parent != "" {
		cg, err := newCgroup(sup)
		if err != nil {
			t.Fatal(err)
		}
		cgDir = cg.dir
		// A daemon: its own session, outside every process group the
		// reaper knows.
		inCgroup = sleeper(t, &syscall.SysProcAttr{Setsid: true})
		if err := cg.addProc(inCgroup.Process.Pid); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("no cgroup part: %s", sup.note)
	}

	begin := time.Now()
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	t.Logf("reaper finished %v after end-of-file", time.Since(begin))
	killedBy(t, leader, 2*time.Second)
	if !gone(grandchild, 2*time.Second) {
		t.Errorf("grandchild %d survived", grandchild)
	}
	mustBeAlive(t, done.Process.Pid)
	killedBy(t, stray, 2*time.Second)
	if v, ok := os.LookupEnv(EnvRun); ok {
		t.Errorf("after Close, %s=%q is still set", EnvRun, v)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("scratch directory: %v, want removed", err)
	}
	if inCgroup != nil {
		killedBy(t, inCgroup, 2*time.Second)
		if _, err := os.Stat(cgDir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("cgroup: %v, want removed", err)
		}
	}
	if current.Load() != nil {
		t.Error("still registering with a closed reaper")
	}
	if forget := RemoveOnDeath(dir); forget == nil {
		t.Error("RemoveOnDeath without a reaper returned nil")
	}
}

func TestKillByEnv(t *testing.T) {
	token := fmt.Sprintf("test-%d-%d", os.Getpid(), time.Now().UnixNano())
	start := func(env ...string) *exec.Cmd {
		return sleeper(t, &syscall.SysProcAttr{Setsid: true}, env...) // outside every group
	}
	first := start(EnvRun+"="+token, "A=1")
	last := start("A=1", EnvRun+"="+token)
	longer := start(EnvRun + "=" + token + "2") // another run's value that starts with ours
	other := start("A=1")
	if err := killByEnv("/proc", EnvRun+"="+token); err != nil {
		t.Fatal(err)
	}
	killedBy(t, first, 2*time.Second)
	killedBy(t, last, 2*time.Second)
	mustBeAlive(t, longer.Process.Pid)
	mustBeAlive(t, other.Process.Pid)
}

// TestEnvRun: while a reaper runs, a child without a cgroup carries EnvRun
// (named after this run, outside the policy's name hash); one with a cgroup
// does not need it; and a policy cannot set it.
func TestEnvRun(t *testing.T) {
	r, err := StartReaper(ReaperArg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cfg := helper("env")
	cfg.Cgroup = CgroupOff
	env, o := childEnv(t, cfg)
	want := strings.TrimSuffix(ownedPrefix(), "-")
	if env[EnvRun] != want {
		t.Errorf("without a cgroup, %s=%q, want %q", EnvRun, env[EnvRun], want)
	}
	delete(env, EnvRun)
	if got := hashOf(env); got != o.EnvNamesHash {
		t.Errorf("EnvNamesHash %s, want %s: the policy's names alone", o.EnvNamesHash, got)
	}
	cfg.Cgroup = CgroupAuto
	if env, o := childEnv(t, cfg); o.Containment == ContainmentCgroup {
		if v, ok := env[EnvRun]; ok {
			t.Errorf("in a cgroup, %s=%q is set; the cgroup holds its descendants", EnvRun, v)
		}
	}
	cfg.Env.Set = []string{EnvRun + "=x"}
	if _, err := Start(cfg); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Env.Set of %s: %v, want ErrInvalidConfig", EnvRun, err)
	}
}

// TestReaperSparesSupervisor gives the reaper a registered cgroup that
// lists the supervisor, as a v1 cgroup does while the supervisor's
// spawning thread is stranded in it (a directory with a cgroup.procs file
// stands in for it). The reaper runs its cleanup while the supervisor
// waits for it: it must name the stranded thread and not kill the
// supervisor (here, this test process).
func TestReaperSparesSupervisor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := registry{supervisor: os.Getpid()}
	reg.apply("+cgroup " + strconv.Quote(dir))
	problems := reg.cleanup()
	want := dir + " still holds benchsup's spawning thread: not removed"
	if len(problems) != 1 || problems[0] != want {
		t.Errorf("problems %q, want [%q]", problems, want)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the cgroup was removed although it is not empty: %v", err)
	}
}
