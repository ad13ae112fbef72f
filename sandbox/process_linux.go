//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// testHookBeforeReap, when set, runs just before the root is reaped (tests).
var testHookBeforeReap func(pid int)

// process is a child's root process and what holds its descendants: its
// process group (whose id is the root's pid) and its cgroup. It signals them
// and reaps the root, and never signals a pid once the root has been reaped,
// by us or by someone else: from then on the pid may belong to another
// process.
type process struct {
	pid    int
	proc   *os.Process   // signals go through a pidfd where the kernel has them
	cg     *cgroup       // nil: process group only
	exited chan struct{} // closed by watchExit when the root's exit was observed (not yet reaped)
	forget func()        // ends the reaper's registration of the process group
	lim    *limitGroups  // the resource cgroups; never nil
	shim   *shimLink     // nil: the root is the program itself

	mu     sync.Mutex // guards lost and reaped; held while signalling, so that reaping cannot come in between
	lost   bool       // reaped by someone else: the pid is not ours any more
	reaped bool       // Process.Wait was called: never signal the pid again

	// Written before exited is closed, read after it.
	exitErr error // watchExit could not observe the exit: someone else reaped the root

	// Written by reap, read after it returned (Child.done orders them).
	status    exitStatus
	reapedAt  time.Time
	resources Resources
	shimLost  bool // the shim died without relaying the program's status: status is the shim's
}

func newProcess(proc *os.Process, cg *cgroup, lim *limitGroups, shim *shimLink) *process {
	// Registered with the reaper, if one runs, until the group has been
	// killed: should the supervisor die first, the reaper kills it.
	return &process{pid: proc.Pid, proc: proc, cg: cg, lim: lim, shim: shim, exited: make(chan struct{}), forget: trackGroup(proc.Pid)}
}

// signal sends sig to the process group, to the root itself (in case it left
// its group) and to the cgroup.
func (p *process) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return
	}
	if p.shim != nil {
		p.shim.announce(sig) // the shim is in the group: it must know the signal is ours
	}
	if !p.lost {
		_ = unix.Kill(-p.pid, sig) // ESRCH: the group is empty
		_ = p.proc.Signal(sig)
	}
	if p.cg != nil {
		if sig == syscall.SIGKILL {
			_ = p.cg.kill()
		} else {
			p.cg.signal(sig)
		}
	}
}

// signalRoot sends sig to the root alone and reports whether it was sent.
func (p *process) signalRoot(sig syscall.Signal) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped || p.lost {
		return false
	}
	if p.shim != nil {
		// The shim relays an announced SIGQUIT to the program.
		p.shim.announce(sig)
	}
	return p.proc.Signal(sig) == nil
}

// hasExited reports whether the root's exit has been observed.
func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// watchExit observes the root's exit without reaping it (waitid with
// WNOWAIT): until it is reaped, its pid and process-group id cannot be
// reused, so the group can still be killed safely. It closes p.exited.
func (p *process) watchExit() {
	defer close(p.exited)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			// ECHILD: someone else reaped it.
			p.mu.Lock()
			p.lost = true
			p.mu.Unlock()
			p.exitErr = &IOError{Op: "wait", Err: fmt.Errorf("%w: waitid: %w", ErrLostChild, err)}
		}
		return
	}
}

// reap runs once the root has exited: it kills what is left of the group
// and the cgroup (SIGKILL, no grace: the root is gone), reaps the root and
// removes the cgroup. It returns notes on what went wrong with the cgroup,
// and an error when the root was reaped by someone else.
func (p *process) reap() (notes []string, err error) {
	p.mu.Lock()
	if !p.lost {
		// The root is an unreaped zombie, so its group id is still ours.
		_ = unix.Kill(-p.pid, syscall.SIGKILL)
	}
	p.mu.Unlock()
	if p.cg != nil {
		if err := p.cg.kill(); err != nil {
			notes = append(notes, "cgroup kill: "+err.Error())
		}
		if err := p.cg.waitEmpty(cgroupEmptyTimeout); err != nil {
			notes = append(notes, err.Error())
		}
	}
	// Once every process is gone (the v1 groups hold the same ones), and
	// before the groups are removed.
	p.resources = p.lim.read()
	notes = append(notes, p.lim.removeV1()...)

	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	// Before the reap, after which the group's number may be reused.
	p.forget()
	if testHookBeforeReap != nil {
		testHookBeforeReap(p.pid)
	}
	state, waitErr := p.proc.Wait()
	p.reapedAt = time.Now()
	if p.shim != nil {
		p.shim.finish() // the shim has exited: its report ends now
	}
	if waitErr != nil {
		_ = p.proc.Release() // the pidfd, which a failed Wait keeps
		p.mu.Lock()
		p.lost = true
		p.mu.Unlock()
		err = &IOError{Op: "reap", Err: fmt.Errorf("%w: %w", ErrLostChild, waitErr)}
	} else if ws, ok := state.Sys().(syscall.WaitStatus); ok {
		if p.shim != nil {
			p.shim.mu.Lock()
			if relayed := p.shim.status; relayed != nil {
				ws = *relayed
			} else {
				p.shimLost = true
			}
			p.shim.mu.Unlock()
		}
		p.status = exitStatus{
			known:      true,
			exited:     ws.Exited(),
			code:       ws.ExitStatus(),
			signal:     ws.Signal(),
			coreDumped: ws.CoreDump(),
		}
	}

	if p.cg != nil {
		if err := p.cg.remove(); err != nil {
			notes = append(notes, err.Error())
		}
	}
	return notes, err
}
