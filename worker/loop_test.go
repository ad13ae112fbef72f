package worker

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/measure"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

var (
	iterSetups int
	iterCalls  int64
	counterOn  bool
	callsOn    int64 // calls of the measured closure while a counter was on
)

func init() {
	RegisterBenchmark("BenchmarkFixtureIter", func(b *testing.B) {
		iterSetups++
		s := strings.Repeat("x", 64)
		measure.Iter(b, func() {
			iterCalls++
			if counterOn {
				callsOn++
			}
			measure.BlackBox(strings.ToUpper(measure.BlackBox(s)))
		})
		measure.ReportMetric(b, "widgets", 2, measure.Level)
		measure.ReportMetric(b, "items", 1, measure.Rate)
	})
	RegisterBenchmark("BenchmarkFixtureCases", func(b *testing.B) {
		measure.Case(b, "enc", []measure.Label{{Key: "size", Value: "1"}}, func() int { return 1 }, func(v int) error {
			if v != 1 {
				return errors.New("wrong")
			}
			return nil
		})
		measure.Case(b, "bad", nil, func() int { return 2 }, func(int) error { return errors.New("verify failed: got 2") })
	})
}

func TestOwnedLoopDiscovered(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover, Config: protocol.RequestConfig{Bench: "Fixture(Iter|Cases)$"}})
	var names []string
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			names = append(names, id.Name)
		}
	}
	assert.Equal(t, []string{"BenchmarkFixtureIter", "BenchmarkFixtureCases/enc/size=1", "BenchmarkFixtureCases/bad"}, names)
}

func TestOwnedLoopMeasures(t *testing.T) {
	iterSetups = 0
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureIter"},
		Config: protocol.RequestConfig{MinSampleNs: int64(200_000), Samples: 4}})
	require.Empty(t, only[protocol.Failure](msgs))
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	assert.Equal(t, 1, iterSetups, "the setup ran once: the worker owned the loop")
	require.Len(t, r[0].Samples, 4)
	for _, s := range r[0].Samples {
		assert.Equal(t, r[0].Samples[0].Iterations, s.Iterations)
		assert.Positive(t, s.ElapsedNs)
		require.NotNil(t, s.Allocs)
		assert.GreaterOrEqual(t, *s.Allocs, uint64(s.Iterations), "ToUpper allocates once per call")
		units := map[string]float64{}
		for _, e := range s.Extra {
			units[e.Unit] = e.Value
		}
		assert.Equal(t, 2.0, units["widgets"])
		want := float64(s.Iterations) / (float64(s.ElapsedNs) / 1e9)
		assert.InDelta(t, want, units["items/s"], want*1e-9, "a rate is amount per second of the sample's own time")
	}
}

// onCounter is a fake source that counts calls of the measured closure.
type onCounter struct{ reads int }

func (c *onCounter) Source() string         { return "fake" }
func (c *onCounter) Report() sources.Report { return sources.Report{Source: "fake", Available: true} }
func (c *onCounter) Metrics() []string      { return []string{"minflt"} }
func (c *onCounter) Close() error           { return nil }
func (c *onCounter) Start() error {
	counterOn, callsOn = true, 0
	return nil
}
func (c *onCounter) Stop() (sources.Reading, error) {
	counterOn = false
	c.reads++
	return sources.Reading{Values: map[string]float64{"minflt": float64(callsOn)}}, nil
}

func TestOwnedLoopBracketsExactlyTheClosure(t *testing.T) {
	fake := &onCounter{}
	openCounters = func([]string, sources.Options) ([]sources.Counter, []sources.Absence) {
		return []sources.Counter{fake}, nil
	}
	defer func() { openCounters = sources.Open }()
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureIter"},
		Config: protocol.RequestConfig{Iterations: 10, Samples: 2, PerfIters: 1000, PerfBatch: 100, Metrics: []string{"minflt"}}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	assert.Equal(t, 12+emptyBrackets+12, fake.reads, "parts of 334, 333 and 333 iterations in brackets of 100, empty brackets first and one after each")
	assert.Equal(t, []protocol.MetricCell{{Name: "minflt", Value: 1}}, r[0].Metrics, "one closure call per iteration, nothing else, inside the brackets")
	assert.Equal(t, "bracketed: 1000 iterations in brackets of 100, median of 3 parts; the mean of 20 empty brackets subtracted from each", r[0].CountMethod)
	assert.Equal(t, int64(1000), r[0].CountIterations)
}

