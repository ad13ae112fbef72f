package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// fakeHost is a 2-CPU host at USER_HZ 100 whose foreign load is scripted:
// each sample and each pause poll takes the next foreign share from load
// (0 once it runs out).
type fakeHost struct {
	t          time.Duration
	busy, own  int64 // busy in ticks, own in ns
	load       []float64
	samplesRun int
}

const fakeSample = 100 * time.Millisecond

func (h *fakeHost) next() float64 {
	if len(h.load) == 0 {
		return 0
	}
	f := h.load[0]
	h.load = h.load[1:]
	return f
}

// advance passes d, with the process busy on one CPU when running.
func (h *fakeHost) advance(d time.Duration, running bool) {
	foreign := h.next() * 2 * float64(d) // ns of the 2 CPUs' capacity
	ownNs := int64(0)
	if running {
		ownNs = int64(d)
	}
	h.t += d
	h.own += ownNs
	h.busy += (ownNs + int64(foreign)) / sources.DefaultTick
}

func (h *fakeHost) read() edge {
	per := []sources.CPUTimes{{CPU: 0, Busy: h.busy / 2}, {CPU: 1, Busy: h.busy - h.busy/2}}
	return edge{host: sources.HostCPU{Total: sources.CPUTimes{CPU: -1, Busy: h.busy}, PerCPU: per, Tick: sources.DefaultTick},
		own: time.Duration(h.own), at: time.Unix(0, 0).Add(h.t)}
}

func (h *fakeHost) watcher() watcher {
	return watcher{read: h.read, sleep: func(d time.Duration) { h.advance(d, false) }, poll: watchPoll}
}

// run is a timedRun: each sample takes fakeSample and the next load.
func (h *fakeHost) run(n int64, count int, onResult func(string)) ([]protocol.Sample, error) {
	var s []protocol.Sample
	for range count {
		h.advance(fakeSample, true)
		h.samplesRun++
		s = append(s, protocol.Sample{Iterations: n, ElapsedNs: int64(fakeSample) + int64(h.samplesRun)})
		if onResult != nil {
			onResult("BenchmarkX")
		}
	}
	return s, nil
}

func TestRetakePlan(t *testing.T) {
	tests := []struct {
		response          string
		disturbed, budget int
		redo              int
		exhausted         bool
	}{
		{protocol.ResponseObserve, 3, 25, 0, false},
		{protocol.ResponseRetake, 0, 25, 0, false},
		{protocol.ResponseRetake, 3, 25, 3, false},
		{protocol.ResponseRetake, 3, 2, 2, true},
		{protocol.ResponsePause, 1, 0, 0, true},
	}
	for _, tt := range tests {
		redo, exhausted := retakePlan(tt.response, tt.disturbed, tt.budget)
		assert.Equal(t, tt.redo, redo, "%+v", tt)
		assert.Equal(t, tt.exhausted, exhausted, "%+v", tt)
	}
}

func TestForeignShareOfWatch(t *testing.T) {
	tests := []struct {
		name  string
		w     *protocol.Watch
		share float64
		ok    bool
	}{
		{"nil", nil, 0, false},
		{"idle host", &protocol.Watch{HostBusyTicks: 10, TickNs: 1e7, OwnCPUNs: 1e8, WallNs: 1e8, CPUs: 2}, 0, true},
		{"one foreign CPU", &protocol.Watch{HostBusyTicks: 20, TickNs: 1e7, OwnCPUNs: 1e8, WallNs: 1e8, CPUs: 2}, 0.5, true},
		{"too short", &protocol.Watch{HostBusyTicks: 4, TickNs: 1e7, OwnCPUNs: 0, WallNs: 4e7, CPUs: 2}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			share, ok := tt.w.ForeignShare()
			assert.Equal(t, tt.ok, ok)
			assert.InDelta(t, tt.share, share, 1e-9)
			assert.Equal(t, ok && share > 0.1, disturbed(tt.w, 0.1))
		})
	}
}

