//go:build linux

package sources

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// windowFiles are the kernel files the window readers read. Tests point
// them at recorded contents to play hosts this one is not.
var windowFiles = struct {
	threadSchedstat string // the calling thread's schedstat
	pressureDir     string // the system's PSI files
	mountinfo       string // this process's mount table, with roots
	procCgroup      string // this process's cgroup membership
	procStatus      string // this process's credentials and capabilities
}{
	threadSchedstat: "/proc/thread-self/schedstat",
	pressureDir:     "/proc/pressure",
	mountinfo:       "/proc/self/mountinfo",
	procCgroup:      "/proc/self/cgroup",
	procStatus:      "/proc/self/status",
}

// ReadThreadTimes reads the calling thread's accounting. Call it only from a
// goroutine locked to its OS thread (runtime.LockOSThread).
//
// A missing schedstat is an absence (HaveSchedstat false, with the reason),
// not an error: the rusage half still stands. Only a failing getrusage or a
// schedstat that exists but cannot be parsed is an error.
func ReadThreadTimes() (ThreadTimes, error) {
	var ru syscall.Rusage
	if err := getrusage(rusageThread, &ru); err != nil {
		return ThreadTimes{}, fmt.Errorf("getrusage(RUSAGE_THREAD): %v", err)
	}
	t := ThreadTimes{UserNs: timevalNs(ru.Utime), SysNs: timevalNs(ru.Stime)}
	var buf [128]byte
	n, path, err := readThreadSchedstat(buf[:])
	switch {
	case errors.Is(err, syscall.ENOENT):
		t.SchedstatAbsence = fmt.Sprintf("%s: no such file (kernel built without CONFIG_SCHED_INFO)", path)
		return t, nil
	case err != nil:
		t.SchedstatAbsence = fmt.Sprintf("%s: %v", path, err)
		return t, nil
	}
	run, wait, err := parseSchedstat(buf[:n])
	if err != nil {
		return t, fmt.Errorf("%s: %v", path, err)
	}
	if run == 0 {
		// The calling thread is running right now, so its run time cannot
		// be zero: older kernels print "0 0 0" when sched_info accounting
		// is compiled in but switched off (no schedstats, no delay
		// accounting). Zeros there mean "not measured".
		t.SchedstatAbsence = fmt.Sprintf("%s reads %q: the kernel's sched_info accounting is off (enable kernel.sched_schedstats or delay accounting)", path, strings.TrimSpace(string(buf[:n])))
		return t, nil
	}
	t.RunNs, t.WaitNs, t.HaveSchedstat = run, wait, true
	return t, nil
}

// readThreadSchedstat reads the calling thread's schedstat into buf. It
// uses raw open/read/close on a stack buffer because it runs at a window's
// edge, where every allocation and syscall is apparatus inside the
// enclosing windows. /proc/thread-self appeared in Linux 3.17; before it the
// thread is named by its id.
func readThreadSchedstat(buf []byte) (int, string, error) {
	path := windowFiles.threadSchedstat
	n, err := readSmall(path, buf)
	if errors.Is(err, syscall.ENOENT) && path == "/proc/thread-self/schedstat" {
		if _, statErr := os.Stat("/proc/thread-self"); statErr != nil {
			path = fmt.Sprintf("/proc/self/task/%d/schedstat", gettid())
			n, err = readSmall(path, buf)
		}
	}
	return n, path, err
}

// readSmall reads a small kernel file into buf in one read.
func readSmall(path string, buf []byte) (int, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	n, err := syscall.Read(fd, buf)
	if err != nil {
		return 0, err
	}
	if n == len(buf) {
		return 0, fmt.Errorf("more than %d bytes", len(buf))
	}
	return n, nil
}

func timevalNs(tv syscall.Timeval) int64 { return int64(tv.Sec)*1e9 + int64(tv.Usec)*1e3 }

