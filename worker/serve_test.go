package worker

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// The fixtures below are registered as a generated file would register a
// package's benchmarks and tests.
func init() {
	RegisterBenchmark("BenchmarkFixtureLoop", func(b *testing.B) {
		b.ReportAllocs()
		var sink []byte
		for b.Loop() {
			sink = make([]byte, 64)
		}
		_ = sink
		b.ReportMetric(2, "widgets/op")
	})
	RegisterBenchmark("BenchmarkFixtureTable", func(b *testing.B) {
		for _, n := range []int{1, 10} {
			b.Run("n="+strings.Repeat("x", n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					_ = strings.Repeat("y", n)
				}
			})
		}
	})
	RegisterBenchmark("BenchmarkFixtureParentSetup", func(b *testing.B) {
		parentRuns++ // expensive setup a parent shares among its leaves
		b.Run("leaf", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
			}
		})
	})
	RegisterBenchmark("BenchmarkFixtureCounted", func(b *testing.B) {
		if clockRuns != nil {
			clockRuns()
		}
		for i := 0; i < b.N; i++ {
		}
	})
	RegisterBenchmark("BenchmarkFixtureSkip", func(b *testing.B) { b.Skip("fixture skips") })
	RegisterBenchmark("BenchmarkFixtureFatal", func(b *testing.B) { b.Fatal("fixture fails") })
	RegisterTest("TestFixturePass", func(t *testing.T) {})
	RegisterTest("TestFixtureFail", func(t *testing.T) { t.Error("fixture test fails") })
	RegisterTest("TestFixtureSkip", func(t *testing.T) { t.Skip("fixture test skips") })
}

var (
	parentRuns int
	clockRuns  func() // called each time BenchmarkFixtureCounted's body runs
)

// exchange runs one Request against an in-process session and returns every
// message the worker sent after Ready, checked by a protocol.Checker.
func exchange(t *testing.T, req protocol.Request) []protocol.Message {
	t.Helper()
	sup, child := net.Pipe()
	defer sup.Close()
	errc := make(chan error, 1)
	go func() {
		defer child.Close()
		errc <- (&session{conn: protocol.NewConn(child)}).serve()
	}()
	conn := protocol.NewConn(sup)
	var check protocol.Checker
	var got []protocol.Message
	require.NoError(t, sup.SetDeadline(time.Now().Add(60*time.Second)))
	for {
		m, err := conn.Receive()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.NoError(t, check.Check(m), "message %s", m.Kind())
		switch m.(type) {
		case protocol.Hello:
			require.NoError(t, conn.Send(req))
			require.NoError(t, check.Sent(req))
		case protocol.Ready:
		default:
			got = append(got, m)
		}
	}
	require.NoError(t, <-errc)
	assert.True(t, check.Done(), "the worker must end with done")
	return got
}

func only[T protocol.Message](msgs []protocol.Message) []T {
	var out []T
	for _, m := range msgs {
		if v, ok := m.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func TestServeDiscover(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover,
		Config: protocol.RequestConfig{Bench: "^BenchmarkFixture(Loop|Table|ParentSetup|Counted|Skip|Fatal)$"}})
	var names []string
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			names = append(names, id.Name)
		}
	}
	assert.Equal(t, []string{
		"BenchmarkFixtureLoop",
		"BenchmarkFixtureTable/n=x", "BenchmarkFixtureTable/n=xxxxxxxxxx",
		"BenchmarkFixtureParentSetup/leaf", "BenchmarkFixtureCounted",
		"BenchmarkFixtureSkip", "BenchmarkFixtureFatal",
	}, names)
	progress := only[protocol.Progress](msgs)
	n := len(registry.benchmarks)
	require.Len(t, progress, n, "one discovery progress per registered function, matching or not")
	assert.Equal(t, int64(n-1), progress[n-1].Done)
}

