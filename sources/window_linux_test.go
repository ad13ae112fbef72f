//go:build linux

package sources

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestReadThreadTimesSpinAndSleep(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	measure := func(body func()) (d ThreadTimes, wall time.Duration) {
		t.Helper()
		t0 := time.Now()
		a, err := ReadThreadTimes()
		if err != nil {
			t.Fatal(err)
		}
		body()
		b, err := ReadThreadTimes()
		if err != nil {
			t.Fatal(err)
		}
		wall = time.Since(t0)
		if !a.HaveSchedstat || !b.HaveSchedstat {
			t.Skipf("no schedstat here: %s", a.SchedstatAbsence+b.SchedstatAbsence)
		}
		return ThreadTimes{UserNs: b.UserNs - a.UserNs, SysNs: b.SysNs - a.SysNs, RunNs: b.RunNs - a.RunNs, WaitNs: b.WaitNs - a.WaitNs}, wall
	}

	const span = 50 * time.Millisecond
	spin, wall := measure(func() {
		for start := time.Now(); time.Since(start) < span; {
		}
	})
	t.Logf("50 ms spin: run %v, wait %v, user+sys %v, wall %v", time.Duration(spin.RunNs), time.Duration(spin.WaitNs), time.Duration(spin.UserNs+spin.SysNs), wall)
	// A spinning thread is either on a CPU or waiting for one: on a busy
	// 2-core host most of the span may be run-queue wait, never "other".
	if spin.RunNs+spin.WaitNs < int64(span*8/10) || spin.RunNs > int64(wall) {
		t.Errorf("50 ms spin: run %v + wait %v, want at least %v, run at most the wall time %v",
			time.Duration(spin.RunNs), time.Duration(spin.WaitNs), span*8/10, wall)
	}
	// On a 2-core host with other load the thread may wait on a run
	// queue, but run + wait cannot exceed the wall time around them.
	// (The readings sit just outside the wall clock's own reads, so allow
	// a millisecond for the edges.)
	if spin.RunNs+spin.WaitNs > int64(wall+time.Millisecond) {
		t.Errorf("run %v + wait %v > wall %v", time.Duration(spin.RunNs), time.Duration(spin.WaitNs), wall)
	}
	// The rusage split is tick-sampled, but its sum is scaled to the
	// thread's runtime: it must see most of the spin too.
	if us := spin.UserNs + spin.SysNs; us < spin.RunNs/2 || us > int64(wall+10*time.Millisecond) {
		t.Errorf("50 ms spin: user+sys grew by %v", time.Duration(us))
	}

	sleep, wall := measure(func() { time.Sleep(span) })
	t.Logf("50 ms sleep: run %v, wait %v, wall %v", time.Duration(sleep.RunNs), time.Duration(sleep.WaitNs), wall)
	if sleep.RunNs < 0 || sleep.RunNs >= int64(10*time.Millisecond) {
		t.Errorf("50 ms sleep: RunNs grew by %v, want under 10 ms", time.Duration(sleep.RunNs))
	}
}

func TestReadThreadTimesAbsences(t *testing.T) {
	saved := windowFiles.threadSchedstat
	defer func() { windowFiles.threadSchedstat = saved }()
	dir := t.TempDir()

	windowFiles.threadSchedstat = filepath.Join(dir, "missing")
	tt, err := ReadThreadTimes()
	if err != nil || tt.HaveSchedstat || !strings.Contains(tt.SchedstatAbsence, "CONFIG_SCHED_INFO") || tt.UserNs+tt.SysNs <= 0 {
		t.Errorf("missing schedstat: %+v, %v", tt, err)
	}

	windowFiles.threadSchedstat = filepath.Join(dir, "off")
	writeFile(t, windowFiles.threadSchedstat, "0 0 0\n")
	if tt, err := ReadThreadTimes(); err != nil || tt.HaveSchedstat || tt.RunNs != 0 || !strings.Contains(tt.SchedstatAbsence, "accounting is off") {
		t.Errorf("sched_info off: %+v, %v", tt, err)
	}

	windowFiles.threadSchedstat = filepath.Join(dir, "bad")
	writeFile(t, windowFiles.threadSchedstat, "garbage\n")
	if _, err := ReadThreadTimes(); err == nil {
		t.Error("malformed schedstat: no error")
	}
}