// ReadProcessTimes reads the whole process's getrusage(RUSAGE_SELF) and
// /proc/self/io. A missing or incomplete /proc/self/io is an absence
// (IOAbsence), not an error.
func ReadProcessTimes() (ProcessTimes, error) {
	var ru syscall.Rusage
	if err := sys.rusage(&ru); err != nil {
		return ProcessTimes{}, fmt.Errorf("getrusage(RUSAGE_SELF): %v", err)
	}
	p := ProcessTimes{
		UserNs:      timevalNs(ru.Utime),
		SysNs:       timevalNs(ru.Stime),
		MaxRSSBytes: int64(ru.Maxrss) * 1024, // KiB on Linux
		Counts: map[string]float64{
			"minflt": float64(ru.Minflt),
			"majflt": float64(ru.Majflt),
			"nvcsw":  float64(ru.Nvcsw),
			"nivcsw": float64(ru.Nivcsw),
		},
	}
	var buf [512]byte
	n, err := readSmall(sys.procIO, buf[:])
	if err != nil {
		p.IOAbsence = fmt.Sprintf("%s: %v", sys.procIO, err)
		if errors.Is(err, syscall.ENOENT) {
			p.IOAbsence += " (kernel built without task I/O accounting)"
		}
		return p, nil
	}
	var s ioSnapshot
	if err := parseProcIO(buf[:n], &s); err != nil {
		return p, err
	}
	var missing []string
	for i, f := range procIOFields {
		if s.have[i] {
			p.Counts[f.metric] = float64(s.v[i])
		} else {
			missing = append(missing, f.key)
		}
	}
	if len(missing) > 0 {
		p.IOAbsence = fmt.Sprintf("%s has no %s (kernel built without that accounting)", sys.procIO, strings.Join(missing, ", "))
	}
	return p, nil
}

// ReadSystemPressure reads the host's PSI totals from /proc/pressure/{io,
// memory,cpu}. It is all or nothing: a window's psi object is either whole
// or absent, so when any file is missing, unreadable or malformed the
// reading is zero and the error names every file that failed and why.
func ReadSystemPressure() (Pressure, error) {
	var p Pressure
	var problems []string
	read := func(name string, needFull bool, some, full *int64) {
		path := filepath.Join(windowFiles.pressureDir, name)
		var buf [256]byte
		n, err := readSmall(path, buf[:])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v%s", path, err, psiHint(err)))
			return
		}
		s, f, haveFull, err := parsePSI(buf[:n])
		if err == nil && needFull && !haveFull {
			err = errors.New(`no "full" line`)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			return
		}
		*some = s
		if full != nil {
			*full = f
		}
	}
	read("io", true, &p.IOSome, &p.IOFull)
	read("memory", true, &p.MemSome, &p.MemFull)
	// cpu's "full" line is missing before Linux 5.13 and means little
	// system-wide, so it is not read.
	read("cpu", false, &p.CPUSome, nil)
	if len(problems) > 0 {
		return Pressure{}, fmt.Errorf("PSI unavailable: %s", strings.Join(problems, "; "))
	}
	return p, nil
}

// psiHint explains the errno of a pressure file that cannot be read.
func psiHint(err error) string {
	switch {
	case errors.Is(err, syscall.ENOENT):
		return " (kernel built without CONFIG_PSI)"
	case errors.Is(err, syscall.EOPNOTSUPP):
		return " (PSI disabled at boot: psi=0, or CONFIG_PSI_DEFAULT_DISABLED without psi=1)"
	}
	return ""
}