// overheadCounter counts what a bracket of perf counters would: a fixed
// cost of its own (jittered by the sequence), plus perCall per call of the
// measured closure.
type overheadCounter struct {
	own     float64
	jitter  []float64
	perCall float64
	reads   int
}

func (c *overheadCounter) Source() string { return "fake" }
func (c *overheadCounter) Report() sources.Report {
	return sources.Report{Source: "fake", Available: true}
}
func (c *overheadCounter) Metrics() []string { return []string{"task-clock"} }
func (c *overheadCounter) Close() error      { return nil }
func (c *overheadCounter) Start() error {
	counterOn, callsOn = true, 0
	return nil
}
func (c *overheadCounter) Stop() (sources.Reading, error) {
	counterOn = false
	v := c.own + c.perCall*float64(callsOn)
	if len(c.jitter) > 0 {
		v += c.jitter[c.reads%len(c.jitter)]
	}
	c.reads++
	return sources.Reading{Values: map[string]float64{"task-clock": v}}, nil
}

// Brackets of one call count their own edges (25µs of task-clock on this
// VM around a 24ns call): the mean empty bracket is subtracted, and the
// standard error of that mean is in the uncertainty (issue #9).
func TestOwnedLoopSubtractsBracketOverhead(t *testing.T) {
	tests := []struct {
		name    string
		fake    overheadCounter
		batch   int64
		want    *protocol.MetricCell
		wantWhy string
	}{
		{name: "a steady overhead is subtracted exactly", fake: overheadCounter{own: 25000, perCall: 24}, batch: 1,
			want: &protocol.MetricCell{Name: "task-clock", Value: 24,
				Note: "the mean empty bracket (25µs, of 38) was subtracted from each of its brackets: 25µs per iteration, more than a tenth of the value"}},
		{name: "a varying one that dwarfs the value makes it an estimate", fake: overheadCounter{own: 25000, perCall: 24, jitter: []float64{0, 2, -2}}, batch: 1,
			want: &protocol.MetricCell{Name: "task-clock", Value: 24, Estimated: true,
				Note: "the mean empty bracket (25µs, of 38) was subtracted from each of its brackets: 25µs per iteration, more than a tenth of the value"}},
		{name: "in large brackets it hardly matters", fake: overheadCounter{own: 25000, perCall: 2400}, batch: 1000,
			want: &protocol.MetricCell{Name: "task-clock", Value: 2400}},
		{name: "a jittery overhead puts a 24ns call below the noise", fake: overheadCounter{own: 25000, perCall: 24, jitter: []float64{0, 2000, -2000}}, batch: 1,
			wantWhy: "below the noise: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := tt.fake
			openCounters = func([]string, sources.Options) ([]sources.Counter, []sources.Absence) {
				return []sources.Counter{&fake}, nil
			}
			defer func() { openCounters = sources.Open }()
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureIter"},
				Config: protocol.RequestConfig{Iterations: 10, Samples: 1, PerfIters: 3000, PerfBatch: tt.batch, Metrics: []string{"task-clock"}}})
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1)
			if tt.want != nil {
				require.Len(t, r[0].Metrics, 1, "absences: %v", r[0].Absences)
				got := r[0].Metrics[0]
				assert.InDelta(t, tt.want.Value, got.Value, 1)
				assert.Less(t, got.Uncertainty, 1.0)
				assert.Equal(t, tt.want.Note, got.Note)
				assert.Equal(t, tt.want.Estimated, got.Estimated)
				return
			}
			assert.Empty(t, r[0].Metrics)
			require.Len(t, r[0].Absences, 1)
			assert.Contains(t, r[0].Absences[0].Reason, tt.wantWhy)
		})
	}
}

