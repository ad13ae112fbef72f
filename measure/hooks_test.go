package measure

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/hooks"
)

// recordingRunner is a hooks.Runner and hooks.LoopRunner that measures
// every workload and records what measure hands it.
type recordingRunner struct {
	loopRecorder
	reps    int
	session *recordingSession
	metrics []string
}

type recordingSession struct {
	events []string
}

func (s *recordingSession) Rep(int) {}
func (s *recordingSession) Window(name string, f func()) {
	s.events = append(s.events, "window "+name)
	f()
}
func (s *recordingSession) Files(regime string, paths []string) {
	s.events = append(s.events, "files "+regime+" "+paths[0])
}
func (s *recordingSession) End() { s.events = append(s.events, "end") }

func (r *recordingRunner) StartWorkload(tb testing.TB, reps int) (hooks.WorkloadSession, bool) {
	r.reps = reps
	r.session = &recordingSession{}
	return r.session, true
}

func (r *recordingRunner) Metric(b *testing.B, unit string, amount float64, rate bool) bool {
	if rate {
		unit += " (rate)"
	}
	r.metrics = append(r.metrics, unit)
	return true
}

func TestHooksSeeTheAuthorsValues(t *testing.T) {
	shortBenchtime(t)
	r := &recordingRunner{}
	hooks.Install(r)
	defer hooks.Install(nil)

	Workload(t, func(w *W) {
		w.Files(Cold, "/a")
		w.Window("load", func() {})
		w.Files(Warm, "/b")
		w.Files(Steady, "/c")
	}, Reps(0))
	assert.Equal(t, 1, r.reps, "Reps below 1 is 1")
	require.NotNil(t, r.session)
	assert.Equal(t, []string{"files cold /a", "window load", "files warm /b", "files steady /c", "end"}, r.session.events)

	testing.Benchmark(func(b *testing.B) {
		ReportMetric(b, "widgets", 1, Level)
		ReportMetric(b, "items", 1, Rate)
	})
	require.GreaterOrEqual(t, len(r.metrics), 2)
	assert.Equal(t, []string{"widgets", "items (rate)"}, r.metrics[:2], "one run of the benchmark function")
}

// workloadOnly is a Runner that owns no loops.
type workloadOnly struct{}

func (workloadOnly) StartWorkload(testing.TB, int) (hooks.WorkloadSession, bool) { return nil, true }

func TestLoopsWithoutALoopRunner(t *testing.T) {
	shortBenchtime(t)
	hooks.Install(workloadOnly{})
	defer hooks.Install(nil)
	calls := 0
	res := testing.Benchmark(func(b *testing.B) {
		Iter(b, func() { calls++ })
		ReportMetric(b, "widgets", 3, Level)
	})
	assert.GreaterOrEqual(t, calls, res.N, "a runner that owns no loops leaves them to testing")
	assert.Equal(t, 3.0, res.Extra["widgets"])
}
