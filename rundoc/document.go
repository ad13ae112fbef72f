package rundoc

import "fmt"

// SchemaVersion is the version of the JSON document; it changes whenever a
// field is removed, renamed or retyped.
const SchemaVersion = 1

// Document is one run: what ran, on what, and every result. It is the single
// input of every renderer. Pointers and nil mean "not available": a renderer
// prints an em dash (table), null (JSON) or nothing (benchfmt), never 0.
type Document struct {
	Schema int  `json:"schema"`
	Meta   Meta `json:"meta"`
	// Interrupted is set when a signal ended the run early: the results
	// are partial. Absent for a run that ended by itself.
	Interrupted *Interruption `json:"interrupted,omitempty"`
	// Columns are the catalog metrics the run selected (package sources),
	// in the order the table shows them; their values are in each row's
	// Summary.Counted. Empty when no counting pass was asked for.
	Columns []Column `json:"columns"`
	Rows    []Row    `json:"rows"`
	// Windows holds every measured window of every workload process, in
	// measurement order; absent (not empty) when no workload ran, so a
	// windowless document keeps its earlier shape.
	Windows []Window `json:"windows,omitempty"`
	// WindowSummaries holds one summary per window of a workload (package,
	// workload and window name) across its processes, in order of first
	// measurement: what the table shows. Absent when no workload ran.
	WindowSummaries []WindowSummary `json:"windowSummaries,omitempty"`
	// Sweeps holds the run's sweep families and their scaling fits
	// (package analysis), one per family; absent when the run has none,
	// so a document without sweeps keeps its earlier bytes.
	Sweeps []Sweep `json:"sweeps,omitempty"`
	// Recordings holds one recording per identity of package record (a
	// program run by benchsup record, or a test that recorded spans);
	// absent when nothing was recorded, so other documents keep their
	// bytes.
	Recordings []Recording `json:"recordings,omitempty"`
	// Comparisons holds, for a run with --against or --baseline, how the
	// working tree's numbers compare with each other build's; absent
	// otherwise.
	Comparisons []Comparison `json:"comparisons,omitempty"`
}

// Interruption is the signal that ended a run early, and how many of its
// identities it left unstarted (the rows with outcome "not-run").
type Interruption struct {
	Signal string `json:"signal"` // "SIGINT" or "SIGTERM"
	NotRun int    `json:"notRun"`
}

// WindowSummary is one window of one workload across the fresh processes
// that measured it, as Summary is a benchmark's: the median of the
// per-process values, with the spread between processes. The process is the
// unit: each contributes its one value of each quantity, and each quantity
// is summarized on its own, so the component medians need not add up to
// the median wall. Durations are nanoseconds; a nil quantity is unavailable
// (some measured process did not attribute it; Note says why).
type WindowSummary struct {
	Package  string `json:"package"`
	Workload string `json:"workload"`
	Name     string `json:"name"`
	// Processes counts the processes whose window was measured and is
	// summarized; Unmeasured those whose process failed or skipped
	// (Window.Error, Window.Skipped): their windows stay in Windows, out of
	// the summary.
	Processes  int `json:"processes"`
	Unmeasured int `json:"unmeasured"`
	Reps       int `json:"reps"`
	// Scope is the measured windows' shared decomposition scope, or
	// "mixed" (then no component is summarized).
	Scope             string      `json:"scope"`
	WallNs            *WindowStat `json:"wallNs"` // nil when no process measured the window
	OnCPUUserNs       *WindowStat `json:"onCpuUserNs"`
	OnCPUKernelNs     *WindowStat `json:"onCpuKernelNs"`
	OffCPURunqueueNs  *WindowStat `json:"offCpuRunqueueNs"`
	OffCPUDiskNs      *WindowStat `json:"offCpuDiskNs"`
	OffCPUOtherNs     *WindowStat `json:"offCpuOtherNs"`
	OtherThreadsCPUNs *WindowStat `json:"otherThreadsCpuNs"`
	// IOStallNs is the system-wide PSI io "some" stall during the window:
	// a diagnostic, never attributed to the workload.
	IOStallNs *WindowStat `json:"ioStallNs"`
	// Totals are medians of the per-process source totals; a total some
	// measured process lacks is null.
	Totals map[string]*float64 `json:"totals"`
	// Regimes are the page-cache stamps of the measured processes' windows,
	// one entry per distinct requested and effective pair.
	Regimes []WindowRegimeCount `json:"regimes,omitempty"`
	// Note holds the notes every measured window shares, then each other
	// note prefixed with its process ("proc 1: ...").
	Note string `json:"note,omitempty"`
	// Error and Skipped are set when no process measured the window: the
	// first unmeasured process's reason.
	Error   *string `json:"error,omitempty"`
	Skipped *string `json:"skipped,omitempty"`
}

