package worker

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/benchsup/benchsup/internal/hooks"
	"github.com/benchsup/benchsup/protocol"
)

// modulePath is benchsup's module path, used to find the worker's own
// version in the build information.
const modulePath = "github.com/benchsup/benchsup"

var registry struct {
	mu         sync.Mutex
	benchmarks []testing.InternalBenchmark
	// tests are the Test functions, then the examples (examples.go), in
	// the order go test runs them.
	tests    []testing.InternalTest
	examples int // how many of tests, at the end, are examples
	// fuzz are the fuzz targets (fuzz.go), whose seed corpora run after
	// the Test functions and before the examples, as under go test.
	fuzz []testing.InternalFuzzTarget
	// fuzzMain runs fuzz targets (RegisterFuzzMain); generated only for
	// a package with fuzz targets.
	fuzzMain func([]testing.InternalFuzzTarget)
}

// RegisterBenchmark adds a top-level benchmark function, in source order.
// Generated code calls it from init.
func RegisterBenchmark(name string, f func(*testing.B)) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.benchmarks = append(registry.benchmarks, testing.InternalBenchmark{Name: name, F: f})
}

// RegisterTest adds a top-level test function, in source order. Generated
// code calls it from init.
func RegisterTest(name string, f func(*testing.T)) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	// An external test package's tests register after the internal
	// package's examples, and run before them.
	registry.tests = slices.Insert(registry.tests, len(registry.tests)-registry.examples, testing.InternalTest{Name: name, F: f})
}

// served is this process's exchange, kept after Serve returns: a TestMain
// may call m.Run again, which runs TestBenchsupWorker again, and the
// Request is then served again on the same endpoint (serveAgain). The
// endpoint stays open until the process exits.
var served struct {
	mu     sync.Mutex
	conn   *protocol.Conn
	req    protocol.Request
	served bool // the Request was received
	series int  // how many times Serve ran
}

// Serve answers the one Request of this process. It is the body of the
// generated TestBenchsupWorker. Outside a benchsup child it skips the test.
func Serve(t *testing.T) {
	served.mu.Lock()
	defer served.mu.Unlock()
	served.series++
	if served.series > 1 {
		if err := serveAgain(served.conn, served.req, served.served, served.series); err != nil {
			fmt.Fprintf(os.Stderr, "benchsup worker: %v\n", err)
			t.Fail()
		}
		return
	}
	ep, err := protocol.ChildEndpoint()
	if errors.Is(err, protocol.ErrNoEndpoint) {
		t.Skip("benchsup worker: not started by benchsup")
	}
	if err != nil {
		t.Fatalf("benchsup worker: %v", err)
	}
	served.conn = protocol.NewConn(ep)
	w := &session{conn: served.conn}
	err = w.serve()
	served.req, served.served = w.req, w.received
	if err != nil {
		// The supervisor sees the nonzero exit and this line on stderr.
		fmt.Fprintf(os.Stderr, "benchsup worker: %v\n", err)
		t.Fail()
	}
}

// AgainNote is what the worker logs when the package's TestMain calls
// m.Run again in a benchmark child: the measurement is the first run's.
const AgainNote = "the package's TestMain called m.Run again after this process's benchmark run; benchsup measured the first run only and ran nothing the second time"

// serveAgain serves the Request once more, for a TestMain that called
// m.Run again (as go test does, every test runs again; a failure in either
// run fails it): a Hello with Again says so, then Ready, and in test mode
// the tests run again with their events, then Done. In the other modes
// nothing runs again: the measurement is the first run's, and a benchmark
// process says so in a Log. A process whose first Serve never received its
// Request has nothing to serve; nor does one outside benchsup. series is
// the how-manieth Serve this is.
func serveAgain(conn *protocol.Conn, req protocol.Request, received bool, series int) error {
	if conn == nil || !received {
		return nil
	}
	w := &session{conn: conn, req: req}
	w.leaves = map[string]bool{}
	w.order, w.preceding = map[string][]string{}, map[string][]string{}
	hooks.Install(w)
	defer hooks.Install(nil)
	if err := w.send(w.hello(series)); err != nil {
		return err
	}
	if err := w.send(protocol.Ready{Identity: w.req.Identity}); err != nil {
		return err
	}
	var err error
	switch w.req.Mode {
	case protocol.ModeTest:
		err = w.runTests()
	case protocol.ModeBenchmark, protocol.ModeWorkload:
		err = w.send(protocol.Log{Text: AgainNote})
	}
	if err != nil && !errors.Is(err, errEnded) {
		return err
	}
	return w.send(protocol.Done{})
}

