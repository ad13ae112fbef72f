package protocol

import (
	"fmt"
	"hash/fnv"
	"unicode/utf8"
)

// Version is the protocol version this package speaks. A peer speaking any
// other version is refused at the handshake with a *VersionError.
//
// Version 5 adds the interference watch: RequestConfig.Interference,
// Sample.Watch, Result.Retaken and Result.Interference. It is a new version,
// not fields added within one, because a worker that ignored the request's
// watch would run unwatched while the run claims to watch.
// Version 4 adds TestPause and TestCont, and, for names longer than
// MaxNameLen, Listed.FullName and Request.FullName (ShortName); it also
// adds Metric.Unmeasured. Fields added within a version are omitted when
// empty, and a decoder skips keys it does not know.
// Version 2 added the Window message (workloads). Version 3 has discovery
// calibrate each listed leaf (Listed.Iterations, Calibration, Problem,
// Skipped) so that every process of an identity measures the same N, and
// adds Sample.Exact, MetricCell.Uncertainty and Note, and
// RequestConfig.WindowMetrics.
const Version = 5

// EnvFD names the environment variable through which a child learns the
// descriptor number of its protocol endpoint.
const EnvFD = "BENCHSUP_PROTOCOL_FD"

// EnvRecordFD names the environment variable that carries the descriptor
// of a program's span region (package record, which declares the same
// name for the programs that import it: record imports nothing of
// benchsup's). The sandbox sets it as it sets EnvFD.
const EnvRecordFD = "BENCHSUP_RECORD_FD"

// EnvCgroup names the environment variable that, when the sandbox started a
// child in a cgroup of its own, holds that cgroup's name (the last element
// of its path). A child that finds its own cgroup so named may attribute
// that cgroup's pressure to itself.
const EnvCgroup = "BENCHSUP_CGROUP"

// Published bounds. A frame or field beyond one of them is malformed; a
// supervisor refuses a Request that would not fit before it spawns a child.
const (
	// MaxFrameSize bounds one frame's payload (kind byte plus msgpack body).
	MaxFrameSize = 4 << 20
	// MaxNameLen bounds identities, package paths, units, phases and other
	// short strings.
	MaxNameLen = 4096
	// MaxTextLen bounds free text: failure messages, stacks, log lines, skip
	// reasons, test output chunks. Longer text belongs on stderr, which the
	// sandbox captures separately.
	MaxTextLen = 64 << 10
	// MaxSamplesPerFrame bounds the samples of one Result.
	MaxSamplesPerFrame = 16384
	// MaxExtraPerSample bounds the custom metrics (b.ReportMetric units) of
	// one sample: enough for a benchmark that reports a histogram's
	// buckets or a latency distribution's percentiles (a hundred
	// percentiles and a hundred buckets), few enough that a Result of
	// them stays far inside MaxFrameSize: one metric of a 16-byte unit is
	// 38 bytes on the wire, 256 of them 9.7 KiB per sample, so 100
	// samples of 256 take under a MiB. A worker keeps the first
	// MaxExtraPerSample units of a sample in a stable order (fewer when
	// a process's samples would not fit one frame) and counts the rest in
	// Result.ExtraDropped.
	MaxExtraPerSample = 256
	// MaxDroppedUnits bounds the units Result.ExtraDroppedUnits names.
	MaxDroppedUnits = 16
	// MaxMetricCells bounds the metric cells of one Result.
	MaxMetricCells = 256
	// MaxAbsences bounds the reasoned absences of one Result.
	MaxAbsences = 256
	// MaxIdentitiesPerFrame bounds the identities of one Listing frame; a
	// child with more sends several Listing frames.
	MaxIdentitiesPerFrame = 16384
	// MaxArgs bounds the extra arguments of one Request.
	MaxArgs = 256
	// MaxTotalsPerWindow bounds the source totals of one Window.
	MaxTotalsPerWindow = 256
	// MaxCalibrationRuns bounds the calibration runs of one Listed leaf.
	MaxCalibrationRuns = 64
	// MaxImitatedBeside bounds the tests TestEvent.ImitatedBeside names
	// (a worker names the first, in order, and no more).
	MaxImitatedBeside = 16
)

