//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Resource limits (docs/design.md#containment). A controller lives in one
// hierarchy at a time: on a unified host memory and pids are enabled in the
// cgroup2 tree, and a child's own cgroup (the kill boundary of
// cgroup_linux.go) carries memory.max, memory.swap.max and pids.max, entered
// at clone. On a hybrid host they are cgroup v1 hierarchies of their own;
// the child then gets one directory in each, besides its cgroup2 one, and
// enters them by inheriting the spawning thread's (spawnerThread.fork). The
// probe finds which applies for each controller; nothing is assumed.

// limitProbe is what probeLimits found, with what the spawn needs.
type limitProbe struct {
	LimitSupport
	// v2 is where a child's cgroup2 directory is created when a
	// controller is used through v2 (newCgroup(v2)): a cgroup whose
	// subtree_control has it. Its parent is "" when no controller is
	// available through v2.
	v2     cgroupSupport
	v2Peak bool // memory.peak exists (Linux 5.19)
	// memV1 and pidsV1 are the v1 hierarchies; nil when not used.
	memV1, pidsV1 *v1Hierarchy
}

// v1Hierarchy is a cgroup v1 hierarchy of one controller and this process's
// place in it.
type v1Hierarchy struct {
	controller  string
	root, point string // the mount's root and mount point (mountinfo)
	own         string // this process's path in it (/proc/self/cgroup)
}

// dir is the directory of the cgroup at path (as /proc/*/cgroup writes it).
func (h *v1Hierarchy) dir(path string) string {
	rel := path
	if h.root != "/" {
		rel = strings.TrimPrefix(path, h.root)
	}
	return filepath.Join(h.point, rel)
}

var (
	limitOnce   sync.Once
	limitProbed limitProbe
	// limitOverride, when set, replaces the probe (tests).
	limitOverride *limitProbe
)

// ProbeLimits reports which resource controllers this process can give a
// child: what Config.MemoryLimit and Config.PidsLimit need. It is probed
// once; the probe creates (and removes) an empty cgroup in each candidate
// and may enable memory and pids in a cgroup2 parent's subtree_control.
func ProbeLimits() LimitSupport { return probeLimits().LimitSupport }

func probeLimits() limitProbe {
	if limitOverride != nil {
		return *limitOverride
	}
	limitOnce.Do(func() {
		limitProbed = probeLimitsProc("/proc/self/mountinfo", "/proc/self/cgroup")
	})
	return limitProbed
}

// probeLimitsProc probes v2 first (a controller enabled there is not
// available through v1), then v1 for whatever v2 did not give.
func probeLimitsProc(mountinfo, self string) limitProbe {
	var p limitProbe
	v2mem, v2pids := probeV2Limits(&p, mountinfo, self)
	if p.Memory == "" {
		h, swap, note := probeV1(mountinfo, self, "memory", "memory.limit_in_bytes", "memory.memsw.limit_in_bytes")
		if h != nil {
			p.Memory, p.memV1, p.MemorySwap = CgroupV1, h, swap
		} else {
			p.MemoryNote = "cgroup v2: " + v2mem + "; cgroup v1: " + note
		}
	}
	if p.Pids == "" {
		h, _, note := probeV1(mountinfo, self, "pids", "pids.max", "")
		if h != nil {
			p.Pids, p.pidsV1 = CgroupV1, h
		} else {
			p.PidsNote = "cgroup v2: " + v2pids + "; cgroup v1: " + note
		}
	}
	return p
}

