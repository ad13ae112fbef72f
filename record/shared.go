package record

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The shared region is how a recorder run under benchsup delivers its
// spans: a block of memory the supervisor creates for each child (a
// memfd), passes as an inherited descriptor named by EnvFD, and reads
// while the child runs and once more after it exits, so a span finished
// before a crash, a SIGKILL or the end of `benchsup record --for` is
// never lost (docs/design.md#recording). Everything in it is a 64-bit
// word read and written with atomics; no pointer crosses it.
//
// Layout (RegionSize bytes, native byte order: one machine):
//
//	header      16 words: magic, version, identity slots, name bytes,
//	            ring slots, identities published, name bytes used,
//	            table lock, identities that did not fit; the ring's
//	            cursor on its own cache line (word 8)
//	identities  SharedMaxIdentities entries of 16 words: the exact
//	            counters (begun, observations, four outcomes, sum, min,
//	            max), the name's offset and length, the owner's pid, the
//	            offset and length of the name of the test whose goroutine
//	            called Start (none outside a test)
//	names       SharedNameBytes of identity names
//	ring        SharedRingSlots slots of 5 words: sequence, observation,
//	            start offset, duration, identity<<8|outcome
//
// A writer takes ticket t from the cursor, claims slot t mod slots by
// moving its sequence to 2t+1, writes the four words and publishes 2t+2;
// a reader of ticket t takes the slot only when it reads 2t+2 before and
// after copying it (a seqlock). A slot a later lap claimed is a span
// overwritten before the drain: the reader counts it as lost, and the
// counters, which never go through the ring, stay exact.

// EnvFD names the environment variable that carries the descriptor of the
// shared region into a child; the sandbox sets it, as it sets the
// protocol's.
const EnvFD = "BENCHSUP_RECORD_FD"

// The region's fixed geometry.
const (
	SharedVersion       = 1
	SharedMaxIdentities = 1024
	SharedNameBytes     = 64 << 10
	SharedRingSlots     = 1 << 16

	sharedMagic  = 0x3143455250555342 // "BSUPREC1"
	headerWords  = 16
	entryWords   = 16
	slotWords    = 5
	namesOffset  = (headerWords + SharedMaxIdentities*entryWords) * 8
	ringOffset   = namesOffset + SharedNameBytes
	RegionSize   = ringOffset + SharedRingSlots*slotWords*8
	hdrMagic     = 0
	hdrVersion   = 1
	hdrMaxIDs    = 2
	hdrNameBytes = 3
	hdrSlots     = 4
	hdrIDCount   = 5
	hdrNameUsed  = 6
	hdrLock      = 7
	hdrCursor    = 8
	hdrNoRoom    = 9
	entName      = 9 // offset<<32 | length
	entPID       = 10
	entTest      = 11 // the test that started the recorder: offset<<32 | length; 0: none
)

// counters are an identity's exact counts: in the shared region under
// benchsup, in the Identity otherwise. The layout is the entry's first
// nine words.
type counters struct {
	begun    atomic.Int64
	obs      atomic.Int64 // observation numbers handed out (1-based)
	outcomes [numOutcomes]atomic.Int64
	sumNs    atomic.Int64
	minNs    atomic.Int64 // math.MaxInt64 until the first observation
	maxNs    atomic.Int64 // math.MinInt64 until the first observation
}

func (c *counters) reset() {
	c.minNs.Store(math.MaxInt64)
	c.maxNs.Store(math.MinInt64)
}

// region is a mapped shared region.
type region struct {
	mem []byte
}

// word is the atomic 64-bit word i of the region.
func (r *region) word(i int) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&r.mem[i*8]))
}

func (r *region) entry(i int) int { return headerWords + i*entryWords }

func (r *region) counters(i int) *counters {
	return (*counters)(unsafe.Pointer(&r.mem[r.entry(i)*8]))
}

func (r *region) slot(t uint64) int {
	return ringOffset/8 + int(t%SharedRingSlots)*slotWords
}

// InitRegion writes the header of a fresh, zeroed region of RegionSize
// bytes: what the supervisor does before the child starts.
func InitRegion(mem []byte) error {
	if len(mem) < RegionSize {
		return fmt.Errorf("record: shared region of %d bytes, want %d", len(mem), RegionSize)
	}
	r := &region{mem: mem}
	r.word(hdrVersion).Store(SharedVersion)
	r.word(hdrMaxIDs).Store(SharedMaxIdentities)
	r.word(hdrNameBytes).Store(SharedNameBytes)
	r.word(hdrSlots).Store(SharedRingSlots)
	r.word(hdrMagic).Store(sharedMagic) // last: a reader checks it first
	return nil
}

