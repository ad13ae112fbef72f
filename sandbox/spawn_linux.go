//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/protocol"
)

// Seams for tests.
var (
	// socketpair creates the protocol endpoint; a test makes it fail.
	socketpair = unix.Socketpair
	// newPipe creates the stdout and stderr pipes; a test makes it fail.
	newPipe = os.Pipe
	// spawnAttempts counts os.StartProcess calls, so that a test can tell
	// that an invalid Config spawned nothing.
	spawnAttempts atomic.Int64
	// cloneIntoCgroup false skips clone3 CLONE_INTO_CGROUP, to exercise
	// the fallback.
	cloneIntoCgroup = true
)

// spawned is what spawnChild made: the running root and the supervisor's
// ends of the child's descriptors, which the Child then owns.
type spawned struct {
	proc           *os.Process // the root: the program, or its shim
	programPID     int         // the program's pid (proc's without a shim)
	shim           *shimLink   // nil: no shim
	cg             *cgroup     // nil: process group only
	sock           *os.File    // the endpoint, non-blocking
	stdout, stderr *os.File    // the read ends of the output pipes
	containment    Containment // cgroup or process group
	note           string      // why there is no cgroup, or what went wrong with it
	lim            *limitGroups
}

// spawnChild creates the endpoint, the pipes and the cgroup and starts the
// process. On error everything it created is released.
func spawnChild(r *resolved) (_ *spawned, err error) {
	var childSide, parentSide []*os.File
	defer func() {
		for _, f := range childSide {
			f.Close() // the child has its own copies
		}
		if err != nil {
			for _, f := range parentSide {
				f.Close()
			}
		}
	}()

	fds, err := socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, &IOError{Op: "socketpair", Err: err}
	}
	// Non-blocking, so that os.NewFile puts it in the poller and read
	// deadlines work; the child's end stays blocking, as programs expect.
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, &IOError{Op: "socketpair", Err: err}
	}
	sock := os.NewFile(uintptr(fds[0]), "benchsup-protocol")
	childSock := os.NewFile(uintptr(fds[1]), "benchsup-protocol-child")
	parentSide = append(parentSide, sock)
	childSide = append(childSide, childSock)

	stdin, err := os.Open(os.DevNull)
	if err != nil {
		return nil, &IOError{Op: "open " + os.DevNull, Err: err}
	}
	childSide = append(childSide, stdin)
	var pipes [2][2]*os.File // stdout, stderr; read end, write end
	for i := range pipes {
		rd, wr, err := newPipe()
		if err != nil {
			return nil, &IOError{Op: "pipe", Err: err}
		}
		parentSide = append(parentSide, rd)
		childSide = append(childSide, wr)
		pipes[i] = [2]*os.File{rd, wr}
	}

	sys := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	attr := &os.ProcAttr{
		Dir:   r.dir,
		Env:   r.env,
		Files: []*os.File{stdin, pipes[0][1], pipes[1][1], childSock}, // fds 0-3
		Sys:   sys,
	}
	if r.program {
		attr.Files = attr.Files[:3] // a plain program gets no endpoint
	}
	if r.recordFile != nil {
		attr.Files = append(attr.Files, r.recordFile) // protocol.EnvRecordFD names it
	}
	var shimCtrl, shimReport *os.File // the supervisor's ends
	if r.shim {
		// The shim gets the program's descriptors, then its own: the
		// control pipe's read end, the report pipe's write end and, when
		// the program runs from a held descriptor, that one.
		ctrlRd, ctrlWr, err := newPipe()
		if err != nil {
			return nil, &IOError{Op: "pipe", Err: err}
		}
		parentSide, childSide = append(parentSide, ctrlWr), append(childSide, ctrlRd)
		repRd, repWr, err := newPipe()
		if err != nil {
			return nil, &IOError{Op: "pipe", Err: err}
		}
		parentSide, childSide = append(parentSide, repRd), append(childSide, repWr)
		shimCtrl, shimReport = ctrlWr, repRd
		n := len(attr.Files)
		r.shimArgs = &shimArgs{nfiles: n, ctrl: n, report: n + 1, execFD: -1, path: r.path, argv: r.argv}
		attr.Files = append(attr.Files, ctrlRd, repWr)
		if r.exec != nil {
			r.shimArgs.execFD = len(attr.Files)
			attr.Files = append(attr.Files, r.exec)
			var remove func()
			r.shimArgs.linkDir, remove = execLinkDir(r.path)
			defer remove() // the shim has execed the program by then, or failed to
		}
	}

	var cg *cgroup
	var note string
	lg, peakNote := planLimits(r)
	limited := r.memoryLimit > 0 || r.pidsLimit > 0
	if lg.v2Wanted() {
		// The controllers are enabled below lg.probe.v2.parent: the
		// child's kill boundary is created there and carries the limits.
		cg, err = newCgroup(lg.probe.v2)
		if err == nil {
			if err = lg.setupV2(cg.dir); err != nil {
				_ = cg.remove()
				cg = nil
			}
		}
		if err != nil {
			if limited {
				return nil, &IOError{Op: "cgroup limits", Err: err}
			}
			// Only the peak was wanted: measured nowhere, said why.
			peakNote = "cannot create a cgroup with the memory controller: " + err.Error()
			lg.res.Memory, lg.v2 = "", ""
			err = nil
		}
	}
	if cg != nil {
		// Created above, with its controllers.
	} else if r.cgroup == CgroupOff {
		note = "cgroup containment is off (CgroupOff)"
	} else if sup := probeCgroup(); sup.parent == "" {
		note = sup.note
	} else if cg, err = newCgroup(sup); err != nil {
		note = fmt.Sprintf("cannot create a cgroup under %s: %v", sup.parent, err)
	}
	if err := lg.setupV1(); err != nil {
		if limited {
			if cg != nil {
				_ = cg.remove()
			}
			return nil, &IOError{Op: "cgroup limits", Err: err}
		}
		peakNote = "cannot create the child's cgroup v1 memory cgroup: " + err.Error()
		lg.res.Memory = ""
	}
	if cg != nil {
		// The child may attribute its cgroup's pressure to itself only if
		// it is really in this one: it compares the name with its own.
		attr.Env = append(attr.Env[:len(attr.Env):len(attr.Env)], protocol.EnvCgroup+"="+filepath.Base(cg.dir))
	} else if run, ok := reaperEnvValue(); ok {
		// Without a cgroup, what the reaper can find of a descendant that
		// left the process group (see EnvRun).
		attr.Env = append(attr.Env[:len(attr.Env):len(attr.Env)], EnvRun+"="+run)
	}
	proc, cg, cgNote, err := spawnContained(r, attr, cg, lg.moves)
	if err != nil {
		lg.removeV1()
		return nil, spawnError(err, attr.Files)
	}
	// The child has its copies now. The report pipe's end of the shim must
	// not stay open here while the shim is waited for: a shim that dies
	// before its first line (refused its threads under a pids limit) is
	// then an end of file at once, not a wait for the startup deadline.
	for _, f := range childSide {
		f.Close()
	}
	childSide = nil
	var link *shimLink
	programPID := proc.Pid
	if r.shim {
		link = newShimLink(shimCtrl, shimReport)
		if programPID, err = link.started(r.startupTimeout); err != nil {
			if errors.Is(err, errShimEnded) {
				err = shimEnded(proc, pipes[1][0])
			}
			killUnplaced(proc, cg)
			lg.removeV1()
			link.finish()
			var se *shimStartErr
			if errors.As(err, &se) {
				return nil, spawnError(err, nil)
			}
			return nil, &IOError{Op: "spawn", Err: err}
		}
	}
	if r.shim {
		lg.releaseShim(proc.Pid)
	}
	if why := lg.skippedPeak(); why != "" {
		peakNote = why
	}
	if lg.v2 != "" && cg == nil {
		// Entering the cgroup failed even after the spawn: no v2 limit
		// holds on this child.
		if limited {
			killUnplaced(proc, nil)
			lg.removeV1()
			return nil, &IOError{Op: "cgroup limits", Err: errors.New(cgNote)}
		}
		lg.res.Memory, lg.v2 = "", ""
		peakNote = "the child is not in its cgroup: " + cgNote
	}
	lg.res.PeakMemoryNote = peakNote
	if len(r.cpus) > 0 {
		// Now that it is in its cgroup, whose cpuset may narrow it.
		if err := verifyAffinity(proc.Pid, r.cpus); err != nil {
			killUnplaced(proc, cg)
			lg.removeV1()
			return nil, err
		}
	}
	if cgNote != "" {
		note = cgNote
	}
	containment := ContainmentProcessGroup
	if cg != nil {
		containment = ContainmentCgroup
	}
	return &spawned{
		proc:        proc,
		programPID:  programPID,
		shim:        link,
		cg:          cg,
		sock:        sock,
		stdout:      pipes[0][0],
		stderr:      pipes[1][0],
		containment: containment,
		note:        note,
		lim:         lg,
	}, nil
}