// probeV2Limits looks, among the places a child's cgroup2 directory may be
// created (our own cgroup, then each mount's root), for the first whose
// cgroup.controllers offers memory or pids and whose subtree_control has
// them or accepts them ("+memory", "+pids": refused in a cgroup that has
// processes of its own, other than the root). It fills p and returns, for
// each controller it did not find, why.
func probeV2Limits(p *limitProbe, mountinfo, self string) (memNote, pidsNote string) {
	mounts, err := cgroup2Mounts(mountinfo)
	if err != nil {
		return "cannot read mounts: " + err.Error(), "cannot read mounts: " + err.Error()
	}
	if len(mounts) == 0 {
		return "no cgroup2 hierarchy is mounted", "no cgroup2 hierarchy is mounted"
	}
	dirs, _ := candidateDirs(mounts, self)
	var reasons []string
	for _, dir := range dirs {
		offered, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		var have []string
		for _, c := range []string{"memory", "pids"} {
			if !slices.Contains(strings.Fields(string(offered)), c) {
				continue
			}
			if enabledIn(dir, c) || enable(dir, c) {
				have = append(have, c)
			}
		}
		if len(have) == 0 {
			reasons = append(reasons, fmt.Sprintf("%s: neither memory nor pids is offered (cgroup.controllers %q) and enabled in its subtree", dir, strings.TrimSpace(string(offered))))
			continue
		}
		probe := filepath.Join(dir, ownedPrefix()+"probe")
		if err := os.Mkdir(probe, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			reasons = append(reasons, err.Error())
			continue
		}
		if slices.Contains(have, "memory") && fileExists(filepath.Join(probe, "memory.max")) {
			p.Memory = CgroupV2
			p.MemorySwap = fileExists(filepath.Join(probe, "memory.swap.max"))
			p.v2Peak = fileExists(filepath.Join(probe, "memory.peak"))
		}
		if slices.Contains(have, "pids") && fileExists(filepath.Join(probe, "pids.max")) {
			p.Pids = CgroupV2
		}
		hasKill := fileExists(filepath.Join(probe, "cgroup.kill"))
		_ = unix.Rmdir(probe)
		if p.Memory == "" && p.Pids == "" {
			reasons = append(reasons, dir+": the controllers' files are missing from a new cgroup")
			continue
		}
		p.v2 = cgroupSupport{parent: dir, hasKill: hasKill}
		break
	}
	why := strings.Join(reasons, "; ")
	if p.Memory == "" {
		memNote = "no cgroup offers the memory controller to a child (" + why + ")"
	}
	if p.Pids == "" {
		pidsNote = "no cgroup offers the pids controller to a child (" + why + ")"
	}
	return memNote, pidsNote
}

// enabledIn reports whether controller is in dir's cgroup.subtree_control.
func enabledIn(dir, controller string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	return err == nil && slices.Contains(strings.Fields(string(data)), controller)
}