func TestBracketOverhead(t *testing.T) {
	empties := []sources.Reading{
		{Values: map[string]float64{"task-clock": 100, "syscr": 1, "minflt": 0, "maxrss": 5}},
		{Values: map[string]float64{"task-clock": 130, "syscr": 1, "minflt": 0, "maxrss": 6}},
		{Values: map[string]float64{"task-clock": 90, "syscr": 1, "minflt": 4, "maxrss": 7}},
		{Values: map[string]float64{"task-clock": 120, "syscr": 1, "minflt": 0}, Unavailable: map[string]string{"maxrss": "x"}},
	}
	mean, stderr := bracketOverhead(empties)
	assert.Equal(t, map[string]float64{"task-clock": 110, "syscr": 1, "minflt": 1}, mean,
		"the mean, so that a sparse event (a fault in one bracket of four) is not taken for none; levels and metrics some empty bracket lacks have no overhead")
	assert.InDelta(t, math.Sqrt(1000.0/3)/2, stderr["task-clock"], 1e-9, "the standard error of the mean")
	assert.Equal(t, 0.0, stderr["syscr"])
	assert.InDelta(t, 1, stderr["minflt"], 1e-9)

	r := subtractOverhead(sources.Reading{Values: map[string]float64{"task-clock": 1000, "syscr": 12, "maxrss": 9, "instructions": 500, "cycles": 300},
		Estimated: map[string]bool{}, Unavailable: map[string]string{}},
		map[string]float64{"task-clock": 105, "syscr": 1, "instructions": 100, "cycles": 50}, 2)
	assert.Equal(t, map[string]float64{"task-clock": 790, "syscr": 10, "maxrss": 9, "instructions": 300, "cycles": 200, "ipc": 1.5}, r.Values,
		"totals lose the brackets' own counts, levels do not, ratios are recomputed from the corrected totals")
}

func TestSplitParts(t *testing.T) {
	tests := []struct {
		k    int64
		n    int
		want []int64
	}{
		{1000, 3, []int64{334, 333, 333}},
		{3, 3, []int64{1, 1, 1}},
		{2, 3, []int64{1, 1}},
		{1, 3, []int64{1}},
		{9, 3, []int64{3, 3, 3}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, splitParts(tt.k, tt.n), "k=%d n=%d", tt.k, tt.n)
	}
}

func TestChunkCalls(t *testing.T) {
	tests := []struct {
		name                               string
		perCallNs, readNs, alloc, slotSize float64
		want                               int64
	}{
		{"unknown call time: one call", 0, 20000, 0, 8, 1},
		{"reads at most 1% of the chunk", 1000, 20000, 0, 8, 2000},
		{"a slow call: one per chunk", 5e6, 20000, 0, 8, 1},
		{"a 1.3ns call with an int result: the results' memory binds", 1.3, 20000, 0, 8, 131072},
		{"allocating calls: what they allocate binds too", 100, 20000, 1024, 24, 1000},
		{"no slot, no allocation: the cap", 0.5, 20000, 0, 0, maxChunk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chunkCalls(tt.perCallNs, tt.readNs, tt.alloc, tt.slotSize)
			assert.Equal(t, tt.want, got)
			if tt.perCallNs > 0 && got < maxChunk && got*int64(tt.slotSize+tt.alloc) < chunkMemory-int64(tt.slotSize+tt.alloc) {
				assert.LessOrEqual(t, tt.readNs/(float64(got)*tt.perCallNs), chunkReadShare, "the reads cost at most 1%% of the timed work")
			}
		})
	}
}

var hookSink []byte

func init() {
	RegisterBenchmark("BenchmarkFixtureCaseChunks", func(b *testing.B) {
		measure.Case(b, "alloc", nil, func() []byte { return make([]byte, 64) }, func(v []byte) error {
			hookSink = make([]byte, 1024) // the hook's own allocation: never counted
			if len(v) != 64 {
				return errors.New("wrong result")
			}
			return nil
		})
		measure.Case(b, "trivial", nil, func() int { return 1 }, func(v int) error {
			if v != 1 {
				return errors.New("wrong result")
			}
			return nil
		})
	})
}

