package record

import (
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Outcome is how a span ended.
type Outcome uint8

// The outcomes a span can finish with. The zero Outcome is none of them:
// Finish counts an Outcome outside these as Failure, so a bad value is
// visible in the counts rather than lost.
const (
	Success Outcome = iota + 1
	Failure
	Timeout
	Canceled
)

const numOutcomes = 4

// String is the outcome's name as the results spell it.
func (o Outcome) String() string {
	switch o {
	case Success:
		return "success"
	case Failure:
		return "failure"
	case Timeout:
		return "timeout"
	case Canceled:
		return "canceled"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// MarshalText writes the outcome's name, so retained spans read as
// "success" rather than a number in JSON.
func (o Outcome) MarshalText() ([]byte, error) {
	if o < Success || o > Canceled {
		return nil, fmt.Errorf("record: invalid outcome %d", uint8(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads an outcome's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	for c := Success; c <= Canceled; c++ {
		if string(b) == c.String() {
			*o = c
			return nil
		}
	}
	return fmt.Errorf("record: unknown outcome %q", b)
}

// Policy is a retention policy: which spans an identity keeps once more
// have finished than its capacity holds.
type Policy string

// The retention policies.
const (
	// Reservoir keeps a uniform random sample of all observations
	// (Algorithm R): every finished span is retained with probability
	// capacity/observations. The choice is a function of Config.Seed, the
	// identity's registration order and the observation's number, so a
	// run that finishes its spans in the same order retains the same ones.
	Reservoir Policy = "reservoir"
	// FirstN keeps the first capacity observations.
	FirstN Policy = "first-n"
	// LatestN keeps the last capacity observations.
	LatestN Policy = "latest-n"
)

// DefaultCapacity is the number of spans an identity retains when
// Config.Retention.Capacity is zero: 10,000 spans, about 400 KB per
// identity, reserved at Register.
const DefaultCapacity = 10000

// Retention is a retention policy with its capacity, per identity.
type Retention struct {
	Policy   Policy `json:"policy"`   // "" in a Config: Reservoir
	Capacity int    `json:"capacity"` // 0 in a Config: DefaultCapacity
}

// Config configures a Recorder. Its zero value is usable: reservoir
// retention of DefaultCapacity spans per identity, seed 0, no retained
// spans in the results, nothing written on Stop.
type Config struct {
	// Retention bounds the spans kept per identity; the counts are exact
	// whatever is kept.
	Retention Retention
	// Seed seeds the reservoir's choice (any value, 0 included).
	Seed uint64
	// Spans puts the retained spans themselves (observation number, start
	// offset, duration, outcome) in each Result.
	Spans bool
	// Output, when not nil, receives the results on Stop.
	Output io.Writer
	// Format is the format written to Output: "json" (the default when
	// empty) or "csv".
	Format string
}

// Recorder records spans of the identities registered on it. Register
// identities, Start, record, Stop; a Recorder records once.
type Recorder struct {
	cfg Config

	mu      sync.Mutex // guards what follows; never taken by Begin or Finish
	state   uint32     // stateNew, stateRunning, stateStopped
	ids     []*Identity
	byName  map[string]*Identity
	base    time.Time
	elapsed int64
	results []Result
	err     error
	sh      *region // the shared region under benchsup; nil otherwise
}

const (
	stateNew uint32 = iota
	stateRunning
	stateStopped
)

// New returns a Recorder configured by cfg. It panics on a configuration
// no run could honor (an unknown policy or format, a negative capacity):
// that is a mistake in the program, found when it starts.
func New(cfg Config) *Recorder {
	if cfg.Retention.Policy == "" {
		cfg.Retention.Policy = Reservoir
	}
	if cfg.Retention.Capacity == 0 {
		cfg.Retention.Capacity = DefaultCapacity
	}
	if cfg.Format == "" {
		cfg.Format = "json"
	}
	switch cfg.Retention.Policy {
	case Reservoir, FirstN, LatestN:
	default:
		panic(fmt.Sprintf("record: unknown retention policy %q (want %q, %q or %q)", cfg.Retention.Policy, Reservoir, FirstN, LatestN))
	}
	if cfg.Retention.Capacity < 0 {
		panic(fmt.Sprintf("record: negative retention capacity %d", cfg.Retention.Capacity))
	}
	switch cfg.Format {
	case "json", "csv":
	default:
		panic(fmt.Sprintf("record: unknown output format %q (want \"json\" or \"csv\")", cfg.Format))
	}
	// The supervisor's region, if any, is mapped before any span.
	return &Recorder{cfg: cfg, byName: map[string]*Identity{}, sh: sharedRegion()}
}

// Register returns the identity named name, creating it and reserving its
// retention before any span is recorded, so the boundary path never
// allocates. Registering a name again returns the same identity (two
// handlers may share one). Register panics after Start: identities are
// fixed while recording, so Begin and Finish need no lock to find theirs.
// It panics on an empty name too.
func (r *Recorder) Register(name string) *Identity {
	if name == "" {
		panic("record: Register with an empty name")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != stateNew {
		panic(fmt.Sprintf("record: Register(%q) after Start: identities are fixed before recording begins, so Begin and Finish never allocate or lock", name))
	}
	if id, ok := r.byName[name]; ok {
		return id
	}
	id := &Identity{
		name:   name,
		index:  uint64(len(r.ids)),
		policy: r.cfg.Retention.Policy,
		slots:  make([]slot, r.cfg.Retention.Capacity),
	}
	id.seed = mix(r.cfg.Seed ^ mix(id.index+1))
	id.own.reset()
	id.c = &id.own
	r.ids = append(r.ids, id)
	r.byName[name] = id
	return id
}

// Start begins recording: spans begun from now on are counted, their
// offsets measured from this moment on the monotonic clock. It panics when
// called twice or after Stop.
func (r *Recorder) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != stateNew {
		panic("record: Start called twice, or after Stop: a Recorder records once")
	}
	r.base = time.Now()
	sh := r.sh
	test := ""
	if sh != nil {
		test = callingTest()
	}
	for _, id := range r.ids {
		id.base = r.base // written before state's store, read after its load
		if sh != nil {
			// Under benchsup the counters live in the shared region and
			// finished spans go through its ring (shared.go).
			if idx, c, ok := sh.publish(id.name, test, os.Getpid()); ok {
				id.ring, id.ringIdx, id.c = sh, idx, c
			}
		}
		id.state.Store(stateRunning)
	}
	r.state = stateRunning
}

// Stop ends recording. Spans begun and not finished count as unfinished;
// a Finish after Stop counts nothing. Stop waits for Finish calls already
// past their check (a few nanoseconds' work each), computes the results,
// and writes them to Config.Output when set. It returns the write's
// error, never panics on one; a second Stop returns the first's error.
// Stop without Start records an empty run.
func (r *Recorder) Stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch r.state {
	case stateStopped:
		return r.err
	case stateNew:
		r.base = time.Now()
	}
	r.elapsed = int64(time.Since(r.base))
	for _, id := range r.ids {
		id.state.Store(stateStopped)
	}
	for _, id := range r.ids {
		// Finish bails out when it sees stopped after raising inflight,
		// so once inflight reads zero after the store it stays zero.
		for id.inflight.Load() != 0 {
			runtime.Gosched()
		}
	}
	r.state = stateStopped
	r.results = make([]Result, len(r.ids))
	for i, id := range r.ids {
		r.results[i] = id.result(r.cfg)
	}
	if r.cfg.Output != nil {
		r.err = write(r.cfg.Output, r.cfg.Format, r.elapsed, r.results)
	}
	return r.err
}

// Err returns the error Stop returned, or nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Results returns one Result per identity, in registration order, once
// Stop has returned; nil before (Snapshot reads a running recorder).
func (r *Recorder) Results() []Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.results
}

// ElapsedNs is the time from Start to Stop in nanoseconds once stopped,
// and from Start to now while running; 0 before Start.
func (r *Recorder) ElapsedNs() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch r.state {
	case stateRunning:
		return int64(time.Since(r.base))
	case stateStopped:
		return r.elapsed
	}
	return 0
}

// recentSize is how many of an identity's latest durations the rolling
// figures of a Snapshot cover.
const recentSize = 256

// Identity is a stable name spans are recorded under, registered before
// Start. Its methods are safe for concurrent use.
type Identity struct {
	// Read-only while running (written before Start's store of state).
	name   string
	index  uint64
	policy Policy
	seed   uint64
	base   time.Time
	slots  []slot
	state  atomic.Uint32
	// c is where the counts are: &own, or the identity's entry in the
	// shared region under benchsup, where ring is then set too.
	c       *counters
	ring    *region
	ringIdx int
	_       [64]byte // keeps the read-mostly fields off the counters' line

	// Written by Begin and Finish.
	inflight atomic.Int64
	own      counters
	_        [64]byte

	recent [recentSize]atomic.Int64 // duration+1 by observation number mod recentSize
}

// Name is the identity's registered name.
func (id *Identity) Name() string { return id.name }

// slot holds one retained span. Its mutex is held only to copy the three
// values in or out, never across the recorded work.
type slot struct {
	mu      sync.Mutex
	obs     int64 // observation number, 0 for an empty slot
	start   int64
	dur     int64
	outcome Outcome
}

// Span is one recorded piece of work, a value returned by Begin. Its zero
// value (and a Span begun outside Start..Stop) records nothing: Finish on
// it is a no-op.
type Span struct {
	id    *Identity
	start int64 // ns since Start, monotonic
}

// Begin starts a span of id: it counts the span as begun (unfinished until
// finished), then reads the start time last, so its own bookkeeping is not
// inside the span. It takes no lock and allocates nothing. Before Start or
// after Stop it returns the zero Span and counts nothing.
func (id *Identity) Begin() Span {
	if id.state.Load() != stateRunning {
		return Span{}
	}
	id.c.begun.Add(1)
	return Span{id: id, start: int64(time.Since(id.base))}
}

// Finish ends the span with outcome o (an Outcome outside Success,
// Failure, Timeout and Canceled counts as Failure). It reads the end time
// first, before touching any storage, then counts the span and offers it
// to retention; it takes no lock held across the work (a retained slot's
// mutex is held while three values are copied in) and allocates nothing.
// It may run on another goroutine than Begin did.
//
// Finish clears the span, so finishing the same variable twice (a
// deferred Finish(Failure) after an explicit Finish, say) counts once. A
// copy of the span finished again counts again (and then no longer as
// unfinished): the span carries no shared state, which is what keeps it
// free. Do not finish one variable
// from two goroutines at once.
func (s *Span) Finish(o Outcome) {
	id := s.id
	if id == nil {
		return
	}
	end := int64(time.Since(id.base))
	start := s.start
	*s = Span{}
	if id.state.Load() != stateRunning {
		return
	}
	id.inflight.Add(1)
	if id.state.Load() != stateRunning { // Stop began after the first check
		id.inflight.Add(-1)
		return
	}
	if o < Success || o > Canceled {
		o = Failure
	}
	dur := end - start
	c := id.c
	n := c.obs.Add(1)
	c.outcomes[o-Success].Add(1)
	c.sumNs.Add(dur)
	id.recent[(n-1)%recentSize].Store(dur + 1) // 0 is an empty entry
	for m := c.minNs.Load(); dur < m && !c.minNs.CompareAndSwap(m, dur); m = c.minNs.Load() {
	}
	for m := c.maxNs.Load(); dur > m && !c.maxNs.CompareAndSwap(m, dur); m = c.maxNs.Load() {
	}
	if id.ring != nil {
		id.ring.write(id.ringIdx, n, start, dur, o)
	}
	if i, ok := slotFor(id.policy, id.seed, int64(len(id.slots)), n); ok {
		sl := &id.slots[i]
		sl.mu.Lock()
		if n > sl.obs { // of two racing writers, the later observation wins, as sequentially
			sl.obs, sl.start, sl.dur, sl.outcome = n, start, dur, o
		}
		sl.mu.Unlock()
	}
	id.inflight.Add(-1)
}

// slotFor is where observation n (1-based) is retained, if anywhere, in c
// slots under policy with the identity's seed. A Recorder and a Collector
// both choose with it.
func slotFor(policy Policy, seed uint64, c, n int64) (int, bool) {
	if c == 0 {
		return 0, false
	}
	switch policy {
	case FirstN:
		return int(n - 1), n <= c
	case LatestN:
		return int((n - 1) % c), true
	}
	if n <= c {
		return int(n - 1), true
	}
	// Algorithm R: replace a uniform j in [0, n) when j < capacity. The
	// draw is a hash of the observation number, so it needs no shared
	// random state.
	hi, _ := bits.Mul64(mix(seed^uint64(n)), uint64(n))
	return int(hi), int64(hi) < c
}

// mix is splitmix64's finalizer: a bijection of uint64 whose outputs of
// consecutive inputs look independent.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
