package msgpackcodec_test

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/benchsup/benchsup/protocol"
)

func u64(v uint64) *uint64 { return &v }
func i64(v int64) *int64   { return &v }

// msgCase is one message value the two codecs must agree on.
type msgCase struct {
	name string
	msg  protocol.Message
}

// The integers at every boundary of msgpack's integer forms, and the
// extremes.
var (
	edgeInts = []int64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64}
	edgeUints = []uint64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1 << 63, math.MaxUint64}
	// edgeLens are string lengths at every boundary of the str forms; the
	// last is MaxTextLen, which needs a str32.
	edgeLens = []int{0, 1, 31, 32, 255, 256, 65535, protocol.MaxTextLen}
	// edgeFloats are finite floats (the only ones a message may carry).
	edgeFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 2.5, -1e-300, 1e300, math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, 1 << 53, math.Pi}
)

const unicodeText = "ünïcödé ✓ 日本語 🙂 \u0000 \u2028 tab\t"

// messageCases returns representative values of every message type: zero
// values, nil and empty slices, nil and non-nil pointers, integers and
// floats at every boundary, unicode and empty strings. Every case is
// within the protocol's bounds.
func messageCases() []msgCase {
	id := protocol.Identity{Package: "example.com/codec", Name: "BenchmarkEncode/size=1K"}
	var cs []msgCase
	add := func(name string, m protocol.Message) { cs = append(cs, msgCase{m.Kind().String() + "/" + name, m}) }

	// Hello: every int field at every edge (ProtocolVersion is unchecked,
	// so it may be negative).
	add("zero", protocol.Hello{})
	add("full", protocol.Hello{ProtocolVersion: protocol.Version, WorkerVersion: "v0.1.0", PID: 4242, GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2})
	add("again", protocol.Hello{ProtocolVersion: protocol.Version, PID: 4242, GOMAXPROCS: 2, Again: 2})
	add("unicode", protocol.Hello{WorkerVersion: unicodeText, GoVersion: unicodeText, GOOS: "ös", GOARCH: "🙂"})
	for _, v := range edgeInts {
		if !fitsInt(v) {
			continue
		}
		h := protocol.Hello{ProtocolVersion: int(v)}
		if v >= 0 {
			h.PID, h.GOMAXPROCS = int(v), int(v)
		}
		add("int "+itoa(v), h)
	}

	// Request.
	add("minimal", protocol.Request{Mode: protocol.ModeDiscover})
	add("full", protocol.Request{Mode: protocol.ModeBenchmark, Identity: id, Repetition: 3, Seed: 1 << 60, Config: protocol.RequestConfig{
		MinSampleNs: 5e6, Samples: 32, Iterations: 0, Run: "^TestX$", Bench: ".", After: "TestA",
		TestTimeoutNs: 1e9, Args: []string{"-flag", "ünïcode", ""}, Skip: []string{"TestDone", "TestCrashed"},
		Metrics: []string{"instructions", "syscalls:read"}, PerfIters: 1000, PerfBatch: 10, PerfScaled: true,
		SkipProbe: true, WindowMetrics: []string{"tier0", "perf-sw.task-clock"}}})
	add("interference", protocol.Request{Mode: protocol.ModeBenchmark, Identity: id, Config: protocol.RequestConfig{
		Interference: &protocol.Interference{Response: protocol.ResponsePause, MaxForeign: 0.1, MaxRetakes: 25, SettleNs: 25e7, PauseMaxNs: 3e10, CPUs: []int{0, 3, 65536}}}})
	add("interference zero", protocol.Request{Mode: protocol.ModeBenchmark, Config: protocol.RequestConfig{
		Interference: &protocol.Interference{Response: protocol.ResponseObserve, CPUs: []int{}}}})
	add("interference nil cpus", protocol.Request{Mode: protocol.ModeBenchmark, Config: protocol.RequestConfig{
		Interference: &protocol.Interference{Response: protocol.ResponseRetake, MaxForeign: 1}}})
	add("long name", protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: protocol.ShortName("BenchmarkLong/" + strings.Repeat("x", 5000))},
		FullName: "BenchmarkLong/" + strings.Repeat("x", 5000)})
	add("skip pattern", protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "TestA", SkipPattern: "TestA/slow"}})
	add("empty window metrics", protocol.Request{Mode: protocol.ModeWorkload, Config: protocol.RequestConfig{WindowMetrics: []string{}}})
	add("empty slices", protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Args: []string{}, Skip: []string{}, Metrics: []string{}}})
	add("nil slices", protocol.Request{Mode: protocol.ModeWorkload, Config: protocol.RequestConfig{Args: nil, Skip: nil, Metrics: nil}})
	add("slices of empty strings", protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Args: make([]string, 16), Skip: []string{""}}})
	for _, s := range edgeUints {
		add("seed "+utoa(s), protocol.Request{Mode: protocol.ModeBenchmark, Seed: s})
	}
	for _, v := range edgeInts {
		if v < 0 || !fitsInt(v) {
			continue
		}
		add("config ints "+itoa(v), protocol.Request{Mode: protocol.ModeBenchmark, Repetition: int(v), Config: protocol.RequestConfig{
			MinSampleNs: v, Iterations: v, TestTimeoutNs: v, PerfIters: v, PerfBatch: v, Samples: int(min(v, protocol.MaxSamplesPerFrame))}})
	}

	// Ready.
	add("zero", protocol.Ready{})
	add("identity", protocol.Ready{Identity: id})
	add("unicode", protocol.Ready{Identity: protocol.Identity{Package: unicodeText, Name: "Benchmark日本/x=🙂"}})

	// Progress.
	for _, p := range []protocol.Phase{protocol.PhaseDiscovery, protocol.PhaseCalibration, protocol.PhaseTiming, protocol.PhaseCounting, protocol.PhaseWindow} {
		add(string(p), protocol.Progress{Phase: p, Done: 3, Total: 32})
	}
	for _, v := range edgeInts {
		if v >= 0 {
			add("done "+itoa(v), protocol.Progress{Phase: protocol.PhaseTiming, Done: v, Total: v})
		}
	}

	// Result.
	add("nil slices", protocol.Result{Identity: id})
	add("empty slices", protocol.Result{Identity: id, Samples: []protocol.Sample{}, Metrics: []protocol.MetricCell{}, Absences: []protocol.Absence{}})
	add("full", protocol.Result{Identity: id, Repetition: 3, Seed: math.MaxUint64, BytesPerOp: 1024,
		Samples: []protocol.Sample{
			{Iterations: 1000, ElapsedNs: 5_123_456, AllocBytes: u64(64000), Allocs: u64(1000),
				Extra: []protocol.Metric{{Unit: "widgets/op", Value: 2.5}, {Unit: "p99-ns", Value: -1e-300}, {Unit: "ratio", Unmeasured: "the benchmark reported NaN (b.ReportMetric)"}}},
			{Iterations: 1000, ElapsedNs: 5_000_001, Exact: true},
			{Iterations: 1, ElapsedNs: 0, AllocBytes: u64(0), Allocs: u64(0), Extra: []protocol.Metric{}},
			{Iterations: math.MaxInt64, ElapsedNs: math.MaxInt64, AllocBytes: u64(math.MaxUint64), Allocs: u64(1 << 32)},
		},
		Metrics: []protocol.MetricCell{{Name: "instructions", Value: 1234.5, Estimated: true}, {Name: "cycles"},
			{Name: "task-clock", Value: 12.5, Uncertainty: 0.25, Note: "includes the bracket's own cost"}},
		Absences:        []protocol.Absence{{Name: "cycles", Reason: "no cpu PMU under /sys/bus/event_source/devices"}, {Name: "", Reason: unicodeText}},
		CountIterations: 5000, CountMethod: "difference of 2 runs", AfterSiblings: 7,
		ExtraDropped: 184, ExtraDroppedUnits: []string{"p99.91-ns", "p99.92-ns", unicodeText}})
	add("extra dropped, none named", protocol.Result{Identity: id, Samples: []protocol.Sample{{Iterations: 1}}, ExtraDropped: 1})
	watch := &protocol.Watch{HostBusyTicks: 37, TickNs: 1e7, OwnCPUNs: 150_000_123, WallNs: 151_000_000, CPUs: 2, Disturbed: true}
	add("interference", protocol.Result{Identity: id, Samples: []protocol.Sample{{Iterations: 10, ElapsedNs: 1e8, Watch: watch},
		{Iterations: 10, ElapsedNs: 1e8, Exact: true, Watch: &protocol.Watch{}}},
		Retaken:      []protocol.Sample{{Iterations: 10, ElapsedNs: 2e8, Watch: watch}, {Iterations: 10, ElapsedNs: 2e8}},
		Interference: &protocol.InterferenceOutcome{Pauses: 2, PausedNs: 1_200_000_000, BudgetExhausted: true, Problem: unicodeText}})
	add("interference zero", protocol.Result{Identity: id, Samples: []protocol.Sample{{Iterations: 1}},
		Interference: &protocol.InterferenceOutcome{}})
	for _, u := range edgeUints {
		add("allocs "+utoa(u), protocol.Result{Seed: u, Samples: []protocol.Sample{{Iterations: 1, AllocBytes: u64(u), Allocs: u64(u)}}})
	}
	for _, f := range edgeFloats {
		add("float "+ftoa(f), protocol.Result{
			Samples: []protocol.Sample{{Iterations: 1, Extra: []protocol.Metric{{Unit: "u", Value: f}}}},
			Metrics: []protocol.MetricCell{{Name: "m", Value: f}}})
	}
	samples := make([]protocol.Sample, 17) // array16
	for i := range samples {
		samples[i] = protocol.Sample{Iterations: int64(i + 1), ElapsedNs: int64(i) * 1e6}
	}
	add("17 samples", protocol.Result{Identity: id, Samples: samples})

	// Log, Skip, Failure: every str form.
	for _, n := range edgeLens {
		add("text "+itoa(int64(n)), protocol.Log{Text: strings.Repeat("a", n)})
	}
	add("unicode", protocol.Log{Text: unicodeText})
	add("limit", protocol.Log{Text: "TestX lowered RLIMIT_FSIZE from unlimited to 0", Test: "TestX", Limit: "RLIMIT_FSIZE"})
	add("limit restored", protocol.Log{Text: unicodeText, Test: unicodeText, Limit: "RLIMIT_NOFILE", Restored: true})
	add("empty", protocol.Skip{})
	add("reason", protocol.Skip{Reason: "needs network"})
	for _, c := range []protocol.FailureClass{protocol.FailurePanic, protocol.FailureFatal, protocol.FailureError} {
		add(string(c), protocol.Failure{Class: c, Message: "runtime error: index out of range [5] with length 3", Stack: "goroutine 1 [running]:\nmain.f()"})
	}
	add("unicode", protocol.Failure{Class: protocol.FailureFatal, Message: unicodeText, Stack: strings.Repeat("é", 200)})

	add("zero", protocol.Done{})

	// Listing.
	add("nil", protocol.Listing{})
	add("empty", protocol.Listing{Identities: []protocol.Listed{}})
	add("kinds", protocol.Listing{Identities: []protocol.Listed{{Name: "BenchmarkA", Kind: protocol.ListedBenchmark}, {Name: "TestB", Kind: protocol.ListedTest}, {Name: "BenchmarkW", Kind: protocol.ListedWorkload}}})
	add("unicode", protocol.Listing{Identities: []protocol.Listed{{Name: "Test日本/🙂", Kind: protocol.ListedTest}}})
	add("calibrated", protocol.Listing{Identities: []protocol.Listed{
		{Name: "BenchmarkPooled", Kind: protocol.ListedBenchmark, Iterations: 180, SampleNs: 600_000_000, FixedNs: 60_000_000, SetupNs: 1_500_000},
		{Name: "BenchmarkLong/x…#0123456789abcdef", Kind: protocol.ListedBenchmark, FullName: "BenchmarkLong/" + strings.Repeat("x", 5000)},
		{Name: "BenchmarkA/n=1", Kind: protocol.ListedBenchmark, Iterations: 1 << 20,
			Calibration: []protocol.Sample{{Iterations: 1, ElapsedNs: 900, Exact: true}, {Iterations: 100, ElapsedNs: 41_000, AllocBytes: u64(800), Allocs: u64(100)}}},
		{Name: "BenchmarkZero", Kind: protocol.ListedBenchmark, Problem: "reported 0 ns/op"},
		{Name: "BenchmarkSkips", Kind: protocol.ListedBenchmark, Skipped: "no corpus"},
		{Name: "BenchmarkDeps/c", Kind: protocol.ListedBenchmark, Iterations: 300, AfterSiblings: 2},
		{Name: "BenchmarkDeps/d", Kind: protocol.ListedBenchmark, Problem: "x_test.go:9: no", AfterSiblings: math.MaxInt64},
		{Name: "BenchmarkEmptyCalibration", Kind: protocol.ListedBenchmark, Calibration: []protocol.Sample{}}}})

	// TestEvent.
	for _, a := range []protocol.TestAction{protocol.TestRun, protocol.TestPass, protocol.TestFail, protocol.TestSkip, protocol.TestOutput, protocol.TestPause, protocol.TestCont} {
		add(string(a), protocol.TestEvent{Action: a, Test: "TestB/sub", ElapsedNs: 12345, Output: "    b_test.go:12: boom\n"})
	}
	add("empty strings", protocol.TestEvent{Action: protocol.TestOutput})
	add("lost and imitated", protocol.TestEvent{Action: protocol.TestFail, Test: "TestB", ElapsedNs: 7, Lost: true, Imitated: true})
	add("lost only", protocol.TestEvent{Action: protocol.TestPass, Test: "TestB", Lost: true})
	add("omitted and imitated", protocol.TestEvent{Action: protocol.TestOutput, Test: "TestB", OmittedBytes: 3, Imitated: true})
	add("imitated beside others", protocol.TestEvent{Action: protocol.TestPass, Test: "TestB", Imitated: true, ImitatedBeside: []string{"TestA", "TestC"}})
	add("max elapsed", protocol.TestEvent{Action: protocol.TestPass, ElapsedNs: math.MaxInt64, Output: unicodeText})

	// Window: every optional field absent, present at zero, present.
	add("minimal", protocol.Window{Reps: 1, Scope: "wall-only"})
	add("zero pointers", protocol.Window{Reps: 1, Scope: "process", OnCPUUserNs: i64(0), OnCPUKernelNs: i64(0), OffCPURunqueueNs: i64(0),
		OffCPUDiskNs: i64(0), OffCPUOtherNs: i64(0), OtherThreadsCPUNs: i64(0), PSI: &protocol.PSI{}, Regime: &protocol.Regime{}})
	add("empty totals", protocol.Window{Reps: 1, Scope: "thread", Totals: []protocol.MetricCell{}})
	add("full", protocol.Window{Name: "BenchmarkBuild/load", Reps: 2, WallNs: 9_000_000, Scope: "thread",
		OnCPUUserNs: i64(5_000_000), OnCPUKernelNs: i64(1_000_000), OffCPURunqueueNs: i64(100_000), OffCPUDiskNs: i64(math.MaxInt64),
		OffCPUOtherNs: i64(2_900_000), OtherThreadsCPUNs: i64(300_000),
		Totals: []protocol.MetricCell{{Name: "tier0.read-bytes", Value: 1 << 20}, {Name: "perf-sw.task-clock", Value: 0.5, Estimated: true}},
		PSI:    &protocol.PSI{IOSomeNs: 10, IOFullNs: 5, MemSomeNs: 0, MemFullNs: math.MaxInt64, CPUSomeNs: 7},
		Regime: &protocol.Regime{Requested: "cold", Effective: "partial", ResidentBefore: 4096, ResidentAfter: 0, TotalBytes: 1 << 40, Note: "ünverified"},
		Note:   "disk: unattributed (no cgroup of its own)"})
	for i, p := range []string{"onCpuUserNs", "onCpuKernelNs", "offCpuRunqueueNs", "offCpuDiskNs", "offCpuOtherNs", "otherThreadsCpuNs"} {
		w := protocol.Window{Reps: math.MaxInt, Scope: "thread"}
		*[]**int64{&w.OnCPUUserNs, &w.OnCPUKernelNs, &w.OffCPURunqueueNs, &w.OffCPUDiskNs, &w.OffCPUOtherNs, &w.OtherThreadsCPUNs}[i] = i64(int64(i) << 40)
		add("only "+p, w)
	}
	add("regime without note", protocol.Window{Reps: 1, Scope: "thread", Regime: &protocol.Regime{Requested: "warm", Effective: "warm", TotalBytes: 1}})
	add("only psi", protocol.Window{Reps: 1, Scope: "thread", PSI: &protocol.PSI{CPUSomeNs: 1 << 33}})
	return cs
}

