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
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The reaper is what cleans up after a supervisor that is killed with
// SIGKILL (docs/design.md#containment). A child's parent-death signal takes
// the child along, but not its descendants: they are reparented to init,
// and the child's cgroup and the run's scratch directory stay. Nothing runs
// in a process killed with SIGKILL, so the cleanup must live in another
// process that outlives it: the reaper, a small process started first (the
// same binary, with ReaperArg), holding the read end of a pipe whose only
// write end the supervisor holds. The supervisor registers each cgroup,
// process group and scratch path on the pipe as it creates them and
// deregisters them once it has cleaned them up itself; it also registers
// the run's EnvRun value, which every process it starts afterwards carries
// (its children without a cgroup, the go command and its compilers). When
// the pipe reaches end-of-file (the supervisor exited, however it exited),
// the reaper kills every cgroup still registered (cgroup.kill, or freeze
// and kill every member), SIGKILLs every process group still registered and
// every process whose environment carries the value, and removes the
// cgroups and the paths. It is in a process group of its own, so the
// terminal's signals and a kill of the supervisor's group do not reach it,
// and it ignores SIGINT, SIGTERM and SIGHUP: it exits at end-of-file anyway.
//
// Limits. A cgroup is a boundary nothing inside can leave. A process group
// is not: without a writable cgroup, a descendant that calls setsid (a
// daemon) or setpgid leaves its group, and is found only by the environment
// it inherited; one that also cleared its environment is not found. PR_SET_CHILD_SUBREAPER does not help here: it gives
// orphans to an ancestor, and the only ancestor of the children that could
// outlive the supervisor would be one the user would have to kill instead of
// it. A process group is killed only while its number is ours: the root's
// start time is registered with it, and a group whose leader is alive with
// another start time is left alone; a group whose leader has been reaped
// keeps its number while any member lives, so its number cannot be reused
// before the group is empty.

// What the reaper is told to clean up.
const (
	reaperCgroup = "cgroup"  // a directory in a cgroup2 hierarchy: kill its members, rmdir
	reaperGroup  = "pgrp"    // "PGID START": SIGKILL the process group, unless its leader is another process
	reaperPath   = "remove"  // a file or directory: os.RemoveAll
	reaperEnv    = "environ" // a value of EnvRun: SIGKILL every process whose environment has it
)

// reaperWait bounds how long Close waits for the reaper to finish.
const reaperWait = 5 * time.Second

// A Reaper is a running reaper process; see StartReaper.
type Reaper struct {
	proc *os.Process

	mu  sync.Mutex
	w   *os.File // nil once closed
	err error    // the first failed write: the reaper is gone
}

// current is the reaper registrations go to; nil when none runs.
var current atomic.Pointer[Reaper]

