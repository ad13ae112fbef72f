package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"
)

// mustPanic runs f and returns its panic's message, failing when it does
// not panic.
func mustPanic(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("did not panic")
		}
		msg, _ = r.(string)
	}()
	f()
	return ""
}

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"policy", Config{Retention: Retention{Policy: "all"}}, "unknown retention policy"},
		{"capacity", Config{Retention: Retention{Capacity: -1}}, "negative retention capacity"},
		{"format", Config{Format: "xml"}, "unknown output format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := mustPanic(t, func() { New(tc.cfg) }); !strings.Contains(msg, tc.want) {
				t.Errorf("panic %q, want it to mention %q", msg, tc.want)
			}
		})
	}
}

func TestZeroConfig(t *testing.T) {
	rec := New(Config{})
	id := rec.Register("request")
	rec.Start()
	s := id.Begin()
	s.Finish(Success)
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	got := rec.Results()[0].Retention
	if got != (Retention{Policy: Reservoir, Capacity: DefaultCapacity}) {
		t.Errorf("zero Config's retention = %+v, want reservoir of %d", got, DefaultCapacity)
	}
}

func TestRegister(t *testing.T) {
	t.Run("same name, same identity", func(t *testing.T) {
		rec := New(Config{})
		a, b := rec.Register("request"), rec.Register("request")
		if a != b {
			t.Fatal("registering a name twice returned two identities")
		}
		if c := rec.Register("query"); c == a {
			t.Fatal("two names share an identity")
		}
		rec.Start()
		s := a.Begin()
		s.Finish(Success)
		s = b.Begin()
		s.Finish(Success)
		rec.Stop()
		res := rec.Results()
		if len(res) != 2 || res[0].Identity != "request" || res[0].Observations != 2 || res[1].Identity != "query" {
			t.Fatalf("results %+v, want request with 2 observations, then query", res)
		}
	})
	t.Run("after Start", func(t *testing.T) {
		rec := New(Config{})
		rec.Start()
		if msg := mustPanic(t, func() { rec.Register("late") }); !strings.Contains(msg, "after Start") {
			t.Errorf("panic %q does not give the reason", msg)
		}
	})
	t.Run("after Stop", func(t *testing.T) {
		rec := New(Config{})
		rec.Start()
		rec.Stop()
		mustPanic(t, func() { rec.Register("late") })
	})
	t.Run("empty name", func(t *testing.T) {
		mustPanic(t, func() { New(Config{}).Register("") })
	})
	t.Run("Start twice", func(t *testing.T) {
		rec := New(Config{})
		rec.Start()
		mustPanic(t, rec.Start)
	})
}

func TestSpanLifecycle(t *testing.T) {
	rec := New(Config{})
	id := rec.Register("job")

	early := id.Begin() // before Start: the zero Span
	if early != (Span{}) {
		t.Fatal("Begin before Start returned a live span")
	}
	rec.Start()
	early.Finish(Success) // counts nothing

	var zero Span
	zero.Finish(Success) // the zero Span is a no-op

	twice := id.Begin()
	twice.Finish(Success)
	twice.Finish(Failure) // same variable: counted once

	s := id.Begin()
	s.Finish(Success)
	s = id.Begin()
	s.Finish(Timeout)

	bad := id.Begin()
	bad.Finish(Outcome(0)) // out of range: a failure

	other := id.Begin() // finished on another goroutine
	done := make(chan struct{})
	go func() { other.Finish(Canceled); close(done) }()
	<-done

	_ = id.Begin()      // never finished
	late := id.Begin()  // finished after Stop: unfinished
	sleep := id.Begin() // spans a sleep
	time.Sleep(2 * time.Millisecond)
	sleep.Finish(Success)

	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	late.Finish(Success)
	if after := id.Begin(); after != (Span{}) {
		t.Error("Begin after Stop returned a live span")
	}

	r := rec.Results()[0]
	want := Outcomes{Success: 3, Failure: 1, Timeout: 1, Canceled: 1, Unfinished: 2}
	if r.Outcomes != want {
		t.Errorf("outcomes %+v, want %+v", r.Outcomes, want)
	}
	if r.Observations != 6 || r.Retained != 6 || r.Omitted != 0 {
		t.Errorf("observations/retained/omitted = %d/%d/%d, want 6/6/0", r.Observations, r.Retained, r.Omitted)
	}
	if r.Summary == nil || r.Summary.MaxNs < int64(2*time.Millisecond) {
		t.Errorf("summary %+v: the longest span slept 2ms", r.Summary)
	}
	if r.SampleSemantics != "individual-span" {
		t.Errorf("sampleSemantics %q", r.SampleSemantics)
	}
	if err := rec.Stop(); err != nil { // second Stop: same result, no panic
		t.Fatal(err)
	}
}

