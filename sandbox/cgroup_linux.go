//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupSupport is what the probe found: where per-child cgroups can be
// created, or why they cannot.
type cgroupSupport struct {
	parent  string // directory under which per-child cgroups are created; "" when none
	hasKill bool   // cgroup.kill exists (Linux 5.14); otherwise freeze, kill, thaw
	note    string // why parent is ""
}

var (
	cgroupOnce   sync.Once
	cgroupProbed cgroupSupport
	// cgroupOverride, when set, replaces the probe (tests).
	cgroupOverride *cgroupSupport
	cgroupSeq      atomic.Uint64
)

// Bounds of the cgroup teardown.
const (
	cgroupEmptyTimeout  = 2 * time.Second        // for cgroup.procs to empty after a kill
	cgroupFreezeTimeout = 100 * time.Millisecond // for a freeze to complete
)

// probeCgroup returns the cgroup support of this process, probed once.
func probeCgroup() cgroupSupport {
	if cgroupOverride != nil {
		return *cgroupOverride
	}
	cgroupOnce.Do(func() { cgroupProbed = probeCgroupProc("/proc/self/mountinfo", "/proc/self/cgroup") })
	return cgroupProbed
}

// probeCgroupProc finds the cgroup2 mounts and this process's own cgroup, and
// returns the first candidate in which a cgroup can actually be created: our
// own cgroup (a delegated subtree is where a process is meant to create
// children), then the root of each mount.
func probeCgroupProc(mountinfo, self string) cgroupSupport {
	mounts, err := cgroup2Mounts(mountinfo)
	if err != nil {
		return cgroupSupport{note: "cannot read mounts: " + err.Error()}
	}
	if len(mounts) == 0 {
		return cgroupSupport{note: "no cgroup2 hierarchy is mounted"}
	}
	candidates, ownErr := candidateDirs(mounts, self)
	var reasons []string
	for _, dir := range candidates {
		probe := filepath.Join(dir, ownedPrefix()+"probe")
		if err := os.Mkdir(probe, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			reasons = append(reasons, err.Error())
			continue
		}
		_, killErr := os.Stat(filepath.Join(probe, "cgroup.kill"))
		_ = unix.Rmdir(probe)
		return cgroupSupport{parent: dir, hasKill: killErr == nil}
	}
	note := "no writable cgroup2 directory: " + strings.Join(reasons, "; ")
	if ownErr != nil {
		note += "; own cgroup unknown: " + ownErr.Error()
	}
	return cgroupSupport{note: note}
}

// candidateDirs lists, without duplicates, where a child's cgroup may be
// created: our own cgroup in each mount, then each mount's root.
func candidateDirs(mounts []mount, self string) ([]string, error) {
	own, ownErr := ownCgroup(self)
	var candidates []string
	seen := map[string]bool{}
	add := func(dir string) {
		if !seen[dir] {
			seen[dir] = true
			candidates = append(candidates, dir)
		}
	}
	for _, m := range mounts {
		if ownErr == nil {
			if rel, ok := strings.CutPrefix(own, m.root); ok && (rel == "" || rel[0] == '/' || m.root == "/") {
				add(filepath.Join(m.point, rel))
			}
		}
		add(m.point)
	}
	return candidates, ownErr
}

// cgroupCandidates is candidateDirs for this process; nil when the mounts
// cannot be read.
func cgroupCandidates(mountinfo, self string) []string {
	mounts, err := cgroup2Mounts(mountinfo)
	if err != nil {
		return nil
	}
	dirs, _ := candidateDirs(mounts, self)
	return dirs
}

// ownedPrefix starts the name of everything this process leaves on the
// system (see stale_linux.go): benchsup-PID-START-PIDNS-, or benchsup-PID-
// when /proc cannot say more.
func ownedPrefix() string {
	if me, ok := selfOwner(); ok {
		return me.prefix()
	}
	return fmt.Sprintf("benchsup-%d-", os.Getpid())
}

type mount struct{ root, point string }

