package protocol

import "errors"

// Checker enforces, on the supervisor side, the message order of the
// exchange diagram in the package doc and the consistency of every message
// with the Request. The zero value expects a Hello.
type Checker struct {
	state checkerState
	req   Request
	hello Hello
	again int // the series the child is in: 1, or Hello.Again since
}

type checkerState uint8

const (
	awaitHello   checkerState = iota // nothing received yet
	awaitRequest                     // hello received; the supervisor has not sent the request
	awaitReady                       // request sent
	working                          // ready received
	ending                           // skip or failure received; only log and done may follow
	closed                           // done received; nothing may follow
)

// Hello returns the child's hello once it has been checked.
func (c *Checker) Hello() (Hello, bool) { return c.hello, c.state > awaitHello }

// Done reports whether the child sent Done (the last series' Done: a
// Hello with Again may follow, and Done is then false until its own).
func (c *Checker) Done() bool { return c.state == closed }

// Again is the series the child is in: 1, or the Again of its last Hello.
func (c *Checker) Again() int { return max(c.again, 1) }

// Sent records that the supervisor sent req.
func (c *Checker) Sent(req Request) error {
	if c.state != awaitRequest {
		return errors.New("protocol: request sent out of order")
	}
	c.req = req
	c.state = awaitReady
	return nil
}

// Check validates one received message against the sequence so far. Errors
// wrap ErrMalformed, or ErrVersion for a refused Hello.
func (c *Checker) Check(m Message) error {
	k := m.Kind()
	switch c.state {
	case awaitHello:
		h, ok := m.(Hello)
		if !ok {
			return malformed(k, nil, "first message must be hello")
		}
		if h.ProtocolVersion != Version {
			return &VersionError{Supervisor: Version, Worker: h.ProtocolVersion, WorkerVer: h.WorkerVersion}
		}
		if h.Again != 0 {
			return malformed(k, nil, "hello again (%d) before the first series", h.Again)
		}
		c.hello = h
		c.again = 1
		c.state = awaitRequest
		return nil
	case closed:
		// The package's TestMain called m.Run again: the worker serves
		// the same Request once more, after a Hello that says so.
		h, ok := m.(Hello)
		if !ok {
			return malformed(k, nil, "message after done")
		}
		switch {
		case h.Again != c.again+1:
			return malformed(k, nil, "hello again %d after series %d", h.Again, c.again)
		case h.ProtocolVersion != c.hello.ProtocolVersion || h.PID != c.hello.PID:
			return malformed(k, nil, "hello again from another worker (pid %d, first %d)", h.PID, c.hello.PID)
		}
		c.again = h.Again
		c.state = awaitReady
		return nil
	}
	if k == KindLog {
		// A changed limit is the code under test's, which runs only once
		// the request is answered.
		if l, _ := m.(Log); l.Limit != "" && c.state < working {
			return malformed(k, nil, "a changed limit before the worker was ready")
		}
		return nil
	}
	switch c.state {
	case awaitRequest:
		return malformed(k, nil, "message before the request was sent")
	case awaitReady:
		r, ok := m.(Ready)
		if !ok {
			return malformed(k, nil, "expected ready")
		}
		if r.Identity != c.req.Identity {
			return malformed(k, nil, "ready for %s, requested %s", truncate(r.Identity.String()), truncate(c.req.Identity.String()))
		}
		c.state = working
		return nil
	case ending:
		if k != KindDone {
			return malformed(k, nil, "only log and done may follow skip or failure")
		}
		c.state = closed
		return nil
	}
	// working
	switch m := m.(type) {
	case Progress:
		return nil
	case Result:
		return c.checkResult(m)
	case Listing:
		if c.req.Mode != ModeDiscover {
			return malformed(k, nil, "listing in %s mode", c.req.Mode)
		}
		return nil
	case TestEvent:
		if c.req.Mode != ModeTest {
			return malformed(k, nil, "test event in %s mode", c.req.Mode)
		}
		return nil
	case Window:
		if c.req.Mode != ModeWorkload {
			return malformed(k, nil, "window in %s mode", c.req.Mode)
		}
		return nil
	case Skip, Failure:
		c.state = ending
		return nil
	case Done:
		c.state = closed
		return nil
	}
	return malformed(k, nil, "unexpected while working")
}

func (c *Checker) checkResult(m Result) error {
	if c.req.Mode != ModeBenchmark && c.req.Mode != ModeWorkload {
		return malformed(KindResult, nil, "result in %s mode", c.req.Mode)
	}
	switch {
	case m.Identity != c.req.Identity:
		return malformed(KindResult, nil, "result for %s, requested %s", truncate(m.Identity.String()), truncate(c.req.Identity.String()))
	case m.Repetition != c.req.Repetition:
		return malformed(KindResult, nil, "repetition %d, requested %d", m.Repetition, c.req.Repetition)
	case m.Seed != c.req.Seed:
		return malformed(KindResult, nil, "seed %d, requested %d", m.Seed, c.req.Seed)
	case len(m.Samples) == 0:
		return malformed(KindResult, nil, "no samples")
	case c.req.Config.Samples > 0 && len(m.Samples) > c.req.Config.Samples:
		return malformed(KindResult, nil, "%d samples, requested %d", len(m.Samples), c.req.Config.Samples)
	}
	// The watch's fields come only with a watch, and retakes within its budget.
	switch w := c.req.Config.Interference; {
	case w == nil && (m.Interference != nil || len(m.Retaken) > 0):
		return malformed(KindResult, nil, "interference results for a request without a watch")
	case w != nil && len(m.Retaken) > w.MaxRetakes:
		return malformed(KindResult, nil, "%d samples retaken, budget %d", len(m.Retaken), w.MaxRetakes)
	case w != nil && w.Response == ResponseObserve && len(m.Retaken) > 0:
		return malformed(KindResult, nil, "%d samples retaken by a watch that observes", len(m.Retaken))
	}
	if n := c.req.Config.Iterations; n > 0 {
		for i, s := range m.Samples {
			if s.Iterations != n {
				return malformed(KindResult, nil, "samples[%d]: %d iterations, requested %d", i, s.Iterations, n)
			}
		}
	}
	return nil
}
