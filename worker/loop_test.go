package worker

import (
	"errors"
	"strings"
	"testing"

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
	assert.Equal(t, 10, fake.reads, "1000 iterations in brackets of 100")
	assert.Equal(t, []protocol.MetricCell{{Name: "minflt", Value: 1}}, r[0].Metrics, "one closure call per iteration, nothing else, inside the brackets")
	assert.Equal(t, "bracketed: 1000 iterations in brackets of 100", r[0].CountMethod)
	assert.Equal(t, int64(1000), r[0].CountIterations)
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
