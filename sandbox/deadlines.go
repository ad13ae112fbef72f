package sandbox

import (
	"sync"
	"time"
)

// deadlines are a child's startup and total deadlines. Both count on the
// monotonic clock from t0, the moment Start was entered, so time spent
// spawning counts against them. Fixed at Start, so shared without a lock.
type deadlines struct {
	t0           time.Time
	startupLimit time.Duration // never beyond totalLimit
	totalLimit   time.Duration
}

func newDeadlines(t0 time.Time, startup, total time.Duration) deadlines {
	return deadlines{t0: t0, startupLimit: min(startup, total), totalLimit: total}
}

// startup is when the Hello must have been read by.
func (d deadlines) startup() time.Time { return d.t0.Add(d.startupLimit) }

// total is when the child must have exited by.
func (d deadlines) total() time.Time { return d.t0.Add(d.totalLimit) }

// read is the deadline of one read of the endpoint: the startup deadline
// while the Hello is outstanding, the total deadline after it, and never
// later than cutoff, the teardown's drain deadline, once that is set.
func (d deadlines) read(helloIn bool, cutoff time.Time) time.Time {
	deadline := d.total()
	if !helloIn {
		deadline = d.startup()
	}
	if !cutoff.IsZero() && cutoff.Before(deadline) {
		deadline = cutoff
	}
	return deadline
}

// timeout is the error of the deadline of phase (PhaseStartup or
// PhaseExecution).
func (d deadlines) timeout(phase string) *TimeoutError {
	if phase == PhaseStartup {
		return &TimeoutError{Phase: PhaseStartup, Limit: d.startupLimit}
	}
	return &TimeoutError{Phase: PhaseExecution, Limit: d.totalLimit}
}

// verdict records why a child is being ended. The first reason to end it
// decides: a later deadline does not reclassify a child already being
// killed. It also settles the one race between the reader and the monitor:
// a Hello and the startup deadline, whichever is recorded first wins. Safe
// for concurrent use.
type verdict struct {
	mu       sync.Mutex    // guards everything below
	helloAt  time.Time     // when the Hello was accepted; zero while outstanding
	ending   bool          // a reason to end the child was recorded
	timeout  *TimeoutError // the deadline that ended it
	stopped  *StoppedError // the stop that ended it
	canceled error         // the context that ended it (wraps ErrCanceled)
	protoErr error         // the first protocol violation
	ioErr    error         // the first parent-side failure
}

// hello records that the Hello was accepted at now. It returns false, and
// records nothing, when the startup deadline was declared first: the Hello
// is late.
func (v *verdict) hello(now time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.timeout != nil && v.timeout.Phase == PhaseStartup {
		return false
	}
	v.helloAt = now
	return true
}

// expire is called at a deadline: the total one when atTotal, else the
// startup one, which does nothing once the Hello is in. It returns whether
// the child is to be ended, and whether this timeout decided it (the child
// is then asked for its stacks before it is terminated).
func (v *verdict) expire(d deadlines, atTotal bool) (end, decided bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ending {
		return true, false // already being ended for another reason
	}
	switch {
	case v.helloAt.IsZero():
		v.timeout = d.timeout(PhaseStartup)
	case atTotal:
		v.timeout = d.timeout(PhaseExecution)
	default:
		return false, false
	}
	v.ending = true
	return true, true
}

// stop records that the child stayed stopped and is to be ended for it. It
// returns false, and records nothing, when something else is ending it
// already.
func (v *verdict) stop(err *StoppedError) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ending {
		return false
	}
	v.ending = true
	v.stopped = err
	return true
}

// cancel records that the context ended the child, unless something else
// did first.
func (v *verdict) cancel(err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.ending {
		v.ending = true
		v.canceled = err
	}
}

// fail records a protocol violation or a parent-side failure (the first of
// each kind counts); the child is to be killed at once.
func (v *verdict) fail(protoErr, ioErr error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if protoErr != nil && v.protoErr == nil {
		v.protoErr = protoErr
	}
	if ioErr != nil && v.ioErr == nil {
		v.ioErr = ioErr
	}
	v.ending = true
}

// lost records that the child was reaped by someone else: a parent-side
// failure that needs no kill (there is nothing left to kill that is ours).
func (v *verdict) lost(err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ioErr == nil {
		v.ioErr = err
	}
}

// record copies the reasons into f and returns when the Hello was accepted.
func (v *verdict) record(f *facts) (helloAt time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f.canceled, f.timeout, f.stopped, f.protoErr, f.ioErr = v.canceled, v.timeout, v.stopped, v.protoErr, v.ioErr
	return v.helloAt
}