func TestReadProcessTimes(t *testing.T) {
	a, err := ReadProcessTimes()
	if err != nil {
		t.Fatal(err)
	}
	touchPages(t, 64)
	b, err := ReadProcessTimes()
	if err != nil {
		t.Fatal(err)
	}
	if a.IOAbsence != "" {
		t.Errorf("IOAbsence %q on a host with /proc/self/io", a.IOAbsence)
	}
	for _, k := range []string{"minflt", "majflt", "nvcsw", "nivcsw", "rchar", "wchar", "syscr", "syscw", "read-bytes", "write-bytes"} {
		if _, ok := b.Counts[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
	if d := b.Counts["minflt"] - a.Counts["minflt"]; d < 64 {
		t.Errorf("touching 64 pages: minflt grew by %v", d)
	}
	if b.UserNs+b.SysNs <= 0 || b.UserNs < a.UserNs || b.SysNs < a.SysNs {
		t.Errorf("cpu times %+v then %+v", a, b)
	}

	saved := sys.procIO
	defer func() { sys.procIO = saved }()
	sys.procIO = filepath.Join(t.TempDir(), "no-io")
	p, err := ReadProcessTimes()
	if err != nil || !strings.Contains(p.IOAbsence, "without task I/O accounting") || p.Counts["minflt"] == 0 {
		t.Errorf("without /proc/self/io: %+v, %v", p, err)
	}
	if _, ok := p.Counts["rchar"]; ok {
		t.Error("rchar present without /proc/self/io")
	}
}

func TestReadSystemPressure(t *testing.T) {
	if _, err := os.Stat("/proc/pressure/io"); err == nil {
		p, err := ReadSystemPressure()
		if err != nil {
			t.Fatal(err)
		}
		if p.IOSome < p.IOFull || p.MemSome < p.MemFull || p.CPUSome < 0 {
			t.Errorf("host PSI %+v", p)
		}
	}

	saved := windowFiles.pressureDir
	defer func() { windowFiles.pressureDir = saved }()
	dir := t.TempDir()
	windowFiles.pressureDir = dir
	writeFile(t, filepath.Join(dir, "io"), psiIORecorded)
	writeFile(t, filepath.Join(dir, "cpu"), psiCPUOldRecorded)
	if _, err := ReadSystemPressure(); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "memory")) ||
		!strings.Contains(err.Error(), "CONFIG_PSI") || strings.Contains(err.Error(), filepath.Join(dir, "io")) {
		t.Errorf("memory missing: %v", err)
	}
	writeFile(t, filepath.Join(dir, "memory"), "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=3\n")
	p, err := ReadSystemPressure()
	want := Pressure{IOSome: 9445012000, IOFull: 4142329000, MemSome: 7000, MemFull: 3000, CPUSome: 858398985000}
	if err != nil || p != want {
		t.Errorf("recorded: %+v, %v; want %+v", p, err, want)
	}
	writeFile(t, filepath.Join(dir, "io"), "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n")
	if p, err := ReadSystemPressure(); err == nil || !strings.Contains(err.Error(), `no "full" line`) || p != (Pressure{}) {
		t.Errorf("io without full: %+v, %v", p, err)
	}
}

// fakeCgroupHost points the cgroup readers at recorded files.
func fakeCgroupHost(t *testing.T, procCgroup, mountinfo string) {
	t.Helper()
	saved := windowFiles
	t.Cleanup(func() { windowFiles = saved })
	dir := t.TempDir()
	windowFiles.procCgroup = filepath.Join(dir, "cgroup")
	windowFiles.mountinfo = filepath.Join(dir, "mountinfo")
	writeFile(t, windowFiles.procCgroup, procCgroup)
	writeFile(t, windowFiles.mountinfo, mountinfo)
}