// openRegion checks a mapped region's header.
func openRegion(mem []byte) (*region, error) {
	if len(mem) < RegionSize {
		return nil, fmt.Errorf("shared region of %d bytes, want %d", len(mem), RegionSize)
	}
	if uintptr(unsafe.Pointer(&mem[0]))%8 != 0 {
		return nil, errors.New("shared region not 8-byte aligned")
	}
	r := &region{mem: mem}
	if m := r.word(hdrMagic).Load(); m != sharedMagic {
		return nil, fmt.Errorf("shared region has magic %#x, not benchsup's", m)
	}
	if v := r.word(hdrVersion).Load(); v != SharedVersion {
		return nil, fmt.Errorf("shared region is version %d, this recorder writes %d", v, SharedVersion)
	}
	if r.word(hdrMaxIDs).Load() != SharedMaxIdentities || r.word(hdrNameBytes).Load() != SharedNameBytes ||
		r.word(hdrSlots).Load() != SharedRingSlots {
		return nil, errors.New("shared region has another geometry")
	}
	return r, nil
}

// publish adds an identity to the table and returns its index and
// counters, or false when the table is full. The lock is a word of the
// region, since a process the child starts may inherit the descriptor
// and record into the same table.
func (r *region) publish(name, test string, pid int) (int, *counters, bool) {
	lock := r.word(hdrLock)
	for !lock.CompareAndSwap(0, 1) {
		runtime.Gosched()
	}
	defer lock.Store(0)
	n := int(r.word(hdrIDCount).Load())
	used := int(r.word(hdrNameUsed).Load())
	name = r.uniqueName(name, n)
	if n >= SharedMaxIdentities || used+len(name)+len(test) > SharedNameBytes {
		r.word(hdrNoRoom).Add(1)
		return 0, nil, false
	}
	e := r.entry(n)
	copy(r.mem[namesOffset+used:], name)
	r.word(e + entName).Store(uint64(used)<<32 | uint64(len(name)))
	used += len(name)
	if test != "" {
		copy(r.mem[namesOffset+used:], test)
		r.word(e + entTest).Store(uint64(used)<<32 | uint64(len(test)))
		used += len(test)
	}
	r.word(e + entPID).Store(uint64(pid))
	c := r.counters(n)
	c.reset()
	r.word(hdrNameUsed).Store(uint64(used))
	r.word(hdrIDCount).Store(uint64(n + 1)) // last: publishes the entry
	return n, c, true
}

// uniqueName is name, or name#2, name#3... when an identity of another
// recorder (in this process, or one that inherited the region) took it:
// two recorders registering "request" are two identities in the document.
func (r *region) uniqueName(name string, n int) string {
	taken := make(map[string]bool, n)
	for i := range n {
		taken[r.str(r.entry(i)+entName)] = true
	}
	if !taken[name] {
		return name
	}
	for k := 2; ; k++ {
		if c := fmt.Sprintf("%s#%d", name, k); !taken[c] {
			return c
		}
	}
}

// published is how many identities the table holds, as the supervisor
// reads it: the child writes the count, so a value beyond the table (a
// program that wrote over the region) is read as the table's size, never
// trusted as a length to allocate.
func (r *region) published() int {
	return int(min(r.word(hdrIDCount).Load(), SharedMaxIdentities))
}

// str is the string word w of an entry locates in the names.
func (r *region) str(w int) string {
	nm := r.word(w).Load()
	off, ln := int(nm>>32), int(nm&0xffffffff)
	if off+ln > SharedNameBytes {
		return ""
	}
	return string(r.mem[namesOffset+off : namesOffset+off+ln])
}

// write puts one finished span in the ring. It takes no lock: a ticket,
// a compare-and-swap to claim the slot, four stores and the publishing
// store. A slot still being written by a writer one lap behind (the ring
// wrapped within one span's copy) is waited for; a slot a later lap has
// claimed already means this span was overwritten before it was written,
// and it is dropped (the reader counts it lost).
func (r *region) write(idx int, n, start, dur int64, o Outcome) {
	t := r.word(hdrCursor).Add(1) - 1
	s := r.slot(t)
	seq := r.word(s)
	claim := 2*t + 1
	for {
		old := seq.Load()
		if old >= claim {
			return
		}
		if old&1 == 1 {
			runtime.Gosched()
			continue
		}
		if seq.CompareAndSwap(old, claim) {
			break
		}
	}
	r.word(s + 1).Store(uint64(n))
	r.word(s + 2).Store(uint64(start))
	r.word(s + 3).Store(uint64(dur))
	r.word(s + 4).Store(uint64(idx)<<8 | uint64(o))
	seq.Store(claim + 1)
}

