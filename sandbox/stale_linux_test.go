//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestOwnedName(t *testing.T) {
	tests := []struct {
		name   string
		want   owner
		legacy bool
		ok     bool
	}{
		{"benchsup-123-456-789-1", owner{123, 456, 789}, false, true},
		{"benchsup-123-456-789-probe", owner{123, 456, 789}, false, true},
		{"benchsup-123-456-789-3021412", owner{123, 456, 789}, false, true},
		{"benchsup-123-4", owner{pid: 123}, true, true},
		{"benchsup-123-probe", owner{pid: 123}, true, true},
		{"benchsup-123", owner{}, false, false},             // an old scratch directory: no owner
		{"benchsup-integration-123", owner{}, false, false}, // someone else's
		{"benchsup-123-x-789-1", owner{}, false, false},
		{"benchsup-123-456-789-", owner{}, false, false},
		{"benchsup-0-456-789-1", owner{}, false, false},
		{"benchsup-+1-456-789-1", owner{}, false, false},
		{"benchsup-123-4-5", owner{}, false, false},
		{"other-123-456-789-1", owner{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, legacy, ok := ownedName(tt.name)
			if got != tt.want || legacy != tt.legacy || ok != tt.ok {
				t.Errorf("ownedName(%q) = %+v, %v, %v; want %+v, %v, %v", tt.name, got, legacy, ok, tt.want, tt.legacy, tt.ok)
			}
		})
	}
	// What this process names things parses back to itself.
	me, ok := selfOwner()
	if !ok {
		t.Skip("/proc cannot say this process's start time")
	}
	if got, legacy, ok := ownedName(ownedPrefix() + "1"); !ok || legacy || got != me {
		t.Errorf("ownedName(ownedPrefix()+1) = %+v, %v, %v; want %+v", got, legacy, ok, me)
	}
}

