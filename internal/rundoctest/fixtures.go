// Package rundoctest holds the run documents the tests of rundoc and
// report share: small, hand-built documents (GreenDoc, ErrorDoc,
// CountedDoc, WindowDoc, ...) whose summaries are computed the way the
// supervisor is specified to, so that every renderer's golden file and the
// JSON writer's describe the same runs. Tests only.
package rundoctest

import (
	"errors"
	"math"
	"slices"

	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/internal/statsconv"
	"github.com/benchsup/benchsup/rundoc"
)

func U64(v uint64) *uint64 { return &v }

// SamplesOf builds samples of n iterations each, one per ns/op value, with
// the given allocation totals per iteration (nil: not measured) and extra
// units.
func SamplesOf(n int64, bytesPerOp, allocsPerOp *uint64, extra map[string]float64, nsPerOp ...float64) []rundoc.Sample {
	var out []rundoc.Sample
	for _, ns := range nsPerOp {
		s := rundoc.Sample{Iterations: n, ElapsedNs: int64(ns * float64(n)), Extra: extra}
		if bytesPerOp != nil {
			s.AllocBytes = U64(*bytesPerOp * uint64(n))
		}
		if allocsPerOp != nil {
			s.Allocs = U64(*allocsPerOp * uint64(n))
		}
		out = append(out, s)
	}
	return out
}

// BenchRow builds an "ok" benchmark row whose Summary is computed from its
// processes' samples the way the supervisor is specified to compute it, so
// fixtures are consistent with themselves.
func BenchRow(pkg, name string, procs ...[]rundoc.Sample) rundoc.Row {
	r := rundoc.Row{Package: pkg, Name: name, Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK}
	for i, ss := range procs {
		p := rundoc.ProcessResult{Index: i, PID: 4100 + i, Outcome: rundoc.OutcomeOK, Samples: ss}
		if st, ok := (stats.Process{Index: i, Samples: statsconv.Samples(ss)}).NsPerOp(); ok {
			ds := statsconv.DocStats(st)
			p.NsPerOp = &ds
		}
		r.Processes = append(r.Processes, p)
	}
	r.Summary = Summarize(r.Processes)
	return r
}

// Summarize computes a Summary from the processes that have samples.
func Summarize(procs []rundoc.ProcessResult) *rundoc.Summary {
	var per []stats.Stats
	var mps []stats.Process
	s := &rundoc.Summary{Metrics: map[string]*float64{}}
	for _, p := range procs {
		if p.NsPerOp == nil {
			continue
		}
		if len(per) == 0 {
			s.Iterations = p.Samples[0].Iterations
			s.MinNs, s.MaxNs = p.NsPerOp.Min, p.NsPerOp.Max
		}
		per = append(per, statsconv.Stats(*p.NsPerOp))
		mps = append(mps, stats.Process{Index: p.Index, Samples: statsconv.Samples(p.Samples)})
		s.Samples += len(p.Samples)
		s.MinNs, s.MaxNs = min(s.MinNs, p.NsPerOp.Min), max(s.MaxNs, p.NsPerOp.Max)
	}
	a, ok := stats.Combine(per)
	if !ok {
		return nil
	}
	s.Processes, s.MedianNs = a.Processes, a.Median
	medians := make([]float64, len(per))
	for i, st := range per {
		medians[i] = st.Median
		if st.N > 1 {
			within := a.Within
			s.WithinMADNs = &within
		}
	}
	if iv, ok := stats.MedianInterval(medians, 0.95); ok {
		s.Interval = &rundoc.Interval{LowNs: iv.Low, HighNs: iv.High, Confidence: iv.Confidence}
	}
	s.MeanOfProcessMediansNs, s.SDOfProcessMediansNs, s.CVOfProcessMedians = moments(medians)
	metric := func(unit string, f func(stats.Process) (stats.Stats, bool)) {
		var ms []stats.Stats
		for _, p := range mps {
			st, ok := f(p)
			if !ok {
				s.Metrics[unit] = nil // some process lacks it
				return
			}
			ms = append(ms, st)
		}
		c, _ := stats.Combine(ms)
		s.Metrics[unit] = &c.Median
	}
	var units []string
	for _, p := range mps {
		for _, u := range p.ExtraUnits() {
			if !slices.Contains(units, u) {
				units = append(units, u)
			}
		}
		if _, ok := p.BytesPerOp(); ok && !slices.Contains(units, "B/op") {
			units = append(units, "B/op", "allocs/op")
		}
	}
	for _, u := range units {
		switch u {
		case "B/op":
			metric(u, stats.Process.BytesPerOp)
		case "allocs/op":
			metric(u, stats.Process.AllocsPerOp)
		default:
			metric(u, func(p stats.Process) (stats.Stats, bool) { return p.Extra(u) })
		}
	}
	return s
}

func MetaOf(mode string, repetitions int) rundoc.Meta {
	return rundoc.Meta{
		Date:            "2026-03-01T12:00:00Z",
		Hostname:        "bench-host",
		OS:              "linux",
		Arch:            "amd64",
		CPU:             "AMD EPYC 7B13",
		GoVersion:       "go1.26.8",
		GOMAXPROCS:      2,
		Module:          "github.com/acme/shop",
		BenchsupVersion: "v0.1.0",
		Mode:            mode,
		Knobs: rundoc.Knobs{
			Bench:            ".",
			SampleTimeNs:     10_000_000,
			SampleCount:      3,
			Repetitions:      repetitions,
			TimeoutNs:        600_000_000_000,
			StartupTimeoutNs: 10_000_000_000,
			Order:            "interleaved",
		},
		Environment: rundoc.Environment{Policy: "strict", NamesHash: "9f2c41d0"},
		Containment: "cgroup",
		Provenance: rundoc.Provenance{Injection: "overlay", Workers: []string{"github.com/acme/shop/zz_benchsup_0123456789ab/worker"}, Toolchain: "go1.26.8",
			Builds: []rundoc.BuildCompare{{Package: "github.com/acme/shop/codec", Plain: SameFacts, Measured: SameFacts, Same: true}}},
	}
}