// WindowStat is one quantity of a window across processes.
type WindowStat struct {
	Median float64 `json:"median"`
	// Spread is the median absolute deviation of the per-process values
	// from Median: the spread between processes; nil for one process.
	Spread *float64 `json:"spread"`
	Min    float64  `json:"min"`
	Max    float64  `json:"max"`
}

// WindowRegimeCount is one page-cache stamp shared by some processes'
// windows.
type WindowRegimeCount struct {
	Requested string `json:"requested"`
	Effective string `json:"effective"`
	Processes []int  `json:"processes"` // the process indexes whose window had it
}

// Window is one measured window of one workload process: where its
// wall-clock time went. Durations are nanoseconds; nil is unattributable
// (an em dash), its time left in OffCPUOtherNs, with the reason in Note.
type Window struct {
	Package  string `json:"package"`
	Workload string `json:"workload"` // the benchmark identity that ran the workload
	Name     string `json:"name"`     // the window: the workload's name, "#2", or "<workload>/<name>"
	Process  int    `json:"process"`  // repetition index
	Reps     int    `json:"reps"`
	WallNs   int64  `json:"wallNs"`
	// Scope is what the decomposition covers: "thread", "process" or
	// "wall-only".
	Scope            string `json:"scope"`
	OnCPUUserNs      *int64 `json:"onCpuUserNs"`
	OnCPUKernelNs    *int64 `json:"onCpuKernelNs"`
	OffCPURunqueueNs *int64 `json:"offCpuRunqueueNs"`
	OffCPUDiskNs     *int64 `json:"offCpuDiskNs"`
	OffCPUOtherNs    *int64 `json:"offCpuOtherNs"`
	// OtherThreadsCPUNs is CPU the rest of the process burned during the
	// window, disclosed apart from the window thread's decomposition.
	OtherThreadsCPUNs *int64 `json:"otherThreadsCpuNs"`
	// Totals are source totals across the window by source and field
	// ("tier0.read-bytes"): totals, never per-iteration catalog keys.
	Totals map[string]float64 `json:"totals"`
	// PSI is the system-wide stall accumulated during the window: a
	// diagnostic, never attributed to the workload; nil when unavailable.
	PSI    *WindowPSI    `json:"psi,omitempty"`
	Regime *WindowRegime `json:"regime,omitempty"`
	Note   string        `json:"note,omitempty"`
	// Error and Skipped mirror a row's: the process failed or skipped
	// after this window was measured, or before any window was.
	Error   *string `json:"error,omitempty"`
	Skipped *string `json:"skipped,omitempty"`
}

// WindowPSI holds the system-wide pressure-stall deltas of a window.
type WindowPSI struct {
	Scope     string `json:"scope"` // always "system"
	IOSomeNs  int64  `json:"ioSomeNs"`
	IOFullNs  int64  `json:"ioFullNs"`
	MemSomeNs int64  `json:"memSomeNs"`
	MemFullNs int64  `json:"memFullNs"`
	CPUSomeNs int64  `json:"cpuSomeNs"`
}

// WindowRegime is the page-cache regime prepared and verified before the
// window.
type WindowRegime struct {
	Requested      string `json:"requested"`
	Effective      string `json:"effective"`
	ResidentBefore int64  `json:"residentBefore"`
	ResidentAfter  int64  `json:"residentAfter"`
	TotalBytes     int64  `json:"totalBytes"`
	Note           string `json:"note,omitempty"`
}

// Column describes one selected catalog metric.
type Column struct {
	Name   string `json:"name"`   // stable id, the key in Summary.Counted
	Header string `json:"header"` // column label
	Unit   string `json:"unit"`   // "/op" for per-iteration values, "" for levels
	Format string `json:"format"` // "count", "ratio", "bytes", "duration"
	Class  string `json:"class"`  // "quantitative" or "diagnostic" (rendered apart, never gated on)
	Source string `json:"source"` // the source that produces it
}

// Column.Class values. Only a quantitative column is a headline column of
// the table; any other class renders in the table's diagnostics block.
const (
	ClassQuantitative = "quantitative"
	ClassDiagnostic   = "diagnostic"
)

