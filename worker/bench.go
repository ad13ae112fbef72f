package worker

import (
	"cmp"
	"fmt"
	"regexp"
	"runtime"
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
	DefaultMinSample = 5 * time.Millisecond
	DefaultSamples   = 32
	// maxIterations is testing's own cap on b.N.
	maxIterations = 1e9
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
func (w *session) runBenchmark(b testing.InternalBenchmark, pattern string, n int64, count int, onResult func(name string)) (*benchOutput, error) {
	var fs flagState
	defer fs.restore()
	for _, kv := range [][2]string{
		{"test.bench", pattern},
		{"test.benchtime", strconv.FormatInt(n, 10) + "x"},
		{"test.benchmem", "true"},
		{"test.v", "true"}, // prints each benchmark's name as it starts, and skip reasons
		{"test.count", strconv.Itoa(count)},
	} {
		if err := fs.set(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	out := newBenchOutput(b.Name, runtime.GOMAXPROCS(0))
	out.onResult = onResult
	guarded := testing.InternalBenchmark{Name: b.Name, F: w.guardBenchmark(b.F)}
	err := captureStdout(func() {
		testing.RunBenchmarks(matchString, []testing.InternalBenchmark{guarded})
	}, out.line)
	return out, err
}

// guardBenchmark reports a panic of the top-level function as a Failure
// before letting it end the process as it would under go test.
func (w *session) guardBenchmark(f func(*testing.B)) func(*testing.B) {
	return func(b *testing.B) {
		defer func() {
			if r := recover(); r != nil {
				_ = w.fail(protocol.FailurePanic, fmt.Sprint(r), string(debug.Stack()))
				panic(r)
			}
		}()
		f(b)
	}
}

// discover runs every registered benchmark function (after Config.After)
// once, at one iteration, under the requested -test.bench pattern, and
// lists the leaves each one produced. Progress before each function tells
// the supervisor which one was running if the process dies.
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
	for i := start; i < len(all); i++ {
		if err := w.send(protocol.Progress{Phase: protocol.PhaseDiscovery, Done: int64(i), Total: int64(len(all))}); err != nil {
			return err
		}
		out, err := w.runBenchmark(all[i], pattern, 1, 1, nil)
		if err != nil {
			return err
		}
		leaves := out.leaves()
		for len(leaves) > 0 {
			n := min(len(leaves), protocol.MaxIdentitiesPerFrame)
			l := protocol.Listing{Identities: make([]protocol.Listed, n)}
			for j, name := range leaves[:n] {
				kind := protocol.ListedBenchmark
				if w.isWorkload(name) {
					kind = protocol.ListedWorkload
				}
				l.Identities[j] = protocol.Listed{Name: protocol.TruncateText(name, protocol.MaxNameLen), Kind: kind}
			}
			if err := w.send(l); err != nil {
				return err
			}
			leaves = leaves[n:]
		}
	}
	return nil
}

// sampling returns the request's minimum sample time and sample count, or
// their defaults.
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

// benchmark measures one leaf: calibration, then the timed samples, all of
// them in one testing.RunBenchmarks call (-test.count), so the parent
// function's setup runs once for them rather than once per sample.
func (w *session) benchmark() error {
	name := w.req.Identity.Name
	b, ok := lookupBenchmark(topLevel(name))
	if !ok {
		return w.fail(protocol.FailureError, fmt.Sprintf("no benchmark function %s in this test binary", topLevel(name)), "")
	}
	cfg := w.req.Config
	minSample, samples := w.sampling()
	pattern := exactPattern(name)

	// run measures count runs of n iterations; nil samples with a nil
	// error mean the identity ended (a skip or a failure was sent).
	run := func(n int64, count int, onResult func(string)) ([]protocol.Sample, error) {
		out, err := w.runBenchmark(b, pattern, n, count, onResult)
		if err != nil {
			return nil, err
		}
		if w.owned != nil { // measure.Iter or measure.Case: the worker ran the loop
			return nil, w.finishOwned()
		}
		if ended, err := w.endedBy(out, name); ended {
			return nil, err
		}
		if s := out.results[name]; len(s) == count {
			return s, nil
		} else if len(s) > 0 {
			awaitPanic()
			return nil, w.fail(protocol.FailureError, fmt.Sprintf("%s printed %d results for %d runs", name, len(s), count), "")
		}
		for parent, msg := range out.failed {
			if strings.HasPrefix(name, parent+"/") { // the parent failed before reaching this leaf
				return nil, w.fail(protocol.FailureFatal, cmp.Or(msg, parent+" failed"), "")
			}
		}
		switch {
		case !slices.Contains(out.started, name):
			return nil, w.fail(protocol.FailureError, "no benchmark matches "+name, "")
		case !slices.Contains(out.leaves(), name):
			return nil, w.fail(protocol.FailureError, name+" has sub-benchmarks; measure its leaves", "")
		}
		awaitPanic()
		return nil, w.fail(protocol.FailureError, name+" printed no result", "")
	}

	n := cfg.Iterations
	if n <= 0 {
		if err := w.phase(protocol.PhaseCalibration, 0, 0); err != nil {
			return err
		}
		for n = 1; ; n *= 2 {
			s, err := run(n, 1, nil)
			if s == nil {
				return err
			}
			if time.Duration(s[0].ElapsedNs) >= minSample || n*2 > maxIterations {
				break
			}
		}
	}
	if err := w.phase(protocol.PhaseTiming, 0, int64(samples)); err != nil {
		return err
	}
	done := int64(0)
	timed, err := run(n, samples, func(leaf string) {
		if leaf == name {
			done++
			_ = w.send(protocol.Progress{Phase: protocol.PhaseTiming, Done: done, Total: int64(samples)})
		}
	})
	if timed == nil {
		return err
	}
	result := protocol.Result{Identity: w.req.Identity, Repetition: w.req.Repetition, Seed: w.req.Seed, Samples: timed}
	if err := w.countPasses(b, pattern, n, &result); err != nil {
		return err
	}
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
func awaitPanic() { time.Sleep(panicGrace) }

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