// clockRead is what one reading of the monotonic clock costs here.
func clockRead() time.Duration {
	const n = 10000
	t0 := time.Now()
	for i := 0; i < n; i++ {
		_ = time.Now()
	}
	return time.Since(t0) / n
}

// A Case runs in chunks: the clock and the allocation counters around each
// chunk's calls only, the hook over the chunk's results after (issue #9: a
// 1.3ns closure measured 24ns, and the hook's allocations were counted).
func TestOwnedCaseChunks(t *testing.T) {
	const n = 200_000
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureCaseChunks/alloc"},
		Config: protocol.RequestConfig{Iterations: n, Samples: 2}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1, "%v", msgs)
	for _, s := range r[0].Samples {
		require.NotNil(t, s.Allocs)
		assert.True(t, s.Exact)
		assert.GreaterOrEqual(t, *s.Allocs, uint64(n), "one allocation per call")
		assert.Less(t, *s.Allocs, uint64(n+n/10), "the hook's allocations are not the call's")
		assert.Less(t, *s.AllocBytes, uint64(64*n+1024*n/10), "nor are its bytes")
	}

	// Minimums on both sides: a per-call clock puts a clock reading in
	// every call, so even the least disturbed sample would cost at least
	// the least disturbed reading; a shared host's preemptions only add.
	clock := clockRead()
	for range 4 {
		clock = min(clock, clockRead())
	}
	msgs = exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureCaseChunks/trivial"},
		Config: protocol.RequestConfig{Iterations: 10 * n, Samples: 5}})
	r = only[protocol.Result](msgs)
	require.Len(t, r, 1, "%v", msgs)
	least := time.Duration(math.MaxInt64)
	for _, s := range r[0].Samples {
		least = min(least, time.Duration(s.ElapsedNs/s.Iterations))
		assert.Zero(t, *s.Allocs)
	}
	assert.Less(t, least, clock, "a trivial call costs less than the clock reading a per-call clock would add")
}

func TestOwnedCaseCalibratedInDiscovery(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover,
		Config: protocol.RequestConfig{Bench: "Fixture(Iter|Cases)$", MinSampleNs: int64(2 * time.Millisecond)}})
	listed := map[string]protocol.Listed{}
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			listed[id.Name] = id
		}
	}
	for _, name := range []string{"BenchmarkFixtureIter", "BenchmarkFixtureCases/enc/size=1"} {
		assert.Positive(t, listed[name].Iterations, "%s: the owned loop ran under testing's timer: %+v", name, listed[name])
		assert.Empty(t, listed[name].Problem)
	}
	assert.Empty(t, listed["BenchmarkFixtureCases/bad"].Problem, "a failing hook is its processes' failure to report, not calibration's")
}

func TestOwnedCases(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureCases/enc/size=1"},
		Config: protocol.RequestConfig{Iterations: 5, Samples: 2}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	assert.Len(t, r[0].Samples, 2)

	msgs = exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureCases/bad"},
		Config: protocol.RequestConfig{Iterations: 5, Samples: 2}})
	assert.Empty(t, only[protocol.Result](msgs))
	f := only[protocol.Failure](msgs)
	require.Len(t, f, 1, "a failing verify hook fails its case alone")
	assert.Contains(t, f[0].Message, "verify failed: got 2")
}

func init() {
	RegisterBenchmark("BenchmarkFixtureIterSkip", func(b *testing.B) {
		measure.Iter(b, func() { b.Skip("needs a GPU") })
	})
}

func TestOwnedLoopSkip(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureIterSkip"},
		Config: protocol.RequestConfig{Iterations: 2, Samples: 2}})
	s := only[protocol.Skip](msgs)
	require.Len(t, s, 1, "a runtime skip inside an owned loop is a skip, with its reason")
	assert.Contains(t, s[0].Reason, "needs a GPU")
	assert.Empty(t, only[protocol.Result](msgs))
}