var SameFacts = rundoc.BuildFacts{GoLine: "1.20", BuildList: "sha256:5d41402abc4b2a76b9719d911017c592", Modules: 4, Toolchain: "go1.26.8"}

// GreenDoc is an all-green run: two packages, three processes per
// benchmark, every metric kind, and one metric some process lacks.
func GreenDoc() rundoc.Document {
	m := MetaOf(rundoc.ModeBench, 3)
	raised := SameFacts
	raised.GoLine = "1.21"
	m.Provenance.Builds = append(m.Provenance.Builds, rundoc.BuildCompare{Package: "github.com/acme/shop/store", Plain: SameFacts, Measured: raised,
		Note: "go line 1.20 => 1.21"})
	mbs := func(v float64) map[string]float64 { return map[string]float64{"MB/s": v} }
	return rundoc.Document{Schema: rundoc.SchemaVersion, Meta: m, Rows: []rundoc.Row{
		BenchRow("github.com/acme/shop/codec", "BenchmarkEncode/size=1K",
			SamplesOf(1000, U64(1024), U64(2), mbs(830.5), 1234, 1240, 1229),
			SamplesOf(1000, U64(1024), U64(2), mbs(815.25), 1250, 1262, 1255),
			SamplesOf(1000, U64(1024), U64(2), mbs(828), 1231, 1236, 1238)),
		BenchRow("github.com/acme/shop/codec", "BenchmarkDecode",
			SamplesOf(10, U64(65536), U64(40), nil, 1.52e6, 1.55e6, 1.51e6),
			SamplesOf(10, U64(65536), U64(40), nil, 1.61e6, 1.58e6, 1.6e6),
			SamplesOf(10, U64(65536), U64(41), nil, 1.49e6, 1.5e6, 1.53e6)),
		BenchRow("github.com/acme/shop/store", "BenchmarkGet",
			SamplesOf(1_000_000_000, U64(0), U64(0), nil, 0.3125, 0.3128, 0.3131),
			SamplesOf(1_000_000_000, U64(0), U64(0), nil, 0.3119, 0.3122, 0.3140),
			SamplesOf(1_000_000_000, U64(0), U64(0), nil, 0.3126, 0.3127, 0.3129)),
		// Custom units, one of which only some processes report: its
		// summary cell is unavailable, not 0.
		BenchRow("github.com/acme/shop/store", "BenchmarkScan",
			SamplesOf(100, nil, nil, map[string]float64{"rows/op": 128, "hit-ratio": 0.875}, 98500, 99100, 98800),
			SamplesOf(100, nil, nil, map[string]float64{"rows/op": 128}, 101200, 100900, 101000),
			SamplesOf(100, nil, nil, map[string]float64{"rows/op": 128, "hit-ratio": 0.9}, 99000, 98700, 98900)),
	}}
}

func Str(s string) *string { return &s }

// ErrorDoc is a run with every kind of non-green row: a skip, a timeout in
// One of two processes, a benchmark failure, and a package that did not
// build; a green row sits between them to show error rows sorting last.
func ErrorDoc() rundoc.Document {
	m := MetaOf(rundoc.ModeBench, 2)
	m.Containment = "process-group"
	m.ContainmentNote = "cgroup2 not writable: /sys/fs/cgroup is read-only"
	encode := BenchRow("github.com/acme/shop/codec", "BenchmarkEncode/size=1K",
		SamplesOf(1000, U64(1024), U64(2), nil, 1234, 1240, 1229),
		SamplesOf(1000, U64(1024), U64(2), nil, 1250, 1262, 1255))

	// One process measured, the second hung: the row is an error row,
	// and the process that did measure stays in the document.
	stream := BenchRow("github.com/acme/shop/codec", "BenchmarkStream",
		SamplesOf(50, U64(4096), U64(8), nil, 2.1e5, 2.12e5, 2.08e5))
	stream.Outcome = "execution-timeout"
	stream.Error = Str("benchmark exceeded its 10m0s deadline; sent SIGTERM, then SIGKILL to the process group after 5s")
	stream.Output = "goroutine 7 [running]:\ngithub.com/acme/shop/codec.(*Stream).Next(...)\n\t/src/codec/stream.go:88 +0x1d\n[benchsup: 12288 earlier bytes omitted]\n"
	stream.Processes = append(stream.Processes, rundoc.ProcessResult{
		Index: 1, PID: 4201, Outcome: "execution-timeout",
		Error: Str("no result within 10m0s"),
	})

	fail := rundoc.Row{
		Package: "github.com/acme/shop/codec", Name: "BenchmarkLegacy", Kind: rundoc.KindBenchmark,
		Outcome: "benchmark-failure",
		Error:   Str("legacy_test.go:31: fixture missing: testdata/legacy.bin"),
		Output:  "--- FAIL: BenchmarkLegacy\n    legacy_test.go:31: fixture missing: testdata/legacy.bin\n",
		Processes: []rundoc.ProcessResult{
			{Index: 0, PID: 4300, Outcome: "benchmark-failure", Error: Str("legacy_test.go:31: fixture missing: testdata/legacy.bin")},
			{Index: 1, PID: 4301, Outcome: "benchmark-failure", Error: Str("legacy_test.go:31: fixture missing: testdata/legacy.bin")},
		},
	}
	skip := rundoc.Row{
		Package: "github.com/acme/shop/codec", Name: "BenchmarkGPU", Kind: rundoc.KindBenchmark,
		Outcome: rundoc.OutcomeSkipped, Skipped: Str("no CUDA device"),
		Processes: []rundoc.ProcessResult{{Index: 0, PID: 4400, Outcome: rundoc.OutcomeSkipped}},
	}
	build := rundoc.Row{
		Package: "github.com/acme/shop/broken", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeBuildFailure,
		Error:  Str("broken/broken.go:12:2: undefined: frobnicate"),
		Output: "# github.com/acme/shop/broken\nbroken/broken.go:12:2: undefined: frobnicate\nbroken/broken.go:19:9: too many errors\n",
	}
	return rundoc.Document{Schema: rundoc.SchemaVersion, Meta: m, Rows: []rundoc.Row{stream, fail, encode, skip, build}}
}

