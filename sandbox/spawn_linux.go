//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
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
)

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

// spawn starts a process from the spawner thread.
func spawn(path string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	spawnerOnce.Do(func() {
		spawnQueue = make(chan spawnRequest)
		go spawner(spawnQueue)
	})
	reply := make(chan spawnReply, 1)
	spawnQueue <- spawnRequest{path: path, argv: argv, attr: attr, reply: reply}
	r := <-reply
	return r.proc, r.err
}

// spawner forks every child. Linux sends a child its parent-death signal when
// the thread that forked it exits, and the Go runtime may end a thread while
// the process lives on (https://go.dev/issue/27505). This goroutine stays
// locked to its thread and never returns, so that thread lives as long as the
// process and Pdeathsig means "the supervisor died".
func spawner(queue <-chan spawnRequest) {
	runtime.LockOSThread() // never unlocked
	for r := range queue {
		spawnAttempts.Add(1)
		p, err := os.StartProcess(r.path, r.argv, r.attr)
		r.reply <- spawnReply{proc: p, err: err}
	}
}

// spawnError sorts a failed spawn: an executable or argument list that
// cannot be run is the configuration's fault, anything else the parent's.
func spawnError(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case unix.ENOENT, unix.EACCES, unix.ENOEXEC, unix.ENOTDIR, unix.EISDIR,
			unix.ELOOP, unix.ENAMETOOLONG, unix.ETXTBSY:
			return &ConfigError{Field: "Path", Reason: err.Error()}
		case unix.E2BIG:
			return &ConfigError{Field: "Args", Reason: err.Error()}
		}
	}
	return &IOError{Op: "spawn", Err: err}
}

func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}