// Column.Format values: how the table prints a counted value. A count is
// a plain number, a ratio a dimensionless quotient (ipc), bytes a size and
// a duration a time in nanoseconds.
const (
	FormatCount    = "count"
	FormatRatio    = "ratio"
	FormatBytes    = "bytes"
	FormatDuration = "duration"
)

// SourceReport is what one measurement source can do on this host, as
// probed for the run.
type SourceReport struct {
	Source    string          `json:"source"`
	Available bool            `json:"available"`
	Status    string          `json:"status"`   // why unavailable, or the degraded state; "" when fully available
	Absences  []SourceAbsence `json:"absences"` // reasoned, in declaration order
	Degraded  []string        `json:"degraded"` // degraded-but-available states, printed once per run
}

// SourceAbsence is a capability a source lacks here, with the metrics it
// takes away and why.
type SourceAbsence struct {
	Capability string   `json:"capability"`
	Metrics    []string `json:"metrics"`
	Reason     string   `json:"reason"`
}

// MetricAbsence is a selected metric a row has no value for, and why.
type MetricAbsence struct {
	Metric string `json:"metric"`
	Reason string `json:"reason"`
}

// Meta is the run's provenance and effective knobs.
type Meta struct {
	Date            string      `json:"date"` // RFC 3339, UTC, second resolution
	Hostname        string      `json:"hostname"`
	OS              string      `json:"os"`
	Arch            string      `json:"arch"`
	CPU             string      `json:"cpu"` // model name, "" when unknown
	GoVersion       string      `json:"goVersion"`
	GOMAXPROCS      int         `json:"gomaxprocs"` // as the children reported it; 0 when none started
	Module          string      `json:"module"`     // main module path of the measured code
	BenchsupVersion string      `json:"benchsupVersion"`
	Mode            string      `json:"mode"` // "bench" or "test"
	Knobs           Knobs       `json:"knobs"`
	Environment     Environment `json:"environment"`
	// Sources are the probes of the sources the selected metrics need
	// (for the default set, every source it draws on, so that one this
	// host lacks is named with its reason); empty when no counting pass
	// was asked for.
	Sources         []SourceReport `json:"sources"`
	Containment     string         `json:"containment"`     // "cgroup" or "process-group"
	ContainmentNote string         `json:"containmentNote"` // why not cgroup, when not
	Provenance      Provenance     `json:"provenance"`
	// BuildFlags are the go build flags every go command of the build got
	// (-tags=..., -race, -cover, ...); absent when none.
	BuildFlags []string `json:"buildFlags,omitempty"`
	// Warnings say why a benchmark run's numbers are not those of the code
	// users run (a build with -race, -cover, -gcflags=-N ...:
	// BuildFlagWarnings), one sentence each; absent when none.
	Warnings []string `json:"warnings,omitempty"`
	// DryRun says every benchmark ran once (--dry-run) and the document
	// holds no numbers (MarkDryRun); absent otherwise.
	DryRun bool `json:"dryRun,omitempty"`
	// Shard is the part of the run's benchmark functions this document
	// holds (--shard=K/N), or for a merged document the parts it joins;
	// absent for a whole run.
	Shard *ShardInfo `json:"shard,omitempty"`
	// Placement is the CPUs the children were pinned to (--cpus); absent
	// when they were not.
	Placement *Placement `json:"placement,omitempty"`
	// Interference is how the run watched for foreign load between
	// samples; absent when it did not (test mode, --interference=off).
	Interference *InterferencePolicy `json:"interference,omitempty"`
	// Quiescence is what the preflight saw; absent when none ran.
	Quiescence *Quiescence `json:"quiescence,omitempty"`
	// Claim is the run's claim on the host's CPUs; absent without one.
	Claim *HostClaim `json:"claim,omitempty"`
	// Limits are the children's resource limits and the cgroups that
	// applied them and measured their peak memory; absent when no child
	// was spawned.
	Limits *Limits `json:"limits,omitempty"`
}

// ShardInfo is which part of a sharded run a document holds.
type ShardInfo struct {
	Index int `json:"index"` // K, from 1; 0 in a merged document
	Count int `json:"count"` // N
	// Method is how functions were dealt to parts: "hash" (by the hash of
	// package and function: adding one moves no other) or "balanced" (by
	// a previous run's durations, longest first, then by hash).
	Method string `json:"method"`
	// Functions counts the top-level benchmark functions of this part.
	Functions int `json:"functions"`
	// Merged lists, in a merged document, each part it joins: its index,
	// host and date.
	Merged []MergedPart `json:"merged,omitempty"`
}

