package worker

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// Defaults for zero RequestConfig fields.
const (
	DefaultMinSample = time.Duration(protocol.DefaultSampleNs)
	DefaultSamples   = protocol.DefaultSamples
)

// topLevel returns the top-level function name of a benchmark path.
func topLevel(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

// exactPattern returns a -test.bench pattern matching exactly the benchmark
// path name: each slash-separated element quoted and anchored.
func exactPattern(name string) string {
	elems := strings.Split(name, "/")
	for i, e := range elems {
		elems[i] = "^" + regexp.QuoteMeta(e) + "$"
	}
	return strings.Join(elems, "/")
}

func lookupBenchmark(name string) (testing.InternalBenchmark, bool) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, b := range registry.benchmarks {
		if b.Name == name {
			return b, true
		}
	}
	return testing.InternalBenchmark{}, false
}

// runBenchmark runs one top-level benchmark function through testing with
// the given -test.bench pattern, exactly n iterations per run and count runs
// of each matching benchmark, and returns what it printed. With count > 1
// testing reruns only the leaf, not the parent function's setup, and prints
// one result line per run as it ends; onResult, if set, sees each as it
// arrives.
//
// When the pattern selects exactly the top-level function and that function
// is a leaf (it runs no sub-benchmark), the worker's wrapper around it
// reads each run's totals exactly from the B after the run (out.exact) and
// what the call spent outside the timer (out.outside); in discovery, and
// when the request says so, it also skips testing's probe run at N=1 (for
// n > 1), so the function's setup runs once per sample rather than twice.
func (w *session) runBenchmark(b testing.InternalBenchmark, pattern string, n int64, count int, onResult func(name string)) (*benchOutput, error) {
	var fs flagState
	defer fs.restore()
	benchtime := strconv.FormatInt(n, 10) + "x"
	ramp := w.rampTo != ""
	if ramp {
		benchtime = w.rampTo
	}
	for _, kv := range [][2]string{
		{"test.bench", pattern},
		{"test.benchtime", benchtime},
		{"test.benchmem", "true"},
		// Each benchmark's name as it starts and its skip reason, with
		// testing's own lines marked (see benchOutput).
		{"test.v", "test2json"},
		{"test.count", strconv.Itoa(count)},
		{"test.skip", w.req.Config.SkipPattern}, // go test -skip, by testing's matcher
	} {
		if err := fs.set(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	out := newBenchOutput(b.Name)
	out.onResult = onResult
	leaf := pattern == exactPattern(b.Name) && w.leaves[b.Name]
	skipProbe := leaf && !ramp && (w.req.Mode == protocol.ModeDiscover || w.req.Config.SkipProbe || w.warm)
	guarded := testing.InternalBenchmark{Name: b.Name, F: w.wrapBenchmark(b.F, n, leaf, skipProbe, out)}
	if leaf && !ramp && w.studyNoCapture(guarded, out) {
		return out, w.limitsAfter(b.Name)
	}
	c, err := captureOutput(func() {
		testing.RunBenchmarks(matchString, []testing.InternalBenchmark{guarded})
	}, func(raw []byte, parsed bool, orig io.Writer) {
		out.forward = orig
		out.feed(raw, parsed)
	})
	out.settle(false)
	out.stdoutClosed = c.closed
	if lerr := w.limitsAfter(b.Name); lerr != nil && err == nil {
		err = lerr
	}
	if c.held && !w.heldStdout {
		// Once per process: the supervisor ends such processes with the
		// child and names them in the row (docs/design.md#containment).
		w.heldStdout = true
		if err := w.send(protocol.Log{Text: HeldStdoutNote}); err != nil {
			return out, err
		}
	}
	return out, err
}

// HeldStdoutNote is the Log a worker sends when a process the code under
// test started still held the child's stdout after the benchmark returned.
const HeldStdoutNote = "a process the benchmark started was still running and holding its stdout when the benchmark returned; the worker stopped reading that output"

// wrapBenchmark reports a panic of the top-level function as a Failure
// before letting it end the process as it would under go test, and, for a
// leaf, records each run's exact totals and may skip testing's probe run.
//
// The probe (run1) runs the function once at N=1 to find sub-benchmarks; a
// leaf has none, but the probe also warms what the first call initializes
// lazily (a codec cache, a pool) before the run that is timed, as under go
// test. So it is skipped only where setup is expensive (skipProbe): in
// discovery, whose runs follow each other in one process, and when
// calibration measured a setup above a quarter of a sample, and after the
// timed samples (a counting pass needs no warm-up). (At n = 1 the probe is
// the sample.)
func (w *session) wrapBenchmark(f func(*testing.B), n int64, leaf, skipProbe bool, out *benchOutput) func(*testing.B) {
	return func(b *testing.B) {
		if skipProbe && n > 1 && b.N == 1 {
			return
		}
		returned := false
		defer func() {
			if r := recover(); r != nil {
				_ = w.fail(protocol.FailurePanic, fmt.Sprint(r), string(debug.Stack()))
				panic(r)
			}
			if !returned && !b.Failed() && !b.Skipped() {
				// runtime.Goexit: testing prints 0 iterations for a leaf
				// and nothing at all for a parent, whose leaves never run.
				out.goexitTop = true
			}
		}()
		if leaf {
			// testing reports a skip as such only from its probe run; from
			// the run of n it would print a result line. The skip is
			// recorded here, with the text the benchmark logged.
			defer func() {
				if b.Skipped() {
					out.skippedRun, out.skipLog = true, loggedText(b)
				}
			}()
		}
		start := time.Now()
		f(b)
		returned = true
		if leaf && b.N == int(n) { // a run of n, not the probe before it
			b.StopTimer() // testing's own StopTimer after the function is then a no-op
			out.outside = append(out.outside, outsideTimer(time.Since(start), b.Elapsed()))
			if s, bytesPerOp, dropped, ok := exactSample(b); ok {
				out.exact = append(out.exact, s)
				out.bytesPerOp = bytesPerOp
				out.exactDropped = append(out.exactDropped, dropped...)
			}
		}
	}
}

// outsideTimer is what a call of wall spent outside testing's timer, which
// measured timed of it. testing starts its timer before it calls the
// function this wrapper measures, so a call with no setup can read less
// than timed by whatever the timer counted before the call began: on a
// loaded host the goroutine can wait milliseconds between the two (a
// fresh-clone CI run read -2.3 ms, which the listing refused as a negative
// setupNs, and the benchmark failed). None is the answer then.
func outsideTimer(wall, timed time.Duration) time.Duration {
	return max(wall-timed, 0)
}

// discover runs every registered benchmark function (after Config.After)
// once, at one iteration, under the requested -test.bench pattern, and
// lists the leaves each one produced; with Config.MinSampleNs set it then
// calibrates each benchmark leaf (workloads measure windows, not samples).
// Progress before each function tells the supervisor which one was running
// if the process dies.
func (w *session) discover() error {
	registry.mu.Lock()
	all := append([]testing.InternalBenchmark(nil), registry.benchmarks...)
	registry.mu.Unlock()
	start := 0
	if after := w.req.Config.After; after != "" {
		start = len(all)
		for i, b := range all {
			if b.Name == after {
				start = i + 1
			}
		}
	}
	pattern := w.req.Config.Bench
	if pattern == "" {
		pattern = "."
	}
	selects := newBenchMatcher(pattern)
	for i := start; i < len(all); i++ {
		if err := w.send(protocol.Progress{Phase: protocol.PhaseDiscovery, Done: int64(i), Total: int64(len(all))}); err != nil {
			return err
		}
		out, err := w.runBenchmark(all[i], pattern, 1, 1, nil)
		if err != nil {
			return err
		}
		w.order[all[i].Name] = out.leaves()
		// The leaves first, then each one's calibration: if calibrating a
		// leaf ends the process, the supervisor knows which leaf it was.
		var listed []protocol.Listed
		// A leaf the pattern selects only partly (fewer levels than the
		// pattern's) ran to reach sub-benchmarks it did not have: go test
		// reports nothing for it, so neither does benchsup.
		names := slices.DeleteFunc(out.leaves(), func(name string) bool { return !selects.fully(name) })
		for _, name := range names {
			l := protocol.Listed{Name: protocol.ShortName(name), Kind: protocol.ListedBenchmark}
			if l.Name != name && len(name) <= protocol.MaxTextLen {
				l.FullName = name
			}
			if w.isWorkload(name) {
				l.Kind = protocol.ListedWorkload
			}
			if name == all[i].Name {
				w.leaves[name] = true
			}
			listed = append(listed, l)
		}
		if err := w.sendListing(listed); err != nil {
			return err
		}
		if w.req.Config.MinSampleNs <= 0 {
			continue
		}
		for j, l := range listed {
			if l.Kind != protocol.ListedBenchmark || slices.Contains(w.req.Config.Skip, l.Name) {
				continue // a window is not calibrated; a skipped leaf was done by an earlier process
			}
			if err := w.phase(protocol.PhaseCalibration, int64(j), int64(len(listed))); err != nil {
				return err
			}
			if name := names[j]; len(name) > protocol.MaxTextLen {
				l.Problem = fmt.Sprintf("its name is %d bytes long, longer than a request carries (%d)", len(name), protocol.MaxTextLen)
			} else if err := w.calibrateLeaf(all[i], name, &l); err != nil {
				return err
			}
			if err := w.send(protocol.Listing{Identities: []protocol.Listed{l}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// sendListing sends listed in frames that stay within the protocol's
// bounds: at most perFrame entries, and at most a quarter of
// protocol.MaxFrameSize of names (a full name may reach 64 KiB).
func (w *session) sendListing(listed []protocol.Listed) error {
	const perFrame = 256 // calibration runs make entries up to ~4 KiB
	for len(listed) > 0 {
		n, size := 0, 0
		for n < len(listed) && n < perFrame {
			size += len(listed[n].Name) + len(listed[n].FullName)
			if n > 0 && size > protocol.MaxFrameSize/4 {
				break
			}
			n++
		}
		if err := w.send(protocol.Listing{Identities: listed[:n]}); err != nil {
			return err
		}
		listed = listed[n:]
	}
	return nil
}

// calibrateLeaf chooses N for the leaf name of b (see calibrate) and
// records it, with the runs it came from, in l; a leaf that fails, skips
// or reports no time while calibrating gets the reason instead, and the
// other leaves are still listed.
func (w *session) calibrateLeaf(b testing.InternalBenchmark, name string, l *protocol.Listed) error {
	var end *ending
	w.outside = w.outside[:0]
	c, err := calibrateFull(w.req.Config.MinSampleNs, func(n int64) (*protocol.Sample, error) {
		samples, e, err := w.measureRuns(b, name, n, 1, nil)
		if err != nil || e != nil {
			end = e
			return nil, err
		}
		return &samples[0], nil
	})
	l.AfterSiblings = int64(len(w.preceding[name]))
	runs := c.runs
	if len(runs) > protocol.MaxCalibrationRuns {
		runs = runs[len(runs)-protocol.MaxCalibrationRuns:]
	}
	l.Calibration = runs
	switch {
	case err != nil && errors.Is(err, errNoTime):
		l.Problem = protocol.TruncateText(name+" "+err.Error(), protocol.MaxTextLen)
	case err != nil:
		return err
	case end != nil && end.skip:
		l.Skipped = protocol.TruncateText(end.message, protocol.MaxTextLen)
	case end != nil:
		l.Problem = protocol.TruncateText(cmp.Or(end.message, name+" failed while calibrating"), protocol.MaxTextLen)
	default:
		l.Iterations = c.n
		if c.fixed != nil {
			l.SampleNs, l.FixedNs = c.sampleNs, int64(c.fixed.fixedNs)
		}
		if len(w.outside) > 0 {
			slices.Sort(w.outside)
			l.SetupNs = int64(w.outside[len(w.outside)/2])
		}
	}
	return nil
}

// sampling returns the request's sample target and sample count, or their
// defaults.
func (w *session) sampling() (time.Duration, int) {
	minSample, samples := time.Duration(w.req.Config.MinSampleNs), w.req.Config.Samples
	if minSample <= 0 {
		minSample = DefaultMinSample
	}
	if samples <= 0 {
		samples = DefaultSamples
	}
	return minSample, samples
}

// ending is how a run ended when it produced no result: a failure (class,
// message, stack) or a skip (message is the reason).
type ending struct {
	skip    bool
	class   protocol.FailureClass
	message string
}

// measureRuns runs count runs of n iterations of the benchmark leaf name of
// b and returns their samples (exact where the wrapper read them), or how
// the leaf ended instead.
//
// A leaf runs alone (its exactPattern), unless it never ran alone: its
// parent failed before reaching it, as a parent does that checks, between
// its b.Run calls, what an earlier sub-benchmark left (testing skips the
// unselected ones). Discovery ran the whole function, so such a leaf is
// then run after the leaves testing runs before it, in the same
// RunBenchmarks call at the same N and count (testing applies one
// -test.benchtime to every sub-benchmark), their results discarded; from
// then on every run of it in this process does so. Its failure stands only
// when it also fails that way. The worker says so once, in a Log, and in
// Listed.AfterSiblings and Result.AfterSiblings.
func (w *session) measureRuns(b testing.InternalBenchmark, name string, n int64, count int, onResult func(string)) ([]protocol.Sample, *ending, error) {
	before, tried := w.preceding[name]
	pattern := exactPattern(name)
	if len(before) > 0 {
		pattern = siblingsPattern(before, name)
	}
	out, err := w.runBenchmark(b, pattern, n, count, onResult)
	if err != nil {
		return nil, nil, err
	}
	if len(before) > 0 {
		w.siblingsNsPerOp = nsPerOpOf(out, before)
	}
	s, end, unreached := w.outcome(out, name, count)
	if !unreached || tried {
		return s, end, nil
	}
	order, err := w.leafOrder(b)
	if err != nil {
		return nil, nil, err
	}
	before = precedingIn(order, name)
	w.preceding[name] = before
	if len(before) == 0 {
		return nil, end, nil // nothing runs before it: the parent fails first whatever runs
	}
	if err := w.send(protocol.Log{Text: siblingsNote(len(before))}); err != nil {
		return nil, nil, err
	}
	return w.measureRuns(b, name, n, count, onResult)
}

// siblingsNote is the Log a worker sends when it runs a leaf after the
// count leaves before it (see measureRuns). It is the same in every
// process of the leaf, so that the row carries it once.
func siblingsNote(count int) string {
	return "run after " + theLeaves(count) + " testing runs before it in its function, in the same process and at its N (their results discarded): " +
		"run alone, it never ran, as its parent failed before reaching it"
}

// theLeaves names count leaves in a note: "the leaf", "the 3 leaves".
func theLeaves(count int) string {
	if count == 1 {
		return "the leaf"
	}
	return fmt.Sprintf("the %d leaves", count)
}

// leafOrder returns every leaf of b in the order testing runs them:
// discovery's, or, first asked in a benchmark process, from a run of the
// whole function at N=1 under the pattern discovery ran it with
// (RequestConfig.Bench), so that it runs after what it ran after there.
func (w *session) leafOrder(b testing.InternalBenchmark) ([]string, error) {
	if order, ok := w.order[b.Name]; ok {
		return order, nil
	}
	out, err := w.runBenchmark(b, cmp.Or(w.req.Config.Bench, exactPattern(b.Name)), 1, 1, nil)
	if err != nil {
		return nil, err
	}
	w.order[b.Name] = out.leaves()
	return w.order[b.Name], nil
}

// nsPerOpOf sums the median time per iteration of each of leaves over
// what out printed for them (a leaf without a result adds nothing).
func nsPerOpOf(out *benchOutput, leaves []string) float64 {
	sum := 0.0
	for _, leaf := range leaves {
		sum += medianNsPerOp(out.results[leaf])
	}
	return sum
}

// outcome reads what out says about count runs of the leaf name: its
// samples, or how it ended; unreached says it ended because its parent
// failed before reaching it.
func (w *session) outcome(out *benchOutput, name string, count int) (samples []protocol.Sample, end *ending, unreached bool) {
	if msg, failed := out.failed[name]; failed {
		return nil, &ending{class: protocol.FailureFatal, message: cmp.Or(msg, name+" failed")}, false
	}
	if reason, skipped := out.skipped[name]; skipped {
		return nil, &ending{skip: true, message: reason}, false
	}
	if out.skippedRun {
		// The reason is what the benchmark logged: kept by B, or printed
		// (under -test.v testing prints it as it is logged).
		return nil, &ending{skip: true, message: cmp.Or(out.skipLog, out.takePending(), "skipped")}, false
	}
	goexited := slices.Collect(maps.Keys(out.goexit))
	if out.goexitTop {
		goexited = append(goexited, out.top)
	}
	for _, goexited := range goexited {
		if goexited == name || strings.HasPrefix(name, goexited+"/") { // a parent that ended so ran no leaf
			if goexited != out.top || !out.goexitTop {
				// testing prints 0 iterations for a sub-benchmark whose
				// goroutine ended, by runtime.Goexit or by a panic still
				// unwinding (the wrapper sees only the top level's).
				awaitPanic()
			}
			return nil, &ending{class: protocol.FailureError, message: goexited + " called runtime.Goexit: the benchmark function ended " +
				"without returning normally, failing or skipping, so testing measured nothing (go test prints 0 iterations for it)"}, false
		}
	}
	s := out.results[name]
	switch {
	case len(s) == count:
		dropped := out.dropped[name]
		if len(out.exact) == count {
			s, dropped = out.exact, out.exactDropped
			w.bytesPerOp = out.bytesPerOp
		}
		w.dropExtra(dropped...)
		w.outside = append(w.outside, out.outside...)
		return s, nil, false
	case len(s) > 0:
		awaitPanic()
		return nil, &ending{class: protocol.FailureError, message: fmt.Sprintf("%s printed %d results for %d runs", name, len(s), count)}, false
	}
	for parent, msg := range out.failed {
		if strings.HasPrefix(name, parent+"/") { // the parent failed before reaching this leaf
			return nil, &ending{class: protocol.FailureFatal, message: cmp.Or(msg, parent+" failed")}, true
		}
	}
	switch {
	case out.stdoutClosed:
		return nil, &ending{class: protocol.FailureError, message: name + " closed os.Stdout, where testing prints its results, so none could be read"}, false
	case !slices.Contains(out.started, name):
		return nil, &ending{class: protocol.FailureError, message: "no benchmark matches " + name}, false
	case !slices.Contains(out.leaves(), name):
		return nil, &ending{class: protocol.FailureError, message: name + " has sub-benchmarks; measure its leaves"}, false
	}
	awaitPanic()
	return nil, &ending{class: protocol.FailureError, message: name + " printed no result"}, false
}

// endedBy reports whether testing's output shows that the identity failed
// or skipped itself, and sends that as its end.
func (w *session) endedBy(out *benchOutput, name string) (bool, error) {
	if msg, failed := out.failed[name]; failed {
		return true, w.fail(protocol.FailureFatal, cmp.Or(msg, name+" failed"), "")
	}
	if reason, skipped := out.skipped[name]; skipped {
		return true, w.send(protocol.Skip{Reason: protocol.TruncateText(reason, protocol.MaxTextLen)})
	}
	return false, nil
}

// benchName is the name of the benchmark the request names: in full when
// the identity's name is its protocol.ShortName.
func (w *session) benchName() string {
	return cmp.Or(w.req.FullName, w.req.Identity.Name)
}

// benchmark measures one leaf: Config.Samples timed samples of
// Config.Iterations iterations (calibrated here when the request does not
// pin N), all of them in one testing.RunBenchmarks call (-test.count), so
// a parent function's setup runs once for them.
func (w *session) benchmark() error {
	name := w.benchName()
	b, ok := lookupBenchmark(topLevel(name))
	if !ok {
		return w.fail(protocol.FailureError, fmt.Sprintf("no benchmark function %s in this test binary", topLevel(name)), "")
	}
	if !strings.Contains(name, "/") {
		w.leaves[name] = true
	}
	cfg := w.req.Config
	minSample, samples := w.sampling()
	result := protocol.Result{Identity: w.req.Identity, Repetition: w.req.Repetition, Seed: w.req.Seed}
	w.extraDropped = nil

	// run measures count runs of n iterations; nil samples with a nil
	// error mean the identity ended (a skip or a failure was sent).
	run := func(n int64, count int, onResult func(string)) ([]protocol.Sample, error) {
		s, end, err := w.measureRuns(b, name, n, count, onResult)
		switch {
		case err != nil:
			return nil, err
		case w.owned != nil: // measure.Iter or measure.Case: the worker ran the loop
			return nil, w.finishOwned()
		case end != nil && end.skip:
			return nil, w.send(protocol.Skip{Reason: protocol.TruncateText(end.message, protocol.MaxTextLen)})
		case end != nil:
			return nil, w.fail(end.class, end.message, "")
		}
		return s, nil
	}

	n := cfg.Iterations
	if n <= 0 {
		if err := w.phase(protocol.PhaseCalibration, 0, 0); err != nil {
			return err
		}
		var err error
		ended := false
		n, _, err = calibrate(int64(minSample), func(n int64) (*protocol.Sample, error) {
			s, err := run(n, 1, nil)
			if s == nil {
				ended = true
				return nil, err
			}
			return &s[0], nil
		})
		if ended || err != nil {
			if errors.Is(err, errNoTime) {
				return w.fail(protocol.FailureError, name+" "+err.Error(), "")
			}
			return err
		}
	}
	if err := w.phase(protocol.PhaseTiming, 0, int64(samples)); err != nil {
		return err
	}
	if err := w.studyRamp(b, name, minSample); err != nil {
		return err
	}
	done := int64(0)
	watch := cfg.Interference
	var wt watcher
	if watch != nil {
		wt = watcherOn(watch.CPUs)
	}
	timed, problem, err := watchedRun(run, watch, wt, name, n, samples, func() {
		done++
		_ = w.send(protocol.Progress{Phase: protocol.PhaseTiming, Done: done, Total: int64(samples)})
	})
	if timed == nil {
		return err
	}
	if watch != nil {
		// Read at the edges between samples (worker/interference.go).
		result.Interference = &protocol.InterferenceOutcome{Problem: problem}
		if problem == "" {
			if timed, result.Retaken, result.Interference, err = watchSamples(run, watch, wt, name, n, timed); timed == nil {
				return err
			}
		}
	}
	result.Samples, result.BytesPerOp = timed, w.bytesPerOp
	result.AfterSiblings = int64(len(w.preceding[name]))
	w.warm = true // what follows (counting) needs no probe run to warm up
	if err := w.countPasses(b, n, &result); err != nil {
		return err
	}
	w.fitFrame(&result)
	return w.send(result)
}

// panicGrace is how long the worker waits before it reports a run that
// ended without a result, a failure or a skip.
const panicGrace = time.Second

// awaitPanic gives a panic the time to end the process. A sub-benchmark
// runs on a goroutine of testing's that the worker cannot guard: when it
// panics, testing's deferred signal lets RunBenchmarks return while the
// panic is still unwinding, and a failure reported now would name the
// missing result instead of the panic that the exit status and stderr are
// about to show.
//
// A variable so that tests can see where the worker waits.
var awaitPanic = func() { time.Sleep(panicGrace) }
