package worker

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/benchsup/benchsup/protocol"
)

// A resource limit (setrlimit) the code under test changes holds for the
// rest of its process: every test or benchmark the worker runs after it
// would run under it, and the worker's own files (the capture of testing's
// output, testing's log) would fail under a file size limit of 0, which
// used to be taken for the host failing. So the worker reads every limit
// as its work starts and again after each top-level test or benchmark run;
// a change is sent to the supervisor as a Log naming the run and the limit
// (docs/design.md#containment), and set back where the hard limit still
// allows the limit the process started with. A lowered hard limit is never
// raised again, even by a privileged process: the tests that follow then
// run in a fresh process instead (testLimits.halt).

// rlimit is one resource limit, soft and hard; rlimInfinity is no limit.
type rlimit struct{ cur, max uint64 }

const rlimInfinity = ^uint64(0)

// rlimitResource is a resource the worker watches, by its C name.
type rlimitResource struct {
	name string
	id   int
}

// limitWatch holds the limits the process started its work with.
type limitWatch struct {
	get  func(id int) (rlimit, error)
	set  func(id int, l rlimit) error
	res  []rlimitResource
	base map[int]rlimit
}

// newLimitWatch reads every resource's limits; one that cannot be read is
// not watched.
func newLimitWatch(res []rlimitResource, get func(int) (rlimit, error), set func(int, rlimit) error) *limitWatch {
	lw := &limitWatch{get: get, set: set, base: map[int]rlimit{}}
	for _, r := range res {
		if l, err := get(r.id); err == nil {
			lw.res = append(lw.res, r)
			lw.base[r.id] = l
		}
	}
	return lw
}

// limitChange is one limit found changed.
type limitChange struct {
	name     string
	was, now rlimit
	restored bool
	why      string // why it was not restored
}

// check compares every limit with the one the work started with and sets
// a changed one back when its hard limit was not lowered. A limit that
// stays changed is reported once.
func (lw *limitWatch) check() []limitChange {
	if lw == nil {
		return nil
	}
	var out []limitChange
	for _, r := range lw.res {
		now, err := lw.get(r.id)
		base := lw.base[r.id]
		if err != nil || now == base {
			continue
		}
		c := limitChange{name: r.name, was: base, now: now}
		if now.max < base.max {
			c.why = "its hard limit was lowered, which only a privileged process may raise again"
		} else if err := lw.set(r.id, base); err != nil {
			c.why = "setting it back failed: " + err.Error()
		} else {
			c.restored = true
		}
		if !c.restored {
			lw.base[r.id] = now // reported once; later runs are compared with it
		}
		out = append(out, c)
	}
	return out
}

// text says what who did to the limit: "TestX lowered RLIMIT_FSIZE from
// unlimited to 0".
func (c limitChange) text(who string) string {
	var parts []string
	if c.now.cur != c.was.cur {
		parts = append(parts, fmt.Sprintf("%s %s from %s to %s", direction(c.was.cur, c.now.cur), c.name, limitValue(c.was.cur), limitValue(c.now.cur)))
	}
	if c.now.max != c.was.max {
		what := c.name + "'s hard limit"
		if len(parts) > 0 {
			what = "its hard limit"
		}
		parts = append(parts, fmt.Sprintf("%s %s from %s to %s", direction(c.was.max, c.now.max), what, limitValue(c.was.max), limitValue(c.now.max)))
	}
	s := who + " "
	for i, p := range parts {
		if i > 0 {
			s += " and "
		}
		s += p
	}
	if c.restored {
		return s + "; the worker set it back after it"
	}
	return s + "; it could not be set back (" + c.why + ")"
}

func direction(was, now uint64) string {
	if now < was {
		return "lowered"
	}
	return "raised"
}

func limitValue(v uint64) string {
	if v == rlimInfinity {
		return "unlimited"
	}
	return strconv.FormatUint(v, 10)
}

// testLimits watches the limits across a test mode child's top-level
// tests: after each, a change is sent (send) and, when one could not be
// set back, every later test is skipped in this process without running
// (the supervisor disregards them and runs them in a fresh one).
type testLimits struct {
	watch *limitWatch
	send  func(protocol.Log)

	mu     sync.Mutex
	halted string // the test after which a limit could not be set back
}

// after checks the limits once test, a top-level test, ran: the last of
// its cleanups, before testing prints its result.
func (tl *testLimits) after(test string) {
	if tl == nil {
		return
	}
	for _, c := range tl.watch.check() {
		text := c.text(test)
		if c.name == "RLIMIT_FSIZE" && c.now.cur < c.was.cur {
			// The worker captures testing's output in a file.
			text += "; what it printed under that limit may be missing (benchsup keeps a test's output in a file)"
		}
		if !c.restored {
			text += "; the tests after it ran in a fresh process"
			tl.mu.Lock()
			if tl.halted == "" {
				tl.halted = test
			}
			tl.mu.Unlock()
		}
		tl.send(protocol.Log{Text: protocol.TruncateText(text, protocol.MaxTextLen),
			Test: protocol.TruncateText(test, protocol.MaxNameLen), Limit: c.name, Restored: c.restored})
	}
}

// haltedBy is the test after which a limit could not be set back, or "".
func (tl *testLimits) haltedBy() string {
	if tl == nil {
		return ""
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.halted
}

// skipIfHalted skips tb without running it when an earlier test left a
// limit the worker could not set back.
func (tl *testLimits) skipIfHalted(tb testing.TB) {
	if by := tl.haltedBy(); by != "" {
		tb.Skipf("benchsup: not run in this process: %s left a resource limit the worker could not set back; it runs in a fresh one", by)
	}
}

// limitsAfter checks the limits after a benchmark run of name and sends
// what changed, each text once per process: a benchmark that sets a limit
// sets it in every run.
func (w *session) limitsAfter(name string) error {
	for _, c := range w.limits.check() {
		text := c.text(name)
		if !c.restored {
			text += ": what runs after it in this process runs under it"
		}
		if w.limitsSent[text] {
			continue
		}
		if w.limitsSent == nil {
			w.limitsSent = map[string]bool{}
		}
		w.limitsSent[text] = true
		if err := w.send(protocol.Log{Text: protocol.TruncateText(text, protocol.MaxTextLen),
			Test: protocol.TruncateText(name, protocol.MaxNameLen), Limit: c.name, Restored: c.restored}); err != nil {
			return err
		}
	}
	return nil
}