func Ns(v int64) *int64 { return &v }

// TestsDoc is a test-mode run: passes, a skip, a plain failure, a crash, a
// passing package and a package that did not build.
func TestsDoc() rundoc.Document {
	m := MetaOf(rundoc.ModeTest, 1)
	m.Knobs.Bench, m.Knobs.Run = "", "."
	m.GOMAXPROCS = 2
	const codec, store, broken = "github.com/acme/shop/codec", "github.com/acme/shop/store", "github.com/acme/shop/broken"
	return rundoc.Document{Schema: rundoc.SchemaVersion, Meta: m, Rows: []rundoc.Row{
		{Package: codec, Name: "TestRoundTrip", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: Ns(120_000_000), Paused: []string{"TestRoundTrip/empty"}},
		{Package: codec, Name: "TestRoundTrip/empty", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: Ns(0)},
		{Package: codec, Name: "TestGPU", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeSkipped, Skipped: Str("no CUDA device"), ElapsedNs: Ns(0)},
		{Package: codec, Name: "TestLegacy", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeTestFail, ElapsedNs: Ns(30_000_000),
			Error:  Str("legacy_test.go:40: got 3 frames, want 4"),
			Output: "    legacy_test.go:40: got 3 frames, want 4\n"},
		{Package: codec, Name: "TestHuge", Kind: rundoc.KindTest, Outcome: "signal",
			Error:  Str("killed by SIGSEGV"),
			Output: "unexpected fault address 0x0\nfatal error: fault\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1f2c]\n"},
		// The supervisor marks a package whose tests failed "fail".
		{Package: codec, Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeTestFail, ElapsedNs: Ns(1_532_000_000)},
		{Package: store, Name: "TestPut", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: Ns(10_000_000)},
		{Package: store, Name: "TestGet", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK, ElapsedNs: Ns(4_000_000)},
		{Package: store, Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeOK, ElapsedNs: Ns(210_000_000)},
		{Package: broken, Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeBuildFailure,
			Error:  Str("broken/broken.go:12:2: undefined: frobnicate"),
			Output: "broken/broken.go:12:2: undefined: frobnicate\n"},
	}}
}

func I64(v int64) *int64 { return &v }

// CountedColumns is a selection of catalog metrics over three sources, two
// of them diagnostic.
func CountedColumns() []rundoc.Column {
	return []rundoc.Column{
		{Name: "instructions", Header: "instr", Unit: "/op", Format: rundoc.FormatCount, Class: rundoc.ClassQuantitative, Source: "perf-hw"},
		{Name: "ipc", Header: "ipc", Unit: "", Format: rundoc.FormatRatio, Class: rundoc.ClassQuantitative, Source: "perf-hw"},
		{Name: "task-clock", Header: "task-clock", Unit: "/op", Format: rundoc.FormatDuration, Class: rundoc.ClassQuantitative, Source: "perf-sw"},
		{Name: "minflt", Header: "minflt", Unit: "/op", Format: rundoc.FormatCount, Class: rundoc.ClassQuantitative, Source: "tier0"},
		{Name: "rchar", Header: "rchar", Unit: "/op", Format: rundoc.FormatBytes, Class: rundoc.ClassQuantitative, Source: "tier0"},
		{Name: "context-switches", Header: "ctx-sw", Unit: "/op", Format: rundoc.FormatCount, Class: rundoc.ClassDiagnostic, Source: "perf-sw"},
		{Name: "maxrss", Header: "maxrss", Unit: "", Format: rundoc.FormatBytes, Class: rundoc.ClassDiagnostic, Source: "tier0"},
	}
}