// spawnContained starts the process, in cg when it is not nil. It returns
// the cgroup the process is in (nil if none) and a note when the cgroup was
// not entered as intended. On error, cg has been removed.
func spawnContained(r *resolved, attr *os.ProcAttr, cg *cgroup, moves []v1Move) (*os.Process, *cgroup, string, error) {
	if cg == nil {
		proc, err := spawn(r, attr, moves)
		return proc, nil, "", err
	}
	// Enter the cgroup at clone time (clone3 CLONE_INTO_CGROUP), so that
	// not even the child's first instruction runs outside it.
	intoErr := errors.New("disabled")
	if cloneIntoCgroup {
		var fd int
		if fd, intoErr = unix.Open(cg.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); intoErr == nil {
			sys := *attr.Sys
			sys.UseCgroupFD, sys.CgroupFD = true, fd
			into := *attr
			into.Sys = &sys
			proc, err := spawn(r, &into, moves)
			unix.Close(fd)
			var aff *AffinityError
			switch {
			case err == nil:
				return proc, cg, "", nil
			case errors.As(err, &aff): // refused before any fork: no retry helps
				_ = cg.remove()
				return nil, nil, "", err
			}
			intoErr = err
		}
	}
	// An older kernel, or a seccomp filter refusing clone3: spawn plainly
	// and move the child, which runs outside the cgroup in between.
	proc, err := spawn(r, attr, moves)
	if err != nil {
		_ = cg.remove()
		return nil, nil, "", err
	}
	if err := cg.addProc(proc.Pid); err != nil {
		_ = cg.remove()
		return proc, nil, fmt.Sprintf("no cgroup: entering it at clone failed (%v), and after spawn (%v)", intoErr, err), nil
	}
	return proc, cg, fmt.Sprintf("cgroup entered after spawn: entering it at clone failed (%v)", intoErr), nil
}