// MergedPart is one part of a merged document.
type MergedPart struct {
	Index    int    `json:"index"`
	Hostname string `json:"hostname"`
	Date     string `json:"date"`
	// Mismatches are the part's fingerprint fields that differ from the
	// first part's (merged with --allow-mismatch); absent when none.
	Mismatches []FieldDiff `json:"mismatches,omitempty"`
}

// Knobs are the effective settings that shape the numbers.
type Knobs struct {
	Bench            string `json:"bench"`
	Run              string `json:"run"`
	SampleTimeNs     int64  `json:"sampleTimeNs"` // the calibration target of one sample
	SampleCount      int    `json:"sampleCount"`
	Repetitions      int    `json:"repetitions"`
	TimeoutNs        int64  `json:"timeoutNs"`
	StartupTimeoutNs int64  `json:"startupTimeoutNs"`
	Order            string `json:"order"` // how repetitions were scheduled
	// Metrics are the selected catalog metrics (empty: no counting pass);
	// PerfIters and PerfBatch are 0 unless pinned.
	Metrics    []string `json:"metrics"`
	PerfIters  int64    `json:"perfIters"`
	PerfBatch  int64    `json:"perfBatch"`
	PerfScaled bool     `json:"perfScaled"`
	// WindowMetrics are the catalog metrics read at every workload
	// window's edges besides what every window reads; absent when no
	// workload ran.
	WindowMetrics []string `json:"windowMetrics,omitempty"`
	// Iterations is a fixed N per sample (go test's -benchtime=Nx): no
	// benchmark was calibrated. Absent when N was calibrated.
	Iterations int64 `json:"iterations,omitempty"`
	// Short says the children ran with -test.short (go test -short).
	Short bool `json:"short,omitempty"`
}

// Environment describes the children's environment without any value.
type Environment struct {
	Policy    string `json:"policy"`
	NamesHash string `json:"namesHash"`
}

// Provenance records how benchsup's worker got into each test binary and
// proves that the measured build is the build `go test` makes: for every
// package, the facts of the plain build (the go command's view with the
// user's flags) next to those of the measured build (the same view with
// benchsup's overlay, checked against the binary's own build information).
type Provenance struct {
	// Injection says how the worker was linked: "overlay" (a copy of the
	// worker added to the package's module as a new package, see Worker),
	// "module" (the module already requires benchsup: its own version's
	// worker package), or both, comma-separated.
	Injection string `json:"injection"`
	// Workers are the import paths of the injected worker packages, one
	// per module that got one.
	Workers []string `json:"workers"`
	// Toolchain is the go command's GOVERSION in the run's directory (the
	// toolchain go test would use there).
	Toolchain string         `json:"toolchain"`
	Builds    []BuildCompare `json:"builds"`
}

// BuildCompare is one package's plain and measured test builds side by
// side. Same is true only when every fact agrees.
type BuildCompare struct {
	Package  string     `json:"package"`
	Plain    BuildFacts `json:"plain"`
	Measured BuildFacts `json:"measured"`
	Same     bool       `json:"same"`
	// Note says what differs, or why a side could not be read.
	Note string `json:"note,omitempty"`
	// Binary is where the measured test binary stays after the run (the
	// per-user cache), so it can be run again by hand; "" when it is not
	// kept.
	Binary string `json:"binary,omitempty"`
	// Layout says where the package's code sits in the measured binary
	// against go test's build of it (benchmark runs on Linux): at the
	// same offset in its page, with the padding that put it there, or
	// why not.
	Layout string `json:"layout,omitempty"`
}

// BuildFacts are what decides the code a test binary runs besides its
// sources.
type BuildFacts struct {
	// GoLine is the go line of the package's module as go list reports
	// it, the language version its code compiles at (1.16 for a go.mod
	// without one).
	GoLine string `json:"goLine"`
	// BuildList is "sha256:" and the hex digest of the sorted lines
	// "path version[ => replacement version]" of every module whose
	// packages the test binary links; Modules counts those lines.
	BuildList string `json:"buildList"`
	Modules   int    `json:"modules"`
	// DefaultGODEBUG is the GODEBUG default the go line and //go:debug
	// directives give the test binary.
	DefaultGODEBUG string `json:"defaultGodebug"`
	// Toolchain is the go version that builds (plain) or built (measured)
	// the binary.
	Toolchain string `json:"toolchain"`
}