func TestServeDiscoverFiltersAndResumes(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover,
		Config: protocol.RequestConfig{Bench: "Table/n=xx", After: "BenchmarkFixtureLoop"}})
	var names []string
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			names = append(names, id.Name)
		}
	}
	assert.Equal(t, []string{"BenchmarkFixtureTable/n=xxxxxxxxxx"}, names)
}

func TestServeBenchmark(t *testing.T) {
	id := protocol.Identity{Package: "p", Name: "BenchmarkFixtureLoop"}
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: id, Repetition: 2, Seed: 9,
		Config: protocol.RequestConfig{MinSampleNs: int64(200 * time.Microsecond), Samples: 3}})
	results := only[protocol.Result](msgs)
	require.Len(t, results, 1)
	r := results[0]
	assert.Equal(t, 2, r.Repetition)
	assert.Equal(t, uint64(9), r.Seed)
	require.Len(t, r.Samples, 3)
	for _, s := range r.Samples {
		assert.Equal(t, r.Samples[0].Iterations, s.Iterations, "every sample runs the calibrated N")
		assert.Positive(t, s.ElapsedNs)
		require.NotNil(t, s.AllocBytes)
		assert.GreaterOrEqual(t, *s.AllocBytes, uint64(64)*uint64(s.Iterations), "64 B/op at least")
		assert.Contains(t, s.Extra, protocol.Metric{Unit: "widgets/op", Value: 2})
	}
	for _, s := range r.Samples {
		assert.True(t, s.Exact, "a top-level leaf's totals are read from B")
	}
}

func TestServeBenchmarkPinnedIterations(t *testing.T) {
	id := protocol.Identity{Name: "BenchmarkFixtureTable/n=x"}
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: id,
		Config: protocol.RequestConfig{Iterations: 7, Samples: 2}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	for _, s := range r[0].Samples {
		assert.Equal(t, int64(7), s.Iterations)
	}
}

func TestServeSamplesShareTheParentSetup(t *testing.T) {
	parentRuns = 0
	id := protocol.Identity{Name: "BenchmarkFixtureParentSetup/leaf"}
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: id,
		Config: protocol.RequestConfig{Iterations: 3, Samples: 5}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	assert.Len(t, r[0].Samples, 5)
	assert.Equal(t, 1, parentRuns, "all samples come from one run of the parent function")
	var timing []int64
	for _, p := range only[protocol.Progress](msgs) {
		if p.Phase == protocol.PhaseTiming {
			timing = append(timing, p.Done)
		}
	}
	assert.Equal(t, []int64{0, 1, 2, 3, 4, 5}, timing, "progress streams as samples end")
}

func TestServeBenchmarkEnds(t *testing.T) {
	tests := []struct {
		name  string
		bench string
		check func(t *testing.T, msgs []protocol.Message)
	}{
		{"skip", "BenchmarkFixtureSkip", func(t *testing.T, msgs []protocol.Message) {
			s := only[protocol.Skip](msgs)
			require.Len(t, s, 1)
			assert.Contains(t, s[0].Reason, "fixture skips")
		}},
		{"fatal", "BenchmarkFixtureFatal", func(t *testing.T, msgs []protocol.Message) {
			f := only[protocol.Failure](msgs)
			require.Len(t, f, 1)
			assert.Equal(t, protocol.FailureFatal, f[0].Class)
			assert.Contains(t, f[0].Message, "fixture fails")
		}},
		{"unknown function", "BenchmarkNope", func(t *testing.T, msgs []protocol.Message) {
			f := only[protocol.Failure](msgs)
			require.Len(t, f, 1)
			assert.Contains(t, f[0].Message, "no benchmark function BenchmarkNope")
		}},
		{"unknown leaf", "BenchmarkFixtureTable/n=zzz", func(t *testing.T, msgs []protocol.Message) {
			f := only[protocol.Failure](msgs)
			require.Len(t, f, 1)
			assert.Contains(t, f[0].Message, "no benchmark matches")
		}},
		{"not a leaf", "BenchmarkFixtureTable", func(t *testing.T, msgs []protocol.Message) {
			f := only[protocol.Failure](msgs)
			require.Len(t, f, 1)
			assert.Contains(t, f[0].Message, "has sub-benchmarks")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: tt.bench},
				Config: protocol.RequestConfig{Iterations: 1, Samples: 1}})
			assert.Empty(t, only[protocol.Result](msgs))
			tt.check(t, msgs)
		})
	}
}

