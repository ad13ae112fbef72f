//go:build linux

package sandbox

import (
	"context"
	"errors"
	"syscall"
	"time"
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
)

// monitor ends the child when a deadline or the context says so, then tears
// down. It closes c.done last.
func (c *Child) monitor(ctx context.Context) {
	defer close(c.done)
	switch c.watch(ctx) {
	case timedOut, callerDeadline:
		c.askForStacks()
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
	for {
		select {
		case <-c.p.exited:
			return rootExited
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
func (c *Child) askForStacks() {
	c.stderr.mark(c.end.stacksLimit)
	if !c.p.signalRoot(syscall.SIGQUIT) {
		return
	}
	c.quitSent = true
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
	}
	notes, err := c.p.reap()
	if err != nil {
		c.v.lost(err)
	}
	c.notes = notes
	drainBy := c.p.reapedAt.Add(c.end.drainWindow)
	c.ex.dl.cut(drainBy) // cut short a read that waits for a process that escaped
	c.stdout.finish(drainBy)
	c.stderr.finish(drainBy)
}
