package record

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// testRegion is a fresh region in ordinary memory: the layout does not
// care whether a memfd or the heap is behind it.
func testRegion(t testing.TB) *region {
	t.Helper()
	words := make([]uint64, RegionSize/8) // 8-byte aligned
	mem := unsafeBytes(words)
	if err := InitRegion(mem); err != nil {
		t.Fatal(err)
	}
	r, err := openRegion(mem)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readerOf(t testing.TB, r *region) *Reader {
	t.Helper()
	rd, err := NewReader(r.mem)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// TestRegionHeader: a reader refuses memory that is not a region of this
// version and geometry.
func TestRegionHeader(t *testing.T) {
	good := testRegion(t).mem
	cases := []struct {
		name  string
		mem   func() []byte
		valid bool
	}{
		{"fresh", func() []byte { return good }, true},
		{"short", func() []byte { return good[:RegionSize-8] }, false},
		{"zeroed", func() []byte { return unsafeBytes(make([]uint64, RegionSize/8)) }, false},
		{"other version", func() []byte {
			m := unsafeBytes(make([]uint64, RegionSize/8))
			_ = InitRegion(m)
			(&region{mem: m}).word(hdrVersion).Store(SharedVersion + 1)
			return m
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewReader(c.mem())
			if (err == nil) != c.valid {
				t.Errorf("NewReader: %v, want valid=%v", err, c.valid)
			}
		})
	}
}

// TestSharedRecorder: a recorder attached to a region keeps its counts
// there and publishes every finished span; a reader and a collector make
// the same results as the recorder's own.
func TestSharedRecorder(t *testing.T) {
	for _, p := range []Policy{Reservoir, FirstN, LatestN} {
		t.Run(string(p), func(t *testing.T) {
			sh := testRegion(t)
			cfg := Config{Retention: Retention{Policy: p, Capacity: 50}, Spans: true, Seed: 7}
			rec := New(cfg)
			rec.sh = sh
			a, b := rec.Register("a"), rec.Register("b")
			rec.Start()
			for i := range 300 {
				s := a.Begin()
				s.Finish(Outcome(1 + i%4))
				if i%3 == 0 {
					s := b.Begin()
					s.Finish(Success)
				}
			}
			_ = b.Begin() // unfinished
			if err := rec.Stop(); err != nil {
				t.Fatal(err)
			}
			rd := readerOf(t, sh)
			col, err := NewCollector(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if n := rd.Drain(true, col.Add); n != 400 {
				t.Errorf("drained %d spans, want 400", n)
			}
			got := col.Results(rd.Identities())
			want := rec.Results()
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			for i := range want {
				show := func(r Result) string {
					s := *r.Summary
					iv := *s.Interval
					s.Interval = nil
					return fmt.Sprintf("%+v %+v %+v %v", r.Outcomes, s, iv, r.Spans)
				}
				g, w := show(got[i]), show(want[i])
				if g != w || got[i].Identity != want[i].Identity || got[i].Retained != want[i].Retained {
					t.Errorf("identity %d: collector\n%s\nrecorder\n%s", i, g, w)
				}
			}
			if got[1].Outcomes.Unfinished != 1 {
				t.Errorf("unfinished %d, want 1", got[1].Outcomes.Unfinished)
			}
		})
	}
}

// TestSharedNames: two recorders of one process registering one name are
// two identities, the second suffixed.
func TestSharedNames(t *testing.T) {
	sh := testRegion(t)
	for range 3 {
		rec := New(Config{Retention: Retention{Capacity: 4}})
		rec.sh = sh
		rec.Register("request")
		rec.Start()
	}
	var names []string
	for _, si := range readerOf(t, sh).Identities() {
		names = append(names, si.Name)
	}
	if got := fmt.Sprint(names); got != "[request request#2 request#3]" {
		t.Errorf("names %s", got)
	}
}

// TestRingOverrun: spans written faster than drained are counted as
// overwritten, exactly, and the ring keeps the latest lap.
func TestRingOverrun(t *testing.T) {
	sh := testRegion(t)
	rd := readerOf(t, sh)
	idx, _, _ := sh.publish("x", "", 1)
	const total = SharedRingSlots + 1234
	for n := int64(1); n <= total; n++ {
		sh.write(idx, n, n, n, Success)
	}
	var first int64
	got := rd.Drain(false, func(sp SharedSpan) {
		if first == 0 {
			first = sp.Observation
		}
	})
	if got != SharedRingSlots || rd.Overwritten != 1234 || first != 1235 {
		t.Errorf("drained %d (first %d), overwritten %d; want %d from 1235, 1234", got, first, rd.Overwritten, SharedRingSlots)
	}
}

// TestRingUnpublished: a span claimed and never published (the writer
// died in the middle of it) holds the drain back while writers may live,
// and is counted once they are gone.
func TestRingUnpublished(t *testing.T) {
	sh := testRegion(t)
	rd := readerOf(t, sh)
	idx, _, _ := sh.publish("x", "", 1)
	sh.write(idx, 1, 0, 10, Success)
	// A writer that took ticket 1, claimed its slot and died.
	tk := sh.word(hdrCursor).Add(1) - 1
	sh.word(sh.slot(tk)).Store(2*tk + 1)
	sh.write(idx, 3, 0, 30, Success)
	if n := rd.Drain(false, func(SharedSpan) {}); n != 1 {
		t.Errorf("live drain passed %d, want 1 (stopping at the unpublished one)", n)
	}
	if n := rd.Drain(true, func(SharedSpan) {}); n != 1 || rd.Unpublished != 1 {
		t.Errorf("final drain passed %d, unpublished %d; want 1, 1", n, rd.Unpublished)
	}
}

// TestRingConcurrent: many goroutines write while a reader drains; every
// span read is one a writer wrote whole (its words agree: no torn read),
// and the spans read plus those counted lost are every span written (run
// with -race).
func TestRingConcurrent(t *testing.T) {
	sh := testRegion(t)
	rd := readerOf(t, sh)
	const writers, each = 8, 40000
	ids := make([]int, writers)
	for w := range ids {
		ids[w], _, _ = sh.publish(fmt.Sprint("w", w), "", 1)
	}
	var wg sync.WaitGroup
	var stop atomic.Bool
	var read, bad int64
	check := func(sp SharedSpan) {
		read++
		// Each writer's spans encode the writer and the number in every word.
		w := int64(sp.Identity)
		if sp.StartNs != sp.Observation*writers+w || sp.DurationNs != sp.Observation+w || sp.Outcome != Outcome(1+sp.Observation%4) {
			bad++
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			rd.Drain(false, check)
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := int64(1); n <= each; n++ {
				sh.write(ids[w], n, n*writers+int64(w), n+int64(w), Outcome(1+n%4))
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	<-done
	rd.Drain(true, check)
	if bad != 0 || rd.Invalid != 0 {
		t.Errorf("%d torn spans read, %d invalid", bad, rd.Invalid)
	}
	if read+rd.Overwritten+rd.Unpublished != writers*each {
		t.Errorf("read %d + overwritten %d + unpublished %d != written %d", read, rd.Overwritten, rd.Unpublished, writers*each)
	}
	if rd.Unpublished != 0 {
		t.Errorf("%d unpublished after every writer returned", rd.Unpublished)
	}
	t.Logf("read %d, overwritten %d", read, rd.Overwritten)
}

// TestSharedCountsConcurrent: recorders of many goroutines keep exact
// counts in the region whatever the ring lost.
func TestSharedCountsConcurrent(t *testing.T) {
	sh := testRegion(t)
	rec := New(Config{Retention: Retention{Capacity: 100}})
	rec.sh = sh
	id := rec.Register("x")
	rec.Start()
	var wg sync.WaitGroup
	const g, each = 8, 20000
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				s := id.Begin()
				s.Finish(Outcome(1 + i%2))
			}
		}()
	}
	wg.Wait()
	rd := readerOf(t, sh)
	col, _ := NewCollector(Config{Retention: Retention{Capacity: 100}})
	n := rd.Drain(true, col.Add)
	res := col.Results(rd.Identities())[0]
	// Retained is at most the capacity: a reservoir that saw only the
	// ring's last lap holds fewer.
	if res.Observations != g*each || res.Outcomes.Success != g*each/2 || res.Outcomes.Failure != g*each/2 ||
		res.Retained > 100 || res.Retained == 0 || res.Retained+res.Omitted != res.Observations {
		t.Errorf("counts %+v obs %d retained %d", res.Outcomes, res.Observations, res.Retained)
	}
	if int64(n)+rd.Overwritten != g*each {
		t.Errorf("drained %d + overwritten %d != %d", n, rd.Overwritten, g*each)
	}
	rec.Stop()
}

// TestCallingTest: a recorder started in a test names it in the table;
// the name of a function that is not a test's is empty.
func TestCallingTest(t *testing.T) {
	sh := testRegion(t)
	rec := New(Config{Retention: Retention{Capacity: 4}})
	rec.sh = sh
	rec.Register("x")
	func() { rec.Start() }() // a closure inside the test still names it
	if got := readerOf(t, sh).Identities()[0].Test; got != "TestCallingTest" {
		t.Errorf("test %q, want TestCallingTest", got)
	}
	for fn, want := range map[string]string{
		"example.com/p.TestServer":             "TestServer",
		"example.com/p.TestServer.func1":       "TestServer",
		"example.com/a/b.BenchmarkX.func2.1":   "BenchmarkX",
		"main.main":                            "",
		"example.com/p.(*T).helper":            "",
		"github.com/benchsup/benchsup/x.FuzzY": "FuzzY",
	} {
		if got := testName(fn); got != want {
			t.Errorf("testName(%q) = %q, want %q", fn, got, want)
		}
	}
}

// TestCollectorNothingRetained: counted spans the ring lost entirely give
// exact counts and no summary (no percentile is known), never zeros.
func TestCollectorNothingRetained(t *testing.T) {
	sh := testRegion(t)
	rec := New(Config{})
	rec.sh = sh
	id := rec.Register("x")
	rec.Start()
	for range 5 {
		s := id.Begin()
		s.Finish(Success)
	}
	col, _ := NewCollector(Config{})
	res := col.Results(readerOf(t, sh).Identities())[0] // nothing drained
	if res.Observations != 5 || res.Retained != 0 || res.Omitted != 5 || res.Summary != nil {
		t.Errorf("observations %d retained %d omitted %d summary %v; want 5, 0, 5, nil", res.Observations, res.Retained, res.Omitted, res.Summary)
	}
}

// TestReaderDistrustsTheChild: the child writes the region, so a program
// that scribbles over it must not make the supervisor allocate by its
// numbers or index past the table: an identity count beyond the table is
// read as the table's size, and a span naming an identity beyond it is
// invalid, not a slot to grow a slice to.
func TestReaderDistrustsTheChild(t *testing.T) {
	sh := testRegion(t)
	rd := readerOf(t, sh)
	idx, _, _ := sh.publish("x", "", 1)
	sh.write(idx, 1, 0, 10, Success)
	sh.word(hdrIDCount).Store(1 << 62)
	// A span whose identity word points far beyond the table.
	tk := sh.word(hdrCursor).Add(1) - 1
	s := sh.slot(tk)
	sh.word(s + 1).Store(2)
	sh.word(s + 3).Store(5)
	sh.word(s + 4).Store(uint64(1<<40)<<8 | uint64(Success))
	sh.word(s).Store(2*tk + 2)
	if ids := rd.Identities(); len(ids) != SharedMaxIdentities {
		t.Errorf("read %d identities, want the table's %d", len(ids), SharedMaxIdentities)
	}
	var got []SharedSpan
	rd.Drain(true, func(sp SharedSpan) { got = append(got, sp) })
	if len(got) != 1 || got[0].Identity != idx || rd.Invalid != 1 {
		t.Errorf("drained %+v, invalid %d; want the one real span and 1 invalid", got, rd.Invalid)
	}
}