// TestFinishCopy: a copy of a span finished again counts again (the span
// holds no shared state); unfinished never goes below zero for it.
func TestFinishCopy(t *testing.T) {
	rec := New(Config{})
	id := rec.Register("x")
	rec.Start()
	s := id.Begin()
	cp := s
	s.Finish(Success)
	cp.Finish(Timeout)
	rec.Stop()
	r := rec.Results()[0]
	if want := (Outcomes{Success: 1, Timeout: 1}); r.Outcomes != want || r.Observations != 2 {
		t.Errorf("outcomes %+v, observations %d; want %+v, 2", r.Outcomes, r.Observations, want)
	}
}

func TestResultsBeforeStop(t *testing.T) {
	rec := New(Config{})
	rec.Register("x")
	rec.Start()
	if rec.Results() != nil {
		t.Error("Results before Stop is not nil")
	}
	rec.Stop()
	if len(rec.Results()) != 1 {
		t.Error("no results after Stop")
	}
}

func TestStopWithoutStart(t *testing.T) {
	rec := New(Config{})
	rec.Register("x")
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	r := rec.Results()[0]
	if r.Observations != 0 || r.Summary != nil {
		t.Errorf("an unstarted recorder recorded %+v", r)
	}
}

// TestBoundaryAllocs: Begin and Finish allocate nothing, with every policy
// and both before and after the retention fills.
func TestBoundaryAllocs(t *testing.T) {
	for _, p := range []Policy{Reservoir, FirstN, LatestN} {
		for _, ring := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ring=%v", p, ring), func(t *testing.T) {
				rec := New(Config{Retention: Retention{Policy: p, Capacity: 64}})
				if ring {
					rec.sh = testRegion(t)
				}
				id := rec.Register("x")
				rec.Start()
				defer rec.Stop()
				allocs := testing.AllocsPerRun(1000, func() {
					s := id.Begin()
					s.Finish(Success)
				})
				if allocs != 0 {
					t.Errorf("Begin+Finish allocate %v per span", allocs)
				}
				if ring && id.ring == nil {
					t.Error("the identity is not in the shared region")
				}
			})
		}
	}
}

// TestConcurrentCounts records from many goroutines, finishing half of
// the spans on another goroutine than began them, while a poller
// snapshots; every count must add up exactly (run with -race).
func TestConcurrentCounts(t *testing.T) {
	const (
		workers   = 16
		perWorker = 2000
	)
	for _, p := range []Policy{Reservoir, FirstN, LatestN} {
		t.Run(string(p), func(t *testing.T) {
			rec := New(Config{Retention: Retention{Policy: p, Capacity: 1000}, Spans: true})
			a, b := rec.Register("a"), rec.Register("b")
			rec.Start()
			stopPoll := make(chan struct{})
			var poll sync.WaitGroup
			poll.Go(func() {
				for {
					select {
					case <-stopPoll:
						return
					default:
					}
					for _, is := range rec.Snapshot().Identities {
						if is.Active < 0 || is.Completed < 0 || is.Errors > is.Completed {
							t.Errorf("snapshot %+v", is)
						}
					}
				}
			})
			handoff := make(chan Span, 64)
			var finishers sync.WaitGroup
			for range 4 {
				finishers.Go(func() {
					for s := range handoff {
						s.Finish(Timeout)
					}
				})
			}
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range perWorker {
						id := a
						if (w+i)%3 == 0 {
							id = b
						}
						s := id.Begin()
						switch i % 5 {
						case 0:
							s.Finish(Success)
						case 1:
							s.Finish(Failure)
						case 2:
							s.Finish(Canceled)
						case 3:
							handoff <- s
						case 4:
							if i%10 == 4 {
								continue // left unfinished
							}
							s.Finish(Success)
						}
					}
				})
			}
			wg.Wait()
			close(handoff)
			finishers.Wait()
			close(stopPoll)
			poll.Wait()
			if err := rec.Stop(); err != nil {
				t.Fatal(err)
			}

			var want [2]Outcomes
			for w := range workers {
				for i := range perWorker {
					o := &want[0]
					if (w+i)%3 == 0 {
						o = &want[1]
					}
					switch i % 5 {
					case 0:
						o.Success++
					case 1:
						o.Failure++
					case 2:
						o.Canceled++
					case 3:
						o.Timeout++
					case 4:
						if i%10 == 4 {
							o.Unfinished++
						} else {
							o.Success++
						}
					}
				}
			}
			for i, r := range rec.Results() {
				if r.Outcomes != want[i] {
					t.Errorf("%s: outcomes %+v, want %+v", r.Identity, r.Outcomes, want[i])
				}
				w := want[i]
				obs := w.Success + w.Failure + w.Timeout + w.Canceled
				checkRetention(t, r, obs, 1000)
			}
		})
	}
}