// Kind identifies a message type on the wire. It is the first payload byte.
type Kind uint8

// The message kinds. Zero is never valid, so an all-zero frame is malformed.
const (
	KindHello Kind = iota + 1
	KindRequest
	KindReady
	KindProgress
	KindResult
	KindLog
	KindSkip
	KindFailure
	KindDone
	KindListing
	KindTestEvent
	KindWindow
	kindEnd // one past the last valid kind
)

var kindNames = [...]string{
	KindHello:     "hello",
	KindRequest:   "request",
	KindReady:     "ready",
	KindProgress:  "progress",
	KindResult:    "result",
	KindLog:       "log",
	KindSkip:      "skip",
	KindFailure:   "failure",
	KindDone:      "done",
	KindListing:   "listing",
	KindTestEvent: "test-event",
	KindWindow:    "window",
}

func (k Kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Message is implemented by every message type of this package and by no
// other type.
type Message interface {
	Kind() Kind
	// validate checks every bound of the decoded message.
	validate() error
}

// Mode says what a Request asks the child to do.
type Mode string

// The request modes.
const (
	ModeDiscover  Mode = "discover"  // list identities (Listing), measure nothing
	ModeBenchmark Mode = "benchmark" // measure one benchmark identity (Result)
	ModeWorkload  Mode = "workload"  // measure one workload identity (Result)
	ModeTest      Mode = "test"      // run tests, one TestEvent per event
)

func (m Mode) valid() bool {
	switch m {
	case ModeDiscover, ModeBenchmark, ModeWorkload, ModeTest:
		return true
	}
	return false
}

// Identity names one benchmark, workload or test: the package import path and
// the full name as `go test` prints it, sub-benchmark path included
// ("BenchmarkEncode/size=1K").
type Identity struct {
	Package string `msgpack:"package"`
	Name    string `msgpack:"name"`
}

func (id Identity) String() string {
	if id.Package == "" {
		return id.Name
	}
	return id.Package + "." + id.Name
}

// ShortName returns name when it fits MaxNameLen, and otherwise a name
// that does: its longest prefix that leaves room, an ellipsis, "#" and 16
// hexadecimal digits of a hash of the whole name, so that two long names
// sharing a prefix stay apart and a name keeps its short form from one
// process to the next.
func ShortName(name string) string {
	if len(name) <= MaxNameLen {
		return name
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	suffix := fmt.Sprintf("…#%016x", h.Sum64())
	cut := MaxNameLen - len(suffix)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + suffix
}

// Hello is the child's first frame.
type Hello struct {
	ProtocolVersion int    `msgpack:"protocolVersion"`
	WorkerVersion   string `msgpack:"workerVersion"`
	PID             int    `msgpack:"pid"`
	GoVersion       string `msgpack:"goVersion"`
	GOOS            string `msgpack:"goos"`
	GOARCH          string `msgpack:"goarch"`
	// GOMAXPROCS is the child's runtime.GOMAXPROCS(0), the "-P" suffix
	// `go test` appends to benchmark names.
	GOMAXPROCS int `msgpack:"gomaxprocs"`
	// Again, when not zero, says that the package's TestMain called
	// m.Run again after the worker sent Done: this Hello is the Again-th
	// series (2 for the second m.Run), for the same Request, which the
	// supervisor does not send again. It follows Done, and Ready, the
	// results and Done follow it as after the Request.
	Again int `msgpack:"again,omitempty"`
}

// Request is the supervisor's only frame: what this child is to do.
type Request struct {
	Mode       Mode          `msgpack:"mode"`
	Identity   Identity      `msgpack:"identity"`
	Config     RequestConfig `msgpack:"config"`
	Repetition int           `msgpack:"repetition"` // 0-based index of this fresh process
	Seed       uint64        `msgpack:"seed"`
	// FullName is the identity's whole name when Identity.Name is its
	// ShortName (the name is longer than MaxNameLen): the name the child
	// runs.
	FullName string `msgpack:"fullName,omitempty"`
}

// The defaults a zero RequestConfig field means, in one place for the
// worker that applies them and the supervisor that fills requests.
const (
	// DefaultSampleNs is the time one sample should take: long enough that
	// the garbage collection testing forces before every run, and the
	// faults and pacing after it, weigh little in it (docs/design.md#sampling).
	DefaultSampleNs = int64(200e6)
	// DefaultSamples is one sample per process: the process is the unit of
	// variance, and a top-level benchmark's setup then runs once per
	// sample.
	DefaultSamples = 1
)

// RequestConfig carries the measurement configuration. Zero values mean the
// documented defaults (DefaultSampleNs, DefaultSamples, ...).
type RequestConfig struct {
	// MinSampleNs is the calibration target: the time one sample should
	// take. In discover mode, a positive value asks the worker to
	// calibrate every listed benchmark leaf to it (Listed.Iterations).
	MinSampleNs int64 `msgpack:"minSampleNs"`
	// Samples is the number of timed samples after calibration.
	Samples int `msgpack:"samples"`
	// Iterations, when positive, pins N and skips calibration: the N
	// discovery calibrated, shared by every process of the identity.
	Iterations int64 `msgpack:"iterations"`
	// Run is a `go test -run` pattern (test mode, discovery of tests).
	Run string `msgpack:"run"`
	// Bench is a `go test -bench` pattern (discovery of benchmarks).
	Bench string `msgpack:"bench"`
	// After names the last top-level function already accounted for: the
	// child starts with the one registered after it, so discovery resumes
	// past a function that crashed.
	After string `msgpack:"after"`
	// Skip names top-level tests the child must not run (test mode): those
	// that finished or crashed in an earlier child of the same package.
	Skip []string `msgpack:"skip"`
	// TestTimeoutNs bounds one test in test mode; zero means none.
	TestTimeoutNs int64 `msgpack:"testTimeoutNs"`
	// Args are extra arguments for the code under test.
	Args []string `msgpack:"args"`
	// Metrics names the catalog metrics to count after timing (package
	// sources); empty means no counting pass.
	Metrics []string `msgpack:"metrics"`
	// PerfIters, when positive, pins the iterations of a counting pass;
	// zero means the worker's default cap.
	PerfIters int64 `msgpack:"perfIters"`
	// PerfBatch, when positive, pins how many iterations one counter
	// bracket spans where the worker owns the loop (1 brackets each);
	// zero sizes brackets to about a millisecond.
	PerfBatch int64 `msgpack:"perfBatch"`
	// PerfScaled keeps a multiplexed hardware group; every scaled value is
	// then marked estimated.
	PerfScaled bool `msgpack:"perfScaled"`
	// SkipProbe asks the worker to skip testing's probe run at N=1 before
	// each sample of a top-level leaf: its setup is expensive enough that
	// running it twice per sample would cost more than the warm-up the
	// probe gives (one-time lazy initialization, as go test does it).
	SkipProbe bool `msgpack:"skipProbe,omitempty"`
	// WindowMetrics names the catalog metrics read at the edges of every
	// workload window (package sources); empty means only the sources a
	// window always reads.
	WindowMetrics []string `msgpack:"windowMetrics,omitempty"`
	// Interference, when set, asks the worker to watch for foreign load
	// between the timed samples of benchmark mode (docs/design.md#interference).
	// Nil means no watch. Test mode, discovery and workloads ignore it.
	Interference *Interference `msgpack:"interference,omitempty"`
	// SkipPattern is a `go test -skip` pattern, applied by testing itself
	// (-test.skip, set by the worker for its own calls) in test mode and
	// in the discovery and runs of benchmarks.
	SkipPattern string `msgpack:"skipPattern,omitempty"`
}

// The responses of the interference watch.
const (
	ResponseObserve = "observe" // annotate disturbed samples, keep them
	ResponseRetake  = "retake"  // discard and redo them, bounded by MaxRetakes
	ResponsePause   = "pause"   // wait for quiet, re-warm, then redo as for retake
)

// MaxWatchedCPUs bounds Interference.CPUs.
const MaxWatchedCPUs = 4096

// Interference is the watch's policy for one process. A sample is disturbed
// when the foreign share of the watched CPUs' capacity over its window
// (host busy time minus the process's own CPU time) exceeds MaxForeign.
type Interference struct {
	Response   string  `msgpack:"response"`
	MaxForeign float64 `msgpack:"maxForeign"` // a share: 0.10 is 10%
	// MaxRetakes bounds the samples one process may retake (retake and
	// pause); past it the rest is kept, marked.
	MaxRetakes int `msgpack:"maxRetakes"`
	// SettleNs is how long the host must stay under MaxForeign before a
	// paused process resumes; PauseMaxNs bounds one process's total wait.
	SettleNs   int64 `msgpack:"settleNs"`
	PauseMaxNs int64 `msgpack:"pauseMaxNs"`
	// CPUs, when not empty, are the CPUs the process was placed on: only
	// their time is watched. Empty watches every online CPU.
	CPUs []int `msgpack:"cpus"`
}

// Watch is the raw reading of the interference watch over one sample's
// window, from the end of the previous sample (or the start of the timed
// call) to the end of this one: the share is derived from it
// (ForeignShare), so a window too short to tell stays visibly so.
type Watch struct {
	HostBusyTicks int64 `msgpack:"hostBusyTicks"` // busy ticks of the watched CPUs
	TickNs        int64 `msgpack:"tickNs"`
	OwnCPUNs      int64 `msgpack:"ownCpuNs"` // the process's CPU time, all threads
	WallNs        int64 `msgpack:"wallNs"`
	CPUs          int   `msgpack:"cpus"` // CPUs in the host reading
	// Disturbed is the worker's decision on this window, which it acted on.
	Disturbed bool `msgpack:"disturbed"`
}

// MinForeignTicks is the shortest window, in ticks, over which
// ForeignShare answers: below it the tick quantization of /proc/stat (up
// to a tick per CPU at each end) dominates the estimate.
const MinForeignTicks = 5

// ForeignShare estimates the share of the watched capacity that something
// other than the process used over w's window:
//
//	(host busy ns - own CPU ns) / (wall ns * cpus)
//
// Load a benchmark creates itself, on any thread, is own time and not
// foreign. The result is clamped to [0, 1]: tick quantization can push
// the raw difference a little past either end.
//
// ok is false for a nil w, and when the window is under MinForeignTicks
// ticks (or the reading is empty): such an estimate is recorded as
// absent, and must never be acted on, since discarding samples over
// quantization noise is noise dressed as hygiene. The estimate is an
// annotation, never a correction: the same foreign share can cost
// nothing or a lot depending on what it contends for.
func (w *Watch) ForeignShare() (share float64, ok bool) {
	if w == nil || w.TickNs <= 0 || w.CPUs <= 0 || w.WallNs < MinForeignTicks*w.TickNs {
		return 0, false
	}
	busy := float64(w.HostBusyTicks) * float64(w.TickNs)
	share = (busy - float64(w.OwnCPUNs)) / (float64(w.WallNs) * float64(w.CPUs))
	return min(max(share, 0), 1), true
}

// InterferenceOutcome is what the watch did in one process beyond marking
// samples: its pauses, whether its budget ran out, and why it could not
// watch at all.
type InterferenceOutcome struct {
	Pauses          int   `msgpack:"pauses"`
	PausedNs        int64 `msgpack:"pausedNs"`
	BudgetExhausted bool  `msgpack:"budgetExhausted"`
	// Problem, when not empty, says why the watch read nothing (no
	// /proc/stat); the samples then carry no Watch.
	Problem string `msgpack:"problem"`
}

// Ready acknowledges the Request: the child parsed it and starts work.
type Ready struct {
	Identity Identity `msgpack:"identity"`
}

// Phase names a stage of the child's work in a Progress message.
type Phase string

// The progress phases.
const (
	PhaseDiscovery   Phase = "discovery"
	PhaseCalibration Phase = "calibration"
	PhaseTiming      Phase = "timing"
	PhaseCounting    Phase = "counting"
	PhaseWindow      Phase = "window"
)

func (p Phase) valid() bool {
	switch p {
	case PhaseDiscovery, PhaseCalibration, PhaseTiming, PhaseCounting, PhaseWindow:
		return true
	}
	return false
}

// Progress reports the child's phase; Done and Total count units of the
// phase (samples, iterations) where that is meaningful, else both are zero.
type Progress struct {
	Phase Phase `msgpack:"phase"`
	Done  int64 `msgpack:"done"`
	Total int64 `msgpack:"total"`
}

// Result carries one process's measurements of one identity: raw totals per
// sample, never rates.
type Result struct {
	Identity   Identity `msgpack:"identity"`
	Repetition int      `msgpack:"repetition"`
	Seed       uint64   `msgpack:"seed"`
	// BytesPerOp is b.SetBytes' value, or zero when the benchmark set none.
	BytesPerOp int64        `msgpack:"bytesPerOp"`
	Samples    []Sample     `msgpack:"samples"`
	Metrics    []MetricCell `msgpack:"metrics"`
	Absences   []Absence    `msgpack:"absences"`
	// CountIterations is the number of iterations the counting pass
	// attributed its totals to (zero: no counting pass ran), and
	// CountMethod how it bracketed them, e.g. "difference of 2 runs".
	CountIterations int64  `msgpack:"countIterations"`
	CountMethod     string `msgpack:"countMethod"`
	// Retaken are the samples the interference watch discarded and redid,
	// with their readings: reported, never used in a statistic.
	Retaken []Sample `msgpack:"retaken,omitempty"`
	// Interference is set when the request asked for a watch.
	Interference *InterferenceOutcome `msgpack:"interference,omitempty"`
	// AfterSiblings is how many leaves ran before the identity in each of
	// this process's runs: run alone, it never ran, its parent failing
	// before reaching it, so it ran after the leaves testing runs before
	// it, their results discarded. Zero: it ran alone.
	AfterSiblings int64 `msgpack:"afterSiblings,omitempty"`
	// ExtraDropped is how many custom metrics (b.ReportMetric units) the
	// worker left out of this process's samples, beyond
	// MaxExtraPerSample in one sample; ExtraDroppedUnits names the first
	// MaxDroppedUnits of them, sorted. Zero and empty when none was.
	ExtraDropped      int64    `msgpack:"extraDropped,omitempty"`
	ExtraDroppedUnits []string `msgpack:"extraDroppedUnits,omitempty"`
}

// Sample is one timed run of Iterations iterations.
type Sample struct {
	Iterations int64 `msgpack:"n"`
	ElapsedNs  int64 `msgpack:"ns"`
	// AllocBytes and Allocs are totals over the sample; nil when the
	// benchmark did not report allocations.
	AllocBytes *uint64 `msgpack:"allocBytes,omitempty"`
	Allocs     *uint64 `msgpack:"allocs,omitempty"`
	// Extra holds b.ReportMetric values of this sample, as reported (per
	// iteration unless the unit says otherwise).
	Extra []Metric `msgpack:"extra,omitempty"`
	// Exact says the totals were read from testing's B after the run;
	// false means they were reconstructed from testing's printed per-op
	// values (ns/op to at least four significant digits, B/op and
	// allocs/op truncated to integers).
	Exact bool `msgpack:"exact,omitempty"`
	// Watch is the interference watch's reading over the sample; nil when
	// the request asked for none or the host could not be read.
	Watch *Watch `msgpack:"watch,omitempty"`
}

// Metric is one user-reported value with its unit.
type Metric struct {
	Unit  string  `msgpack:"unit"`
	Value float64 `msgpack:"value"`
	// Unmeasured, when not empty, says why there is no value (the
	// benchmark reported NaN or an infinity); Value is then zero.
	Unmeasured string `msgpack:"unmeasured,omitempty"`
}

// MetricCell is one value of a catalog metric measured in a counting pass:
// a per-iteration value for counted metrics, the level itself for levels.
type MetricCell struct {
	Name  string  `msgpack:"name"`
	Value float64 `msgpack:"value"`
	// Estimated marks a scaled or otherwise derived value.
	Estimated bool `msgpack:"estimated"`
	// Uncertainty is the value's half-range over the repeated measurements
	// it was derived from (same unit as Value); zero when not known.
	Uncertainty float64 `msgpack:"uncertainty,omitempty"`
	// Note qualifies the value, e.g. what it includes.
	Note string `msgpack:"note,omitempty"`
}

// Absence is a metric that was asked for and not measured, with the reason.
type Absence struct {
	Name   string `msgpack:"name"`
	Reason string `msgpack:"reason"`
}

// Log is a line of diagnostic text from the worker. When Limit is set, the
// line says that the code under test changed a resource limit of the
// process (Limit names it, "RLIMIT_FSIZE") in Test, the top-level test or
// benchmark whose run the worker found it changed after (or, signalled by
// the limit, during); Restored says the worker set it back, so that what
// runs next in the process runs under the limits it started with
// (docs/design.md#containment).
type Log struct {
	Text     string `msgpack:"text"`
	Test     string `msgpack:"test,omitempty"`
	Limit    string `msgpack:"limit,omitempty"`
	Restored bool   `msgpack:"restored,omitempty"`
}

// Skip ends the work: the identity skipped itself (b.Skip) with a reason.
type Skip struct {
	Reason string `msgpack:"reason"`
}

// FailureClass classifies a Failure.
type FailureClass string

// The failure kinds a worker reports.
const (
	FailurePanic FailureClass = "panic" // the code under test panicked
	FailureFatal FailureClass = "fatal" // b.Fatal, b.FailNow, t.Fatal
	FailureError FailureClass = "error" // b.Error without FailNow, or a worker error
)

func (k FailureClass) valid() bool {
	switch k {
	case FailurePanic, FailureFatal, FailureError:
		return true
	}
	return false
}

// Failure ends the work: the code under test failed.
type Failure struct {
	Class   FailureClass `msgpack:"class"`
	Message string       `msgpack:"message"`
	Stack   string       `msgpack:"stack"`
}

// Done is the child's last frame.
type Done struct{}

// Listing carries discovered identities; a child may send several.
type Listing struct {
	Identities []Listed `msgpack:"identities"`
}

// Listed is one discovered identity.
type Listed struct {
	Name string     `msgpack:"name"`
	Kind ListedKind `msgpack:"kind"`
	// Iterations is the N calibrated for a benchmark leaf (discovery with
	// MinSampleNs set); zero when it was not calibrated.
	Iterations int64 `msgpack:"n,omitempty"`
	// Calibration holds the runs Iterations was chosen from.
	Calibration []Sample `msgpack:"calibration,omitempty"`
	// SampleNs is the sample time Iterations was chosen for when
	// calibration lengthened the target, because each run carries
	// FixedNs of cost whatever N; both zero otherwise.
	SampleNs int64 `msgpack:"sampleNs,omitempty"`
	FixedNs  int64 `msgpack:"fixedNs,omitempty"`
	// SetupNs is what one call of a top-level leaf's function spent
	// outside its timer (its setup), the median over calibration runs;
	// zero when not measured.
	SetupNs int64 `msgpack:"setupNs,omitempty"`
	// FullName is the whole name when Name is its ShortName (the name is
	// longer than MaxNameLen); a Request for the identity carries it.
	FullName string `msgpack:"fullName,omitempty"`
	// Problem says why the leaf cannot be measured (it failed, or reported
	// no time, while calibrating); Skipped is the reason it skipped itself.
	Problem string `msgpack:"problem,omitempty"`
	Skipped string `msgpack:"skipped,omitempty"`
	// AfterSiblings is, as Result.AfterSiblings, how many leaves ran
	// before this one in each calibration run; zero when it ran alone.
	AfterSiblings int64 `msgpack:"afterSiblings,omitempty"`
}

// ListedKind says what a Listed identity is.
type ListedKind string

// The listed kinds.
const (
	ListedBenchmark ListedKind = "benchmark"
	ListedWorkload  ListedKind = "workload"
	ListedTest      ListedKind = "test"
)

func (k ListedKind) valid() bool {
	switch k {
	case ListedBenchmark, ListedWorkload, ListedTest:
		return true
	}
	return false
}

// TestAction is what happened to a test, as `go test -json` names it.
type TestAction string

// The test actions.
const (
	TestRun    TestAction = "run"
	TestPass   TestAction = "pass"
	TestFail   TestAction = "fail"
	TestSkip   TestAction = "skip"
	TestOutput TestAction = "output"
	// TestPause and TestCont bracket the time a parallel test waits for
	// its turn (t.Parallel): it is not running then.
	TestPause TestAction = "pause"
	TestCont  TestAction = "cont"
)

func (a TestAction) valid() bool {
	switch a {
	case TestRun, TestPass, TestFail, TestSkip, TestOutput, TestPause, TestCont:
		return true
	}
	return false
}

// TestEvent reports one event of one test in test mode. ElapsedNs is an
// ended test's own time. OmittedBytes, on an output event, counts what the
// worker left out of a top-level test's output past its bound (Output then
// says so in words, for a reader that knows no better); it travels as a
// number so that the count survives the supervisor's own bound.
//
// A top-level test's run and end come from the worker's wrapper around the
// test, not from testing's output stream, which the code under test can
// close, replace or imitate. On such an end, Lost says that testing's
// stream was lost by then (its capture closed or replaced): the test's
// subtests' results and output after the loss are missing; Imitated says
// that the test's output imitated testing's framing and the worker took
// those lines as output, not as results. ImitatedBeside, with Imitated,
// names the other top-level tests that ran in parallel when such a line
// was printed: stdout does not say which test wrote a line, so the
// imitation is any one of theirs (each of them carries it).
type TestEvent struct {
	Action         TestAction `msgpack:"action"`
	Test           string     `msgpack:"test"`
	ElapsedNs      int64      `msgpack:"elapsedNs"`
	Output         string     `msgpack:"output"`
	OmittedBytes   int64      `msgpack:"omittedBytes,omitempty"`
	Lost           bool       `msgpack:"lost,omitempty"`
	Imitated       bool       `msgpack:"imitated,omitempty"`
	ImitatedBeside []string   `msgpack:"imitatedBeside,omitempty"`
}

func (Hello) Kind() Kind     { return KindHello }
func (Request) Kind() Kind   { return KindRequest }
func (Ready) Kind() Kind     { return KindReady }
func (Progress) Kind() Kind  { return KindProgress }
func (Result) Kind() Kind    { return KindResult }
func (Log) Kind() Kind       { return KindLog }
func (Skip) Kind() Kind      { return KindSkip }
func (Failure) Kind() Kind   { return KindFailure }
func (Done) Kind() Kind      { return KindDone }
func (Listing) Kind() Kind   { return KindListing }
func (TestEvent) Kind() Kind { return KindTestEvent }
func (Window) Kind() Kind    { return KindWindow }

// Window is one measured window of a workload: where its wall-clock time
// went, the totals the sources counted across it, and the page-cache regime
// it started from. Durations are nanoseconds; a nil component could not be
// attributed (its time stays in OtherNs) and Note says why.
type Window struct {
	Name string `msgpack:"name"`
	Reps int    `msgpack:"reps"`
	// WallNs is the window's monotonic wall-clock time.
	WallNs int64 `msgpack:"wallNs"`
	// Scope is what the decomposition covers: "thread" (the window's
	// body ran locked to one OS thread, whose own CPU and run-queue times
	// are read), "process" or "wall-only".
	Scope            string `msgpack:"scope"`
	OnCPUUserNs      *int64 `msgpack:"onCpuUserNs,omitempty"`
	OnCPUKernelNs    *int64 `msgpack:"onCpuKernelNs,omitempty"`
	OffCPURunqueueNs *int64 `msgpack:"offCpuRunqueueNs,omitempty"`
	OffCPUDiskNs     *int64 `msgpack:"offCpuDiskNs,omitempty"`
	OffCPUOtherNs    *int64 `msgpack:"offCpuOtherNs,omitempty"`
	// OtherThreadsCPUNs is CPU time the rest of the process burned during
	// the window (the process-wide reading minus the thread's): disclosed,
	// never folded into the decomposition.
	OtherThreadsCPUNs *int64 `msgpack:"otherThreadsCpuNs,omitempty"`
	// Totals are source totals across the window, named by source and
	// field ("tier0.minflt", "perf-sw.task-clock").
	Totals []MetricCell `msgpack:"totals,omitempty"`
	// PSI holds the system-wide stall deltas across the window; nil when
	// PSI is unavailable.
	PSI *PSI `msgpack:"psi,omitempty"`
	// Regime is the page-cache regime prepared before the window; nil
	// when none was.
	Regime *Regime `msgpack:"regime,omitempty"`
	Note   string  `msgpack:"note,omitempty"`
}

// PSI is the system-wide pressure-stall time accumulated during a window,
// in nanoseconds: a diagnostic of what the host went through, never
// attributed to the workload.
type PSI struct {
	IOSomeNs  int64 `msgpack:"ioSomeNs"`
	IOFullNs  int64 `msgpack:"ioFullNs"`
	MemSomeNs int64 `msgpack:"memSomeNs"`
	MemFullNs int64 `msgpack:"memFullNs"`
	CPUSomeNs int64 `msgpack:"cpuSomeNs"`
}

// Regime is the page-cache state a workload's files were prepared to and
// verified in before a window.
type Regime struct {
	Requested      string `msgpack:"requested"`      // "cold", "warm", "steady"
	Effective      string `msgpack:"effective"`      // what verification found: "cold", "warm", "partial", "unverified", "skipped"
	ResidentBefore int64  `msgpack:"residentBefore"` // bytes resident before the prep
	ResidentAfter  int64  `msgpack:"residentAfter"`  // bytes resident after it
	TotalBytes     int64  `msgpack:"totalBytes"`
	Note           string `msgpack:"note,omitempty"`
}

// messageValue returns m as a message value: m itself when it is one, the
// message a non-nil pointer to one points to, and false for anything else
// (nil included).
func messageValue(m Message) (Message, bool) {
	switch p := m.(type) {
	case Hello, Request, Ready, Progress, Result, Log, Skip, Failure, Done, Listing, TestEvent, Window:
		return m, true
	case *Hello:
		return deref(p)
	case *Request:
		return deref(p)
	case *Ready:
		return deref(p)
	case *Progress:
		return deref(p)
	case *Result:
		return deref(p)
	case *Log:
		return deref(p)
	case *Skip:
		return deref(p)
	case *Failure:
		return deref(p)
	case *Done:
		return deref(p)
	case *Listing:
		return deref(p)
	case *TestEvent:
		return deref(p)
	case *Window:
		return deref(p)
	}
	return nil, false
}

func deref[T Message](p *T) (Message, bool) {
	if p == nil {
		return nil, false
	}
	return *p, true
}