// fitsInt reports whether v fits an int on this platform.
func fitsInt(v int64) bool { return int64(int(v)) == v }

// normalize returns m as it decodes after a round trip: an omitempty slice
// that is empty but not nil is left out of the encoding, so it decodes as
// nil.
func normalize(m protocol.Message) protocol.Message {
	switch m := m.(type) {
	case protocol.Result:
		if m.Samples != nil {
			s := make([]protocol.Sample, len(m.Samples))
			copy(s, m.Samples)
			for i := range s {
				if len(s[i].Extra) == 0 {
					s[i].Extra = nil
				}
			}
			m.Samples = s
		}
		return m
	case protocol.Window:
		if len(m.Totals) == 0 {
			m.Totals = nil
		}
		return m
	case protocol.Request:
		if len(m.Config.WindowMetrics) == 0 {
			m.Config.WindowMetrics = nil
		}
		return m
	case protocol.Listing:
		if m.Identities != nil {
			ids := make([]protocol.Listed, len(m.Identities))
			copy(ids, m.Identities)
			for i := range ids {
				if len(ids[i].Calibration) == 0 {
					ids[i].Calibration = nil
				}
			}
			m.Identities = ids
		}
		return m
	}
	return m
}

// payload returns the payload of a frame (the bytes after the length).
func payload(frame []byte) []byte { return frame[4:] }

// rawFrame frames a kind and a body without any check.
func rawFrame(k protocol.Kind, body []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)+1))
	out = append(out, byte(k))
	return append(out, body...)
}
