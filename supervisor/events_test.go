package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// eventStream collects a run's events through report.EventWriter, as the
// CLI writes them, and reads them back from the NDJSON.
type eventStream struct {
	buf bytes.Buffer
	w   *report.EventWriter
}

func newEventStream() *eventStream {
	es := &eventStream{}
	es.w = report.NewEventWriter(&es.buf)
	return es
}

func (es *eventStream) events(t *testing.T) []rundoc.Event {
	t.Helper()
	require.NoError(t, es.w.Err())
	var out []rundoc.Event
	sc := bufio.NewScanner(bytes.NewReader(es.buf.Bytes()))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var ev rundoc.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), "line %q", sc.Text())
		out = append(out, ev)
	}
	require.NoError(t, sc.Err())
	return out
}

// childKey is what pairs a process-start with its process-end.
type childKey struct {
	pkg, name, build, phase string
	process                 int // -1: none
}

func childOf(ev rundoc.Event) childKey {
	k := childKey{ev.Package, ev.Name, ev.Build, ev.Phase, -1}
	if ev.Process != nil {
		k.process = *ev.Process
	}
	return k
}

func rowJSON(t *testing.T, r rundoc.Row) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(r))
	return b.String()
}

// checkShape asserts the stream's shape against the run's document: every
// event versioned and in sequence; a package's build before its discovery
// children, before its discovery, before its other children; every child's start before its end, every end with
// an outcome (and a reason when it failed, a pid and wall time when
// spawned); each process of a row ended with that row's pid and outcome;
// and one result per row of the document, equal to it.
func checkShape(t *testing.T, events []rundoc.Event, doc *rundoc.Document) {
	t.Helper()
	require.NotEmpty(t, events)
	type pkgBuild struct{ pkg, build string }
	built := map[pkgBuild]int{}      // index of the ok build event
	discovered := map[pkgBuild]int{} // index of the discovery event
	open := map[childKey]int{}       // starts not yet ended
	ends := map[childKey][]rundoc.Event{}
	var results []rundoc.Event
	for i, ev := range events {
		assert.Equal(t, rundoc.EventSchemaVersion, ev.Schema)
		assert.Equal(t, int64(i+1), ev.Seq, "seq in line order")
		_, err := time.Parse(time.RFC3339, ev.Time)
		assert.NoError(t, err)
		pb := pkgBuild{ev.Package, ev.Build}
		switch ev.Kind {
		case rundoc.EventBuild:
			require.NotEmpty(t, ev.Outcome)
			if ev.Outcome == rundoc.OutcomeOK {
				built[pb] = i
			} else {
				assert.NotNil(t, ev.Error, "a failed build says why")
			}
		case rundoc.EventDiscovery:
			_, ok := built[pb]
			assert.True(t, ok, "event %d: %s (build %q) discovered before it was built", i, ev.Package, ev.Build)
			discovered[pb] = i
		case rundoc.EventProcessStart:
			assert.NotEmpty(t, ev.Phase)
			// Discovery children run after the build; the discovery
			// event reports what they found; every other child follows it.
			if ev.Phase == string(protocol.ModeDiscover) {
				_, ok := built[pb]
				assert.True(t, ok, "event %d: a discovery child of %s before its build", i, ev.Package)
			} else {
				_, ok := discovered[pb]
				assert.True(t, ok, "event %d: a %s child of %s before its discovery", i, ev.Phase, ev.Package)
			}
			open[childOf(ev)]++
		case rundoc.EventProcessEnd:
			k := childOf(ev)
			require.Positive(t, open[k], "event %d: process-end of %+v before its start", i, k)
			open[k]--
			require.NotEmpty(t, ev.Outcome, "event %d: every process-end has an outcome", i)
			if ev.Outcome.IsError() {
				assert.NotNil(t, ev.Error, "event %d: a failed child says why", i)
			}
			if ev.PID != 0 {
				require.NotNil(t, ev.WallNs, "a spawned child's wall time is measured")
				assert.Positive(t, *ev.WallNs)
			}
			ends[k] = append(ends[k], ev)
		case rundoc.EventResult:
			require.NotNil(t, ev.Row)
			assert.Equal(t, ev.Row.Package, ev.Package)
			assert.Equal(t, ev.Row.Name, ev.Name)
			assert.Equal(t, ev.Row.Outcome, ev.Outcome)
			results = append(results, ev)
		default:
			t.Errorf("event %d: kind %q is not one the supervisor emits", i, ev.Kind)
		}
	}
	for k, n := range open {
		assert.Zero(t, n, "%+v: every start has its end", k)
	}
	// Each process a row records was announced, with its pid and outcome.
	for _, r := range doc.Rows {
		for _, p := range r.Processes {
			k := childKey{r.Package, r.Name, r.Build, string(protocol.ModeBenchmark), p.Index}
			if r.Kind == rundoc.KindWorkload {
				k.phase = string(protocol.ModeWorkload)
			}
			require.Len(t, ends[k], 1, "%+v", k)
			assert.Equal(t, p.PID, ends[k][0].PID)
			assert.Equal(t, p.Outcome, ends[k][0].Outcome)
			assert.Equal(t, p.WallNs, *ends[k][0].WallNs)
		}
	}
	// One result per row, each equal to the document's.
	want := map[string]int{}
	for _, r := range doc.Rows {
		want[rowJSON(t, r)]++
	}
	got := map[string]int{}
	for _, ev := range results {
		got[rowJSON(t, *ev.Row)]++
	}
	assert.Equal(t, want, got)
}