func TestReadCgroupIOPressureRefusals(t *testing.T) {
	t.Setenv(CgroupEnv, "")
	os.Unsetenv(CgroupEnv)
	if _, _, ok, why := ReadCgroupIOPressure(); ok || !strings.Contains(why, CgroupEnv+" unset") {
		t.Errorf("unset: ok %v, %q", ok, why)
	}
	t.Setenv(CgroupEnv, "job")

	mnt := t.TempDir()
	cg2 := fmt.Sprintf("41 31 0:38 / %s rw,relatime - cgroup2 cgroup2 rw\n", mnt)
	for _, tc := range []struct {
		name, procCgroup, mountinfo, want string
	}{
		{"root cgroup", procCgroupRecorded, mountinfoRecorded, "cgroup2 root"},
		{"v1 only", "4:memory:/x\n", mountinfoRecorded, "no cgroup2 hierarchy"},
		{"not mounted", "0::/job\n", "22 1 254:0 / / rw - ext4 /dev/vda rw\n", "no cgroup2 hierarchy mounted"},
		{"subtree elsewhere", "0::/job\n", "41 31 0:38 /other /mnt rw - cgroup2 cgroup2 rw\n", "shows this process's cgroup /job"},
		{"malformed mountinfo", "0::/job\n", "41 31\n", "malformed"},
		{"no io.pressure", "0::/job\n", cg2, "no such file"},
	} {
		fakeCgroupHost(t, tc.procCgroup, tc.mountinfo)
		if _, _, ok, why := ReadCgroupIOPressure(); ok || !strings.Contains(why, tc.want) {
			t.Errorf("%s: ok %v, %q; want a reason containing %q", tc.name, ok, why, tc.want)
		}
	}

	fakeCgroupHost(t, "0::/other-job\n", cg2)
	if _, _, ok, why := ReadCgroupIOPressure(); ok || !strings.Contains(why, `is not the one`) {
		t.Errorf("another cgroup: ok %v, %q", ok, why)
	}

	fakeCgroupHost(t, "0::/job\n", cg2)
	writeFile(t, filepath.Join(mnt, "job", "io.pressure"), psiIORecorded)
	if some, full, ok, why := ReadCgroupIOPressure(); !ok || some != 9445012000 || full != 4142329000 {
		t.Errorf("recorded: %d, %d, %v, %q", some, full, ok, why)
	}
	writeFile(t, filepath.Join(mnt, "job", "io.pressure"), "some total=1\n")
	if _, _, ok, why := ReadCgroupIOPressure(); ok || !strings.Contains(why, `no "full" line`) {
		t.Errorf("no full line: ok %v, %q", ok, why)
	}
}

const cgroupHelperEnv = "BENCHSUP_SOURCES_TEST_CGROUP_HELPER"