func TestWatchSamples(t *testing.T) {
	policy := func(response string, budget int) *protocol.Interference {
		return &protocol.Interference{Response: response, MaxForeign: 0.1, MaxRetakes: budget, SettleNs: int64(250 * time.Millisecond), PauseMaxNs: int64(5 * time.Second)}
	}
	tests := []struct {
		name           string
		watch          *protocol.Interference
		load           []float64 // per sample, then per pause poll
		wantRetaken    int
		wantPauses     int
		wantExhausted  bool
		wantDisturbed  int // kept samples still marked
		wantSamplesRun int
	}{
		{"quiet host", policy(protocol.ResponseRetake, 25), nil, 0, 0, false, 0, 5},
		{"observe keeps marked", policy(protocol.ResponseObserve, 25), []float64{0, 0.6, 0, 0.6, 0}, 0, 0, false, 2, 5},
		{"retake redoes", policy(protocol.ResponseRetake, 25), []float64{0, 0.6, 0, 0.6, 0}, 2, 0, false, 0, 7},
		{"retake redoes a disturbed redo", policy(protocol.ResponseRetake, 25), []float64{0.6, 0, 0, 0, 0, 0.6}, 2, 0, false, 0, 7},
		{"retake budget runs out", policy(protocol.ResponseRetake, 1), []float64{0.6, 0.6, 0, 0, 0}, 1, 0, true, 1, 6},
		{"below the limit is quiet", policy(protocol.ResponseRetake, 25), []float64{0.05, 0.05, 0.05, 0.05, 0.05}, 0, 0, false, 0, 5},
		// The load list after the 5 samples feeds the pause's polls: two
		// loud polls, then quiet; the re-warm and the redo follow.
		{"pause waits then redoes", policy(protocol.ResponsePause, 25), []float64{0, 0, 0.9, 0, 0, 0.9, 0.9}, 1, 1, false, 0, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &fakeHost{load: tt.load}
			wt := h.watcher()
			timed, problem, err := watchedRun(h.run, tt.watch, wt, "BenchmarkX", 10, 5, nil)
			require.NoError(t, err)
			require.Empty(t, problem)
			for _, s := range timed {
				require.NotNil(t, s.Watch, "every sample of a watched call has its window")
			}
			kept, retaken, out, err := watchSamples(h.run, tt.watch, wt, "BenchmarkX", 10, timed)
			require.NoError(t, err)
			require.NotNil(t, out)
			assert.Len(t, kept, 5, "the kept samples are as many as requested")
			assert.Len(t, retaken, tt.wantRetaken)
			for _, s := range retaken {
				require.NotNil(t, s.Watch)
				assert.True(t, s.Watch.Disturbed, "only disturbed samples are retaken")
			}
			assert.Len(t, disturbedAt(kept), tt.wantDisturbed)
			assert.Equal(t, tt.wantPauses, out.Pauses)
			assert.Equal(t, tt.wantExhausted, out.BudgetExhausted)
			assert.Equal(t, tt.wantSamplesRun, h.samplesRun, "samples run, re-warm included")
			if tt.wantPauses > 0 {
				assert.GreaterOrEqual(t, out.PausedNs, int64(250*time.Millisecond), "a pause lasts at least the settle time")
			}
		})
	}
}

func TestPauseGivesUp(t *testing.T) {
	// The one sample and every poll after it are loud.
	h := &fakeHost{load: make([]float64, 100)}
	for i := range h.load {
		h.load[i] = 0.9
	}
	watch := &protocol.Interference{Response: protocol.ResponsePause, MaxForeign: 0.1, MaxRetakes: 25, SettleNs: int64(250 * time.Millisecond), PauseMaxNs: int64(time.Second)}
	timed, _, err := watchedRun(h.run, watch, h.watcher(), "BenchmarkX", 10, 1, nil)
	require.NoError(t, err)
	kept, retaken, out, err := watchSamples(h.run, watch, h.watcher(), "BenchmarkX", 10, timed)
	require.NoError(t, err)
	assert.Len(t, kept, 1)
	assert.Empty(t, retaken, "nothing is retaken when the host never went quiet")
	assert.Equal(t, 1, out.Pauses)
	assert.True(t, out.BudgetExhausted)
	assert.GreaterOrEqual(t, out.PausedNs, int64(time.Second))
	assert.Less(t, out.PausedNs, int64(2*time.Second), "the wait is bounded by the pause budget")
}

func TestAttachMismatch(t *testing.T) {
	h := &fakeHost{}
	e := &sampleEdges{read: h.read}
	e.mark()
	e.mark()
	samples := make([]protocol.Sample, 2)
	require.Error(t, e.attach(samples, 0.1))
	assert.Nil(t, samples[0].Watch, "a misplaced window is not attached")
}

// TestReadEdgeReal reads this host twice around some work of its own: the
// window is watched and, whatever other load the host has, the process's
// own CPU time is in it and never counted as foreign beyond the host's busy
// time.
func TestReadEdgeReal(t *testing.T) {
	if _, err := sources.ReadHostCPU(); err != nil {
		t.Skipf("no host CPU time here: %v", err)
	}
	if _, err := sources.ProcessCPU(); err != nil {
		t.Skipf("no process CPU time here: %v", err)
	}
	from := readEdge(nil)
	spinCPU(60*time.Millisecond, 120*time.Millisecond)
	to := readEdge(nil)
	w := window(from, to)
	require.NotNil(t, w)
	assert.Positive(t, w.CPUs)
	assert.GreaterOrEqual(t, w.WallNs, int64(120*time.Millisecond))
	assert.Greater(t, w.OwnCPUNs, int64(50*time.Millisecond), "the busy loop is the process's own time")
	share, ok := w.ForeignShare()
	require.True(t, ok, "120ms is long enough to tell")
	assert.True(t, share >= 0 && share <= 1)

	bad := edge{err: assert.AnError}
	assert.Nil(t, window(bad, to), "a failed read gives no window, never a zero one")
}