func TestServeTests(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "Fixture"}})
	var got []string
	outputs := map[string]string{}
	for _, e := range only[protocol.TestEvent](msgs) {
		if e.Action == protocol.TestOutput { // what testing printed for the test, before its end event
			outputs[e.Test] += e.Output
			continue
		}
		got = append(got, string(e.Action)+" "+e.Test)
	}
	assert.Len(t, outputs, 2, "only the failing and the skipping test printed: %q", outputs)
	assert.Regexp(t, `^    serve_test\.go:\d+: fixture test fails\n$`, outputs["TestFixtureFail"], "the failure travels with its output")
	assert.Regexp(t, `^    serve_test\.go:\d+: fixture test skips\n$`, outputs["TestFixtureSkip"], "and a skip with its reason")
	assert.Equal(t, []string{
		"run TestFixturePass", "pass TestFixturePass",
		"run TestFixtureFail", "fail TestFixtureFail",
		"run TestFixtureSkip", "skip TestFixtureSkip",
	}, got)

	msgs = exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "Fixture", After: "TestFixtureFail"}})
	got = nil
	for _, e := range only[protocol.TestEvent](msgs) {
		if e.Action != protocol.TestOutput {
			got = append(got, string(e.Action)+" "+e.Test)
		}
	}
	assert.Equal(t, []string{"run TestFixtureSkip", "skip TestFixtureSkip"}, got, "resumes after the named test")

	msgs = exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "Fixture", Skip: []string{"TestFixtureFail", "TestFixturePass"}}})
	got = nil
	for _, e := range only[protocol.TestEvent](msgs) {
		if e.Action != protocol.TestOutput {
			got = append(got, string(e.Action)+" "+e.Test)
		}
	}
	assert.Equal(t, []string{"run TestFixtureSkip", "skip TestFixtureSkip"}, got, "skips the named tests")
}

func TestSendKeepsOneTerminalMessage(t *testing.T) {
	var buf bytes.Buffer
	w := &session{conn: protocol.NewConn(&buf)}
	require.NoError(t, w.send(protocol.Failure{Class: protocol.FailurePanic, Message: "from the benchmark goroutine"}))
	assert.ErrorIs(t, w.send(protocol.Failure{Class: protocol.FailureError, Message: "from the main goroutine"}), errEnded)
	assert.ErrorIs(t, w.send(protocol.Progress{Phase: protocol.PhaseTiming}), errEnded)
	assert.ErrorIs(t, w.send(protocol.Skip{}), errEnded)
	require.NoError(t, w.send(protocol.Log{Text: "still allowed"}))
	require.NoError(t, w.send(protocol.Done{}))

	var kinds []protocol.Kind
	c := protocol.NewConn(&buf)
	for {
		m, err := c.Receive()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		kinds = append(kinds, m.Kind())
	}
	assert.Equal(t, []protocol.Kind{protocol.KindFailure, protocol.KindLog, protocol.KindDone}, kinds)
}

// fakeCounter records when it is enabled, so a test can prove that no
// counter runs while the clock does.
type fakeCounter struct {
	events *[]string
	on     *bool
	starts int
}

