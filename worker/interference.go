package worker

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// The interference watch (RequestConfig.Interference, docs/design.md#interference):
// it reads at the edges between timed samples, and the timed code is
// never interrupted for it. Each sample's window runs from
// the previous sample's end (or the start of the timed call) to its own end;
// at each edge the worker reads the host's busy time (/proc/stat, restricted
// to the placed CPUs) and its own CPU time (getrusage), and sends the raw
// differences as Sample.Watch. Foreign load is host busy minus own:
// load the benchmark makes itself, on any thread, is not foreign.
//
// Only benchmark mode's timing phase is watched: calibration, counting,
// test mode and workload windows are not. The edges are the moments
// testing's result lines are read from its output, a little after each run
// ends (the next run may have begun: a reading, one /proc/stat read and a
// getrusage, about 25 µs, can overlap the start of the next sample on the
// reading goroutine's thread, 0.05% of the shortest window judged): the
// windows tile the timed call with no gap, so load between samples is
// charged to the next one.
//
// A response never adjusts a statistic. observe keeps every sample, marked;
// retake discards the disturbed ones (sent as Result.Retaken, with their
// readings) and runs as many again, watched the same way, until none is
// disturbed or MaxRetakes is spent; pause does the same after waiting for
// the host to stay quiet for SettleNs (bounded by PauseMaxNs over the
// process) and one untimed re-warm run.

// watchPoll is the pause's time between reads of /proc/stat: ten ticks
// at USER_HZ 100, comfortably past protocol.MinForeignTicks.
const watchPoll = 100 * time.Millisecond

// edge is one reading at a sample edge.
type edge struct {
	host sources.HostCPU
	own  time.Duration
	at   time.Time
	err  error
}

// readEdge reads the host (restricted to cpus when set) and this process.
func readEdge(cpus []int) edge {
	e := edge{at: time.Now()}
	e.host, e.err = sources.ReadHostCPU()
	if e.err == nil && len(cpus) > 0 {
		e.host = e.host.Only(cpus)
	}
	if e.err == nil {
		e.own, e.err = sources.ProcessCPU()
	}
	return e
}

// window returns the raw reading between two edges; nil when either read
// failed.
func window(from, to edge) *protocol.Watch {
	if from.err != nil || to.err != nil {
		return nil
	}
	d := to.host.Sub(from.host)
	return &protocol.Watch{
		HostBusyTicks: d.Total.Busy,
		TickNs:        d.Tick,
		OwnCPUNs:      max(0, int64(to.own-from.own)),
		WallNs:        max(0, int64(to.at.Sub(from.at))),
		CPUs:          len(d.PerCPU),
	}
}

// disturbed reports whether w's foreign share is known and above limit.
func disturbed(w *protocol.Watch, limit float64) bool {
	share, ok := w.ForeignShare()
	return ok && share > limit
}

// sampleEdges collects the readings of one timed call; mark runs on the
// goroutine that reads testing's output.
type sampleEdges struct {
	read func() edge
	mu   sync.Mutex
	all  []edge
}

func (e *sampleEdges) mark() {
	r := e.read()
	e.mu.Lock()
	e.all = append(e.all, r)
	e.mu.Unlock()
}

// attach sets each sample's Watch from consecutive edges, marked against
// limit, and returns the first read error. When the edges do not match the
// samples one to one (a result line testing printed that the worker did
// not count), no sample is watched: a misplaced window would charge load
// to the wrong sample.
func (e *sampleEdges) attach(samples []protocol.Sample, limit float64) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.all {
		if x.err != nil {
			return x.err
		}
	}
	if len(e.all) != len(samples)+1 {
		return fmt.Errorf("%d sample edges read for %d samples", len(e.all), len(samples))
	}
	for i := range samples {
		w := window(e.all[i], e.all[i+1])
		w.Disturbed = disturbed(w, limit)
		samples[i].Watch = w
	}
	return nil
}

// timedRun runs count timed samples of n iterations, as benchmark's run
// does: nil samples with a nil error mean the identity ended (a skip or a
// failure was sent).
type timedRun func(n int64, count int, onResult func(string)) ([]protocol.Sample, error)

// watchedRun runs count samples through run and, when watch is set, reads
// their windows into Sample.Watch; progress is called as each of name's
// results arrives. problem, when not empty, says why the windows could not
// be read (the samples are then unwatched).
func watchedRun(run timedRun, watch *protocol.Interference, wt watcher, name string, n int64, count int, progress func()) (s []protocol.Sample, problem string, err error) {
	var e *sampleEdges
	if watch != nil {
		e = &sampleEdges{read: wt.read}
		e.mark()
	}
	s, err = run(n, count, func(leaf string) {
		if leaf != name {
			return
		}
		if e != nil {
			e.mark()
		}
		if progress != nil {
			progress()
		}
	})
	if s == nil || e == nil {
		return s, "", err
	}
	if werr := e.attach(s, watch.MaxForeign); werr != nil {
		problem = protocol.TruncateText("the watch read no window: "+werr.Error(), protocol.MaxTextLen)
	}
	return s, problem, err
}