// WithCounted attaches counting-pass values to an ok row: one map per
// process (a missing key is a metric that process has no value for), the
// names each process estimated, and the row's absences. The summary holds
// the median over processes of each metric every process has, as the
// supervisor is specified to compute it, nil otherwise; a median over an
// estimate is an estimate.
func WithCounted(r rundoc.Row, cols []rundoc.Column, perProcess []map[string]float64, estimated [][]string, absences ...rundoc.MetricAbsence) rundoc.Row {
	r.CountIterations = I64(1000)
	r.CountMethod = "difference of runs at 1000 and 2000 iterations"
	r.Absences = absences
	s := *r.Summary
	s.Counted = map[string]*float64{}
	for i := range r.Processes {
		r.Processes[i].Counted = perProcess[i]
		if i < len(estimated) {
			r.Processes[i].Estimated = estimated[i]
		}
	}
	for _, c := range cols {
		var vs []float64
		est := false
		for _, p := range r.Processes {
			v, ok := p.Counted[c.Name]
			if !ok {
				vs = nil
				break
			}
			vs = append(vs, v)
			est = est || slices.Contains(p.Estimated, c.Name)
		}
		if vs == nil {
			s.Counted[c.Name] = nil
			continue
		}
		slices.Sort(vs)
		m := (vs[(len(vs)-1)/2] + vs[len(vs)/2]) / 2
		s.Counted[c.Name] = &m
		if est {
			s.EstimatedMetrics = append(s.EstimatedMetrics, c.Name)
		}
	}
	r.Summary = &s
	return r
}

// CountedDoc is a run with a counting pass: perf-hw is unavailable (no
// PMU), perf-sw counts user mode only (a degraded state), one value is an
// estimate, one row lost two metrics to a group that never ran, and two
// columns are diagnostic.
func CountedDoc() rundoc.Document {
	m := MetaOf(rundoc.ModeBench, 2)
	m.Sources = []rundoc.SourceReport{
		{Source: "perf-hw", Available: false,
			Status: "unavailable: no hardware PMU: /sys/bus/event_source/devices has no cpu",
			Absences: []rundoc.SourceAbsence{{Capability: "counting", Metrics: []string{"instructions", "ipc"},
				Reason: "no hardware PMU: /sys/bus/event_source/devices has no cpu"}}},
		{Source: "perf-sw", Available: true,
			Status:   "user-mode counting only (kernel excluded: perf_event_paranoid=2)",
			Absences: []rundoc.SourceAbsence{{Capability: "kernel-counting", Reason: "perf_event_paranoid=2 excludes the kernel"}},
			Degraded: []string{"user-mode counting only (kernel excluded: perf_event_paranoid=2)"}},
		{Source: "tier0", Available: true},
	}
	cols := CountedColumns()
	const codec = "github.com/acme/shop/codec"
	noPMU := func() []rundoc.MetricAbsence {
		return []rundoc.MetricAbsence{
			{Metric: "instructions", Reason: "perf-hw unavailable: no hardware PMU"},
			{Metric: "ipc", Reason: "perf-hw unavailable: no hardware PMU"},
		}
	}
	encode := WithCounted(BenchRow(codec, "BenchmarkEncode/size=1K",
		SamplesOf(1000, U64(1024), U64(2), nil, 1234, 1240, 1229),
		SamplesOf(1000, U64(1024), U64(2), nil, 1250, 1262, 1255)),
		cols, []map[string]float64{
			{"task-clock": 1236.4, "minflt": 0.002, "rchar": 0, "context-switches": 0.0001, "maxrss": 12_345_678},
			{"task-clock": 1251.1, "minflt": 0.003, "rchar": 0, "context-switches": 0.0001, "maxrss": 12_400_000},
		}, nil, noPMU()...)
	decode := WithCounted(BenchRow(codec, "BenchmarkDecode",
		SamplesOf(10, U64(65536), U64(40), nil, 1.52e6, 1.55e6, 1.51e6),
		SamplesOf(10, U64(65536), U64(40), nil, 1.61e6, 1.58e6, 1.6e6)),
		cols, []map[string]float64{
			{"task-clock": 1.518e6, "minflt": 1230, "rchar": 65536, "context-switches": 0.25, "maxrss": 25_165_824},
			{"task-clock": 1.592e6, "minflt": 1239, "rchar": 65536, "context-switches": 0.5, "maxrss": 25_427_968},
		}, [][]string{nil, {"task-clock"}}, noPMU()...)
	scan := WithCounted(BenchRow(codec, "BenchmarkScan",
		SamplesOf(100, U64(512), U64(3), nil, 98500, 99100, 98800),
		SamplesOf(100, U64(512), U64(3), nil, 101200, 100900, 101000)),
		cols, []map[string]float64{
			{"minflt": 3, "rchar": 4608, "context-switches": 2, "maxrss": 13_000_000},
			{"minflt": 3, "rchar": 4608, "maxrss": 13_100_000},
		}, nil, append(noPMU(),
			rundoc.MetricAbsence{Metric: "task-clock", Reason: "not counted: the counter group never got the PMU (time_running was 0)"},
			rundoc.MetricAbsence{Metric: "context-switches", Reason: "not counted in process 1: the counter group never got the PMU (time_running was 0)"})...)
	return rundoc.Document{Schema: rundoc.SchemaVersion, Meta: m, Columns: cols, Rows: []rundoc.Row{encode, decode, scan}}
}