// fakeProc writes root/PID/stat for each pid with the start time given, and
// a command name with the characters that make naive parsing fail.
func fakeProc(t *testing.T, starts map[int]uint64) string {
	t.Helper()
	root := t.TempDir()
	for pid, start := range starts {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// Fields 3 to 21, then 22 (starttime), then more.
		stat := fmt.Sprintf("%d (a) b (c d) S 1 1 1 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 %d 1000 10 18446744073709551615\n", pid, start)
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestStartTime(t *testing.T) {
	root := fakeProc(t, map[int]uint64{42: 987654})
	if got, err := startTime(root, 42); err != nil || got != 987654 {
		t.Errorf("startTime = %d, %v; want 987654", got, err)
	}
	if _, err := startTime(root, 43); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("startTime of a missing pid: %v, want fs.ErrNotExist", err)
	}
	if err := os.WriteFile(filepath.Join(root, "42", "stat"), []byte("42 (a) S 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := startTime(root, 42); err == nil {
		t.Error("startTime of a short stat: no error")
	}
	// The real thing: this process started before now, after boot.
	me, err := readOwner("/proc", os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if me.start == 0 || me.pidns == 0 {
		t.Errorf("readOwner(self) = %+v: zero fields", me)
	}
}

func TestJudge(t *testing.T) {
	me := owner{pid: 10, start: 100, pidns: 7}
	root := fakeProc(t, map[int]uint64{10: 100, 20: 200, 30: 999})
	// Pid 40 exists but /proc cannot be read for it.
	if err := os.MkdirAll(filepath.Join(root, "40", "stat"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		o      owner
		legacy bool
		want   liveness
	}{
		{"self", me, false, ownerAlive},
		{"alive", owner{20, 200, 7}, false, ownerAlive},
		{"pid free", owner{21, 200, 7}, false, ownerDead},
		{"pid reused", owner{30, 300, 7}, false, ownerDead},
		{"other namespace", owner{21, 200, 8}, false, ownerUnknown},
		{"unreadable", owner{40, 400, 7}, false, ownerUnknown},
		{"legacy, pid taken", owner{pid: 30}, true, ownerAlive},
		{"legacy, pid free", owner{pid: 31}, true, ownerDead},
		{"legacy, our pid", owner{pid: 10}, true, ownerAlive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judge(root, me, tt.o, tt.legacy); got != tt.want {
				t.Errorf("judge(%+v, legacy=%v) = %d, want %d", tt.o, tt.legacy, got, tt.want)
			}
		})
	}
}

func TestRemoveStaleDirs(t *testing.T) {
	me := owner{pid: 10, start: 100, pidns: 7}
	root := fakeProc(t, map[int]uint64{10: 100, 20: 200, 30: 999})
	tmp := t.TempDir()
	entries := []struct {
		name string
		file bool
		gone bool
	}{
		{"benchsup-21-200-7-1", false, true},   // owner dead
		{"benchsup-30-300-7-2", false, true},   // pid reused
		{"benchsup-10-100-7-3", false, false},  // ours
		{"benchsup-20-200-7-4", false, false},  // a live run's
		{"benchsup-21-200-8-5", false, false},  // another namespace: cannot tell
		{"benchsup-21-6", false, false},        // legacy: only cgroups had owners
		{"benchsup-123456", false, false},      // an old scratch directory
		{"benchsup-21-200-7-f", true, false},   // a file, not a directory
		{"benchsupx-21-200-7-1", false, false}, // not ours
	}
	for _, e := range entries {
		p := filepath.Join(tmp, e.name)
		var err error
		if e.file {
			err = os.WriteFile(p, nil, 0o644)
		} else if err = os.Mkdir(p, 0o755); err == nil {
			// Content, as a run leaves (binaries, a read-only module cache).
			err = os.MkdirAll(filepath.Join(p, "bin", "ro"), 0o755)
			if err == nil {
				err = os.WriteFile(filepath.Join(p, "bin", "x.test"), []byte("binary"), 0o755)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	s := staleSweep{root: root, me: me, uid: os.Geteuid()}
	s.dirs(tmp)
	for _, e := range entries {
		_, err := os.Lstat(filepath.Join(tmp, e.name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != e.gone {
			t.Errorf("%s: gone=%v, want %v (err %v)", e.name, gone, e.gone, err)
		}
	}
	if len(s.removed) != 2 || len(s.failed) != 0 {
		t.Errorf("removed %q, failed %q; want 2 removed", s.removed, s.failed)
	}
	// Another user's directory is never touched, dead owner or not.
	if os.Geteuid() != 0 {
		return
	}
	other := filepath.Join(tmp, "benchsup-21-200-7-9")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(other, 12345, 12345); err != nil {
		t.Skipf("chown: %v", err)
	}
	s = staleSweep{root: root, me: me, uid: 4321}
	s.dirs(tmp)
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another user's directory: %v", err)
	}
}

// testCgroupParent makes a private cgroup to fabricate stale ones in, or
// skips the test when there is no writable cgroup2.
func testCgroupParent(t *testing.T) string {
	t.Helper()
	sup := probeCgroupProc("/proc/self/mountinfo", "/proc/self/cgroup")
	if sup.parent == "" {
		t.Skipf("no writable cgroup2: %s", sup.note)
	}
	// Not a name any run's cleanup would take for one of its own.
	parent := filepath.Join(sup.parent, fmt.Sprintf("benchsup-test-stale-%d", os.Getpid()))
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Skipf("cannot create a cgroup: %v", err)
	}
	t.Cleanup(func() {
		ents, _ := os.ReadDir(parent)
		for _, e := range ents {
			if e.IsDir() {
				g := &cgroup{dir: filepath.Join(parent, e.Name())}
				g.kill()
				g.waitEmpty(time.Second)
				g.remove()
			}
		}
		unix.Rmdir(parent)
	})
	return parent
}

// sleeper starts a process that runs until killed and is reaped by the
// test, with env as its whole environment when given.
func sleeper(t *testing.T, sys *syscall.SysProcAttr, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = sys
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run sleep: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// killedBy waits for cmd and reports whether SIGKILL ended it.
func killedBy(t *testing.T, cmd *exec.Cmd, within time.Duration) bool {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
				return true
			}
		}
		t.Errorf("pid %d ended with %v, want SIGKILL", cmd.Process.Pid, err)
		return false
	case <-time.After(within):
		t.Errorf("pid %d still running after %v", cmd.Process.Pid, within)
		return false
	}
}

func TestRemoveStaleCgroups(t *testing.T) {
	parent := testCgroupParent(t)
	me := owner{pid: 10, start: 100, pidns: 7}
	root := fakeProc(t, map[int]uint64{10: 100, 20: 200})
	mk := func(name string) string {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	stale := mk("benchsup-21-200-7-1")
	staleEmpty := mk("benchsup-21-200-7-2")
	legacy := mk("benchsup-21-3")
	live := mk("benchsup-20-200-7-4")
	inStale := sleeper(t, nil)
	inLive := sleeper(t, nil)
	for dir, cmd := range map[string]*exec.Cmd{stale: inStale, live: inLive} {
		g := &cgroup{dir: dir}
		if err := g.addProc(cmd.Process.Pid); err != nil {
			t.Fatalf("moving %d into %s: %v", cmd.Process.Pid, dir, err)
		}
	}
	s := staleSweep{root: root, me: me, uid: os.Geteuid()}
	s.cgroups(parent)
	for _, dir := range []string{stale, staleEmpty, legacy} {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stale %s: %v, want it removed", dir, err)
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live run's cgroup: %v", err)
	}
	killedBy(t, inStale, 2*time.Second)
	if err := inLive.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process in a live run's cgroup: %v", err)
	}
	if len(s.removed) != 3 || len(s.failed) != 0 {
		t.Errorf("removed %q, failed %q; want 3 removed", s.removed, s.failed)
	}
}