// ReadCgroupIOPressure reads io.pressure of this process's own cgroup (v2):
// the "some" and "full" totals in ns. ok is false, with the reason, when the
// process is not in a cgroup of its own (BENCHSUP_CGROUP unset or naming
// another cgroup, or it is in the root cgroup), when no cgroup2 hierarchy is mounted that shows its
// cgroup, or when the file cannot be read or parsed.
//
// The cgroup2 mount is found in /proc/self/mountinfo, never assumed: it is
// /sys/fs/cgroup on most hosts, /sys/fs/cgroup/unified on hybrid ones.
func ReadCgroupIOPressure() (some, full int64, ok bool, reason string) {
	path, why := cgroupIOPressurePath()
	if why != "" {
		return 0, 0, false, why
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false, fmt.Sprintf("%v%s", err, psiHint(err))
	}
	s, f, haveFull, err := parsePSI(b)
	if err == nil && !haveFull {
		err = errors.New(`no "full" line`)
	}
	if err != nil {
		return 0, 0, false, fmt.Sprintf("%s: %v", path, err)
	}
	return s, f, true, ""
}

// cgroupIOPressurePath finds the io.pressure file of this process's own
// cgroup (see ReadCgroupIOPressure), or says why there is none to read.
func cgroupIOPressurePath() (path, why string) {
	named := os.Getenv(CgroupEnv)
	if named == "" {
		return "", CgroupEnv + " unset: this process is not in a cgroup of its own, so its cgroup's io stall may be other processes'"
	}
	dir, why := ownCgroupDir()
	if why != "" {
		return "", why
	}
	if filepath.Base(dir) != named {
		return "", fmt.Sprintf("this process's cgroup %s is not the one %s names (%q): not taken as a cgroup of its own", filepath.Base(dir), CgroupEnv, named)
	}
	return filepath.Join(dir, "io.pressure"), ""
}

// readCgroupIOSome reads the "some" total of an io.pressure file found by
// cgroupIOPressurePath, with one open, read and close on a stack buffer:
// it runs at a window's edges.
func readCgroupIOSome(path string) (some int64, ok bool, why string) {
	var buf [256]byte
	n, err := readSmall(path, buf[:])
	if err != nil {
		return 0, false, fmt.Sprintf("%s: %v%s", path, err, psiHint(err))
	}
	s, _, haveFull, err := parsePSI(buf[:n])
	if err == nil && !haveFull {
		err = errors.New(`no "full" line`)
	}
	if err != nil {
		return 0, false, fmt.Sprintf("%s: %v", path, err)
	}
	return s, true, ""
}

// ownCgroupDir finds the directory of this process's cgroup2 cgroup, or
// says why there is none to read.
func ownCgroupDir() (dir, why string) {
	cg, err := os.ReadFile(windowFiles.procCgroup)
	if err != nil {
		return "", fmt.Sprintf("no cgroup membership: %v", err)
	}
	path, ok, err := parseProcCgroupV2(cg)
	switch {
	case err != nil:
		return "", fmt.Sprintf("%s: %v", windowFiles.procCgroup, err)
	case !ok:
		return "", fmt.Sprintf("%s has no cgroup2 (0::) line: no cgroup2 hierarchy", windowFiles.procCgroup)
	case path == "/":
		// The root cgroup holds every process not placed elsewhere: its
		// pressure is not this process's.
		return "", fmt.Sprintf("%s set, but this process is in the cgroup2 root, not a cgroup of its own", CgroupEnv)
	}
	mi, err := os.ReadFile(windowFiles.mountinfo)
	if err != nil {
		return "", fmt.Sprintf("cannot find the cgroup2 mount: %v", err)
	}
	mounts, err := parseMountinfoCgroup2(mi)
	if err != nil {
		return "", fmt.Sprintf("%s: %v", windowFiles.mountinfo, err)
	}
	if len(mounts) == 0 {
		return "", fmt.Sprintf("no cgroup2 hierarchy mounted (none in %s)", windowFiles.mountinfo)
	}
	dir, ok = cgroupDir(mounts, path)
	if !ok {
		return "", fmt.Sprintf("no cgroup2 mount in %s shows this process's cgroup %s", windowFiles.mountinfo, path)
	}
	return dir, ""
}
