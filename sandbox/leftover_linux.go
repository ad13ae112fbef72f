//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// A process the child started (a daemon, a server a test forgot to stop)
// can outlive it, holding the stdout and stderr it inherited. The teardown
// kills it with the group and the cgroup; before that, it is looked up here,
// so that the row can say what was left and that it was killed.

// leftProc is one process found in the child's process group or cgroup
// after the root exited.
type leftProc struct {
	pid            int
	comm           string // the executable's name, as the kernel keeps it
	stdout, stderr bool   // holds the write end of the child's stdout or stderr pipe
}

// maxListed bounds the processes a Leftover note names one by one.
const maxListed = 4

// leftover finds the live processes other than the root in the child's
// cgroup, or without one, its process group (a scan of /proc, a few
// milliseconds on a busy host). It runs after the root exited and before it
// is reaped: the root's pid, and so the group's id, cannot have been reused.
func (c *Child) leftover() []leftProc {
	var pids []int
	if c.p.cg != nil {
		pids = cgroupProcs(c.p.cg.dir) // the group is inside it: a cgroup is not left without privileges
	} else {
		pids = groupProcs(c.p.pid)
	}
	slices.Sort(pids)
	stdoutIno, stderrIno := pipeInode(c.stdout.f), pipeInode(c.stderr.f)
	var left []leftProc
	for _, pid := range pids {
		if pid == c.p.pid {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.state == 'Z' || st.state == 'X' {
			continue
		}
		lp := leftProc{pid: pid, comm: st.comm}
		for _, ino := range pipesHeld(pid) {
			lp.stdout = lp.stdout || (ino != 0 && ino == stdoutIno)
			lp.stderr = lp.stderr || (ino != 0 && ino == stderrIno)
		}
		left = append(left, lp)
	}
	return left
}

// leftoverNote is Outcome.Leftover: the processes left running when the
// child exited, which streams they held, and how they were killed; "" when
// none was.
func leftoverNote(left []leftProc, containment Containment, escaped int) string {
	if len(left) == 0 {
		return ""
	}
	var names []string
	stdout, stderr := false, false
	for i, lp := range left {
		stdout, stderr = stdout || lp.stdout, stderr || lp.stderr
		if i < maxListed {
			names = append(names, fmt.Sprintf("%s pid %d", lp.comm, lp.pid))
		}
	}
	if len(left) > maxListed {
		names = append(names, fmt.Sprintf("%d more", len(left)-maxListed))
	}
	what := "1 process it had started was"
	them := "it was"
	if len(left) > 1 {
		what = fmt.Sprintf("%d processes it had started were", len(left))
		them = "they were"
	}
	held := ""
	switch {
	case stdout && stderr:
		held = ", holding its stdout and stderr open"
	case stdout:
		held = ", holding its stdout open"
	case stderr:
		held = ", holding its stderr open"
	}
	by := "its process group"
	if containment == ContainmentCgroup {
		by = "its cgroup"
	}
	if escaped > 0 {
		// The shim, their subreaper, found and killed them.
		return fmt.Sprintf("when the child exited, %s still running (%s)%s, %d of them outside its process group and cgroup; %s killed by benchsup's shim, their subreaper",
			what, strings.Join(names, ", "), held, escaped, them)
	}
	return fmt.Sprintf("when the child exited, %s still running (%s)%s; %s killed with %s",
		what, strings.Join(names, ", "), held, them, by)
}

// statFacts is what leftover reads of /proc/<pid>/stat.
type statFacts struct {
	comm       string
	state      byte
	ppid, pgrp int
}

// ProcessState returns the state letter of process pid from
// /proc/<pid>/stat ('R', 'S', 'T' stopped, 'Z' zombie, ...), and false
// when the process is gone or the file cannot be read.
func ProcessState(pid int) (byte, bool) {
	st, ok := readStat(pid)
	return st.state, ok
}

// ParentPID returns the parent of process pid from /proc/<pid>/stat, and
// false when the process is gone or the file cannot be read.
func ParentPID(pid int) (int, bool) {
	st, ok := readStat(pid)
	return st.ppid, ok
}

// readStat reads /proc/<pid>/stat. The name is between the first "(" and
// the last ")": it may itself contain spaces and parentheses.
func readStat(pid int) (statFacts, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return statFacts{}, false
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return statFacts{}, false
	}
	f := strings.Fields(string(data[end+1:])) // state ppid pgrp ...
	if len(f) < 3 || len(f[0]) != 1 {
		return statFacts{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return statFacts{}, false
	}
	return statFacts{comm: string(data[open+1 : end]), state: f[0][0], ppid: ppid, pgrp: pgrp}, true
}

// groupProcs lists the processes whose process group is pgid.
func groupProcs(pgid int) []int {
	return procsWhere(func(st statFacts) bool { return st.pgrp == pgid })
}

// procsWhere lists the processes whose /proc/<pid>/stat satisfies keep (a
// scan of /proc, a few milliseconds on a busy host).
func procsWhere(keep func(statFacts) bool) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var pids []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && keep(st) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// DescendantOf reports whether process pid descends from ancestor, by its
// chain of parents in /proc (a process whose parent died has been
// reparented and descends from its new parent only).
func DescendantOf(pid, ancestor int) bool {
	for p, hops := pid, 0; p > 1 && hops < 128; hops++ {
		up, ok := ParentPID(p)
		if !ok {
			return false
		}
		if up == ancestor {
			return true
		}
		p = up
	}
	return false
}

// cgroupProcs lists the processes of the cgroup dir.
func cgroupProcs(dir string) []int {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, line := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(line); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// pipeInode is the inode of the pipe f is an end of (both ends share it);
// zero when f is not a pipe.
func pipeInode(f *os.File) uint64 {
	if f == nil {
		return 0
	}
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return 0
	}
	return st.Ino
}

// pipesHeld lists the inodes of the pipes pid has open ("pipe:[N]").
func pipesHeld(pid int) []uint64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var inos []uint64
	for _, name := range names {
		target, err := os.Readlink(dir + "/" + name)
		if err != nil || !strings.HasPrefix(target, "pipe:[") || !strings.HasSuffix(target, "]") {
			continue
		}
		if ino, err := strconv.ParseUint(target[len("pipe:["):len(target)-1], 10, 64); err == nil {
			inos = append(inos, ino)
		}
	}
	return inos
}