func (f *fakeCounter) Source() string         { return "fake" }
func (f *fakeCounter) Report() sources.Report { return sources.Report{Source: "fake", Available: true} }
func (f *fakeCounter) Metrics() []string      { return []string{"minflt"} }
func (f *fakeCounter) Close() error           { return nil }
func (f *fakeCounter) Start() error {
	*f.on = true
	*f.events = append(*f.events, "start")
	return nil
}
func (f *fakeCounter) Stop() (sources.Reading, error) {
	*f.on = false
	*f.events = append(*f.events, "stop")
	f.starts++
	// Alternately a short run (2 iterations) and a long one (2+k = 6): the
	// values differ by k = 4, and the first run is disturbed by 100 extra.
	v := 14.0
	if f.starts%2 == 0 {
		v = 18
	}
	if f.starts == 1 {
		v += 100
	}
	return sources.Reading{Values: map[string]float64{"minflt": v}}, nil
}

func TestCountingNeverOverlapsTiming(t *testing.T) {
	var events []string
	on := false
	fake := &fakeCounter{events: &events, on: &on}
	openCounters = func(names []string, _ sources.Options) ([]sources.Counter, []sources.Absence) {
		assert.Equal(t, []string{"minflt", "nonesuch"}, names)
		return []sources.Counter{fake}, []sources.Absence{{Metrics: []string{"nonesuch"}, Reason: "unknown metric"}}
	}
	testHookPhase = func(p protocol.Phase) { events = append(events, "phase:"+string(p)) }
	clockRuns = func() {
		if on {
			events = append(events, "call:counted")
		} else {
			events = append(events, "call:timed")
		}
	}
	defer func() { openCounters, testHookPhase, clockRuns = sources.Open, nil, nil }()

	id := protocol.Identity{Name: "BenchmarkFixtureCounted"}
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: id,
		Config: protocol.RequestConfig{Iterations: 8, Samples: 3, PerfIters: 4, Metrics: []string{"minflt", "nonesuch"}}})

	counting := slices.Index(events, "phase:counting")
	require.Positive(t, counting, "events: %v", events)
	for i, e := range events[:counting] {
		assert.NotEqual(t, "call:counted", e, "event %d: a counter was on while the clock ran: %v", i, events)
		assert.NotEqual(t, "start", e, "event %d: a counter started before the counting phase: %v", i, events)
	}
	assert.Contains(t, events[:counting], "call:timed")
	for _, e := range events[counting:] {
		assert.NotEqual(t, "call:timed", e, "after timing, the body ran only under the counter")
	}

	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	assert.Len(t, r[0].Samples, 3)
	assert.Empty(t, r[0].Metrics, "(18-14)/4 = 1 in one pair, but the disturbed pair's -96/4 puts 0 inside the noise (half the range of the differences)")
	assert.Equal(t, 4, fake.starts, "two pairs")
	require.Len(t, r[0].Absences, 2)
	assert.Equal(t, protocol.Absence{Name: "nonesuch", Reason: "unknown metric"}, r[0].Absences[0])
	assert.Equal(t, "minflt", r[0].Absences[1].Name)
	assert.Contains(t, r[0].Absences[1].Reason, "below the noise: -24 to 1 per iteration")
	assert.Equal(t, int64(4), r[0].CountIterations)
	assert.Equal(t, "median of 2 differences of runs at 2 and 6 iterations", r[0].CountMethod)
}

func TestCountingRealSources(t *testing.T) {
	id := protocol.Identity{Name: "BenchmarkFixtureLoop"}
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: id,
		Config: protocol.RequestConfig{Iterations: 1000, Samples: 2, Metrics: []string{"task-clock", "minflt", "instructions"}}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	got := map[string]bool{}
	for _, c := range r[0].Metrics {
		got[c.Name] = true
		assert.GreaterOrEqual(t, c.Value, 0.0, c.Name)
	}
	for _, a := range r[0].Absences {
		got[a.Name] = true
		assert.NotEmpty(t, a.Reason, a.Name)
	}
	for _, m := range []string{"task-clock", "minflt", "instructions"} {
		assert.True(t, got[m], "%s is neither a value nor a reasoned absence", m)
	}
	assert.True(t, r[0].CountIterations > 0 || strings.Contains(fmt.Sprint(r[0].Absences), "not counted by default"),
		"a pass ran, or the reason it did not is given: %+v", r[0])
}
