//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// What a run leaves on the system while it runs (its children's cgroups, its
// scratch directory) is named after its owner, the supervisor process:
//
//	benchsup-PID-START-PIDNS-SUFFIX
//
// START is the owner's start time in clock ticks after boot (field 22 of
// /proc/PID/stat) and PIDNS the inode of its pid namespace. A pid alone may
// have been reused by the time a later run looks; a pid and its start time
// name one process for the life of the system, and the namespace says
// whether this process's /proc can tell at all. A later run removes what a
// dead owner left and never touches the rest (docs/design.md#containment).

// owner identifies the supervisor process that made something.
type owner struct {
	pid   int
	start uint64 // clock ticks after boot
	pidns uint64 // inode of /proc/PID/ns/pid
}

func (o owner) prefix() string { return fmt.Sprintf("benchsup-%d-%d-%d-", o.pid, o.start, o.pidns) }

// procRoot is where /proc is mounted (tests use a fabricated one).
var procRoot = "/proc"

// selfOwner is this process as an owner; ok is false when /proc cannot say,
// and then names carry the pid alone and no stale cleanup is attempted.
var selfOwner = sync.OnceValues(func() (owner, bool) {
	o, err := readOwner(procRoot, os.Getpid())
	return o, err == nil
})

// readOwner reads pid's start time and pid namespace under root.
func readOwner(root string, pid int) (owner, error) {
	start, err := startTime(root, pid)
	if err != nil {
		return owner{}, err
	}
	fi, err := os.Stat(filepath.Join(root, strconv.Itoa(pid), "ns", "pid"))
	if err != nil {
		return owner{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}, fmt.Errorf("%s: no inode", fi.Name())
	}
	return owner{pid: pid, start: start, pidns: st.Ino}, nil
}

// startTime returns field 22 of root/PID/stat (proc(5)). The command name
// (field 2) is parenthesized and may contain spaces and parentheses itself,
// so the fields are counted from the last ')'.
func startTime(root string, pid int) (uint64, error) {
	data, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:])) // f[0] is field 3
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// ownedName parses a name made by ownedPrefix. legacy reports the form
// older versions gave their cgroups, benchsup-PID-SEQ (or -probe), which
// records the pid alone.
func ownedName(name string) (o owner, legacy, ok bool) {
	rest, ok := strings.CutPrefix(name, "benchsup-")
	if !ok {
		return owner{}, false, false
	}
	f := strings.SplitN(rest, "-", 4)
	num := func(s string) (uint64, bool) {
		v, err := strconv.ParseUint(s, 10, 64)
		return v, err == nil && len(s) > 0 && s[0] != '+'
	}
	pid, okPid := num(f[0])
	if !okPid || pid == 0 || pid > 1<<22 {
		return owner{}, false, false
	}
	switch len(f) {
	case 2:
		if _, isSeq := num(f[1]); isSeq || f[1] == "probe" {
			return owner{pid: int(pid)}, true, true
		}
	case 4:
		start, ok1 := num(f[1])
		ns, ok2 := num(f[2])
		if ok1 && ok2 && f[3] != "" {
			return owner{pid: int(pid), start: start, pidns: ns}, false, true
		}
	}
	return owner{}, false, false
}

// liveness is what can be said about an owner.
type liveness int

const (
	ownerAlive   liveness = iota
	ownerDead             // its pid is free, or held by a process that started at another time
	ownerUnknown          // another pid namespace, or /proc could not tell
)

// judge says whether o is still running, as seen from me under root.
// Anything it cannot be sure of is alive or unknown, never dead.
func judge(root string, me, o owner, legacy bool) liveness {
	if o.pid == me.pid && (legacy || o == me) {
		return ownerAlive
	}
	if !legacy && o.pidns != me.pidns {
		return ownerUnknown
	}
	start, err := startTime(root, o.pid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ownerDead
	case err != nil:
		return ownerUnknown
	case legacy:
		return ownerAlive // the pid is taken; whether by the owner, nothing says
	case start != o.start:
		return ownerDead
	}
	return ownerAlive
}

