package worker

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/benchsup/benchsup/internal/hooks"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// bracketTarget is how long one counter bracket of an owned loop should
// span when --perf-batch does not pin it: long enough that the bracket's
// own count (an ioctl pair per perf group, two getrusage calls, a
// /proc/self/io read), which is measured and subtracted, is small against
// it.
const bracketTarget = time.Millisecond

// Chunks of a loop with an untimed hook (measure.Case): the worker calls
// the measured function for a chunk of iterations with the clock running,
// then reads the allocation counters and runs the hook on the chunk's
// results with the clock stopped.
const (
	// chunkReadShare bounds what reading the clock and the allocation
	// counters around a chunk may cost against the chunk's timed work.
	chunkReadShare = 0.01
	// chunkMemory bounds the results a chunk keeps for the hook, and what
	// the calls allocate meanwhile: results kept longer than the plain
	// loop keeps them grow the live heap that every garbage collection
	// marks. Where this bound binds, the reads cost more than
	// chunkReadShare, outside the clock.
	chunkMemory = 1 << 20
	// maxChunk bounds a chunk's calls.
	maxChunk = 1 << 20
)

// owned is the measurement of a benchmark whose loop the worker owns
// (measure.Iter, measure.Case).
type owned struct {
	result  protocol.Result
	elapsed []time.Duration // per sample, for rate metrics
	failure *protocol.Failure
}

// Loop implements hooks.LoopRunner: for the identity this process
// measures, the worker runs the loop itself.
func (w *session) Loop(b *testing.B, body hooks.LoopBody) bool {
	switch w.req.Mode {
	case protocol.ModeDiscover:
		if w.req.Config.MinSampleNs > 0 {
			// Discovery calibrates N from testing's timer: it must time
			// what the samples will time, the calls without the hook.
			discoveryLoop(b, body)
		}
		return true // listing alone: the identity exists; its loop need not run
	case protocol.ModeBenchmark:
		if b.Name() != w.benchName() || w.owned != nil {
			return false
		}
		w.owned = w.ownLoop(body)
		return true
	}
	return false
}

// discoveryLoop runs body b.N times under testing's timer, stopped around
// the hook, in the chunks the samples will use. A hook's error ends the
// loop without failing b: calibration only times the calls, and the
// identity's own processes report the error as its failure (listing still
// lists it).
func discoveryLoop(b *testing.B, body hooks.LoopBody) {
	b.StopTimer()
	b.ResetTimer()
	if !body.HasAfter() {
		b.StartTimer()
		body.Timed(b.N)
		b.StopTimer()
		return
	}
	ch := newChunker(body)
	for done := 0; done < b.N; {
		m := int(ch.next(int64(b.N - done)))
		body.Reserve(m)
		t0 := time.Now()
		b.StartTimer()
		body.Timed(m)
		b.StopTimer()
		ch.observe(int64(m), time.Since(t0), 0)
		if err := body.After(); err != nil {
			return
		}
		done += m
	}
}

// Metric implements hooks.LoopRunner.
func (w *session) Metric(b *testing.B, unit string, amount float64, rate bool) bool {
	o := w.owned
	if o == nil || b.Name() != w.benchName() || o.failure != nil {
		return w.req.Mode == protocol.ModeDiscover
	}
	for i := range o.result.Samples {
		s := &o.result.Samples[i]
		m := protocol.Metric{Unit: unit, Value: amount}
		if rate {
			secs := o.elapsed[i].Seconds()
			if secs <= 0 {
				continue // no time measured: no rate, rather than an infinite one
			}
			m = protocol.Metric{Unit: unit + "/s", Value: amount * float64(s.Iterations) / secs}
		}
		// A unit reported again (the function called again) replaces its
		// value, as b.ReportMetric's does.
		switch k := slices.IndexFunc(s.Extra, func(e protocol.Metric) bool { return e.Unit == m.Unit }); {
		case k >= 0:
			s.Extra[k] = m
		case len(s.Extra) < protocol.MaxExtraPerSample:
			s.Extra = append(s.Extra, m)
		default:
			w.dropExtra(m.Unit) // the first ones in the order reported
		}
	}
	return true
}

// finishOwned sends what the owned loop measured.
func (w *session) finishOwned() error {
	if f := w.owned.failure; f != nil {
		return w.send(*f)
	}
	r := w.owned.result
	w.fitFrame(&r)
	return w.send(r)
}