// Outcome is how a row or a process ended: one of the sandbox's classes
// ("ok", "skipped", "benchmark-failure", "exit", "signal",
// "startup-timeout", "execution-timeout", "malformed-protocol",
// "invalid-config", "parent-io", "canceled", "out-of-memory") or one of
// the outcomes below.
// Its predicates are the one place that decides what counts as a failure.
type Outcome string

// The outcomes besides the sandbox's classes.
const (
	OutcomeBuildFailure Outcome = "build-failure"
	OutcomeTestFail     Outcome = "fail"    // a test failed without crashing its process
	OutcomeNotRun       Outcome = "not-run" // never started (--fail-fast, an interrupted run)
)

// The two outcomes that are not failures; every other Outcome is an error.
const (
	OutcomeOK      Outcome = "ok"
	OutcomeSkipped Outcome = "skipped"
)

// IsError reports whether o records a failure: anything but OutcomeOK and
// OutcomeSkipped.
func (o Outcome) IsError() bool { return o != OutcomeOK && o != OutcomeSkipped }

// Failed reports whether any row of d is an error: the run failed.
func (d Document) Failed() bool {
	for _, r := range d.Rows {
		if r.IsError() {
			return true
		}
	}
	return false
}

// Meta.Mode values.
const (
	ModeBench  = "bench"
	ModeTest   = "test"
	ModeRecord = "record" // benchsup record: one program, its recordings
)

// Row.Kind values.
const (
	KindBenchmark Kind = "benchmark"
	KindTest      Kind = "test"
	KindPackage   Kind = "package"
	KindWorkload  Kind = "workload" // measured as windows (Document.Windows), not samples
	KindProgram   Kind = "program"  // a program benchsup record ran: its outcome, never samples
)

// Kind is what a row stands for; its JSON is the string.
type Kind string

// Measured reports whether rows of the kind hold measurements (samples or
// windows), as benchmarks and workloads do and tests and packages do not.
func (k Kind) Measured() bool { return k == KindBenchmark || k == KindWorkload }

// IsError reports whether the row records a failure (Outcome.IsError).
func (r Row) IsError() bool { return r.Outcome.IsError() }