var (
	cloexecOnce sync.Once
	cloexecErr  error
)

// markInheritedCloexec sets FD_CLOEXEC on every descriptor above 2 of this
// process. Go opens all of its descriptors close-on-exec, but this process
// may have inherited some without the flag from its own parent, and every
// one of those would otherwise reach every child. It runs once, before the
// first spawn (see the package doc for what that does not cover).
func markInheritedCloexec() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		// Without /proc, close_range(2) (Linux 5.11) marks the whole
		// table in one call.
		if crErr := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); crErr != nil {
			return fmt.Errorf("%w; close_range: %w", err, crErr)
		}
		return nil
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil {
			continue // closed since the listing, such as the listing's own descriptor
		}
		if flags&unix.FD_CLOEXEC == 0 {
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
				return fmt.Errorf("fcntl(%d, F_SETFD): %w", fd, err)
			}
		}
	}
	return nil
}

type spawnRequest struct {
	path  string
	argv  []string
	cpus  []int    // the placement; nil: the thread's own
	moves []v1Move // the v1 cgroups the child starts in; nil: the thread's own
	attr  *os.ProcAttr
	reply chan spawnReply
}

type spawnReply struct {
	proc *os.Process
	err  error
}

var (
	spawnerOnce sync.Once
	spawnQueue  chan spawnRequest
)

// spawn starts r's process from the spawner thread, with r's placement.
func spawn(r *resolved, attr *os.ProcAttr, moves []v1Move) (*os.Process, error) {
	spawnerOnce.Do(func() {
		spawnQueue = make(chan spawnRequest)
		go spawner(spawnQueue)
	})
	path, argv := r.path, r.argv
	switch {
	case r.shimArgs != nil:
		// This process's own executable, even if its file was replaced;
		// the shim execs the program, from the held descriptor if any.
		path, argv = "/proc/self/exe", shimArgv(*r.shimArgs)
	case r.exec != nil:
		// A copy numbered above every descriptor the fork moves or
		// stomps while it sets up the child's 0-4, close-on-exec: it is
		// still open when the forked child execs /proc/self/fd/N, and the
		// program never sees it.
		fd, err := unix.FcntlInt(r.exec.Fd(), unix.F_DUPFD_CLOEXEC, execFDFloor(len(attr.Files)))
		if err != nil {
			return nil, &IOError{Op: "duplicate the executable's descriptor", Err: err}
		}
		defer unix.Close(fd)
		dir, remove := execLinkDir(r.path)
		defer remove()
		path = namedExec("/proc/self/fd/"+strconv.Itoa(fd), dir, r.path)
	}
	reply := make(chan spawnReply, 1)
	spawnQueue <- spawnRequest{path: path, argv: argv, cpus: r.cpus, moves: moves, attr: attr, reply: reply}
	rep := <-reply
	return rep.proc, rep.err
}