// ownLoop samples and counts body itself (calibrating N first when the
// request does not pin it). Without a hook, a sample is one clock reading
// around all its calls, and its allocations the runtime's counters around
// them, read as testing reads them. With a hook (measure.Case), the calls
// run in chunks: the clock and the allocation counters are read around
// each chunk's calls only, and the hook runs on the chunk's results after,
// outside both.
func (w *session) ownLoop(body hooks.LoopBody) (o *owned) {
	cfg := w.req.Config
	o = &owned{result: protocol.Result{Identity: w.req.Identity, Repetition: w.req.Repetition, Seed: w.req.Seed}}
	defer func() {
		if r := recover(); r != nil {
			o.failure = &protocol.Failure{Class: protocol.FailurePanic,
				Message: protocol.TruncateText(fmt.Sprint(r), protocol.MaxTextLen),
				Stack:   protocol.TruncateText(string(debug.Stack()), protocol.MaxTextLen)}
		}
	}()
	minSample, samples := w.sampling()
	ch := newChunker(body)
	var elapsed []time.Duration
	sample := func(n int64) (*protocol.Sample, error) {
		runtime.GC() // as testing does before each run: earlier garbage is not this sample's
		var m0, m1 runtime.MemStats
		var el time.Duration
		var bytes, allocs uint64
		if !body.HasAfter() {
			runtime.ReadMemStats(&m0)
			t0 := time.Now()
			body.Timed(int(n))
			el = time.Since(t0)
			runtime.ReadMemStats(&m1)
			bytes, allocs = m1.TotalAlloc-m0.TotalAlloc, m1.Mallocs-m0.Mallocs
		} else {
			for done := int64(0); done < n; {
				m := ch.next(n - done)
				body.Reserve(int(m))
				runtime.ReadMemStats(&m0)
				t0 := time.Now()
				body.Timed(int(m))
				d := time.Since(t0)
				runtime.ReadMemStats(&m1)
				b := m1.TotalAlloc - m0.TotalAlloc
				bytes, allocs = bytes+b, allocs+m1.Mallocs-m0.Mallocs
				if err := body.After(); err != nil {
					return nil, err
				}
				ch.observe(m, d, b)
				el += d
				done += m
			}
		}
		elapsed = append(elapsed, el)
		return &protocol.Sample{Iterations: n, ElapsedNs: int64(el), AllocBytes: &bytes, Allocs: &allocs, Exact: true}, nil
	}
	fail := func(err error) *owned {
		o.failure = &protocol.Failure{Class: protocol.FailureFatal, Message: protocol.TruncateText(err.Error(), protocol.MaxTextLen)}
		return o
	}
	n := cfg.Iterations
	if n <= 0 {
		_ = w.phase(protocol.PhaseCalibration, 0, 0)
		var err error
		if n, _, err = calibrate(int64(minSample), sample); err != nil {
			return fail(err)
		}
	}
	elapsed = elapsed[:0]
	for i := 0; i < samples; i++ {
		_ = w.phase(protocol.PhaseTiming, int64(i), int64(samples))
		s, err := sample(n)
		if err != nil {
			return fail(err)
		}
		o.result.Samples = append(o.result.Samples, *s)
	}
	o.elapsed = elapsed
	if err := w.countOwned(body, ch, &o.result); err != nil {
		return fail(err)
	}
	return o
}

// chunker sizes the chunks of a loop with an untimed hook from what it
// has measured so far: the time and the allocated bytes per call, what a
// result slot takes, and what reading the clock and the allocation
// counters around a chunk costs. Chunks ramp up by doubling from one call,
// so a slow call never runs more often than it should.
type chunker struct {
	slotBytes float64
	readNs    float64 // a chunk's reads: two of the clock, two of the memory statistics
	calls     int64
	ns        float64
	bytes     float64
	last      int64
}

func newChunker(body hooks.LoopBody) *chunker {
	c := &chunker{}
	if !body.HasAfter() {
		return c
	}
	c.slotBytes = float64(body.Reserve(1))
	c.readNs = readCost()
	return c
}

// readCost measures what a chunk's clock and memory-statistics reads
// cost: the median of a few.
func readCost() float64 {
	var ms runtime.MemStats
	costs := make([]float64, 5)
	for i := range costs {
		t0 := time.Now()
		runtime.ReadMemStats(&ms)
		_ = time.Now()
		runtime.ReadMemStats(&ms)
		costs[i] = float64(time.Since(t0))
	}
	sort.Float64s(costs)
	return costs[len(costs)/2]
}

// next returns the calls of the next chunk, at most left.
func (c *chunker) next(left int64) int64 {
	var perCall, allocPerCall float64
	if c.calls > 0 {
		perCall, allocPerCall = c.ns/float64(c.calls), c.bytes/float64(c.calls)
	}
	size := chunkCalls(perCall, c.readNs, allocPerCall, c.slotBytes)
	if c.last > 0 {
		size = min(size, 2*c.last)
	} else {
		size = 1
	}
	return max(1, min(size, left))
}