// SharedSpan is one span read from the ring.
type SharedSpan struct {
	Identity    int // index in the identity table
	Observation int64
	StartNs     int64 // offset from its recorder's Start
	DurationNs  int64
	Outcome     Outcome
}

// SharedIdentity is one identity of the table, with its counters read at
// one moment (each exact at its read).
type SharedIdentity struct {
	Name string
	// Test is the test (or benchmark) function whose goroutine called the
	// recorder's Start ("TestServer"); empty outside one.
	Test         string
	PID          int
	Begun        int64
	Observations int64
	Outcomes     Outcomes // Unfinished: begun - observations, never negative
	SumNs        int64
	MinNs, MaxNs int64 // valid when Observations > 0
}

// Reader reads a shared region from the supervisor's side: the identity
// table and the ring, from one goroutine.
type Reader struct {
	r    *region
	next uint64 // the next ticket to read
	// Overwritten counts spans lost because the ring was overwritten
	// before they were drained; Unpublished those a writer had not
	// finished publishing when the reader was told the writers are gone
	// (Drain with final: a crash in the middle of Finish).
	Overwritten, Unpublished int64
	// Invalid counts published slots whose content could not be a span
	// (an identity beyond the table, an unknown outcome): never expected.
	Invalid int64
}

// NewReader checks the header of mem, a region InitRegion wrote.
func NewReader(mem []byte) (*Reader, error) {
	r, err := openRegion(mem)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return &Reader{r: r}, nil
}

// Identities reads the table and every identity's counters.
func (rd *Reader) Identities() []SharedIdentity {
	r := rd.r
	n := r.published()
	out := make([]SharedIdentity, n)
	for i := range n {
		e := r.entry(i)
		c := r.counters(i)
		si := SharedIdentity{Name: r.str(e + entName), Test: r.str(e + entTest), PID: int(r.word(e + entPID).Load())}
		// Finished before begun, as Snapshot reads them.
		si.Observations = c.obs.Load()
		si.Outcomes = Outcomes{Success: c.outcomes[0].Load(), Failure: c.outcomes[1].Load(), Timeout: c.outcomes[2].Load(), Canceled: c.outcomes[3].Load()}
		si.SumNs, si.MinNs, si.MaxNs = c.sumNs.Load(), c.minNs.Load(), c.maxNs.Load()
		si.Begun = c.begun.Load()
		si.Outcomes.Unfinished = max(si.Begun-si.Observations, 0)
		out[i] = si
	}
	return out
}

// NoRoom is how many identities did not fit in the table: their counts
// and spans stayed in their own process.
func (rd *Reader) NoRoom() int64 { return int64(rd.r.word(hdrNoRoom).Load()) }

// Drain passes every span published since the last drain to fn, in ticket
// order, and returns how many it passed. It stops at the first ticket not
// yet published, to take it at the next drain; with final (the writers
// are gone: the child exited) such a ticket is counted Unpublished and
// passed over.
func (rd *Reader) Drain(final bool, fn func(SharedSpan)) int {
	r := rd.r
	cur := r.word(hdrCursor).Load()
	if cur > rd.next+SharedRingSlots {
		lost := cur - SharedRingSlots - rd.next
		rd.Overwritten += int64(lost)
		rd.next += lost
	}
	ids := uint64(r.published())
	passed := 0
	for rd.next < cur {
		t := rd.next
		s := r.slot(t)
		want := 2*t + 2
		q := r.word(s).Load()
		switch {
		case q == want:
			sp := SharedSpan{
				Observation: int64(r.word(s + 1).Load()),
				StartNs:     int64(r.word(s + 2).Load()),
				DurationNs:  int64(r.word(s + 3).Load()),
			}
			io := r.word(s + 4).Load()
			sp.Identity, sp.Outcome = int(io>>8), Outcome(io&0xff)
			if r.word(s).Load() != want { // a later lap claimed it while it was copied
				rd.Overwritten++
				break
			}
			if uint64(sp.Identity) >= ids || sp.Outcome < Success || sp.Outcome > Canceled || sp.DurationNs < 0 || sp.Observation < 1 {
				rd.Invalid++
				break
			}
			fn(sp)
			passed++
		case q > want:
			rd.Overwritten++
		default: // claimed and not yet published, or not yet claimed
			if !final {
				return passed
			}
			rd.Unpublished++
		}
		rd.next++
	}
	return passed
}