// WindowDoc is a run of one benchmark and three workloads in another
// package: BenchmarkIngest ran in two processes, each with a whole-body
// window and a named one; the second process's named window ended in a
// panic. Between them they hold a window with every component, one whose
// runqueue and disk are unattributed (with a note), a cold request that
// verified partial, PSI readings (one a measured zero), other threads' CPU,
// an error window that keeps its regime stamp, a skipped workload, and an
// unnumbered window (#2) with unavailable values and no note.
func WindowDoc() rundoc.Document {
	m := MetaOf(rundoc.ModeBench, 2)
	const ingest, replay = "github.com/acme/shop/ingest", "github.com/acme/shop/replay"
	encode := BenchRow("github.com/acme/shop/codec", "BenchmarkEncode/size=1K",
		SamplesOf(1000, U64(1024), U64(2), nil, 1234, 1240, 1229),
		SamplesOf(1000, U64(1024), U64(2), nil, 1250, 1262, 1255))
	return rundoc.Document{Schema: rundoc.SchemaVersion, Meta: m, Rows: []rundoc.Row{encode}, Windows: []rundoc.Window{
		{
			Package: ingest, Workload: "BenchmarkIngest", Name: "BenchmarkIngest", Process: 0, Reps: 1,
			WallNs: 152_345_678, Scope: rundoc.ScopeThread,
			OnCPUUserNs: I64(98_765_432), OnCPUKernelNs: I64(12_345_678), OffCPURunqueueNs: I64(1_234_567),
			OffCPUDiskNs: I64(20_000_000), OffCPUOtherNs: I64(20_000_001), OtherThreadsCPUNs: I64(2_345_678),
			Totals: map[string]float64{"tier0.read-bytes": 16_777_216, "tier0.syscr": 4098, "perf-sw.task-clock": 111_111_110},
			PSI:    &rundoc.WindowPSI{Scope: "system", IOSomeNs: 3_456_789, IOFullNs: 1_234_000, CPUSomeNs: 812_000},
			Regime: &rundoc.WindowRegime{Requested: "cold", Effective: "cold",
				ResidentBefore: 16_777_216, ResidentAfter: 0, TotalBytes: 16_777_216},
		},
		{
			Package: ingest, Workload: "BenchmarkIngest", Name: "BenchmarkIngest/parse", Process: 0, Reps: 3,
			WallNs: 45_678_901, Scope: rundoc.ScopeThread,
			OnCPUUserNs: I64(40_123_456), OnCPUKernelNs: I64(2_345_678), OffCPUOtherNs: I64(3_209_767),
			OtherThreadsCPUNs: I64(0),
			Totals:            map[string]float64{"tier0.syscr": 12},
			PSI:               &rundoc.WindowPSI{Scope: "system"},
			Note: "runqueue: /proc/thread-self/schedstat unreadable: permission denied; " +
				"disk: not attributed (no per-cgroup io.pressure)",
		},
		{
			Package: ingest, Workload: "BenchmarkIngest", Name: "BenchmarkIngest", Process: 1, Reps: 1,
			WallNs: 160_012_345, Scope: rundoc.ScopeThread,
			OnCPUUserNs: I64(97_000_000), OnCPUKernelNs: I64(13_000_000), OffCPURunqueueNs: I64(2_000_000),
			OffCPUOtherNs: I64(48_012_345), OtherThreadsCPUNs: I64(1_500_000),
			Totals: map[string]float64{"tier0.read-bytes": 16_355_328, "tier0.syscr": 4098},
			PSI:    &rundoc.WindowPSI{Scope: "system", IOSomeNs: 9_876_543, IOFullNs: 4_500_000, MemSomeNs: 125_000, CPUSomeNs: 2_000_000},
			Regime: &rundoc.WindowRegime{Requested: "cold", Effective: "partial",
				ResidentBefore: 16_777_216, ResidentAfter: 421_888, TotalBytes: 16_777_216,
				Note: "pages mapped by another process stay resident"},
			Note: "disk: not attributed (no per-cgroup io.pressure)",
		},
		{
			Package: ingest, Workload: "BenchmarkIngest", Name: "BenchmarkIngest/parse", Process: 1, Reps: 3,
			Scope:  rundoc.ScopeThread,
			Regime: &rundoc.WindowRegime{Requested: "warm", Effective: "warm", ResidentBefore: 0, ResidentAfter: 16_777_216, TotalBytes: 16_777_216},
			Error: Str("benchmark-failure: panic: runtime error: index out of range [3] with length 3\n" +
				"goroutine 9 [running]:\ngithub.com/acme/shop/ingest.parse(...)\n\t/src/ingest/parse.go:41 +0x1d"),
		},
		{
			Package: replay, Workload: "BenchmarkReplay", Name: "BenchmarkReplay", Process: 0, Reps: 1,
			Scope: rundoc.ScopeThread, Skipped: Str("no replay corpus in testdata/replay"),
		},
		{
			Package: ingest, Workload: "BenchmarkCompact", Name: "BenchmarkCompact", Process: 0, Reps: 1,
			WallNs: 1_234_567_890, Scope: rundoc.ScopeThread,
			OnCPUUserNs: I64(1_100_000_000), OnCPUKernelNs: I64(100_000_000), OffCPURunqueueNs: I64(4_567_890),
			OffCPUOtherNs: I64(30_000_000), OtherThreadsCPUNs: I64(250_000_000),
			PSI:  &rundoc.WindowPSI{Scope: "system", IOSomeNs: 512},
			Note: "disk: not attributed (no per-cgroup io.pressure)",
		},
		{
			Package: ingest, Workload: "BenchmarkCompact", Name: "#2", Process: 0, Reps: 1,
			WallNs: 999, Scope: rundoc.ScopeThread,
			OnCPUUserNs: I64(600), OnCPUKernelNs: I64(0), OffCPURunqueueNs: I64(0), OffCPUOtherNs: I64(399),
			OtherThreadsCPUNs: I64(0),
		},
	}}
}