// hello is this process's Hello; again is Hello.Again (0 for the first).
func (w *session) hello(again int) protocol.Hello {
	if again < 2 {
		again = 0
	}
	return protocol.Hello{
		ProtocolVersion: protocol.Version,
		WorkerVersion:   protocol.TruncateText(Version(), protocol.MaxNameLen),
		PID:             os.Getpid(),
		GoVersion:       runtime.Version(),
		GOOS:            runtime.GOOS,
		GOARCH:          runtime.GOARCH,
		GOMAXPROCS:      runtime.GOMAXPROCS(0),
		Again:           again,
	}
}

// Version returns the worker's version: the benchsup module version the
// build recorded (buildinfo.go), or what the supervisor stamped into a copy
// injected into a user's module, where the build information knows nothing
// of benchsup. The injected copy leaves buildinfo.go out for a generated
// file: reading the build information would make runtime/debug's code live
// in the user's test binary and move the runtime's code that follows it
// (docs/design.md#injection).
func Version() string { return linkedVersion() }

// session is the measure API's runner in this process (hooks.Install): it
// owns the loops of measure.Iter and measure.Case and the windows of
// measure.Workload. measure finds the loop runner by a type assertion, so
// these keep a signature change from silently handing the loops back to
// testing.
var (
	_ hooks.Runner          = (*session)(nil)
	_ hooks.LoopRunner      = (*session)(nil)
	_ hooks.WorkloadSession = (*workloadSession)(nil)
)

type session struct {
	conn *protocol.Conn
	req  protocol.Request

	mu       sync.Mutex
	ended    bool // a Skip or Failure was sent: only Log and Done may follow
	received bool // the Request was received

	workloads map[string]bool // discovery: identities that called measure.Workload
	leaves    map[string]bool // top-level functions known to run no sub-benchmark
	// bytesPerOp is the b.SetBytes value the last exact run read, and
	// outside what exact runs spent outside their timer (setup).
	bytesPerOp int64
	outside    []time.Duration
	warm       bool // the timed samples ran: later runs skip testing's probe
	measuring  *workloadSession
	owned      *owned          // a loop the worker ran itself (measure.Iter, measure.Case)
	heldStdout bool            // the Log saying a process the code started held stdout was sent
	limits     *limitWatch     // the resource limits the work started with (rlimit.go)
	limitsSent map[string]bool // the changes of limits sent, by text
	rampTo     string          // -test.benchtime of the study's ramp run (study.go); "" otherwise
	// extraDropped holds the custom metrics (b.ReportMetric units) the
	// identity's samples left out, beyond protocol.MaxExtraPerSample.
	extraDropped map[string]bool

	// order holds, by top-level function, every leaf testing started in a
	// run of the whole function, in its order: from discovery's listing
	// run, or from a run at N=1 when a leaf first needed it. preceding
	// holds, by leaf, the leaves it runs after because it never ran alone
	// (see measureRuns), empty when there are none to run it after; and
	// siblingsNsPerOp is those leaves' time per iteration, summed, in the
	// last run of a leaf after them.
	order           map[string][]string
	preceding       map[string][]string
	siblingsNsPerOp float64
}

// errEnded is returned by send for work reported after the identity ended,
// as when the main goroutine resumes after a benchmark's goroutine reported
// its panic.
var errEnded = errors.New("the identity already ended")