// checkRetention checks what a result retained against its policy.
func checkRetention(t *testing.T, r Result, obs, capacity int64) {
	t.Helper()
	retained := min(obs, capacity)
	if r.Observations != obs || r.Retained != retained || r.Omitted != obs-retained || int64(len(r.Spans)) != retained {
		t.Fatalf("%s: observations/retained/omitted/spans = %d/%d/%d/%d, want %d/%d/%d/%d",
			r.Identity, r.Observations, r.Retained, r.Omitted, len(r.Spans), obs, retained, obs-retained, retained)
	}
	var counted Outcomes
	for i, s := range r.Spans {
		if i > 0 && s.Observation <= r.Spans[i-1].Observation {
			t.Fatalf("%s: spans out of order or repeated at %d", r.Identity, i)
		}
		if s.Observation < 1 || s.Observation > obs || s.DurationNs < 0 || s.StartNs < 0 {
			t.Fatalf("%s: impossible span %+v", r.Identity, s)
		}
		switch s.Outcome {
		case Success:
			counted.Success++
		case Failure:
			counted.Failure++
		case Timeout:
			counted.Timeout++
		case Canceled:
			counted.Canceled++
		}
	}
	switch r.Retention.Policy {
	case FirstN:
		if len(r.Spans) > 0 && r.Spans[len(r.Spans)-1].Observation != retained {
			t.Errorf("%s: first-n kept observation %d", r.Identity, r.Spans[len(r.Spans)-1].Observation)
		}
	case LatestN:
		if len(r.Spans) > 0 && r.Spans[0].Observation != obs-retained+1 {
			t.Errorf("%s: latest-n's oldest is observation %d, want %d", r.Identity, r.Spans[0].Observation, obs-retained+1)
		}
	}
	if r.Omitted == 0 && (counted.Success != r.Outcomes.Success || counted.Failure != r.Outcomes.Failure ||
		counted.Timeout != r.Outcomes.Timeout || counted.Canceled != r.Outcomes.Canceled) {
		t.Errorf("%s: retained everything, but the spans' outcomes %+v differ from the counts %+v", r.Identity, counted, r.Outcomes)
	}
}

// TestStopWhileRecording stops while goroutines keep recording: what the
// results hold must still add up.
func TestStopWhileRecording(t *testing.T) {
	for _, p := range []Policy{Reservoir, FirstN, LatestN} {
		t.Run(string(p), func(t *testing.T) {
			rec := New(Config{Retention: Retention{Policy: p, Capacity: 100}, Spans: true})
			id := rec.Register("x")
			rec.Start()
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for range 20000 {
						s := id.Begin()
						s.Finish(Success)
					}
				})
			}
			time.Sleep(time.Millisecond)
			rec.Stop()
			wg.Wait()
			r := rec.Results()[0]
			if r.Outcomes.Success != r.Observations || r.Outcomes.Unfinished < 0 {
				t.Fatalf("outcomes %+v with %d observations", r.Outcomes, r.Observations)
			}
			checkRetention(t, r, r.Observations, 100)
		})
	}
}