// WindowsOnlyDoc is WindowDoc without its benchmark: a run of workloads
// only.
func WindowsOnlyDoc() rundoc.Document {
	doc := WindowDoc()
	doc.Rows = nil
	return doc
}

var ErrWrite = errors.New("disk full")

type FailWriter struct{}

func (FailWriter) Write([]byte) (int, error) { return 0, ErrWrite }

func F64(v float64) *float64 { return &v }

// Stat is a WindowStat; spread < 0 means none (one process).
func Stat(median, spread, lo, hi float64) *rundoc.WindowStat {
	s := &rundoc.WindowStat{Median: median, Min: lo, Max: hi}
	if spread >= 0 {
		s.Spread = F64(spread)
	}
	return s
}

// One is the WindowStat of a quantity a single process measured.
func One(v float64) *rundoc.WindowStat { return Stat(v, -1, v, v) }

// WindowSummaryList are WindowDoc's windows summarized across processes, as
// the supervisor summarizes them (supervisor/windows_test.go pins that
// arithmetic): BenchmarkIngest over two processes, one of which could not
// attribute disk wait and verified its cold prep only partially;
// BenchmarkIngest/parse measured by process 0 only, process 1 having
// panicked; BenchmarkReplay skipped; and BenchmarkCompact's two windows.
func WindowSummaryList() []rundoc.WindowSummary {
	const ingest, replay = "github.com/acme/shop/ingest", "github.com/acme/shop/replay"
	const disk = "disk: not attributed (no per-cgroup io.pressure)"
	return []rundoc.WindowSummary{
		{
			Package: ingest, Workload: "BenchmarkIngest", Name: "BenchmarkIngest", Processes: 2, Reps: 1, Scope: rundoc.ScopeThread,
			WallNs:            Stat(156_179_011.5, 3_833_333.5, 152_345_678, 160_012_345),
			OnCPUUserNs:       Stat(97_882_716, 882_716, 97_000_000, 98_765_432),
			OnCPUKernelNs:     Stat(12_672_839, 327_161, 12_345_678, 13_000_000),
			OffCPURunqueueNs:  Stat(1_617_283.5, 382_716.5, 1_234_567, 2_000_000),
			OffCPUOtherNs:     Stat(34_006_173, 14_006_172, 20_000_001, 48_012_345),
			OtherThreadsCPUNs: Stat(1_922_839, 422_839, 1_500_000, 2_345_678),
			IOStallNs:         Stat(6_666_666, 3_209_877, 3_456_789, 9_876_543),
			Totals:            map[string]*float64{"tier0.read-bytes": F64(16_566_272), "tier0.syscr": F64(4098), "perf-sw.task-clock": nil},
			Regimes: []rundoc.WindowRegimeCount{
				{Requested: "cold", Effective: "cold", Processes: []int{0}},
				{Requested: "cold", Effective: "partial", Processes: []int{1}},
			},
			Note: "proc 1: " + disk,
		},
		{
			Package: ingest, Workload: "BenchmarkIngest", Name: "BenchmarkIngest/parse", Processes: 1, Unmeasured: 1, Reps: 3, Scope: rundoc.ScopeThread,
			WallNs: One(45_678_901), OnCPUUserNs: One(40_123_456), OnCPUKernelNs: One(2_345_678), OffCPUOtherNs: One(3_209_767),
			OtherThreadsCPUNs: One(0), IOStallNs: One(0),
			Totals:  map[string]*float64{"tier0.syscr": F64(12)},
			Regimes: []rundoc.WindowRegimeCount{{Requested: "warm", Effective: "warm", Processes: []int{1}}},
			Note: "runqueue: /proc/thread-self/schedstat unreadable: permission denied; " + disk +
				"; proc 1 not summarized (error: benchmark-failure: panic: runtime error: index out of range [3] with length 3)",
		},
		{
			Package: replay, Workload: "BenchmarkReplay", Name: "BenchmarkReplay", Unmeasured: 1, Reps: 1, Scope: rundoc.ScopeThread,
			Totals: map[string]*float64{}, Skipped: Str("no replay corpus in testdata/replay"),
		},
		{
			Package: ingest, Workload: "BenchmarkCompact", Name: "BenchmarkCompact", Processes: 1, Reps: 1, Scope: rundoc.ScopeThread,
			WallNs: One(1_234_567_890), OnCPUUserNs: One(1_100_000_000), OnCPUKernelNs: One(100_000_000),
			OffCPURunqueueNs: One(4_567_890), OffCPUOtherNs: One(30_000_000), OtherThreadsCPUNs: One(250_000_000), IOStallNs: One(512),
			Totals: map[string]*float64{}, Note: disk,
		},
		{
			Package: ingest, Workload: "BenchmarkCompact", Name: "#2", Processes: 1, Reps: 1, Scope: rundoc.ScopeThread,
			WallNs: One(999), OnCPUUserNs: One(600), OnCPUKernelNs: One(0), OffCPURunqueueNs: One(0), OffCPUOtherNs: One(399),
			OtherThreadsCPUNs: One(0), Totals: map[string]*float64{},
		},
	}
}

// Summarized returns doc with its windows summarized.
func Summarized(doc rundoc.Document) rundoc.Document {
	doc.WindowSummaries = WindowSummaryList()
	return doc
}

func Fptr(v float64) *float64 { return &v }