// enable asks for controller in dir's subtree and reports whether it took.
func enable(dir, controller string) bool {
	_ = os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+"+controller), 0)
	return enabledIn(dir, controller)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// probeV1 finds the v1 hierarchy of controller (a mount of fstype cgroup
// whose super options name it) and this process's cgroup in it, and checks
// that a cgroup can be created there with file in it, and whether it has
// optional too. It returns nil and why not otherwise.
func probeV1(mountinfo, self, controller, file, optional string) (*v1Hierarchy, bool, string) {
	h, err := findV1(mountinfo, self, controller)
	if err != nil {
		return nil, false, err.Error()
	}
	own := h.dir(h.own)
	probe := filepath.Join(own, ownedPrefix()+"probe")
	if err := os.Mkdir(probe, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, false, fmt.Sprintf("cannot create a cgroup in %s: %v", own, err)
	}
	defer unix.Rmdir(probe)
	if !fileExists(filepath.Join(probe, file)) {
		return nil, false, fmt.Sprintf("a cgroup created in %s has no %s", own, file)
	}
	return h, optional != "" && fileExists(filepath.Join(probe, optional)), ""
}

// findV1 reads the mount of controller's v1 hierarchy from mountinfo and
// this process's path in it from self ("N:memory:/path").
func findV1(mountinfo, self, controller string) (*v1Hierarchy, error) {
	data, err := os.ReadFile(mountinfo)
	if err != nil {
		return nil, fmt.Errorf("cannot read mounts: %w", err)
	}
	var h *v1Hierarchy
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() && h == nil {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 || qf[0] != "cgroup" {
			continue
		}
		if slices.Contains(strings.Split(qf[2], ","), controller) {
			h = &v1Hierarchy{controller: controller, root: unescapeMount(pf[3]), point: unescapeMount(pf[4])}
		}
	}
	if h == nil {
		return nil, fmt.Errorf("no cgroup v1 hierarchy with the %s controller is mounted", controller)
	}
	own, err := v1Path(self, controller)
	if err != nil {
		return nil, err
	}
	h.own = own
	return h, nil
}

// v1Parents lists the directories under which the v1 memory and pids
// cgroups of children are created, found without probing.
func v1Parents() []string {
	var dirs []string
	for _, c := range []string{"memory", "pids"} {
		if h, err := findV1("/proc/self/mountinfo", "/proc/self/cgroup", c); err == nil {
			dirs = append(dirs, h.dir(h.own))
		}
	}
	return dirs
}

// v1Path returns the path of the "N:controllers:path" line of a
// /proc/*/cgroup file whose controllers include controller.
func v1Path(file, controller string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	return v1PathIn(data, file, controller)
}

// v1PathIn is v1Path of the text data of file.
func v1PathIn(data []byte, file, controller string) (string, error) {
	for line := range strings.SplitSeq(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && f[1] != "" && slices.Contains(strings.Split(f[1], ","), controller) {
			return f[2], nil
		}
	}
	return "", fmt.Errorf("%s has no line for the %s controller", file, controller)
}

// v1Move is one v1 cgroup the spawning thread enters for a fork and leaves
// after it.
type v1Move struct {
	controller string
	child      string // the child's cgroup directory
	home       string // the directory of the thread's own cgroup
	homePath   string // the thread's own cgroup as /proc/thread-self/cgroup names it
	// optional says the move is for the peak alone (no limit was asked):
	// when the thread cannot make it, the child starts outside that cgroup
	// rather than not at all, and failed says why (set by the spawning
	// thread, read by the spawner's caller after the reply).
	optional bool
	failed   error
}

// limitGroups is one child's resource cgroups: its cgroup2 directory when
// a controller is used through v2, and its v1 directories.
type limitGroups struct {
	probe     limitProbe // what the cgroups are made with
	res       Resources  // the limits, and the versions used
	wantMem   bool       // a memory cgroup: for the limit, or for the peak alone
	wantPids  bool       // a pids cgroup: for the limit
	v2        string     // the child's cgroup2 directory when memory or pids is used through it
	mem, pids *cgroup    // v1; nil when not used
	moves     []v1Move
	pidsExtra int64 // added to the pids limit written: the shim's own tasks
}

// planLimits decides what a child gets: the limits asked for, and a memory
// cgroup for its peak whenever the memory controller is available, limit
// or not (a directory, two writes of the spawning thread's tid, two reads).
// On a v1 hierarchy the first write is not always cheap: the kernel makes a
// cgroup move wait for an RCU grace period unless another move happened
// moments before, so a child's startup takes a median 10-15 ms instead of
// 1.6 ms once children live longer than about 30 ms (2-vCPU VM, Linux 6.1;
// docs/containment.md). The peak from the child's first instruction is
// worth it: the wait is never part of a timed sample.
// It returns the reason the peak will be missing, if known now.
func planLimits(r *resolved) (*limitGroups, string) {
	lg := &limitGroups{res: Resources{MemoryLimit: r.memoryLimit, PidsLimit: r.pidsLimit, OOMKills: -1, LimitHits: -1}}
	if r.cgroup == CgroupOff {
		// resolve refused limits with CgroupOff.
		return lg, "cgroup containment is off (CgroupOff)"
	}
	lg.probe = probeLimits()
	lg.wantPids = r.pidsLimit > 0
	if r.shim {
		lg.pidsExtra = ShimTasks
	}
	if lg.probe.Memory == "" {
		return lg, "no memory controller: " + lg.probe.MemoryNote
	}
	lg.wantMem = true
	return lg, ""
}

// v2Wanted reports whether a controller is used through cgroup2.
func (lg *limitGroups) v2Wanted() bool {
	p := lg.probe
	return (lg.wantMem && p.Memory == CgroupV2) || (lg.wantPids && p.Pids == CgroupV2)
}

// setupV1 creates the child's v1 cgroups, writes the limits, and lists the
// moves the spawning thread makes around the fork. On error, what it
// created is removed.
func (lg *limitGroups) setupV1() (err error) {
	p, memLimit, pidsLimit := lg.probe, lg.res.MemoryLimit, lg.res.PidsLimit
	defer func() {
		if err != nil {
			lg.removeV1()
		}
	}()
	mk := func(h *v1Hierarchy) (*cgroup, error) {
		home := h.dir(h.own)
		g, err := newCgroup(cgroupSupport{parent: home}) // no cgroup.kill in v1
		if err != nil {
			return nil, err
		}
		optional := h.controller == "memory" && memLimit <= 0
		lg.moves = append(lg.moves, v1Move{controller: h.controller, child: g.dir, home: home, homePath: h.own, optional: optional})
		return g, nil
	}
	if lg.wantMem && p.Memory == CgroupV1 {
		if lg.mem, err = mk(p.memV1); err != nil {
			return err
		}
		lg.res.Memory = CgroupV1
		if memLimit > 0 {
			v := strconv.FormatInt(memLimit, 10)
			if err := lg.mem.write("memory.limit_in_bytes", v); err != nil {
				return err
			}
			// memsw bounds memory plus swap: the same value means no swap.
			if p.MemorySwap {
				if err := lg.mem.write("memory.memsw.limit_in_bytes", v); err != nil {
					return err
				}
			}
		}
	}
	if lg.wantPids && p.Pids == CgroupV1 {
		if lg.pids, err = mk(p.pidsV1); err != nil {
			return err
		}
		lg.res.Pids = CgroupV1
		if err := lg.pids.write("pids.max", strconv.FormatInt(pidsLimit+lg.pidsExtra, 10)); err != nil {
			return err
		}
	}
	return nil
}

// setupV2 writes the limits into the child's cgroup2 directory, before the
// clone that enters it.
func (lg *limitGroups) setupV2(dir string) error {
	p, memLimit, pidsLimit := lg.probe, lg.res.MemoryLimit, lg.res.PidsLimit
	g := &cgroup{dir: dir}
	if lg.wantMem && p.Memory == CgroupV2 {
		lg.v2, lg.res.Memory = dir, CgroupV2
		if memLimit > 0 {
			if err := g.write("memory.max", strconv.FormatInt(memLimit, 10)); err != nil {
				return err
			}
			if p.MemorySwap {
				if err := g.write("memory.swap.max", "0"); err != nil {
					return err
				}
			}
		}
	}
	if lg.wantPids && p.Pids == CgroupV2 {
		lg.v2, lg.res.Pids = dir, CgroupV2
		if err := g.write("pids.max", strconv.FormatInt(pidsLimit+lg.pidsExtra, 10)); err != nil {
			return err
		}
	}
	return nil
}

// read gathers what the cgroups recorded, once every process of the child
// is gone and before they are removed.
func (lg *limitGroups) read() Resources {
	p, res := lg.probe, lg.res
	var problems []string
	switch res.Memory {
	case CgroupV2:
		if p.v2Peak {
			if v, err := readInt(filepath.Join(lg.v2, "memory.peak")); err == nil {
				res.PeakMemory, res.PeakMemoryKnown = v, true
			} else {
				problems = append(problems, err.Error())
			}
		} else {
			res.PeakMemoryNote = "this kernel has no memory.peak (Linux 5.19)"
		}
		events, err := readFlat(filepath.Join(lg.v2, "memory.events"))
		if err != nil {
			problems = append(problems, err.Error())
		} else if v, err := events.get("oom_kill"); err == nil {
			res.OOMKills = v
		} else {
			problems = append(problems, err.Error())
		}
		if res.MemoryLimit > 0 && err == nil {
			// "max": how often usage hit memory.max.
			if v, err := events.get("max"); err == nil {
				res.LimitHits = v
			}
		}
	case CgroupV1:
		if v, err := readInt(filepath.Join(lg.mem.dir, "memory.max_usage_in_bytes")); err == nil {
			res.PeakMemory, res.PeakMemoryKnown = v, true
		} else {
			problems = append(problems, err.Error())
		}
		// oom_kill in memory.oom_control since Linux 4.13; before it, the
		// limit's failure count is the evidence left.
		if v, err := readKey(filepath.Join(lg.mem.dir, "memory.oom_control"), "oom_kill"); err == nil {
			res.OOMKills = v
		} else {
			problems = append(problems, err.Error())
		}
		if res.MemoryLimit > 0 {
			// A charge is tried against memory+swap first where both are
			// limited (memsw, equal: swap off), and a failure there is
			// counted there alone: the hits are the sum.
			if v, err := readInt(filepath.Join(lg.mem.dir, "memory.failcnt")); err == nil {
				res.LimitHits = v
				if p.MemorySwap {
					if w, err := readInt(filepath.Join(lg.mem.dir, "memory.memsw.failcnt")); err == nil {
						res.LimitHits += w
					}
				}
			}
		}
	}
	pidsDir := lg.v2
	if res.Pids == CgroupV1 {
		pidsDir = lg.pids.dir
	}
	if res.Pids != "" {
		if v, err := readKey(filepath.Join(pidsDir, "pids.events"), "max"); err == nil {
			res.PidsRefused = v
		} else {
			problems = append(problems, err.Error())
		}
	}
	res.LimitReached = res.MemoryLimit > 0 && (res.LimitHits > 0 || (res.PeakMemoryKnown && res.PeakMemory >= res.MemoryLimit))
	if res.Memory != "" && !res.PeakMemoryKnown && res.PeakMemoryNote == "" {
		res.PeakMemoryNote = "reading the cgroup failed: " + strings.Join(problems, "; ")
	}
	return res
}

// removeV1 kills what is left in the v1 cgroups (the cgroup2 one was
// emptied first: the same processes), and removes them.
func (lg *limitGroups) removeV1() []string {
	var notes []string
	gs := []*cgroup{lg.mem, lg.pids}
	lg.mem, lg.pids, lg.moves = nil, nil, nil
	for _, g := range gs {
		if g == nil {
			continue
		}
		// Neither cgroup.kill nor cgroup.freeze exists in v1: waitEmpty
		// kills the members each round, but never this process, which
		// cgroup.procs lists while its spawning thread is stranded there.
		g.spare = os.Getpid()
		if err := g.waitEmpty(cgroupEmptyTimeout); err != nil {
			notes = append(notes, err.Error())
			continue
		}
		if err := g.remove(); err != nil {
			notes = append(notes, err.Error())
		}
	}
	return notes
}

// skippedPeak drops the v1 memory cgroup a peak-only move could not enter
// (the child started outside it), and returns why; "" when none was.
// releaseShim moves the shim, once it started the program inside the
// child's v1 memory and pids cgroups, back to the spawning thread's own:
// the limits and the peak are then the program's, as under go test, and
// the kernel's OOM killer, which chooses among a memory cgroup's
// processes, never takes the shim (whose death ends the program): a
// second OOM of a limit, while its first victim's memory was not yet
// uncharged, chose the shim (8.8 MB resident, more than the test binary).
// What the shim was charged before stays charged (v1 moves no charges);
// a pids limit raised for the shim's threads (pidsExtra) is the program's
// again. A failed move leaves the shim where it was, as before; cgroup2
// keeps it, since its cgroup is also the child's containment.
func (lg *limitGroups) releaseShim(pid int) {
	for _, m := range lg.moves {
		if m.failed != nil {
			continue
		}
		if os.WriteFile(filepath.Join(m.home, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0) != nil {
			continue
		}
		if m.controller == "pids" && lg.pids != nil && lg.res.PidsLimit > 0 && lg.pidsExtra > 0 {
			_ = lg.pids.write("pids.max", strconv.FormatInt(lg.res.PidsLimit, 10))
		}
	}
}

func (lg *limitGroups) skippedPeak() string {
	for _, m := range lg.moves {
		if m.failed == nil || m.controller != "memory" || lg.mem == nil {
			continue
		}
		_ = lg.mem.remove() // nothing ever entered it
		lg.mem = nil
		lg.res.Memory = ""
		return "the child could not be started in its cgroup v1 memory cgroup: " + m.failed.Error()
	}
	return ""
}

func readInt(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// readKey reads the value of the "key value" line of a flat-keyed cgroup
// file (memory.events, pids.events, memory.oom_control).
func readKey(path, key string) (int64, error) {
	f, err := readFlat(path)
	if err != nil {
		return 0, err
	}
	return f.get(key)
}

// flatFile is the text of a flat-keyed cgroup file, read once for the
// values of several keys.
type flatFile struct{ path, data string }

func readFlat(path string) (flatFile, error) {
	data, err := os.ReadFile(path)
	return flatFile{path, string(data)}, err
}

// get is the value of f's "key value" line.
func (f flatFile) get(key string) (int64, error) {
	for line := range strings.SplitSeq(f.data, "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s has no %s line", f.path, key)
}

// Seams for tests.
var (
	// writeTasks moves the thread tid into the v1 cgroup dir through f,
	// its tasks file; a test makes a move fail.
	writeTasks = func(f *os.File, dir string, tid int) error {
		_, err := f.WriteString(strconv.Itoa(tid))
		return err
	}
	// threadCgroupFile is where the spawning thread checks that it is home.
	threadCgroupFile = "/proc/thread-self/cgroup"
)

// enterV1 moves the thread tid into the v1 cgroup dir.
func enterV1(dir string, tid int) error {
	f, err := os.OpenFile(filepath.Join(dir, "tasks"), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return writeTasks(f, dir, tid)
}

// wayHome holds open what the spawning thread needs to go back to its own
// v1 cgroups and check that it did: the tasks file of each and its
// /proc/thread-self/cgroup. Opened before the thread first leaves and held
// for the life of the thread (it is locked to the spawner for life), the
// way back needs no new descriptor: a process out of descriptors (a low
// RLIMIT_NOFILE, a leak) cannot strand the thread in a child's cgroup,
// where every later child would start and whose cleanup would find the
// supervisor in it.
type wayHome struct {
	tasks map[string]*os.File // by home directory
	self  *os.File            // threadCgroupFile, opened on this thread
}

// heldForLife are the descriptors of every wayHome, by number: open on
// purpose until the process exits (a leak check passes over them).
var heldForLife sync.Map

// open makes sure the tasks files of the homes of moves are open.
func (w *wayHome) open(moves []v1Move) error {
	if w.self == nil {
		f, err := os.Open(threadCgroupFile)
		if err != nil {
			return err
		}
		heldForLife.Store(f.Fd(), true)
		w.self = f
	}
	for _, m := range moves {
		if w.tasks[m.home] != nil {
			continue
		}
		f, err := os.OpenFile(filepath.Join(m.home, "tasks"), os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if w.tasks == nil {
			w.tasks = map[string]*os.File{}
		}
		heldForLife.Store(f.Fd(), true)
		w.tasks[m.home] = f
	}
	return nil
}

// cgroupFile reads the thread's /proc/thread-self/cgroup afresh.
func (w *wayHome) cgroupFile() ([]byte, error) {
	buf := make([]byte, 4096)
	for {
		n, err := w.self.ReadAt(buf, 0)
		if err == nil && n == len(buf) {
			buf = make([]byte, 2*len(buf))
			continue
		}
		if err == io.EOF {
			err = nil
		}
		return buf[:n], err
	}
}

// fork starts the process with the calling thread (the spawner's) in the
// v1 cgroups of moves, and moves it back after.
//
// Cgroup v1 has no CLONE_INTO_CGROUP, and moving the child's pid after the
// start would leave it unlimited for a while (long enough to fork or to
// allocate). A child starts in the cgroups of the thread that forks it, so
// the spawner thread enters the child's cgroups (its tid into each tasks
// file: v1 cgroups are per thread), forks, and returns to its own. While
// it is in them it counts as one task in the child's pids.current: a pids
// limit of 1 refuses the fork itself. Memory charges stay with the
// supervisor's mm, whose owner never moved.
//
// A thread that could not go back would put every later child, and the
// supervisor's next forks from it, in this child's cgroups: like a failed
// affinity restore, it is owed and retried before the next spawn, which
// fails while it cannot be made.
func (t *spawnerThread) fork(moves []v1Move, path string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	if len(moves) == 0 {
		spawnAttempts.Add(1)
		return os.StartProcess(path, argv, attr)
	}
	tid := unix.Gettid()
	if err := t.home.open(moves); err != nil {
		// Nothing entered yet: no move is made without its way back.
		for i, m := range moves {
			if !m.optional {
				return nil, &IOError{Op: "open the way back from the child's " + m.controller + " cgroup", Err: err}
			}
			moves[i].failed = err
		}
		spawnAttempts.Add(1)
		return os.StartProcess(path, argv, attr)
	}
	for i, m := range moves {
		if err := enterV1(m.child, tid); err != nil {
			if m.optional {
				moves[i].failed = err
				continue
			}
			if herr := t.goHome(moves[:i]); herr != nil {
				err = fmt.Errorf("%w; and going back: %w", err, herr)
			}
			return nil, &IOError{Op: "enter the child's " + m.controller + " cgroup", Err: err}
		}
	}
	spawnAttempts.Add(1)
	proc, err := os.StartProcess(path, argv, attr)
	_ = t.goHome(moves) // on failure owed: the next spawn retries or refuses
	if errors.Is(err, unix.EAGAIN) && slices.ContainsFunc(moves, func(m v1Move) bool { return m.controller == "pids" }) {
		err = fmt.Errorf("%w (a cgroup v1 pids limit counts the forking thread too: it needs room for it and the child)", err)
	}
	return proc, err
}

// goHome moves the calling thread back into its own v1 cgroups and checks
// that it is there; on failure the moves are owed.
func (t *spawnerThread) goHome(moves []v1Move) error {
	tid := unix.Gettid()
	var errs []error
	for _, m := range moves {
		if err := writeTasks(t.home.tasks[m.home], m.home, tid); err != nil {
			errs = append(errs, err)
		}
	}
	data, err := t.home.cgroupFile()
	for _, m := range moves {
		got := ""
		if err == nil {
			got, err = v1PathIn(data, threadCgroupFile, m.controller)
		}
		if err != nil {
			errs = append(errs, err)
		} else if got != m.homePath {
			errs = append(errs, fmt.Errorf("the spawning thread is in %s cgroup %s, not %s", m.controller, got, m.homePath))
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.owedHome = moves
		return err
	}
	t.owedHome = nil
	return nil
}