// record finishes n spans in order and returns the retained observation
// numbers.
func recordN(t *testing.T, cfg Config, n int) []int64 {
	t.Helper()
	cfg.Spans = true
	rec := New(cfg)
	id := rec.Register("x")
	rec.Start()
	for range n {
		s := id.Begin()
		s.Finish(Success)
	}
	rec.Stop()
	r := rec.Results()[0]
	checkRetention(t, r, int64(n), int64(cfg.Retention.Capacity))
	var obs []int64
	for _, s := range r.Spans {
		obs = append(obs, s.Observation)
	}
	return obs
}

func TestRetentionPolicies(t *testing.T) {
	span := func(lo, hi int64) []int64 {
		var s []int64
		for i := lo; i <= hi; i++ {
			s = append(s, i)
		}
		return s
	}
	for _, tc := range []struct {
		policy Policy
		n      int
		want   []int64
	}{
		{FirstN, 5, span(1, 5)},
		{FirstN, 25, span(1, 10)},
		{LatestN, 5, span(1, 5)},
		{LatestN, 25, span(16, 25)},
		{Reservoir, 10, span(1, 10)},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			got := recordN(t, Config{Retention: Retention{Policy: tc.policy, Capacity: 10}}, tc.n)
			if !equal(got, tc.want) {
				t.Errorf("%s of %d kept %v, want %v", tc.policy, tc.n, got, tc.want)
			}
		})
	}
	t.Run("capacity zero means default", func(t *testing.T) {
		if got := recordN(t, Config{Retention: Retention{Policy: FirstN, Capacity: DefaultCapacity}}, 3); len(got) != 3 {
			t.Errorf("kept %v", got)
		}
	})
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReservoirSeeded(t *testing.T) {
	cfg := Config{Retention: Retention{Capacity: 10}, Seed: 42}
	a, b := recordN(t, cfg, 1000), recordN(t, cfg, 1000)
	if !equal(a, b) {
		t.Errorf("same seed kept %v, then %v", a, b)
	}
	cfg.Seed = 43
	if c := recordN(t, cfg, 1000); equal(a, c) {
		t.Errorf("seeds 42 and 43 kept the same spans %v", a)
	}
}

// TestReservoirUniform: over many seeds, every observation is retained
// about capacity/n of the time, the early ones as often as the late ones.
func TestReservoirUniform(t *testing.T) {
	const (
		n        = 100
		capacity = 10
		trials   = 3000
	)
	counts := make([]int, n+1)
	for seed := range uint64(trials) {
		for _, o := range recordN(t, Config{Retention: Retention{Capacity: capacity}, Seed: seed}, n) {
			counts[o]++
		}
	}
	p := float64(capacity) / n
	mean, sd := trials*p, math.Sqrt(trials*p*(1-p))
	for o := 1; o <= n; o++ {
		if math.Abs(float64(counts[o])-mean) > 5*sd {
			t.Errorf("observation %d kept %d times in %d trials, want %.0f ± %.0f", o, counts[o], trials, mean, 5*sd)
		}
	}
	var first, second int
	for o := 1; o <= n/2; o++ {
		first += counts[o]
		second += counts[o+n/2]
	}
	half := trials * capacity / 2.0
	halfSD := math.Sqrt(float64(trials*capacity) / 4) // binomial of the kept spans' halves
	if math.Abs(float64(first)-half) > 5*halfSD || math.Abs(float64(second)-half) > 5*halfSD {
		t.Errorf("first half kept %d, second %d, want about %.0f each", first, second, half)
	}
}