// cgroup2Mounts lists the cgroup2 mounts of a mountinfo file (proc(5)).
func cgroup2Mounts(path string) ([]mount, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []mount
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		if fstype, _, _ := strings.Cut(post, " "); fstype != "cgroup2" {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		out = append(out, mount{root: unescapeMount(f[3]), point: unescapeMount(f[4])})
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownCgroup returns this process's cgroup v2 path: the "0::" line of
// /proc/self/cgroup.
func ownCgroup(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s has no cgroup v2 (0::) line", path)
}

// cgroup is one child's cgroup.
type cgroup struct {
	dir     string
	hasKill bool
	forget  func() // ends the reaper's registration; nil when none
	// spare is a process never signalled through the cgroup (0: none):
	// the supervisor, which is listed in a v1 cgroup while its spawning
	// thread is stranded there (limits_linux.go). cgroup.kill, which
	// only v2 has, kills whole processes but cannot hold threads of a
	// process outside its cgroup.
	spare int
}

// newCgroup creates a fresh cgroup under sup.parent.
func newCgroup(sup cgroupSupport) (*cgroup, error) {
	dir := filepath.Join(sup.parent, ownedPrefix()+strconv.FormatUint(cgroupSeq.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	g := &cgroup{dir: dir, hasKill: sup.hasKill}
	g.forget = reaperTrack(reaperCgroup, dir)
	return g, nil
}

func (g *cgroup) write(file, value string) error {
	return os.WriteFile(filepath.Join(g.dir, file), []byte(value), 0)
}

// addProc moves pid into the cgroup.
func (g *cgroup) addProc(pid int) error { return g.write("cgroup.procs", strconv.Itoa(pid)) }

// pids lists the live processes of the cgroup.
func (g *cgroup) pids() ([]int, error) {
	data, err := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var out []int
	for f := range strings.FieldsSeq(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out, nil
}

// signal sends sig to every process of the cgroup. The kernel offers no
// atomic way for a signal other than SIGKILL, so a member that exits and is
// reaped by its own parent between the listing and the kill could in
// principle have its pid reused in that window.
func (g *cgroup) signal(sig syscall.Signal) {
	pids, _ := g.pids()
	for _, pid := range pids {
		if pid != g.spare {
			_ = unix.Kill(pid, sig)
		}
	}
}

// kill SIGKILLs every process of the cgroup: atomically through cgroup.kill
// where it exists; otherwise by freezing the cgroup (a frozen process cannot
// fork, so the listing is complete; SIGKILL still reaches frozen processes),
// killing every listed pid and thawing it.
func (g *cgroup) kill() error {
	if g.hasKill {
		err := g.write("cgroup.kill", "1")
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		g.hasKill = false
	}
	if err := g.write("cgroup.freeze", "1"); err == nil {
		g.waitFrozen()
		defer g.write("cgroup.freeze", "0")
	}
	g.signal(syscall.SIGKILL)
	return nil
}

// waitFrozen waits, boundedly, until cgroup.events reports "frozen 1".
func (g *cgroup) waitFrozen() {
	deadline := time.Now().Add(cgroupFreezeTimeout)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(filepath.Join(g.dir, "cgroup.events"))
		if err != nil || bytes.Contains(data, []byte("frozen 1")) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// waitEmpty waits until the cgroup has no live process, for at most timeout.
// Without cgroup.kill it kills again on each round, for processes forked
// before the freeze took hold.
func (g *cgroup) waitEmpty(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	pause := 100 * time.Microsecond
	for {
		pids, err := g.pids()
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if g.spare != 0 && len(pids) == 1 && pids[0] == g.spare {
			return fmt.Errorf("%s still holds benchsup's spawning thread: not removed", g.dir)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes still in %s after %v", len(pids), g.dir, timeout)
		}
		if !g.hasKill {
			_ = g.kill()
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}

// remove deletes the (empty) cgroup, retrying briefly while the kernel still
// counts exiting members.
func (g *cgroup) remove() error {
	var err error
	for range 50 {
		err = unix.Rmdir(g.dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			if g.forget != nil {
				g.forget()
			}
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	return fmt.Errorf("rmdir %s: %w", g.dir, err)
}