// RemoveStale removes what earlier runs left behind when their supervisor
// died without cleaning up and without a reaper (one killed before it
// started its reaper, or the reaper killed too): the cgroups of their
// children, after killing every process still in them, and their scratch
// directories under os.TempDir. It touches only things named as this
// package names them, owned by this user (any, for root), whose owner is
// dead (see judge); a live run's, or one whose owner this process cannot
// judge, are left alone. It returns one line per thing removed and per
// thing that could not be.
func RemoveStale() (removed, failed []string) {
	me, ok := selfOwner()
	if !ok {
		return nil, nil
	}
	s := staleSweep{root: procRoot, me: me, uid: os.Geteuid()}
	for _, parent := range cgroupParents() {
		s.cgroups(parent)
	}
	s.dirs(os.TempDir())
	return s.removed, s.failed
}

// cgroupParents lists the directories under which this package creates
// cgroups: the probe's choice and every other candidate it would consider,
// since a dead run may have been started from elsewhere in the hierarchy.
func cgroupParents() []string {
	var dirs []string
	if sup := probeCgroup(); sup.parent != "" {
		dirs = append(dirs, sup.parent)
	}
	for _, c := range cgroupCandidates("/proc/self/mountinfo", "/proc/self/cgroup") {
		if len(dirs) == 0 || dirs[0] != c {
			dirs = append(dirs, c)
		}
	}
	return append(dirs, v1Parents()...) // where the limits' v1 cgroups go
}

// staleSweep is one pass of RemoveStale.
type staleSweep struct {
	root            string // /proc
	me              owner
	uid             int
	removed, failed []string
}

// stale returns the owner of the directory entry e when it is named as this
// package names things, belongs to this user, and its owner is dead.
func (s *staleSweep) stale(dir string, e fs.DirEntry, legacyOK bool) (owner, bool) {
	o, legacy, ok := ownedName(e.Name())
	if !ok || (legacy && !legacyOK) || !e.IsDir() {
		return owner{}, false
	}
	if s.uid != 0 {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			return owner{}, false
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != s.uid {
			return owner{}, false
		}
	}
	return o, judge(s.root, s.me, o, legacy) == ownerDead
}

// cgroups kills and removes the cgroups under parent whose owner is dead.
func (s *staleSweep) cgroups(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		o, dead := s.stale(parent, e, true)
		if !dead {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		_, killErr := os.Stat(filepath.Join(dir, "cgroup.kill"))
		g := &cgroup{dir: dir, hasKill: killErr == nil}
		pids, _ := g.pids()
		if len(pids) > 0 {
			_ = g.kill()
			if err := g.waitEmpty(cgroupEmptyTimeout); err != nil {
				s.failed = append(s.failed, fmt.Sprintf("cgroup %s of dead run %d: %v", dir, o.pid, err))
				continue
			}
		}
		if err := g.remove(); err != nil {
			s.failed = append(s.failed, fmt.Sprintf("cgroup of dead run %d: %v", o.pid, err))
			continue
		}
		note := fmt.Sprintf("removed the cgroup %s of dead run %d", dir, o.pid)
		if len(pids) > 0 {
			if len(pids) == 1 {
				note += ", killing the process left in it"
			} else {
				note += fmt.Sprintf(", killing the %d processes left in it", len(pids))
			}
		}
		s.removed = append(s.removed, note)
	}
}

// dirs removes the scratch directories under tmp whose owner is dead.
// Legacy names are not considered: older versions named their scratch
// directories without an owner.
func (s *staleSweep) dirs(tmp string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		o, dead := s.stale(tmp, e, false)
		if !dead {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if err := os.RemoveAll(dir); err != nil {
			s.failed = append(s.failed, fmt.Sprintf("directory of dead run %d: %v", o.pid, err))
			continue
		}
		s.removed = append(s.removed, fmt.Sprintf("removed the directory %s of dead run %d", dir, o.pid))
	}
}

// MkdirTemp creates a run's scratch directory under os.TempDir, named after
// this process (so that a later run can tell whether its owner is dead)
// and registered with the reaper, if one runs, to be removed should this
// process die first. Removing it in the ordinary way is the caller's job.
func MkdirTemp() (string, error) {
	prefix := fmt.Sprintf("benchsup-%d-", os.Getpid())
	if me, ok := selfOwner(); ok {
		prefix = me.prefix()
	}
	dir, err := os.MkdirTemp("", prefix+"*")
	if err != nil {
		return "", err
	}
	RemoveOnDeath(dir)
	return dir, nil
}