// observe records a chunk of calls that took d and allocated bytes.
func (c *chunker) observe(calls int64, d time.Duration, bytes uint64) {
	c.calls += calls
	c.ns += float64(d)
	c.bytes += float64(bytes)
	c.last = calls
}

// chunkCalls is the size of a chunk for calls that take perCallNs and
// allocate allocBytes each, with results of slotBytes, when reading the
// clock and the allocation counters around a chunk costs readNs: enough
// calls that the reads cost at most chunkReadShare of their time, no more
// than chunkMemory holds, at least 1, at most maxChunk. An unknown call
// time (zero) gives 1.
func chunkCalls(perCallNs, readNs, allocBytes, slotBytes float64) int64 {
	if perCallNs <= 0 {
		return 1
	}
	calls := math.Ceil(readNs / chunkReadShare / perCallNs)
	if per := slotBytes + allocBytes; per > 0 {
		calls = math.Min(calls, math.Floor(chunkMemory/per))
	}
	return int64(math.Max(1, math.Min(calls, maxChunk)))
}

// countOwned counts the selected metrics over exactly k calls of the
// body, in countParts parts, each in brackets of batch calls, the hook
// running outside every bracket. Every selected source counts in the same
// brackets (sources.Bracket). Empty brackets, a few first and then one
// spread among the measured ones so that they see the same process (its
// garbage collections, its other threads), measure what a bracket counts
// of itself (the counters' own edges: ioctls, getrusage, a /proc/self/io
// read, and whatever other threads do meanwhile); the mean empty bracket,
// times the part's brackets, is subtracted from the part's total (the
// mean, not the median: sparse events such as page faults are what it
// must not miss). A part's value is its corrected total over its calls;
// the metric's value is the median of the parts, its uncertainty half
// their range plus the standard error of the mean empty bracket per call.
// By default k is what
// fits in countShare of the timed work, brackets' own time included
// (--perf-batch=1 makes each call pay for one); --perf-iters pins it.
func (w *session) countOwned(body hooks.LoopBody, ch *chunker, result *protocol.Result) error {
	cfg := w.req.Config
	if len(cfg.Metrics) == 0 {
		return nil
	}
	perOp, timed := medianNsPerOp(result.Samples), 0.0
	for _, s := range result.Samples {
		timed += float64(s.ElapsedNs)
	}
	budget := countShare * timed
	counters := w.openSelected(result)
	defer closeAll(counters)
	if len(counters) == 0 {
		return nil
	}
	br := sources.NewBracket(counters)
	if cfg.PerfIters <= 0 && countParts*perOp > budget {
		absentAll(result, br.Metrics(), fmt.Sprintf("not counted by default: %d calls (one per part) would take %s, more than %.0f%% of the %s this process timed; pin --perf-iters to count it",
			countParts, fmtNs(countParts*perOp), 100*countShare, fmtNs(timed)))
		return nil
	}
	batch := cfg.PerfBatch
	if batch <= 0 {
		batch = 1
		if perOp > 0 {
			batch = max(1, int64(float64(bracketTarget)/perOp))
		}
		if body.HasAfter() {
			// The results of a bracket wait for the hook: as much as a
			// chunk may keep.
			alloc := 0.0
			if ch.calls > 0 {
				alloc = ch.bytes / float64(ch.calls)
			}
			if per := ch.slotBytes + alloc; per > 0 {
				batch = min(batch, max(1, int64(chunkMemory/per)))
			}
		}
	}
	var empties []sources.Reading
	empty := func() {
		br.Start()
		empties = append(empties, br.Stop())
	}
	t0 := time.Now()
	for j := 0; j < emptyBrackets; j++ {
		empty()
	}
	bracketNs := time.Since(t0) / emptyBrackets
	k := cfg.PerfIters
	if k <= 0 {
		// The first empty brackets (a fraction of a millisecond) come on
		// top of the budget: what it bounds is the calls and their
		// brackets.
		if k = sizeBracketed(budget, perOp, float64(bracketNs), batch); k == 0 {
			absentAll(result, br.Metrics(), fmt.Sprintf("not counted by default: with brackets of %d calls, each costing %s of its own, %d calls would take more than %.0f%% of the %s this process timed; pin --perf-iters to count it",
				batch, fmtNs(float64(bracketNs)), countParts, 100*countShare, fmtNs(timed)))
			return nil
		}
	}
	parts := splitParts(k, countParts)
	batch = min(batch, parts[0])
	every := max(1, (k/batch+emptyInterleaved-1)/emptyInterleaved) // measured brackets per interleaved empty one
	var measured []attributed
	bracketsPerCall := 0.0
	for i, size := range parts {
		if err := w.phase(protocol.PhaseCounting, int64(i), int64(len(parts))); err != nil {
			return err
		}
		var readings []sources.Reading
		for done := int64(0); done < size; {
			m := min(batch, size-done)
			body.Reserve(int(m))
			br.Start()
			body.Timed(int(m))
			readings = append(readings, br.Stop())
			if err := body.After(); err != nil {
				return err
			}
			done += m
			if int64(len(readings))%every == 0 {
				empty()
			}
		}
		measured = append(measured, attributed{r: sources.Sum(readings...), iters: size})
		bracketsPerCall = math.Max(bracketsPerCall, float64(len(readings))/float64(size))
	}
	overhead, stderr := bracketOverhead(empties)
	for i := range measured {
		nb := math.Ceil(float64(measured[i].iters) / float64(batch))
		measured[i].r = subtractOverhead(measured[i].r, overhead, nb)
	}
	extra := map[string]float64{}
	for m, e := range stderr {
		extra[m] = e * bracketsPerCall
	}
	cells, absences := countedCells(br.Metrics(), measured, extra, "parts")
	for i := range cells {
		m := cells[i].Name
		if d, ok := sources.Describe(m); ok && d.Unit == "/op" {
			sub := overhead[m] * bracketsPerCall
			if sub > 0.1*math.Abs(cells[i].Value) {
				cells[i].Note = fmt.Sprintf("the mean empty bracket (%s, of %d) was subtracted from each of its brackets: %s per iteration, more than a tenth of the value",
					formatCount(d, overhead[m]), len(empties), formatCount(d, sub))
			}
			if sub > math.Abs(cells[i].Value) && stderr[m] > 0 {
				// More was subtracted than is left, and what was
				// subtracted varies: the value rests on the brackets'
				// own count staying the same with a call inside (whose
				// caches the counters' edges disturb).
				cells[i].Estimated = true
			}
		}
	}
	addCounted(result, cells, absences)
	result.CountIterations = k
	result.CountMethod = fmt.Sprintf("bracketed: %d iterations in brackets of %d, median of %d parts; the mean of %d empty brackets subtracted from each",
		k, batch, len(parts), len(empties))
	return nil
}

