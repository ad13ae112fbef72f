//go:build linux

package sandbox

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The monitor is the one goroutine of a Child that ends it: it enforces the
// deadlines and the context, asks a timed-out child for its stacks, sends
// SIGTERM and SIGKILL, and tears down once the root has exited. Only a
// violation or a parent-side failure is killed from elsewhere (the exchange,
// at once, with SIGKILL).

// watched is how the watch for the end of a child ended.
type watched int

const (
	rootExited     watched = iota // the root exited (by itself, or killed on a violation)
	timedOut                      // a deadline decided to end it
	endOther                      // the context ended it, or a deadline found it being killed already
	callerDeadline                // the context ended it for the caller's own deadline (ErrCallerDeadline)
	stoppedEnd                    // the root stayed stopped (SIGSTOP): continue it, ask for its stacks, end it
)

// A stopped child makes no progress and would otherwise be waited for until
// the total deadline. The monitor looks for the stop every stopPoll; a root
// still stopped stopWait after it was first seen so is ended.
const (
	stopPoll = 100 * time.Millisecond
	stopWait = 500 * time.Millisecond
)

// monitor ends the child when a deadline or the context says so, then tears
// down. It closes c.done last.
func (c *Child) monitor(ctx context.Context) {
	defer close(c.done)
	switch c.watch(ctx) {
	case timedOut, callerDeadline:
		c.askForStacks(false)
		if !c.p.hasExited() {
			c.terminate()
		}
	case stoppedEnd:
		c.askForStacks(true)
		if !c.p.hasExited() {
			c.terminate()
		}
	case endOther:
		c.terminate()
	}
	c.teardown()
}

// watch waits for the root's exit, a deadline that ends the child, or the
// context.
func (c *Child) watch(ctx context.Context) watched {
	startup := time.NewTimer(time.Until(c.d.startup()))
	defer startup.Stop()
	total := time.NewTimer(time.Until(c.d.total()))
	defer total.Stop()
	startupC := startup.C
	poll := time.NewTicker(stopPoll)
	defer poll.Stop()
	var stoppedSince time.Time // zero while the root is not seen stopped
	for {
		select {
		case <-c.p.exited:
			return rootExited
		case now := <-poll.C:
			sig, stopped := stopSignal(c.p.pid)
			shimStopped := c.p.shim != nil && stopped
			if c.p.shim != nil && !stopped {
				sig, stopped = c.p.shim.stoppedBy() // the program is the shim's child
			}
			switch {
			case !stopped:
				stoppedSince = time.Time{}
			case stoppedSince.IsZero():
				stoppedSince = now
			case now.Sub(stoppedSince) >= stopWait && !c.p.hasExited():
				if c.v.stop(&StoppedError{Signal: sig, Wait: now.Sub(stoppedSince).Round(10 * time.Millisecond)}) {
					if shimStopped {
						c.shimStopped = sig // classify words it as the parent's
					}
					return stoppedEnd
				}
				// Being ended for another reason already: SIGKILL
				// ends a stopped process too.
			}
		case <-startupC:
			startupC = nil
			if c.p.hasExited() {
				return rootExited // it exited as the deadline came: not a timeout
			}
			if end, decided := c.v.expire(c.d, false); end {
				return decision(decided)
			}
			// The Hello is in: only the total deadline is left.
		case <-total.C:
			if c.p.hasExited() {
				return rootExited
			}
			_, decided := c.v.expire(c.d, true)
			return decision(decided)
		case <-ctx.Done():
			if c.p.hasExited() {
				return rootExited
			}
			c.v.cancel(canceledError(ctx))
			if errors.Is(context.Cause(ctx), ErrCallerDeadline) {
				return callerDeadline
			}
			return endOther
		}
	}
}