// Row is one identity: a benchmark leaf, a test, or a package that failed to
// build.
type Row struct {
	Package string `json:"package"`
	Name    string `json:"name"` // "" for a package-level row (build failure)
	Kind    Kind   `json:"kind"` // "benchmark", "test", "package" or "workload"
	// Build names the build a row measured when a run measures several
	// (--against): the git revision as given; "" for the working tree.
	Build   string  `json:"build,omitempty"`
	Outcome Outcome `json:"outcome"`
	// Error is the first line of what went wrong; nil when nothing did.
	Error *string `json:"error"`
	// Skipped is the skip reason; nil unless skipped.
	Skipped *string `json:"skipped"`
	// Output is the bounded tail of the child's stderr (or compiler
	// output) for an error row; "" otherwise.
	Output string `json:"output,omitempty"`

	// Summary across processes (benchmarks only); nil when no process
	// produced samples.
	Summary *Summary `json:"summary"`
	// Processes holds every fresh process of this identity, in
	// repetition order, including failed ones.
	Processes []ProcessResult `json:"processes"`

	// ElapsedNs is a test's own duration; nil for benchmarks.
	ElapsedNs *int64 `json:"elapsedNs,omitempty"`
	// Paused, on a test row, names the tests of its tree (the test itself
	// or its subtests) that called t.Parallel and so waited before they
	// ran on, in the order they paused: go test -json's pause and cont
	// events. Absent when none did.
	Paused []string `json:"paused,omitempty"`

	// Calibration is how N was chosen (benchmarks calibrated in
	// discovery); nil otherwise.
	Calibration *Calibration `json:"calibration,omitempty"`

	// CountIterations is how many iterations the counting pass attributed
	// its totals to, and CountMethod how; absent when no pass ran.
	CountIterations *int64 `json:"countIterations,omitempty"`
	CountMethod     string `json:"countMethod,omitempty"`
	// Absences name every selected metric this row has no value for, and
	// why: an em dash never stands without a reason.
	Absences []MetricAbsence `json:"absences,omitempty"`
	// Notes are what the run observed about this identity that is not an
	// error (a process the benchmark started still held its stdout);
	// absent when there is none.
	Notes []string `json:"notes,omitempty"`
	// Interference sums what the watch for foreign load saw and did over
	// the row's processes; absent when no watch ran.
	Interference *RowInterference `json:"interference,omitempty"`
	// PeakMemoryBytes, on a test-mode package row, is the highest peak of
	// the package's test children, measured as a process's
	// (ProcessResult.PeakMemoryBytes): test mode's rows are tests, not
	// processes. Absent on other rows, and when unavailable.
	PeakMemoryBytes *int64 `json:"peakMemoryBytes,omitempty"`
	// Coverage, on a test-mode package row of a run built with -cover, is
	// the statements the package's children covered, merged over all of
	// them (go test's "coverage: N% of statements"). Absent without
	// -cover, and where the counters could not be read.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// Coverage counts a package's statements as go test -cover reports them:
// Covered of Statements ran at least once; no statements at all is go
// test's "[no statements]".
type Coverage struct {
	Statements int64 `json:"statements"`
	Covered    int64 `json:"covered"`
	// Packages is the build's -coverpkg, whose packages (those the test
	// binary links) the statements are of; "" for the package itself.
	Packages string `json:"packages,omitempty"`
}

// String is go test's text after "coverage: ".
func (c Coverage) String() string {
	if c.Statements == 0 {
		return "[no statements]"
	}
	s := fmt.Sprintf("%.1f%% of statements", 100*float64(c.Covered)/float64(c.Statements))
	if c.Packages != "" {
		s += " in " + c.Packages
	}
	return s
}

// Summary is the across-process view of a benchmark. The process is the
// unit: the median and the interval are over per-process medians, so
// samples of one process never count as independent evidence.
type Summary struct {
	Processes  int     `json:"processes"`  // processes with samples
	Iterations int64   `json:"iterations"` // N per sample of the first process
	Samples    int     `json:"samples"`    // samples over all processes
	MedianNs   float64 `json:"medianNs"`   // median of per-process median ns/op
	// Interval is the distribution-free confidence interval of the median
	// process's ns/op, from the order statistics of the per-process
	// medians (with 5 processes their range, at 93.75%); nil for one
	// process.
	Interval *Interval `json:"interval"`
	// WithinMADNs is the median over processes of each one's median
	// absolute deviation of its samples (unscaled): noise inside a
	// process, not a confidence interval. Nil when no process has two
	// samples.
	WithinMADNs *float64 `json:"withinMadNs"`
	// MeanOfProcessMediansNs, SDOfProcessMediansNs and
	// CVOfProcessMedians are the mean, the sample standard deviation
	// (n−1) and the coefficient of variation (sd/mean) of the process
	// medians, for those who compare with tools that report them; the
	// table keeps the median. The deviation and the coefficient are
	// absent for one process (undefined, not 0), the coefficient also for
	// a mean of 0; all three in documents written before they existed.
	MeanOfProcessMediansNs *float64 `json:"meanOfProcessMediansNs,omitempty"`
	SDOfProcessMediansNs   *float64 `json:"sdOfProcessMediansNs,omitempty"`
	CVOfProcessMedians     *float64 `json:"cvOfProcessMedians,omitempty"`
	MinNs                  float64  `json:"minNs"` // smallest sample over all processes
	MaxNs                  float64  `json:"maxNs"` // largest sample over all processes
	// ShortSamples counts the samples shorter than half the sample target
	// (their process ran faster than calibration predicted); they are
	// kept and marked short in Processes.
	ShortSamples int `json:"shortSamples"`
	// Metrics are per-iteration medians of per-process medians by unit
	// ("B/op", "allocs/op", "MB/s", b.ReportMetric units); a unit some
	// process lacks is nil.
	Metrics map[string]*float64 `json:"metrics"`
	// Counted holds the selected catalog metrics (Document.Columns) from
	// the counting passes: the median over processes of each process's
	// per-iteration value (or level); nil when unavailable (the row's
	// Absences say why).
	Counted map[string]*float64 `json:"counted"`
	// EstimatedMetrics names the Counted keys whose values are estimates
	// (≈ in the table): multiplex-scaled, or counted in brackets whose own
	// count, subtracted, was larger than the value; absent when all are
	// exact.
	EstimatedMetrics []string `json:"estimatedMetrics,omitempty"`
	// Uncertainty holds, for each Counted metric with a value, its
	// uncertainty in the same unit (stats.CountedAcross: the larger of
	// the median process's own uncertainty and half the range of the
	// processes' values); absent when no process reported one. The table
	// shows it in its notes where it exceeds a tenth of the value, and an
	// em dash where it reaches the value (below the noise).
	Uncertainty map[string]float64 `json:"uncertainty,omitempty"`
}

// Interval is a confidence interval of a median, in nanoseconds per
// iteration, with the confidence it achieves.
type Interval struct {
	LowNs      float64 `json:"lowNs"`
	HighNs     float64 `json:"highNs"`
	Confidence float64 `json:"confidence"`
}

// Calibration is how a benchmark's N was chosen, once, before any of its
// processes ran: the runs of the ramp and the three confirming runs whose
// median time per iteration was scaled to the target.
type Calibration struct {
	N        int64 `json:"n"`
	TargetNs int64 `json:"targetNs"`
	// FixedNs is a cost every run of this benchmark pays whatever its N
	// (found by fitting the calibration runs), for which the sample time
	// (TargetNs) was lengthened (from the default 200 ms, to go test's
	// 1 s run); zero when there is none.
	FixedNs int64 `json:"fixedNs,omitempty"`
	// SetupNs is what one call of a top-level benchmark spent outside its
	// timer (its setup), the median over calibration runs; ProbeSkipped
	// says that, because SetupNs is a quarter of a sample or more,
	// testing's probe run at N=1 (which also warms lazy initialization,
	// as under go test) was skipped before each sample, so the setup ran
	// once per process instead of twice.
	SetupNs      int64 `json:"setupNs,omitempty"`
	ProbeSkipped bool  `json:"probeSkipped,omitempty"`
	// AfterSiblings is how many leaves ran before this one in each
	// calibration run, as in ProcessResult; absent when it ran alone.
	AfterSiblings int64    `json:"afterSiblings,omitempty"`
	Runs          []Sample `json:"runs"`
}

// ProcessResult is one fresh process of a benchmark identity.
type ProcessResult struct {
	Index   int     `json:"index"`
	PID     int     `json:"pid"`
	Outcome Outcome `json:"outcome"`
	Error   *string `json:"error"`
	// StartupNs is spawn to the worker's hello (nil when the process never
	// said hello); WallNs spawn to reaped. Both are the supervisor's
	// monotonic clock, so WallNs minus the samples' elapsed time is what
	// the process cost beyond its timed work.
	StartupNs *int64 `json:"startupNs"`
	WallNs    int64  `json:"wallNs"`
	// NsPerOp is nil when the process produced no samples.
	NsPerOp *Stats   `json:"nsPerOp"`
	Samples []Sample `json:"samples"` // raw totals
	// Counted holds this process's counting-pass values by metric, and
	// Estimated the ones that were scaled.
	Counted   map[string]float64 `json:"counted,omitempty"`
	Estimated []string           `json:"estimated,omitempty"`
	// Uncertainty holds each counted value's uncertainty, half the range
	// of the repeated measurements it is the median of (the pair
	// differences or parts of the counting pass), and CountedNotes what
	// qualifies a value (what was subtracted from it); both by metric,
	// absent when empty.
	Uncertainty  map[string]float64 `json:"uncertainty,omitempty"`
	CountedNotes map[string]string  `json:"countedNotes,omitempty"`
	// Interference is what the watch for foreign load saw and did in this
	// process; absent when no watch ran.
	Interference *ProcessInterference `json:"interference,omitempty"`
	// Retaken are the samples the watch discarded and took again, with
	// their observations: kept here, out of every statistic.
	Retaken []Sample `json:"retaken,omitempty"`
	// PeakMemoryBytes is the most memory the process and everything it
	// forked had charged at once, page cache included, as its cgroup
	// measured it (memory.peak, memory.max_usage_in_bytes); absent when
	// unavailable, with the reason in Meta.Limits or the row's notes.
	PeakMemoryBytes *int64 `json:"peakMemoryBytes,omitempty"`
	// AfterSiblings is how many leaves ran before this one in each of the
	// process's runs, their results discarded: run alone, it never ran,
	// its parent failing before reaching it
	// (docs/design.md#leaves-that-need-their-siblings); absent when it ran
	// alone.
	AfterSiblings int64 `json:"afterSiblings,omitempty"`
}