// StartReaper starts this process's own executable (/proc/self/exe, so the
// same binary even if its file was replaced since) with args, which must
// make it call ReaperMain with its standard input, as this process's
// reaper. From then on every child's
// cgroup and process group, and every path given to RemoveOnDeath, is
// registered with it until cleaned up, and it cleans up whatever is still
// registered when this process exits. It sets EnvRun in this process's
// environment, so that every process started afterwards, by this package
// or not, is found by it too (children without a cgroup get it at spawn;
// the strict policy passes no other copy). Call Close before exiting in the
// ordinary way.
func StartReaper(args ...string) (*Reaper, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, &IOError{Op: "reaper pipe", Err: err}
	}
	defer rd.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		wr.Close()
		return nil, &IOError{Op: "open " + os.DevNull, Err: err}
	}
	defer null.Close()
	// Deliberately no parent-death signal: outliving this process is its job.
	proc, err := os.StartProcess("/proc/self/exe", append([]string{os.Args[0]}, args...), &os.ProcAttr{
		Dir:   "/", // pins no directory that is to be removed or unmounted
		Env:   []string{},
		Files: []*os.File{rd, null, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		wr.Close()
		return nil, &IOError{Op: "start reaper", Err: err}
	}
	r := &Reaper{proc: proc, w: wr}
	if !current.CompareAndSwap(nil, r) {
		r.Close()
		return nil, &IOError{Op: "start reaper", Err: errors.New("a reaper is already running")}
	}
	// Every process this one starts from now on carries the run's EnvRun
	// (the go command and the compilers it runs, say), so that the reaper
	// finds them too; a child's environment gets it at spawn.
	run, _ := reaperEnvValue()
	os.Setenv(EnvRun, run)
	return r, nil
}

// Err reports why registrations stopped reaching the reaper, if they did.
func (r *Reaper) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close stops registering with r, closes the pipe (the reaper then cleans
// up whatever is still registered, which is nothing when this process
// cleaned up after itself) and waits, boundedly, for the reaper to exit.
// It reports what registrations failed, and a reaper that did not exit
// cleanly.
func (r *Reaper) Close() error {
	if current.CompareAndSwap(r, nil) {
		os.Unsetenv(EnvRun)
	}
	r.mu.Lock()
	if r.w != nil {
		r.w.Close()
		r.w = nil
	}
	err := r.err
	r.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		st, err := r.proc.Wait()
		if err == nil && !st.Success() {
			err = fmt.Errorf("reaper %s", st)
		}
		done <- err
	}()
	select {
	case werr := <-done:
		return errors.Join(err, werr)
	case <-time.After(reaperWait):
		return errors.Join(err, fmt.Errorf("reaper (pid %d) still running after %v", r.proc.Pid, reaperWait))
	}
}

// send writes one registration line.
func (r *Reaper) send(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil || r.err != nil {
		return
	}
	if _, err := io.WriteString(r.w, line); err != nil {
		r.err = &IOError{Op: "reaper", Err: err}
	}
}

// reaperTrack registers arg of kind with the running reaper and returns
// the function that deregisters it, once; a no-op when no reaper runs.
func reaperTrack(kind, arg string) (forget func()) {
	r := current.Load()
	if r == nil {
		return func() {}
	}
	q := strconv.Quote(arg)
	r.send("+" + kind + " " + q + "\n")
	var once sync.Once
	return func() { once.Do(func() { r.send("-" + kind + " " + q + "\n") }) }
}

// trackGroup registers the process group a child's root leads.
func trackGroup(pid int) (forget func()) {
	start, _ := startTime(procRoot, pid) // 0: unknown, no check
	return reaperTrack(reaperGroup, fmt.Sprintf("%d %d", pid, start))
}

// RemoveOnDeath registers path with the running reaper, if any, to be
// removed (os.RemoveAll) should this process exit before forget is called.
func RemoveOnDeath(path string) (forget func()) { return reaperTrack(reaperPath, path) }

// ReaperMain is the reaper: it reads registrations from in until end-of-file,
// then cleans up everything still registered and returns the exit status:
// 0, or 1 when something could not be cleaned up (said on stderr).
func ReaperMain(in io.Reader) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	// The supervisor, still alive when it closed the pipe on its way
	// out, is no member to kill even where its spawning thread is
	// stranded in a registered v1 cgroup.
	reg := registry{supervisor: os.Getppid()}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		reg.apply(sc.Text())
	}
	problems := reg.cleanup()
	for _, p := range problems {
		fmt.Fprintf(os.Stderr, "benchsup: cleaning up after the supervisor: %s\n", p)
	}
	if len(problems) > 0 {
		return 1
	}
	return 0
}

// registry is what the reaper holds: per kind, the live registrations in
// the order they came.
type registry struct {
	supervisor int      // never signalled through a cgroup
	order      []string // kind + " " + arg
	live       map[string]bool
	bad        []string // lines it could not read
}

func (g *registry) apply(line string) {
	if g.live == nil {
		g.live = map[string]bool{}
	}
	op, rest := line[:min(1, len(line))], line[min(1, len(line)):]
	kind, q, ok := strings.Cut(rest, " ")
	arg, err := strconv.Unquote(q)
	if !ok || err != nil || (op != "+" && op != "-") || (kind != reaperCgroup && kind != reaperGroup && kind != reaperPath && kind != reaperEnv) {
		g.bad = append(g.bad, fmt.Sprintf("unreadable registration %q", line))
		return
	}
	key := kind + " " + arg
	if op == "-" {
		delete(g.live, key)
		return
	}
	if !g.live[key] {
		g.live[key] = true
		g.order = append(g.order, key)
	}
}

// entries returns the live args of kind in registration order.
func (g *registry) entries(kind string) []string {
	var out []string
	for _, key := range g.order {
		if g.live[key] {
			if arg, ok := strings.CutPrefix(key, kind+" "); ok {
				out = append(out, arg)
			}
		}
	}
	return out
}

