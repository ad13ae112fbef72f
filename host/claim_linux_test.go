package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchsup/benchsup/sandbox"
)

// The test binary re-executed as a claim holder: it claims cpu0 in the
// directory named by holdEnv, says "held <pid>" (and, with leakEnv set,
// first starts a sleep that inherits the lock descriptor and says its pid
// as "leaked <pid>"), then exits without releasing when stdin closes.
const (
	holdEnv = "BENCHSUP_HOST_TEST_HOLD"
	leakEnv = "BENCHSUP_HOST_TEST_LEAK"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		os.Exit(holdForParent(dir))
	}
	os.Exit(m.Run())
}

func holdForParent(dir string) int {
	c, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: -1, Command: "holder subprocess"}, nil)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	if os.Getenv(leakEnv) != "" {
		sleep := exec.Command("sleep", "60")
		sleep.ExtraFiles = c.files
		if err := sleep.Start(); err != nil {
			fmt.Println("error", err)
			return 1
		}
		fmt.Println("leaked", sleep.Process.Pid)
		fmt.Println("held", os.Getpid())
		return 0 // leaves the sleep holding the lock
	}
	fmt.Println("held", os.Getpid())
	io.Copy(io.Discard, os.Stdin)
	return 0 // exits without Release: the kernel drops the lock, the record stays
}

// startHolder runs the holder subprocess and waits until it holds cpu0.
func startHolder(t *testing.T, dir string, leak bool) (cmd *exec.Cmd, stdin io.WriteCloser, lines map[string]int) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	if leak {
		cmd.Env = append(cmd.Env, leakEnv+"=1")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines = map[string]int{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		word, arg, _ := strings.Cut(sc.Text(), " ")
		if word == "error" {
			t.Fatalf("holder: %s", arg)
		}
		lines[word], _ = strconv.Atoi(arg)
		if word == "held" {
			return cmd, stdin, lines
		}
	}
	t.Fatal("holder ended without holding")
	return
}

// Two claims of one CPU in one process conflict (flock belongs to the
// open file description), and the waiter names the holder.
func TestClaimSameCPUSerializes(t *testing.T) {
	dir := t.TempDir()
	first, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Command: "first run"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var seen []Holder
	_, err = Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0, 1}, Timeout: 120 * time.Millisecond, Poll: 20 * time.Millisecond}, func(h Holder) { seen = append(seen, h) })
	var te *ClaimTimeoutError
	if !errors.As(err, &te) || !errors.Is(err, ErrClaimTimeout) {
		t.Fatalf("err = %v, want *ClaimTimeoutError", err)
	}
	pid := os.Getpid()
	if te.Holder.CPU != 0 || te.Holder.Record == nil || te.Holder.Record.PID != pid || te.Holder.Record.Cmd != "first run" || te.Waited < 120*time.Millisecond {
		t.Errorf("timeout error %+v (record %+v)", te, te.Holder.Record)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("cpu0 is held by pid %d", pid)) || !strings.Contains(err.Error(), "(first run)") {
		t.Errorf("error does not name the holder: %v", err)
	}
	if len(seen) != 1 || seen[0].Record == nil || seen[0].Record.PID != pid {
		t.Errorf("waiting callback saw %+v; want the holder once, while it did not change", seen)
	}
	// The waiter let go of what it could take: cpu1 is free.
	if c, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{1}, Timeout: -1}, nil); err != nil {
		t.Errorf("cpu1 after a failed claim of 0-1: %v", err)
	} else {
		c.Release()
	}

	// Released while a claim waits: the waiter proceeds.
	go func() {
		time.Sleep(100 * time.Millisecond)
		first.Release()
	}()
	second, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0, 1}, Timeout: 10 * time.Second, Poll: 10 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	rep := second.Report()
	if rep.WaitedNs <= 0 || len(rep.WaitedFor) == 0 || rep.CPUs != "0-1" || rep.MachineWide || rep.Dir != dir {
		t.Errorf("report %+v", rep)
	}
	if err := first.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
}

func TestClaimDisjointAndMachineWide(t *testing.T) {
	dir := t.TempDir()
	a, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{1, 1}, Timeout: -1}, nil)
	if err != nil {
		t.Fatalf("disjoint claim: %v", err)
	}
	if rep := b.Report(); rep.CPUs != "1" || rep.WaitedNs != 0 || len(rep.WaitedFor) != 0 {
		t.Errorf("a claim that found its CPUs free reports %+v, want cpus 1 and no wait", rep)
	}
	// A machine-wide claim needs every online CPU, 0 among them.
	if _, err := Claim(context.Background(), ClaimConfig{Dir: dir, Timeout: -1}, nil); !errors.Is(err, ErrClaimTimeout) {
		t.Errorf("machine-wide claim beside held CPUs: %v", err)
	}
	a.Release()
	b.Release()
	all, err := Claim(context.Background(), ClaimConfig{Dir: dir, Timeout: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	online, _ := OnlineCPUs()
	if rep := all.Report(); !rep.MachineWide || rep.CPUs != FormatCPUList(online) {
		t.Errorf("machine-wide report %+v, online %v", rep, online)
	}
}

// The documented file format: one JSON line while held, empty after.
func TestClaimRecordFormat(t *testing.T) {
	dir := t.TempDir()
	c, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0, 2}, Command: "benchsup run ./..."}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cpu0.lock", "cpu2.lock"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(data), "\n") != 1 || !strings.HasSuffix(string(data), "\n") {
			t.Fatalf("%s is not one line: %q", name, data)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		started, _ := m["started"].(string)
		if _, err := time.Parse(time.RFC3339, started); err != nil || m["pid"] != float64(os.Getpid()) || m["cpus"] != "0,2" || m["cmd"] != "benchsup run ./..." || m["host"] == "" || len(m) != 5 {
			t.Errorf("%s record %v", name, m)
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o666 {
			t.Errorf("%s mode %v, %v; want 0666 so other users can record", name, fi.Mode(), err)
		}
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "cpu0.lock")); len(data) != 0 {
		t.Errorf("record left after Release: %q", data)
	}
}

func TestClaimDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "claims")
	if err := ensureClaimDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("claim dir mode %v, %v; want sticky 0777", fi.Mode(), err)
	}
	t.Setenv(ClaimDirEnv, dir)
	if got := DefaultClaimDir(); got != dir {
		t.Errorf("DefaultClaimDir with %s set = %q", ClaimDirEnv, got)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if err := ensureClaimDir(file); err == nil {
		t.Error("a file as claim directory: no error")
	}
}

// Another process holds the claim; stopped, it is reported as such; when
// it ends without releasing, the claim is free and its record is noted.
func TestClaimHolderProcess(t *testing.T) {
	dir := t.TempDir()
	cmd, stdin, lines := startHolder(t, dir, false)
	pid := cmd.Process.Pid
	if lines["held"] != pid {
		t.Fatalf("holder says pid %d, started %d", lines["held"], pid)
	}
	_, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: -1}, nil)
	var te *ClaimTimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v", err)
	}
	if te.Holder.Record == nil || te.Holder.Record.PID != pid || te.Holder.Record.Cmd != "holder subprocess" {
		t.Errorf("holder %+v", te.Holder)
	}
	if te.Holder.LockPID != 0 && te.Holder.LockPID != pid {
		t.Errorf("/proc/locks names pid %d, holder is %d", te.Holder.LockPID, pid)
	}
	if te.Holder.LockPID == 0 {
		t.Logf("/proc/locks does not show the holder here: %v", te.Holder.Note)
	}

	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitState(t, pid, 'T')
	_, err = Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: -1}, nil)
	if !errors.As(err, &te) || !strings.Contains(te.Holder.Note, fmt.Sprintf("pid %d is stopped", pid)) {
		t.Errorf("stopped holder: %v", err)
	}
	cmd.Process.Signal(syscall.SIGCONT)

	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	c, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: 5 * time.Second, Poll: 10 * time.Millisecond}, nil)
	if err != nil {
		t.Fatalf("after the holder ended: %v", err)
	}
	defer c.Release()
	want := fmt.Sprintf("previous owner pid %d (holder subprocess) ended without releasing its record", pid)
	if notes := c.Report().Notes; len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// The holder's descriptor leaked into a child that outlives it: the lock
// is still held, and the note says by whom it was taken and that it ended.
func TestClaimLeakedDescriptor(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep binary")
	}
	dir := t.TempDir()
	cmd, _, lines := startHolder(t, dir, true)
	sleeper := lines["leaked"]
	if sleeper <= 0 {
		t.Fatalf("no sleeper pid: %v", lines)
	}
	t.Cleanup(func() { syscall.Kill(sleeper, syscall.SIGKILL) })
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	_, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: -1}, nil)
	var te *ClaimTimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("the sleeper holds the lock, yet: %v", err)
	}
	if te.Holder.LockPID == 0 {
		t.Skipf("/proc/locks does not show the holder here: %v", te.Holder.Note)
	}
	if !strings.Contains(te.Holder.Note, fmt.Sprintf("pid %d, which took the lock, has ended", cmd.Process.Pid)) {
		t.Errorf("note %q", te.Holder.Note)
	}
	syscall.Kill(sleeper, syscall.SIGKILL)
	c, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: 5 * time.Second, Poll: 10 * time.Millisecond}, nil)
	if err != nil {
		t.Fatalf("after the sleeper was killed: %v", err)
	}
	c.Release()
}

func waitState(t *testing.T, pid int, state byte) {
	t.Helper()
	for range 200 {
		if st, _ := sandbox.ProcessState(pid); st == state {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("pid %d never reached state %c", pid, state)
}

func TestClaimCanceled(t *testing.T) {
	dir := t.TempDir()
	held, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := Claim(ctx, ClaimConfig{Dir: dir, CPUs: []int{0}, Poll: 10 * time.Millisecond}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestParseRecord(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want OwnerRecord
	}{
		{`{"pid":7,"host":"h","started":"2026-12-01T00:00:00Z","cpus":"0-1","cmd":"c"}` + "\n", true, OwnerRecord{7, "h", "2026-12-01T00:00:00Z", "0-1", "c"}},
		{"", false, OwnerRecord{}},
		{"{\"pid\":0}\n", false, OwnerRecord{}},
		{"not json\n", false, OwnerRecord{}},
		// Any user can write a lock file: no terminal escapes reach a message.
		{`{"pid":7,"host":"h\u001b[2J","cmd":"a\tb\u0007"}`, true, OwnerRecord{PID: 7, Host: "h\uFFFD[2J", Cmd: "a\uFFFDb\uFFFD"}},
		{`{"pid":7,"cmd":"` + strings.Repeat("é", 150) + `"}`, true, OwnerRecord{PID: 7, Cmd: strings.Repeat("é", 100) + "…"}},
	}
	for _, tc := range tests {
		got, ok := parseRecord([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseRecord(%q) = %+v, %v", tc.in, got, ok)
		}
	}
}