// TestReadCgroupIOPressureOwnCgroup creates a cgroup of its own under the
// host's cgroup2 mount and starts this test binary in it, as the sandbox
// starts a child (clone3 with CLONE_INTO_CGROUP), with BENCHSUP_CGROUP=1;
// the helper then reads its own io.pressure.
func TestReadCgroupIOPressureOwnCgroup(t *testing.T) {
	if os.Getenv(cgroupHelperEnv) != "" {
		t.Skip("in the helper")
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Skip(err)
	}
	mounts, err := parseMountinfoCgroup2(mi)
	if err != nil {
		t.Fatal(err)
	}
	var mnt string
	for _, m := range mounts {
		if m.root == "/" {
			mnt = m.point
			break
		}
	}
	if mnt == "" {
		t.Skip("no cgroup2 hierarchy mounted whole")
	}
	dir := filepath.Join(mnt, fmt.Sprintf("benchsup-sources-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot create a cgroup to run in (needs root or a delegated hierarchy): %v", err)
	}
	defer func() {
		// The cgroup is removable once the helper is reaped and gone
		// from it; that can lag the wait by a moment.
		for i := 0; ; i++ {
			err := unix.Rmdir(dir)
			if err == nil || i == 200 {
				if err != nil {
					t.Errorf("removing %s: %v", dir, err)
				}
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	cg, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cg.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadCgroupIOPressureHelper$", "-test.v")
	cmd.Env = append(os.Environ(), cgroupHelperEnv+"=1", CgroupEnv+"="+filepath.Base(dir))
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.Fd())}
	out, err := cmd.CombinedOutput()
	var errno syscall.Errno
	if errors.As(err, &errno) && (errno == syscall.ENOSYS || errno == syscall.EINVAL || errno == syscall.EOPNOTSUPP) {
		t.Skipf("cannot start a process in a cgroup here (clone3 CLONE_INTO_CGROUP: %v)", err)
	}
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var line string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "cgroup io.pressure: ") {
			line = l
		}
	}
	wantCgroup := "cgroup=/" + filepath.Base(dir)
	if !strings.Contains(line, wantCgroup) || !strings.Contains(string(out), "PASS") {
		t.Fatalf("helper output, want %q:\n%s", wantCgroup, out)
	}
	t.Logf("helper: %s", line)
}

// TestReadCgroupIOPressureHelper runs only as TestReadCgroupIOPressureOwnCgroup's
// helper process.
func TestReadCgroupIOPressureHelper(t *testing.T) {
	if os.Getenv(cgroupHelperEnv) == "" {
		t.Skip("runs only as a helper process")
	}
	some, full, ok, why := ReadCgroupIOPressure()
	if !ok {
		t.Fatalf("in a cgroup of its own: %s", why)
	}
	if some < full || full < 0 {
		t.Errorf("some %d, full %d", some, full)
	}
	// The edge reader reads the same file, found once.
	var e Edge
	NewEdgeReader().Open(&e)
	if !e.CgroupOK || e.CgroupIOSome < some {
		t.Errorf("edge reader: ok %v (%s), some %d after %d", e.CgroupOK, e.CgroupWhy, e.CgroupIOSome, some)
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	path, _, _ := parseProcCgroupV2(cg)
	fmt.Printf("cgroup io.pressure: some=%d full=%d cgroup=%s\n", some, full, path)
}

func TestEdgeReader(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := NewEdgeReader()
	var a, b Edge
	r.Open(&a)
	for t0 := time.Now(); time.Since(t0) < 2*time.Millisecond; {
	}
	r.Close(&b)
	if a.ThreadErr != nil || b.ThreadErr != nil || a.ProcessErr != nil || b.ProcessErr != nil {
		t.Fatalf("thread %v/%v, process %v/%v", a.ThreadErr, b.ThreadErr, a.ProcessErr, b.ProcessErr)
	}
	if d := b.At.Sub(a.At); d < 2*time.Millisecond {
		t.Errorf("wall %v across a 2 ms spin", d)
	}
	if b.Thread.UserNs+b.Thread.SysNs < a.Thread.UserNs+a.Thread.SysNs || b.Process.MaxRSSBytes < 1<<20 {
		t.Errorf("readings went backwards or no maxrss: %+v, %+v", a, b)
	}
	if os.Getenv(CgroupEnv) == "" && (a.CgroupOK || !strings.Contains(a.CgroupWhy, CgroupEnv)) {
		t.Errorf("cgroup: ok %v, why %q", a.CgroupOK, a.CgroupWhy)
	}

	skip := EdgeReader{SkipThread: true, SkipProcess: true, SkipPressure: true, SkipCgroup: true}
	var c Edge
	skip.Open(&c)
	if c.ThreadErr == nil || c.ProcessErr == nil || c.PressureErr == nil || c.CgroupOK || c.At.IsZero() {
		t.Errorf("skipped readers: %+v; the clock is always read", c)
	}
}