func ComparisonFixture() rundoc.Comparison {
	fp := rundoc.Fingerprint{OS: "linux", Arch: "amd64", CPU: "cpu", GOMAXPROCS: 2, GoVersion: "go1.26", Placement: "none"}
	return rundoc.Comparison{
		Schema: rundoc.ComparisonSchemaVersion,
		Old:    rundoc.ComparedRun{Label: "old.json", Date: "2026-12-01T09:00:00Z", Fingerprint: fp},
		New:    rundoc.ComparedRun{Label: "new.json", Date: "2026-12-01T10:00:00Z", Fingerprint: fp},
		Knobs:  rundoc.CompareKnobs{Threshold: 0.02, Confidence: 0.95, Resamples: 10000, Seed: 1},
		Rows: []rundoc.ComparisonRow{
			{Package: "example.com/p", Name: "BenchmarkSlower", Metric: rundoc.MetricTime,
				Old: &rundoc.ComparedValue{Center: Fptr(1234.5), Processes: 5}, New: &rundoc.ComparedValue{Center: Fptr(1604.9), Processes: 5, Outliers: []int{3}},
				Ratio: Fptr(1.3), Low: Fptr(1.27), High: Fptr(1.33), Confidence: Fptr(0.95), P: Fptr(0.0001),
				Method: "hierarchical-bootstrap", Verdict: rundoc.VerdictSlower, Note: "1 outlier process(es) in new (kept)"},
			{Package: "example.com/p", Name: "BenchmarkSame", Metric: rundoc.MetricTime,
				Old: &rundoc.ComparedValue{Center: Fptr(100), Processes: 5}, New: &rundoc.ComparedValue{Center: Fptr(100.1), Processes: 5},
				Ratio: Fptr(1.001), Low: Fptr(0.995), High: Fptr(1.006), Confidence: Fptr(0.95), P: Fptr(0.62),
				Method: "hierarchical-bootstrap", Verdict: rundoc.VerdictEquivalent},
			{Package: "example.com/p", Name: "BenchmarkCrash", Metric: rundoc.MetricTime,
				Old: &rundoc.ComparedValue{Center: Fptr(10), Processes: 5}, New: &rundoc.ComparedValue{Outcome: "signal", Error: Fptr2("killed by SIGSEGV")},
				Verdict: rundoc.VerdictFailed, Note: "new failed: killed by SIGSEGV"},
			{Package: "example.com/q", Name: "BenchmarkGone", Metric: rundoc.MetricTime,
				Old: &rundoc.ComparedValue{Center: Fptr(10), Processes: 5}, Verdict: rundoc.VerdictOnlyOld},
			{Package: "example.com/p", Name: "BenchmarkSlower", Metric: rundoc.MetricBytes,
				Old: &rundoc.ComparedValue{Center: Fptr(64), Processes: 5}, New: &rundoc.ComparedValue{Center: Fptr(128), Processes: 5},
				Ratio: Fptr(2), Method: "exact", Verdict: rundoc.VerdictIncreased},
			{Package: "example.com/p", Name: "BenchmarkSlower", Metric: rundoc.MetricAllocs,
				Old: &rundoc.ComparedValue{Center: Fptr(1), Processes: 5}, New: &rundoc.ComparedValue{Center: Fptr(1), Processes: 5},
				Ratio: Fptr(1), Method: "exact", Verdict: rundoc.VerdictSame},
		},
		Geomeans: []rundoc.Geomean{{Metric: rundoc.MetricTime, Ratio: 1.14, Identities: 2}},
	}
}

func Fptr2(s string) *string { return &s }

// SweepsFixture is a fitted sweep and an unavailable one, as package
// analysis writes them.
func SweepsFixture() []rundoc.Sweep {
	linear := rundoc.ModelLinear
	point := func(v float64, exact, name string, ns float64) rundoc.SweepPoint {
		return rundoc.SweepPoint{Value: v, ValueExact: exact, Name: name, MedianNs: ns,
			Interval:   &rundoc.Interval{LowNs: ns * 0.98, HighNs: ns * 1.03, Confidence: 0.9375},
			Throughput: &rundoc.Throughput{Unit: "B/s", WorkPerOp: v, Median: v / ns * 1e9, Low: Fptr(v / (ns * 1.03) * 1e9), High: Fptr(v / (ns * 0.98) * 1e9)}}
	}
	fit := func(m rundoc.Model, c, e, r2, rms, max float64) rundoc.ModelFit {
		return rundoc.ModelFit{Model: m, Coefficient: c, NominalExponent: e, R2: Fptr(r2), RMSLogResidual: rms, MaxLogResidual: max, Selected: m == linear}
	}
	return []rundoc.Sweep{
		{Package: "example.com/p", Family: "BenchmarkCount/size=*", Parameter: "size", Status: rundoc.SweepFitted, Caveat: rundoc.ScalingCaveat,
			Selected: &linear, Best: &linear,
			Points: []rundoc.SweepPoint{
				point(1024, "1024", "BenchmarkCount/size=1KiB", 2048), point(4096, "4096", "BenchmarkCount/size=4KiB", 8100),
				point(16384, "16384", "BenchmarkCount/size=16KiB", 33000), point(65536, "65536", "BenchmarkCount/size=64KiB", 130000)},
			Models: []rundoc.ModelFit{
				fit(rundoc.ModelConstant, 17000, 0, 0, 1.56, 2.07), fit(rundoc.ModelLog, 1300, 0, 0.22, 1.38, 1.8),
				fit(rundoc.ModelLinear, 2.0, 1, 0.9999, 0.008, 0.012), fit(rundoc.ModelNLogN, 0.15, 1, 0.97, 0.27, 0.35),
				fit(rundoc.ModelQuadratic, 0.0001, 2, -1.6, 1.56, 2.07), fit(rundoc.ModelCubic, 1e-9, 3, -7.7, 3.1, 4.1)},
			Range:            &rundoc.SweepRange{Min: 1024, Max: 65536, MinExact: "1024", MaxExact: "65536"},
			ObservedExponent: Fptr(0.998), ExponentStdError: Fptr(0.004),
			Omitted: []rundoc.SweepOmission{{Name: "BenchmarkCount/size=0KiB", Reason: `"0KiB" is not a positive number`}}},
		{Package: "example.com/p", Family: "BenchmarkHash/impl=fnv/n=*", Parameter: "n", Status: rundoc.SweepUnavailable, Caveat: rundoc.ScalingCaveat,
			Reason: "2 points with a measured time; a fit needs at least 4",
			Points: []rundoc.SweepPoint{
				{Value: 8, ValueExact: "8", Name: "BenchmarkHash/impl=fnv/n=8", MedianNs: 12},
				{Value: 1.8446744073709552e19, ValueExact: "18446744073709551617", Name: "BenchmarkHash/impl=fnv/n=18446744073709551617", MedianNs: 99}},
			Range: &rundoc.SweepRange{Min: 8, Max: 1.8446744073709552e19, MinExact: "8", MaxExact: "18446744073709551617"}},
	}
}