func TestQuantile(t *testing.T) {
	s := []float64{10, 20, 30, 40}
	for _, tc := range []struct{ q, want float64 }{
		{0, 10}, {0.5, 25}, {1, 40}, {0.9, 37}, {1.0 / 3, 20},
	} {
		if got := quantile(s, tc.q); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := quantile([]float64{7}, 0.99); got != 7 {
		t.Errorf("quantile of one value = %v", got)
	}
}

// exactCoverage is 1 - 2·P(Binomial(n, 1/2) < k), in exact arithmetic.
func exactCoverage(n, k int) float64 {
	tail := new(big.Int)
	c := big.NewInt(1)
	for i := range k {
		if i > 0 {
			c.Mul(c, big.NewInt(int64(n-i+1)))
			c.Div(c, big.NewInt(int64(i)))
		}
		tail.Add(tail, c)
	}
	r := new(big.Rat).SetFrac(tail, new(big.Int).Lsh(big.NewInt(1), uint(n)))
	f, _ := r.Float64()
	return 1 - 2*f
}

func TestMedianInterval(t *testing.T) {
	seq := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i + 1)
		}
		return s
	}
	if medianInterval(seq(1), 0.95) != nil {
		t.Error("an interval from one value")
	}
	for _, tc := range []struct {
		n         int
		low, high float64
		conf      float64
	}{
		{2, 1, 2, 0.5},
		{3, 1, 3, 0.75},
		{5, 1, 5, 0.9375},
		{6, 1, 6, 0.96875},
		{9, 2, 8, 1 - 2*10.0/512},
	} {
		iv := medianInterval(seq(tc.n), 0.95)
		if iv.LowNs != tc.low || iv.HighNs != tc.high || math.Abs(iv.Confidence-tc.conf) > 1e-12 {
			t.Errorf("n=%d: %+v, want [%v, %v] at %v", tc.n, *iv, tc.low, tc.high, tc.conf)
		}
	}
	// Against exact arithmetic, up to sizes where 2^-n underflows a float.
	for _, n := range []int{20, 101, 1000, 2500} {
		iv := medianInterval(seq(n), 0.95)
		k := int(iv.LowNs)
		if iv.HighNs != float64(n+1-k) {
			t.Fatalf("n=%d: asymmetric interval %+v", n, *iv)
		}
		got, exact, next := iv.Confidence, exactCoverage(n, k), exactCoverage(n, k+1)
		if math.Abs(got-exact) > 1e-9 || exact < 0.95 || next >= 0.95 {
			t.Errorf("n=%d: k=%d at %v (exact %v, k+1 %v): not the largest k covering 95%%", n, k, got, exact, next)
		}
	}
	// Ten thousand spans: close to the normal approximation n/2 - 1.96·√n/2.
	iv := medianInterval(seq(10000), 0.95)
	if k := iv.LowNs; k < 4895 || k > 4905 || iv.Confidence < 0.95 || iv.Confidence > 0.96 {
		t.Errorf("n=10000: %+v", *iv)
	}
}

func TestSummaryInvariants(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		capacity int
		over     string
	}{
		{"all kept", 50, 100, OverAll},
		{"some omitted", 500, 100, OverRetained},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := New(Config{Retention: Retention{Capacity: tc.capacity}})
			id := rec.Register("x")
			rec.Start()
			for i := range tc.n {
				s := id.Begin()
				for range i % 7 * 100 {
					_ = time.Now()
				}
				s.Finish(Success)
			}
			rec.Stop()
			sum := rec.Results()[0].Summary
			if sum == nil {
				t.Fatal("no summary")
			}
			if sum.PercentilesOver != tc.over || sum.Spans != int64(min(tc.n, tc.capacity)) {
				t.Errorf("percentilesOver %q of %d spans, want %q of %d", sum.PercentilesOver, sum.Spans, tc.over, min(tc.n, tc.capacity))
			}
			ordered := []float64{float64(sum.MinNs), sum.MedianNs, sum.P90Ns, sum.P95Ns, sum.P99Ns, float64(sum.MaxNs)}
			for i := 1; i < len(ordered); i++ {
				if ordered[i] < ordered[i-1] {
					t.Errorf("min, median, p90, p95, p99, max not ordered: %v", ordered)
				}
			}
			if sum.MeanNs < float64(sum.MinNs) || sum.MeanNs > float64(sum.MaxNs) {
				t.Errorf("mean %v outside [%d, %d]", sum.MeanNs, sum.MinNs, sum.MaxNs)
			}
			if iv := sum.Interval; iv == nil || iv.LowNs > sum.MedianNs || iv.HighNs < sum.MedianNs || iv.Confidence < 0.95 {
				t.Errorf("interval %+v around median %v", iv, sum.MedianNs)
			}
		})
	}
}