// disturbedAt returns the indices of the samples marked disturbed.
func disturbedAt(samples []protocol.Sample) []int {
	var at []int
	for i, s := range samples {
		if s.Watch != nil && s.Watch.Disturbed {
			at = append(at, i)
		}
	}
	return at
}

// retakePlan is the decision after one timed call: how many of the
// disturbed samples to redo with the budget left, and whether the budget
// runs out with disturbed samples kept. observe redoes nothing.
func retakePlan(response string, disturbed, budget int) (redo int, exhausted bool) {
	if response == protocol.ResponseObserve || disturbed == 0 {
		return 0, false
	}
	redo = min(disturbed, budget)
	return redo, redo < disturbed
}

// removeAt returns s without the samples at the given ascending indices,
// and those samples.
func removeAt(s []protocol.Sample, at []int) (kept, removed []protocol.Sample) {
	for i, x := range s {
		if slices.Contains(at, i) {
			removed = append(removed, x)
		} else {
			kept = append(kept, x)
		}
	}
	return kept, removed
}

// watcher reads the watched CPUs at sample edges and while a pause waits
// for quiet; its functions are fields so tests can drive it with fixed
// readings.
type watcher struct {
	read  func() edge
	sleep func(time.Duration)
	poll  time.Duration
}

// watcherOn reads the watched CPUs (nil: all of them); a pause polls
// every watchPoll.
func watcherOn(cpus []int) watcher {
	return watcher{read: func() edge { return readEdge(cpus) }, sleep: time.Sleep, poll: watchPoll}
}

// wait polls until the foreign share of every poll over settle in a row is
// at or under limit, or until budget passes. It returns the time waited and
// whether the host went quiet. A poll too short to tell, or a failed read,
// breaks the quiet streak: quiet is shown, never assumed.
func (q watcher) wait(limit float64, settle, budget time.Duration) (time.Duration, bool) {
	start := q.read()
	prev, quietSince := start, time.Time{}
	for {
		q.sleep(q.poll)
		cur := q.read()
		waited := cur.at.Sub(start.at)
		share, ok := window(prev, cur).ForeignShare()
		switch {
		case !ok || share > limit:
			quietSince = time.Time{}
		case quietSince.IsZero():
			quietSince = prev.at
		}
		if !quietSince.IsZero() && cur.at.Sub(quietSince) >= settle {
			return waited, true
		}
		if waited >= budget {
			return waited, false
		}
		prev = cur
	}
}

// watchSamples applies the request's response to the timed samples: it
// returns the samples kept, those retaken, and what the watch did, or
// (nil, err) when a redo ended the identity as run's nil does.
func watchSamples(run timedRun, watch *protocol.Interference, q watcher, name string, n int64, timed []protocol.Sample) (kept, retaken []protocol.Sample, out *protocol.InterferenceOutcome, err error) {
	out = &protocol.InterferenceOutcome{}
	kept = timed
	budget := watch.MaxRetakes
	pauseLeft := time.Duration(watch.PauseMaxNs)
	for {
		at := disturbedAt(kept)
		redo, exhausted := retakePlan(watch.Response, len(at), budget)
		if redo == 0 {
			out.BudgetExhausted = exhausted
			return kept, retaken, out, nil
		}
		if watch.Response == protocol.ResponsePause {
			waited, quiet := q.wait(watch.MaxForeign, time.Duration(watch.SettleNs), pauseLeft)
			out.Pauses++
			out.PausedNs += int64(waited)
			pauseLeft -= waited
			if !quiet {
				// The pause time ran out: what is kept stays marked.
				out.BudgetExhausted = true
				return kept, retaken, out, nil
			}
			// Re-warm: a resumed process has cold caches and clocks, so
			// one untimed sample's worth runs first, its result discarded.
			if s, err := run(n, 1, nil); s == nil {
				return nil, nil, out, err
			}
		}
		var gone []protocol.Sample
		kept, gone = removeAt(kept, at[:redo])
		retaken = append(retaken, gone...)
		budget -= redo
		fresh, problem, err := watchedRun(run, watch, q, name, n, redo, nil)
		if fresh == nil {
			return nil, nil, out, err
		}
		kept = append(kept, fresh...)
		if problem != "" {
			out.Problem = problem // the redone samples are unwatched: stop here
			return kept, retaken, out, nil
		}
	}
}