// splitParts splits k iterations into n parts as even as can be, the
// larger first.
func splitParts(k int64, n int) []int64 {
	n = int(max(1, min(int64(n), k)))
	parts := make([]int64, n)
	for i := range parts {
		parts[i] = k / int64(n)
		if int64(i) < k%int64(n) {
			parts[i]++
		}
	}
	return parts
}

// bracketOverhead returns, per metric, the mean of what the empty
// brackets counted and the standard error of that mean. A level, or a
// metric that some empty bracket could not count, has no overhead (and the
// measured brackets of the same pass say why it has no value).
func bracketOverhead(empties []sources.Reading) (mean, stderr map[string]float64) {
	mean, stderr = map[string]float64{}, map[string]float64{}
	vals := map[string][]float64{}
	for _, r := range empties {
		for m, v := range r.Values {
			vals[m] = append(vals[m], v)
		}
	}
	for m, vs := range vals {
		if len(vs) < len(empties) || isLevel(m) {
			continue
		}
		sum := 0.0
		for _, v := range vs {
			sum += v
		}
		mu := sum / float64(len(vs))
		ss := 0.0
		for _, v := range vs {
			ss += (v - mu) * (v - mu)
		}
		mean[m] = mu
		if n := float64(len(vs)); n > 1 {
			stderr[m] = math.Sqrt(ss/(n-1)) / math.Sqrt(n)
		} else {
			stderr[m] = 0
		}
	}
	return mean, stderr
}

// subtractOverhead removes brackets × overhead from every total of r and
// recomputes the derived metrics from the corrected totals.
func subtractOverhead(r sources.Reading, overhead map[string]float64, brackets float64) sources.Reading {
	out := sources.Reading{Values: map[string]float64{}, Estimated: r.Estimated, Unavailable: r.Unavailable}
	for m, v := range r.Values {
		out.Values[m] = v - brackets*overhead[m]
	}
	return sources.Derive(out)
}

func medianNsPerOp(samples []protocol.Sample) float64 {
	var xs []float64
	for _, s := range samples {
		if s.Iterations > 0 {
			xs = append(xs, float64(s.ElapsedNs)/float64(s.Iterations))
		}
	}
	if len(xs) == 0 {
		return 0
	}
	st, _ := stats.Summarize(xs)
	return st.Median
}