// send writes m unless the identity already ended: the worker keeps the
// protocol's one-terminal-message rule itself, whichever goroutine sends.
func (w *session) send(m protocol.Message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m.Kind() {
	case protocol.KindLog, protocol.KindDone, protocol.KindHello, protocol.KindReady:
	default:
		if w.ended {
			return errEnded
		}
	}
	if k := m.Kind(); k == protocol.KindSkip || k == protocol.KindFailure {
		w.ended = true
	}
	return w.conn.Send(m)
}

func (w *session) serve() error {
	w.leaves = map[string]bool{}
	w.order, w.preceding = map[string][]string{}, map[string][]string{}
	hooks.Install(w)
	defer hooks.Install(nil)
	if err := w.send(w.hello(0)); err != nil {
		return err
	}
	m, err := w.conn.Receive()
	if err != nil {
		return fmt.Errorf("reading request: %w", err)
	}
	req, ok := m.(protocol.Request)
	if !ok {
		return fmt.Errorf("expected a request, got %s", m.Kind())
	}
	w.req, w.received = req, true
	w.limits = processLimits()
	if err := w.send(protocol.Ready{Identity: req.Identity}); err != nil {
		return err
	}
	switch req.Mode {
	case protocol.ModeDiscover:
		err = w.discover()
	case protocol.ModeBenchmark:
		err = w.benchmark()
	case protocol.ModeWorkload:
		err = w.workload()
	case protocol.ModeTest:
		err = w.runTests()
	default:
		err = w.send(protocol.Failure{Class: protocol.FailureError,
			Message: fmt.Sprintf("this worker cannot serve %s requests", req.Mode)})
	}
	if err != nil && !errors.Is(err, errEnded) {
		return err
	}
	return w.send(protocol.Done{})
}

// testHookPhase, when set, is called synchronously as the worker enters a
// phase, so tests can order in-process events against the phases.
var testHookPhase func(protocol.Phase)

// phase announces a phase (and its progress) to the supervisor.
func (w *session) phase(p protocol.Phase, done, total int64) error {
	if testHookPhase != nil {
		testHookPhase(p)
	}
	return w.send(protocol.Progress{Phase: p, Done: done, Total: total})
}

// fail sends a worker-side error as the identity's failure.
func (w *session) fail(class protocol.FailureClass, msg, stack string) error {
	return w.send(protocol.Failure{
		Class:   class,
		Message: protocol.TruncateText(msg, protocol.MaxTextLen),
		Stack:   protocol.TruncateText(stack, protocol.MaxTextLen),
	})
}

// flagState sets testing's flags for one call and restores them after: a
// flag left set persists, and the testing main would act on it after Serve
// returns (a leftover -test.bench reruns every benchmark). It sets a flag
// through its Value, not flag.Set, whose path for an unknown name calls
// runtime.Caller: code go test's binary does not reach, and which would
// move the runtime's code after it (docs/design.md#injection).
type flagState struct {
	saved map[string]string
	flags map[string]*flag.Flag
}

func (fs *flagState) set(name, value string) error {
	f := flag.Lookup(name)
	if f == nil {
		return fmt.Errorf("flag -%s is not registered (is this a test binary?)", name)
	}
	if fs.saved == nil {
		fs.saved = map[string]string{}
	}
	if _, ok := fs.saved[name]; !ok {
		fs.saved[name] = f.Value.String()
		if fs.flags == nil {
			fs.flags = map[string]*flag.Flag{}
		}
		fs.flags[name] = f
	}
	return f.Value.Set(value)
}

func (fs *flagState) restore() {
	for name, v := range fs.saved {
		_ = fs.flags[name].Value.Set(v) // restoring a value the flag itself printed cannot fail
	}
	fs.saved, fs.flags = nil, nil
}

var matchCache sync.Map // pattern -> *regexp.Regexp

// matchString is the matcher `go test`'s generated main passes to testing.
func matchString(pat, str string) (bool, error) {
	if re, ok := matchCache.Load(pat); ok {
		return re.(*regexp.Regexp).MatchString(str), nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return false, err
	}
	matchCache.Store(pat, re)
	return re.MatchString(str), nil
}