// stopSignal reports whether the process pid, a child of this process not
// yet reaped, is stopped now, and by which signal. waitid with WNOWAIT
// leaves the stop to be reported again; without WEXITED it never reports,
// nor reaps, an exit.
func stopSignal(pid int) (syscall.Signal, bool) {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG|unix.WNOWAIT, nil)
	if err != nil || info.Signo != int32(unix.SIGCHLD) || info.Code != cldStopped {
		return 0, false
	}
	return syscall.Signal(siginfoStatus(&info)), true
}

// cldStopped is CLD_STOPPED, the si_code of a child stopped by a signal.
const cldStopped = 5

// siginfoStatus is the si_status of a SIGCHLD siginfo: after si_pid and
// si_uid in the union that follows si_signo, si_errno and si_code, which
// is aligned to a pointer.
func siginfoStatus(info *unix.Siginfo) int32 {
	return *(*int32)(unsafe.Add(unsafe.Pointer(info), siginfoUnion()+8))
}

// siginfoPid is the si_pid of a SIGCHLD siginfo, the union's first member.
func siginfoPid(info *unix.Siginfo) int {
	return int(*(*int32)(unsafe.Add(unsafe.Pointer(info), siginfoUnion())))
}

// siginfoUnion is the offset of siginfo's union: after si_signo, si_errno
// and si_code, aligned to a pointer.
func siginfoUnion() uintptr {
	if unsafe.Sizeof(uintptr(0)) == 8 {
		return 4 * 4
	}
	return 3 * 4
}

func decision(decided bool) watched {
	if decided {
		return timedOut
	}
	return endOther
}

// askForStacks sends SIGQUIT to the root alone, to which the Go runtime
// answers by writing every goroutine's stack to stderr and exiting with
// status 2, and waits QuitGrace for the exit. Stderr is marked first, so that
// the head of what follows is kept apart (Outcome.Stacks). The group is not
// asked: the dumps of grandchildren would interleave on the same stderr.
// With cont, the group is then sent SIGCONT: a stopped root takes the
// SIGQUIT only once continued.
func (c *Child) askForStacks(cont bool) {
	c.stderr.mark(c.end.stacksLimit)
	if !c.p.signalRoot(syscall.SIGQUIT) {
		return
	}
	c.quitSent = true
	if cont {
		c.p.signal(syscall.SIGCONT)
	}
	t := time.NewTimer(c.end.quitGrace)
	defer t.Stop()
	select {
	case <-c.p.exited:
	case <-t.C:
	}
}

// terminate sends SIGTERM to everything of the child, waits Grace for the
// root to exit, then sends SIGKILL, and returns once the root's exit has been
// observed.
func (c *Child) terminate() {
	c.p.signal(syscall.SIGTERM)
	grace := time.NewTimer(c.end.grace)
	defer grace.Stop()
	select {
	case <-c.p.exited:
		return
	case <-grace.C:
	}
	c.p.signal(syscall.SIGKILL)
	<-c.p.exited
}

// teardown runs once the root has exited: it kills what is left of the
// group and the cgroup, reaps the root, removes the cgroup, and lets the
// streams and the endpoint be read for at most the drain window after the
// reaping before the streams are closed (Wait closes the endpoint).
func (c *Child) teardown() {
	if c.p.exitErr != nil {
		c.v.lost(c.p.exitErr)
	} else {
		c.left = c.leftover() // before reap kills them
	}
	notes, err := c.p.reap()
	if err != nil {
		c.v.lost(err)
	}
	if c.p.shim != nil {
		// What the shim killed in its tree, which the lists above found
		// gone.
		c.p.shim.mu.Lock()
		for _, lp := range c.p.shim.left {
			if !slices.ContainsFunc(c.left, func(x leftProc) bool { return x.pid == lp.pid }) {
				c.left = append(c.left, lp)
			}
		}
		c.escaped = c.p.shim.escaped
		c.p.shim.mu.Unlock()
	}
	c.notes = notes
	drainBy := c.p.reapedAt.Add(c.end.drainWindow)
	c.ex.dl.cut(drainBy) // cut short a read that waits for a process that escaped
	c.stdout.finish(drainBy)
	c.stderr.finish(drainBy)
}