// TestEventsOfARealBenchmarkRun runs two of the demo's benchmarks for real
// (the demo module, built, discovered, calibrated and measured in fresh
// processes) and checks the stream's shape against the document.
func TestEventsOfARealBenchmarkRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the demo module")
	}
	es := newEventStream()
	doc, err := Run(context.Background(), Config{Dir: "../demo", Packages: []string{"./..."}, Mode: ModeBench,
		Bench: "Count$|TopN", Repetitions: 2, SampleTime: 5 * time.Millisecond, Events: es.w.Emit})
	require.NoError(t, err)
	events := es.events(t)
	checkShape(t, events, doc)
	var leaves []string
	kinds := map[string]int{}
	for _, ev := range events {
		kinds[ev.Kind]++
		if ev.Kind == rundoc.EventDiscovery {
			leaves = append(leaves, ev.Identities...)
		}
	}
	assert.ElementsMatch(t, []string{"BenchmarkCount/size=1KiB", "BenchmarkCount/size=64KiB", "BenchmarkTopN"}, leaves)
	assert.Equal(t, 1, kinds[rundoc.EventBuild])
	assert.Len(t, doc.Rows, 3)
	assert.Equal(t, 3, kinds[rundoc.EventResult])
	// 2 discovery children (one per function) and 2 processes per leaf.
	assert.Equal(t, 2+3*2, kinds[rundoc.EventProcessStart])
	assert.False(t, doc.Failed())
}

// TestEventsOfARealTestRun runs the demo's tests for real: test-mode
// children announced, the tests the source declares discovered, and one
// result per row (the tests and the package's).
func TestEventsOfARealTestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the demo module")
	}
	es := newEventStream()
	doc, err := Run(context.Background(), Config{Dir: "../demo", Packages: []string{"./..."}, Mode: ModeTest, Events: es.w.Emit})
	require.NoError(t, err)
	events := es.events(t)
	checkShape(t, events, doc)
	var discovered []string
	starts := 0
	for _, ev := range events {
		switch ev.Kind {
		case rundoc.EventDiscovery:
			discovered = append(discovered, ev.Identities...)
		case rundoc.EventProcessStart:
			starts++
			assert.Equal(t, string(protocol.ModeTest), ev.Phase)
			assert.Nil(t, ev.Process, "a test child is no repetition")
		}
	}
	assert.Equal(t, []string{"TestCount", "TestTopN"}, discovered)
	assert.Equal(t, 1, starts, "the demo's tests pass in one child")
	assert.Len(t, doc.Rows, 3)
}

// TestEventsOfFailingProcesses: with scripted children, a process that
// crashes ends with its outcome and reason, a skipped one with its
// reason, and every start still has its end.
func TestEventsOfFailingProcesses(t *testing.T) {
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		if req.Mode == protocol.ModeDiscover {
			_, fn := function(t, []string{"BenchmarkA", "BenchmarkB", "BenchmarkC"}, req)
			return []protocol.Message{progress(protocol.PhaseDiscovery, 0, 1), leaves(fn),
				progress(protocol.PhaseCalibration, 0, 1), calibrated(fn, 10)}, sandbox.ClassSuccess
		}
		switch {
		case req.Identity.Name == "BenchmarkB" && req.Repetition == 1:
			return []protocol.Message{protocol.Failure{Message: "boom"}}, sandbox.ClassExit
		case req.Identity.Name == "BenchmarkC":
			return []protocol.Message{protocol.Skip{Reason: "not here"}}, sandbox.ClassSkipped
		}
		return []protocol.Message{result(req, 100)}, sandbox.ClassSuccess
	}, adjust: func(_ protocol.Request, o *sandbox.Outcome) { o.Elapsed = time.Millisecond }}
	es := newEventStream()
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Repetitions: 3, Events: es.w.Emit}, sc)
	p := fakePackage("example.com/p", []string{"BenchmarkA", "BenchmarkB", "BenchmarkC"}, nil)
	// The build and the results are Run's to emit: here, as Run would.
	s.emit(rundoc.Event{Kind: rundoc.EventBuild, Package: "example.com/p", Outcome: rundoc.OutcomeOK})
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{p}, nil)
	s.results(rows)
	events := es.events(t)
	checkShape(t, events, &rundoc.Document{Rows: rows})

	byName := map[string][]rundoc.Event{}
	for _, ev := range events {
		if ev.Kind == rundoc.EventProcessEnd && ev.Phase == string(protocol.ModeBenchmark) {
			byName[ev.Name] = append(byName[ev.Name], ev)
		}
	}
	require.Len(t, byName["BenchmarkA"], 3)
	require.Len(t, byName["BenchmarkB"], 2, "no process after the failure")
	b := byName["BenchmarkB"][1]
	assert.Equal(t, rundoc.Outcome("exit"), b.Outcome)
	require.NotNil(t, b.Error)
	assert.Contains(t, *b.Error, "boom")
	require.Len(t, byName["BenchmarkC"], 1, "a skip ends the identity")
	c := byName["BenchmarkC"][0]
	assert.Equal(t, rundoc.OutcomeSkipped, c.Outcome)
	require.NotNil(t, c.Skipped)
	assert.Equal(t, "not here", *c.Skipped)
	assert.Nil(t, c.Error)
	for _, ev := range byName["BenchmarkA"] {
		assert.Nil(t, ev.Error, fmt.Sprintf("process %d", *ev.Process))
	}
}