// cleanup kills every registered process group and cgroup, waits (boundedly)
// for them to empty, removes the cgroups and then the paths, which the
// processes may have been using. It returns what failed.
func (g *registry) cleanup() []string {
	problems := g.bad
	var groups []int
	for _, arg := range g.entries(reaperGroup) {
		var pgid int
		var start uint64
		if _, err := fmt.Sscanf(arg, "%d %d", &pgid, &start); err != nil || pgid <= 1 {
			problems = append(problems, fmt.Sprintf("unreadable process group %q", arg))
			continue
		}
		if start != 0 {
			// The leader alive with another start time: the number was
			// reused, so our group is empty and this one is not ours.
			if s, err := startTime(procRoot, pgid); err == nil && s != start {
				continue
			}
		}
		if unix.Kill(-pgid, syscall.SIGKILL) == nil {
			groups = append(groups, pgid)
		}
	}
	for _, value := range g.entries(reaperEnv) {
		if err := killByEnv(procRoot, EnvRun+"="+value); err != nil {
			problems = append(problems, err.Error())
		}
	}
	var cgroups []*cgroup
	for _, dir := range g.entries(reaperCgroup) {
		_, err := os.Stat(dir + "/cgroup.kill")
		cg := &cgroup{dir: dir, hasKill: err == nil, spare: g.supervisor}
		if err := cg.kill(); err != nil && !errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, fmt.Sprintf("kill %s: %v", dir, err))
		}
		cgroups = append(cgroups, cg)
	}
	for _, cg := range cgroups {
		if err := cg.waitEmpty(cgroupEmptyTimeout); err != nil && !errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, err.Error())
			continue
		}
		if err := cg.remove(); err != nil {
			problems = append(problems, err.Error())
		}
	}
	// Killed members exit in microseconds, but one still exiting may be
	// finishing a write into a registered path: wait, boundedly, until no
	// member of the groups is anything but a zombie.
	deadline := time.Now().Add(500 * time.Millisecond)
	for len(groups) > 0 && runningIn(groups) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	for _, path := range g.entries(reaperPath) {
		err := os.RemoveAll(path)
		if err != nil {
			time.Sleep(50 * time.Millisecond) // a file created during the walk
			err = os.RemoveAll(path)
		}
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	return problems
}

// runningIn reports whether a process other than a zombie is in one of
// groups, reading /proc.
func runningIn(groups []int) bool {
	names, err := os.ReadDir(procRoot)
	if err != nil {
		return false
	}
	for _, e := range names {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(procRoot + "/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(data), ')')
		f := strings.Fields(string(data[i+1:])) // state ppid pgrp ...
		if i < 0 || len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if pgrp, err := strconv.Atoi(f[2]); err == nil && slices.Contains(groups, pgrp) {
			return true
		}
	}
	return false
}

// killByEnv SIGKILLs every process but this one whose initial environment
// (/proc/PID/environ) holds the variable kv, and repeats until a pass finds
// none (one may fork while a pass reads), at most a few times. Each is
// opened as a pidfd before its environment is read and signalled through
// it, so that a pid reused in between is never signalled.
func killByEnv(root, kv string) error {
	needle := []byte(kv + "\x00")
	me := os.Getpid()
	killed := map[int]bool{} // a killed process may linger as a zombie, environment and all
	for range 5 {
		ents, err := os.ReadDir(root)
		if err != nil {
			return err
		}
		found := 0
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == me || killed[pid] {
				continue
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue // gone, or no pidfd (Linux < 5.3): not signalled blind
			}
			env, err := os.ReadFile(root + "/" + e.Name() + "/environ")
			if err == nil && (bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...))) {
				if unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil {
					killed[pid] = true
					found++
				}
			}
			unix.Close(fd)
		}
		if found == 0 {
			return nil
		}
	}
	return fmt.Errorf("processes with %s still appearing after 5 passes", kv)
}

// reaperEnvValue registers this run's EnvRun value with the reaper and
// returns it; ok is false when no reaper runs.
func reaperEnvValue() (string, bool) {
	if current.Load() == nil {
		return "", false
	}
	run := strings.TrimSuffix(ownedPrefix(), "-")
	reaperTrack(reaperEnv, run) // never forgotten: the registry keeps one
	return run, true
}