// SweepChangesFixture is a comparison's sweep lines.
func SweepChangesFixture() []rundoc.SweepChange {
	linear, nlogn := rundoc.ModelLinear, rundoc.ModelNLogN
	return []rundoc.SweepChange{{Package: "example.com/p", Family: "BenchmarkCount/size=*", Old: &linear, New: &nlogn,
		OldExponent: 1.0, NewExponent: 1.09, Difference: 0.09, StdError: 0.01, ModelChanged: true, ExponentChanged: true,
		Text: "linear → n log n over 1KiB–1MiB"}}
}

// RecordingOf builds a recording of one identity whose spans (durations in
// ns, outcomes cycling success, success, success, failure) are all
// retained, its summary computed the way package record specifies (type 7
// percentiles, exact extremes and mean), so it is consistent with itself.
func RecordingOf(source, identity string, withSpans bool, durations ...int64) rundoc.Recording {
	r := rundoc.Recording{Source: source, Identity: identity, SampleSemantics: rundoc.SampleSemanticsSpan,
		Retention: rundoc.RecordingRetention{Policy: "reservoir", Capacity: 10000}}
	sorted := make([]float64, len(durations))
	var sum float64
	for i, d := range durations {
		o := "success"
		if i%4 == 3 {
			o = "failure"
			r.Outcomes.Failure++
		} else {
			r.Outcomes.Success++
		}
		if withSpans {
			r.Spans = append(r.Spans, rundoc.RecordedSpan{Observation: int64(i + 1), StartNs: int64(i) * 1_000_000, DurationNs: d, Outcome: o})
		}
		sorted[i] = float64(d)
		sum += float64(d)
	}
	n := int64(len(durations))
	r.Observations, r.Retained = n, n
	if n == 0 {
		return r
	}
	slices.Sort(sorted)
	q := func(p float64) float64 {
		h := p * float64(n-1)
		lo := int(h)
		if lo+1 >= len(sorted) {
			return sorted[lo]
		}
		return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
	}
	s := &rundoc.RecordingSummary{PercentilesOver: rundoc.OverAll, Spans: n,
		MedianNs: q(0.5), P90Ns: q(0.9), P95Ns: q(0.95), P99Ns: q(0.99),
		MinNs: int64(sorted[0]), MaxNs: int64(sorted[n-1]), MeanNs: sum / float64(n)}
	if n >= 2 {
		// The whole range: the interval of the fewest spans, at the
		// confidence 1 - 2^(1-n) it then achieves.
		s.Interval = &rundoc.RecordingInterval{LowNs: sorted[0], HighNs: sorted[n-1], Confidence: 1 - 2/float64(int64(1)<<min(n, 62))}
	}
	r.Summary = s
	return r
}

// RecordingsFixture is two recorded identities of a program: "request"
// with its retained spans, "job" whose spans were not kept.
func RecordingsFixture() []rundoc.Recording {
	return []rundoc.Recording{
		RecordingOf("./cmd/server", "request", true, 1_210_000, 980_000, 1_050_000, 2_400_000, 1_120_000, 1_010_000, 990_000, 5_800_000, 1_100_000, 1_030_000),
		RecordingOf("./cmd/server", "job", false, 40_000_000, 38_500_000, 41_200_000, 39_900_000),
	}
}

// moments are analysis.MomentsOfMedians' mean, sd and cv, which this
// package cannot import (analysis's tests import it); TestFixtureMoments
// in analysis checks that the two agree.
func moments(medians []float64) (mean, sd, cv *float64) {
	sum := 0.0
	for _, m := range medians {
		sum += m
	}
	mu := sum / float64(len(medians))
	if len(medians) < 2 {
		return &mu, nil, nil
	}
	ss := 0.0
	for _, m := range medians {
		ss += (m - mu) * (m - mu)
	}
	d := math.Sqrt(ss / float64(len(medians)-1))
	if mu == 0 {
		return &mu, &d, nil
	}
	c := d / mu
	return &mu, &d, &c
}