// execFDFloor is the lowest number the executable's descriptor is copied
// to for a spawn of nfiles descriptors: above them and above those
// syscall.forkExec moves out of their way in the forked child (from
// nfiles up, at most one per descriptor, and its own exec-status pipe).
// Computed, not a round number: under `ulimit -n 64` a floor of 64 is
// refused (EINVAL) while descriptors 7-63 are free.
func execFDFloor(nfiles int) int { return 2*nfiles + 2 }

// spawner forks every child. Linux sends a child its parent-death signal when
// the thread that forked it exits, and the Go runtime may end a thread while
// the process lives on (https://go.dev/issue/27505). This goroutine stays
// locked to its thread and never returns, so that thread lives as long as the
// process and Pdeathsig means "the supervisor died".
func spawner(queue <-chan spawnRequest) {
	runtime.LockOSThread() // never unlocked
	// The thread is also where a placement is set for the fork
	// (affinity_linux.go).
	var thread spawnerThread
	for r := range queue {
		p, err := thread.start(r.cpus, r.moves, r.path, r.argv, r.attr)
		r.reply <- spawnReply{proc: p, err: err}
	}
}

// spawnError sorts a failed spawn: an executable or argument list that
// cannot be run is the configuration's fault, anything else the parent's.
func spawnError(err error, files []*os.File) error {
	var aff *AffinityError
	if errors.As(err, &aff) {
		return err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case unix.ENOENT, unix.EACCES, unix.ENOEXEC, unix.ENOTDIR, unix.EISDIR,
			unix.ELOOP, unix.ENAMETOOLONG, unix.ETXTBSY:
			return &ConfigError{Field: "Path", Reason: err.Error()}
		case unix.E2BIG:
			return &ConfigError{Field: "Args", Reason: err.Error()}
		case unix.EBADF:
			if top, lim, ok := descriptorsAtLimit(files); ok {
				// The forked child first moves the descriptor that reports
				// its exec above every descriptor it is given; when those
				// reach the limit it cannot, and fork/exec says EBADF
				// where the cause is too many open files.
				err = fmt.Errorf("%w: too many open files (the child's descriptors reach %d, the limit is %d)", err, top, lim)
			}
		}
	}
	return &IOError{Op: "spawn", Err: err}
}

// descriptorsAtLimit reports whether the highest of files' descriptors
// leaves no room above it under this process's RLIMIT_NOFILE, with that
// descriptor and the limit.
func descriptorsAtLimit(files []*os.File) (top int, limit uint64, ok bool) {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil {
		return 0, 0, false
	}
	top = -1
	for _, f := range files {
		if f != nil {
			top = max(top, int(f.Fd()))
		}
	}
	return top, lim.Cur, top >= 0 && uint64(top)+1 >= lim.Cur
}

func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// An exec through /proc/self/fd/N names the process "N": the kernel takes
// a process's command name (/proc/PID/comm, what ps and top show) from the
// last element of the path it was given, not of the file it found (Linux
// before 6.14). So the exec goes through a symbolic link named as the
// program (r.path's last element) that points at /proc/self/fd/N, resolved
// in the exec'ing process: the file run is still the held descriptor's,
// and only the name comes from the link. Each child gets a directory of its
// own (mode 0700, a new random name, made with mkdir's exclusive create, so
// a name planted in a shared TMPDIR is never used), removed once the exec
// is done: code under test that deletes or replaces os.Args[0] touches a
// file of its own child at most.

// execLinkDir makes the directory for one exec's named link (see
// namedExec) and returns it with its removal, which needs no descriptor
// (a supervisor out of them still removes it); "" (and a no-op) where it
// cannot be made: the exec then goes through /proc/self/fd/N and the
// process is named N.
func execLinkDir(program string) (string, func()) {
	dir, err := os.MkdirTemp("", "benchsup-exec-")
	if err != nil {
		return "", func() {}
	}
	return dir, func() {
		_ = os.Remove(filepath.Join(dir, filepath.Base(program)))
		_ = os.Remove(dir)
	}
}

// namedExec returns the path to exec target (a /proc/self/fd path) by: a
// link in dir named as program's last element, or target itself where
// there is no dir or the link cannot be made.
func namedExec(target, dir, program string) string {
	if dir == "" {
		return target
	}
	link := filepath.Join(dir, filepath.Base(program))
	if err := os.Symlink(target, link); err != nil {
		return target
	}
	return link
}