// Collector keeps the spans a Reader drains under a retention policy, as a
// Recorder keeps its own (the same code chooses), and makes Results of
// them with the exact counts of the identity table.
type Collector struct {
	cfg  Config
	kept [][]SpanRecord // per identity index, allocated at its first span
}

// NewCollector returns a Collector with cfg's retention and Spans; the
// rest of cfg is ignored. An unknown policy or a negative capacity is an
// error.
func NewCollector(cfg Config) (*Collector, error) {
	if cfg.Retention.Policy == "" {
		cfg.Retention.Policy = Reservoir
	}
	if cfg.Retention.Capacity == 0 {
		cfg.Retention.Capacity = DefaultCapacity
	}
	switch cfg.Retention.Policy {
	case Reservoir, FirstN, LatestN:
	default:
		return nil, fmt.Errorf("record: unknown retention policy %q (want %q, %q or %q)", cfg.Retention.Policy, Reservoir, FirstN, LatestN)
	}
	if cfg.Retention.Capacity < 0 {
		return nil, fmt.Errorf("record: negative retention capacity %d", cfg.Retention.Capacity)
	}
	return &Collector{cfg: cfg}, nil
}

// Add offers one drained span to its identity's retention.
func (c *Collector) Add(sp SharedSpan) {
	for len(c.kept) <= sp.Identity {
		c.kept = append(c.kept, nil)
	}
	if c.kept[sp.Identity] == nil {
		c.kept[sp.Identity] = make([]SpanRecord, c.cfg.Retention.Capacity)
	}
	slots := c.kept[sp.Identity]
	seed := mix(c.cfg.Seed ^ mix(uint64(sp.Identity)+1))
	if i, ok := slotFor(c.cfg.Retention.Policy, seed, int64(len(slots)), sp.Observation); ok && sp.Observation > slots[i].Observation {
		slots[i] = SpanRecord{Observation: sp.Observation, StartNs: sp.StartNs, DurationNs: sp.DurationNs, Outcome: sp.Outcome}
	}
}

// Results is one Result per identity of ids (a Reader's table, read after
// the last drain), with the exact counts of the table and the spans the
// collector kept.
func (c *Collector) Results(ids []SharedIdentity) []Result {
	out := make([]Result, len(ids))
	for i, si := range ids {
		var spans []SpanRecord
		if i < len(c.kept) {
			for _, s := range c.kept[i] {
				if s.Observation > 0 {
					spans = append(spans, s)
				}
			}
		}
		out[i] = summarize(si.Name, c.cfg, si.Outcomes, si.Observations, si.SumNs, si.MinNs, si.MaxNs, spans)
	}
	return out
}

var (
	sharedOnce sync.Once
	shared     *region
	sharedWhy  string
)

// sharedRegion is the process's shared region, mapped once at the first
// New; nil outside benchsup.
func sharedRegion() *region {
	sharedOnce.Do(func() { shared, sharedWhy = mapShared() })
	return shared
}

// Supervised reports whether this process's recorders deliver their spans
// to benchsup through a shared region, and when not, why not ("no
// supervisor: ..." outside benchsup).
func Supervised() (bool, string) {
	r := sharedRegion()
	return r != nil, sharedWhy
}

// callingTest is the test, benchmark or fuzz function this goroutine runs
// in ("TestServer"): on its stack, the outermost frame named like one
// below the first frame of package testing (benchsup's worker wraps a
// test in a frame of its own); "" outside one. Start calls it once, so
// that recordings of a test binary name their test
// (docs/design.md#recording).
func callingTest() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	found := ""
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "testing.") {
			return found
		}
		if t := testName(f.Function); t != "" {
			found = t
		}
		if !more {
			return ""
		}
	}
}

// testName is the test function of a frame's function name:
// "example.com/p.TestServer.func1" is TestServer; a name that is not a
// test's is "".
func testName(fn string) string {
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		fn = fn[i+1:]
	}
	_, fn, _ = strings.Cut(fn, ".") // the package
	fn, _, _ = strings.Cut(fn, ".") // closures
	for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if strings.HasPrefix(fn, p) {
			return fn
		}
	}
	return ""
}
