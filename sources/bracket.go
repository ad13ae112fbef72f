package sources

import "fmt"

// Bracket is one counting window shared by several counters: every counter
// counts the same stretch of code, so one run of the code under measurement
// serves every selected source, and counters of the same kernel event in
// different sources (perf-sw page-faults, tier0 minflt + majflt) count the
// same events.
//
// The edges are ordered so that no source's reads fall inside another
// source's counting window:
//
//	Start: the opening reads of the perf sources (counters still disabled),
//	       then the snapshot sources' Start (tier0: /proc/self/io, getrusage),
//	       then the perf enables, in order.
//	Stop:  the perf disables, in reverse order, then the snapshot sources'
//	       Stop, in reverse order, then the perf closing reads.
//
// So a perf group's enabled window holds only the code under measurement and
// the enable/disable ioctls of the perf groups enabled after it (no read,
// no getrusage), and tier0's window holds, besides the code, only the perf
// ioctls (no read of a perf descriptor, which /proc/self/io would count as
// a read system call). What remains inside a window is a fixed cost per
// bracket: it cancels where two brackets are subtracted, and is measured
// with empty brackets and subtracted where the worker brackets calls
// itself.
//
// A counter whose Start or Stop fails leaves the bracket for good: its
// metrics are Unavailable, with the error, in every later reading.
type Bracket struct {
	members []bracketMember
}

type bracketMember struct {
	c       Counter
	e       edged  // nil: a snapshot counter, bracketed by Start and Stop
	why     string // non-empty: the counter left the bracket, and why
	started bool   // Start (or arm and enable) succeeded for this bracket
	failure string // this bracket's failure, reported by Stop
}

// edged is a Counter whose Start and Stop each split into a read and a
// switch (the perf sources): arm and enable are Start, disable and collect
// are Stop.
type edged interface {
	arm() error
	enable() error
	disable() error
	collect() (Reading, error)
}

// NewBracket returns a bracket over counters, in their order. The bracket
// does not own them: close them as usual.
func NewBracket(counters []Counter) *Bracket {
	b := &Bracket{}
	for _, c := range counters {
		m := bracketMember{c: c}
		if e, ok := c.(edged); ok {
			m.e = e
		}
		b.members = append(b.members, m)
	}
	return b
}

// Metrics returns the metrics of every counter, in counter order.
func (b *Bracket) Metrics() []string {
	var out []string
	for _, m := range b.members {
		out = append(out, m.c.Metrics()...)
	}
	return out
}

// Start opens the bracket on every counter still in it. A counter that
// fails to start leaves the bracket; Stop reports why.
func (b *Bracket) Start() {
	fail := func(m *bracketMember, err error) {
		m.started = false
		m.failure = fmt.Sprintf("cannot start %s: %v", m.c.Source(), err)
	}
	for i := range b.members {
		m := &b.members[i]
		m.started, m.failure = false, ""
		if m.why != "" || m.e == nil {
			continue
		}
		if err := m.e.arm(); err != nil {
			fail(m, err)
			continue
		}
		m.started = true
	}
	for i := range b.members {
		m := &b.members[i]
		if m.why != "" || m.e != nil {
			continue
		}
		if err := m.c.Start(); err != nil {
			fail(m, err)
			continue
		}
		m.started = true
	}
	for i := range b.members {
		m := &b.members[i]
		if !m.started || m.e == nil {
			continue
		}
		if err := m.e.enable(); err != nil {
			fail(m, err)
		}
	}
}

// Stop closes the bracket and returns one reading of every counter's
// metrics: a counter that failed now or earlier has its metrics Unavailable
// with the reason.
func (b *Bracket) Stop() Reading {
	fail := func(m *bracketMember, err error) {
		m.started = false
		m.failure = fmt.Sprintf("cannot read %s: %v", m.c.Source(), err)
	}
	readings := make([]Reading, len(b.members))
	for i := len(b.members) - 1; i >= 0; i-- {
		m := &b.members[i]
		if !m.started || m.e == nil {
			continue
		}
		if err := m.e.disable(); err != nil {
			fail(m, err)
		}
	}
	for i := len(b.members) - 1; i >= 0; i-- {
		m := &b.members[i]
		if !m.started || m.e != nil {
			continue
		}
		r, err := m.c.Stop()
		if err != nil {
			fail(m, err)
			continue
		}
		readings[i] = r
	}
	for i := range b.members {
		m := &b.members[i]
		if !m.started || m.e == nil {
			continue
		}
		r, err := m.e.collect()
		if err != nil {
			fail(m, err)
			continue
		}
		readings[i] = r
	}
	out := newReading()
	for i := range b.members {
		m := &b.members[i]
		if m.failure != "" && m.why == "" {
			m.why = m.failure
		}
		if m.why != "" {
			for _, metric := range m.c.Metrics() {
				out.setUnavailable(metric, m.why)
			}
			continue
		}
		r := readings[i]
		for k, v := range r.Values {
			out.Values[k] = v
		}
		for k, e := range r.Estimated {
			if e {
				out.Estimated[k] = true
			}
		}
		for k, why := range r.Unavailable {
			out.setUnavailable(k, why)
		}
		m.started = false
	}
	return out
}