func TestSnapshot(t *testing.T) {
	rec := New(Config{})
	id := rec.Register("x")
	if snap := rec.Snapshot(); snap.ElapsedNs != 0 || snap.Identities[0].RecentMedianNs != nil {
		t.Errorf("snapshot before Start: %+v", snap)
	}
	rec.Start()
	open := id.Begin()
	for i := range 300 {
		s := id.Begin()
		if i%3 == 0 {
			s.Finish(Failure)
		} else {
			s.Finish(Success)
		}
	}
	snap := rec.Snapshot()
	is := snap.Identities[0]
	if is.Identity != "x" || is.Completed != 300 || is.Active != 1 || is.Errors != 100 || is.Recent != recentSize {
		t.Errorf("snapshot %+v, want 300 completed, 1 active, 100 errors, %d recent", is, recentSize)
	}
	if is.RecentMedianNs == nil || is.RecentP95Ns == nil || *is.RecentP95Ns < *is.RecentMedianNs || snap.ElapsedNs <= 0 {
		t.Errorf("rolling figures %v, %v after %d ns", is.RecentMedianNs, is.RecentP95Ns, snap.ElapsedNs)
	}
	open.Finish(Success)
	rec.Stop()
	if is := rec.Snapshot().Identities[0]; is.Completed != 301 || is.Active != 0 {
		t.Errorf("snapshot after Stop %+v", is)
	}
}

// TestJSONFields pins the JSON names the run document's recordings use.
func TestJSONFields(t *testing.T) {
	var buf bytes.Buffer
	rec := New(Config{Output: &buf, Spans: true, Retention: Retention{Policy: LatestN, Capacity: 2}})
	id := rec.Register("request")
	rec.Register("idle")
	rec.Start()
	for range 3 {
		s := id.Begin()
		s.Finish(Timeout)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(v any) string {
		var ks []string
		for k := range v.(map[string]any) {
			ks = append(ks, k)
		}
		return strings.Join(sorted(ks), ",")
	}
	recs := doc["recordings"].([]any)
	r := recs[0].(map[string]any)
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"document", doc, "elapsedNs,recordings"},
		{"recording", r, "identity,observations,omitted,outcomes,retained,retention,sampleSemantics,spans,summary"},
		{"outcomes", r["outcomes"], "canceled,failure,success,timeout,unfinished"},
		{"retention", r["retention"], "capacity,policy"},
		{"summary", r["summary"], "interval,maxNs,meanNs,medianNs,minNs,p90Ns,p95Ns,p99Ns,percentilesOver,spans"},
		{"interval", r["summary"].(map[string]any)["interval"], "confidence,highNs,lowNs"},
		{"span", r["spans"].([]any)[0], "durationNs,observation,outcome,startNs"},
	} {
		if got := keys(tc.v); got != tc.want {
			t.Errorf("%s keys %s, want %s", tc.name, got, tc.want)
		}
	}
	if r["sampleSemantics"] != "individual-span" || r["retention"].(map[string]any)["policy"] != "latest-n" ||
		r["spans"].([]any)[0].(map[string]any)["outcome"] != "timeout" || r["summary"].(map[string]any)["percentilesOver"] != OverRetained {
		t.Errorf("recording %v", r)
	}
	idle := recs[1].(map[string]any)
	if idle["summary"] != nil {
		t.Errorf("an identity with no spans has summary %v, want null", idle["summary"])
	}
	if _, ok := idle["spans"]; ok || idle["retained"] != 0.0 {
		t.Errorf("an identity with no spans has spans %v, retained %v; want none", idle["spans"], idle["retained"])
	}
}

func sorted(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

type failingWriter struct{}

var errDisk = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errDisk }

func TestWriteFailure(t *testing.T) {
	for _, format := range []string{"json", "csv"} {
		t.Run(format, func(t *testing.T) {
			rec := New(Config{Output: failingWriter{}, Format: format})
			rec.Register("x")
			rec.Start()
			err := rec.Stop()
			if !errors.Is(err, errDisk) {
				t.Fatalf("Stop returned %v, want the write's error", err)
			}
			if !errors.Is(rec.Err(), errDisk) || !errors.Is(rec.Stop(), errDisk) {
				t.Errorf("Err and a second Stop do not return it")
			}
			if rec.Results() == nil {
				t.Error("no results after a failed write")
			}
		})
	}
}
