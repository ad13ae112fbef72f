package sources

import "strings"

// Class says how far a metric's numbers may be trusted.
type Class string

const (
	// Quantitative metrics count exactly and barely perturb the measured
	// code: they are safe to report and to gate on.
	Quantitative Class = "quantitative"
	// Diagnostic metrics explain a result but perturb it, are sampled or
	// apportioned, or are scoped differently (the scheduler, the host):
	// they are rendered apart and never gated on.
	Diagnostic Class = "diagnostic"
)

// Format says how a metric's value is rendered.
type Format string

const (
	FormatCount    Format = "count"
	FormatRatio    Format = "ratio"
	FormatBytes    Format = "bytes"
	FormatDuration Format = "duration" // nanoseconds
)

// The sources, by name.
const (
	SourcePerfHW   = "perf-hw"
	SourcePerfSW   = "perf-sw"
	SourceTier0    = "tier0"
	SourceSyscalls = "syscalls"
	SourceRaw      = "raw"
)

// Capability is one thing a source can do on this host. The vocabulary is
// shared by every source, so an absence reads the same wherever it is shown.
type Capability string

const (
	// CapCounting: the source's events can be counted exactly.
	CapCounting Capability = "counting"
	// CapCountingScaled: a multiplexed perf group is kept and its values
	// are labeled estimates (Options.Scaled).
	CapCountingScaled Capability = "counting-scaled"
	// CapKernelCounting: events are counted in kernel mode as well as user
	// mode. Without it (perf_event_paranoid) counts are user mode only.
	CapKernelCounting Capability = "kernel-counting"
	// CapIOAccounting: the kernel's per-process I/O accounting
	// (/proc/self/io) is readable.
	CapIOAccounting Capability = "io-accounting"
	// CapEventTracing: kernel tracepoints can be counted (syscalls).
	CapEventTracing Capability = "event-tracing"
	// CapRawEvents: model-specific PMU events can be counted by raw code.
	CapRawEvents Capability = "raw-events"
)

// Absence is a capability, or some metrics, this host or process cannot
// provide, with the reason: what was looked for and what was found.
type Absence struct {
	Capability Capability
	Metrics    []string // the metrics it costs; may be empty (a mode, not a metric)
	Reason     string
}

// Report is what one source can measure on this host, in this process.
type Report struct {
	Source    string
	Available bool
	// Status is one line: "" when the source is available in its clean
	// default state, otherwise why it is unavailable or which
	// degraded-but-available state it is in.
	Status       string
	Capabilities []Capability // present, in vocabulary order
	Absences     []Absence    // in declaration order
	// Degraded lists the degraded-but-available states (events dropped
	// from a group, user-mode-only counting, scaled mode, ...) that a run
	// header prints once.
	Degraded []string
}

// Options are the run-wide choices that change how sources open.
type Options struct {
	// Scaled keeps a multiplexed hardware group whole (--perf-scaled)
	// instead of shrinking it until it counts exactly; every scaled value
	// is then marked Estimated.
	Scaled bool
}

// Counter is one opened source for the counting passes of one process. Its
// Start and Stop bracket the code under measurement and may be repeated: each
// Stop returns that bracket's totals. A Counter is not safe for concurrent
// use; the code under measurement may use any number of goroutines.
type Counter interface {
	// Source is the name of the source, e.g. "perf-sw".
	Source() string
	// Report is the source's capability as opened.
	Report() Report
	// Metrics are the selected metrics this counter produces a value, or
	// a per-bracket reason for no value, for. Selected metrics it cannot
	// produce at all were returned by Open as absences instead.
	Metrics() []string
	// Start enables the counters (bracketed sources) or takes the opening
	// snapshot (delta sources).
	Start() error
	// Stop disables the counters or takes the closing snapshot, and
	// returns the bracket's totals. On error the returned Reading marks
	// every metric unavailable with the error as the reason.
	Stop() (Reading, error)
	// Close releases what Open acquired. The Counter is unusable after.
	Close() error
}

// Reading is one bracket's totals: raw sums over the bracket, never rates,
// never rounded. Every metric of the counter is in exactly one of Values and
// Unavailable.
type Reading struct {
	// Values maps a metric to its total over the bracket, or to its level
	// at the bracket's end for levels (maxrss). It may also hold metrics
	// that were not selected but that a selected derived metric is
	// computed from (instructions and cycles for ipc).
	Values map[string]float64
	// Estimated marks metrics whose value was scaled from multiplexed
	// counting (time running < time enabled).
	Estimated map[string]bool
	// Unavailable maps a metric to why this bracket has no value for it.
	// A metric that was not counted is here, never a zero in Values.
	Unavailable map[string]string
}

// Open opens what the selected metrics need: one Counter per source, in
// catalog order. A metric that cannot be produced here (unknown, its source
// unavailable, dropped from its group) comes back as an Absence with the
// reason; that is never a failure. Close every returned Counter.
func Open(names []string, opts Options) ([]Counter, []Absence) {
	var absences []Absence
	bySource := map[string][]string{}
	seen := map[string]bool{}
	for _, n := range names {
		d, ok := Describe(n)
		if !ok {
			absences = append(absences, Absence{Capability: CapCounting, Metrics: []string{n}, Reason: "unknown metric (see Catalog)"})
			continue
		}
		if seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		bySource[d.Source] = append(bySource[d.Source], d.Name)
	}
	var counters []Counter
	for _, s := range platformSources() {
		want := bySource[s.name()]
		if len(want) == 0 {
			continue
		}
		c, abs := s.open(want, opts)
		absences = append(absences, abs...)
		if c != nil {
			counters = append(counters, c)
		}
	}
	return counters, absences
}

// Probe reports, for this host and this process, what each source can
// measure, in catalog order of sources. It leaves nothing open: counters it
// opens to find out are closed before it returns. It backs `benchsup
// list-metrics`; the run header reads Counter.Report instead, which describes
// the counters actually opened.
func Probe(opts Options) []Report {
	var reports []Report
	for _, s := range platformSources() {
		reports = append(reports, s.probe(opts))
	}
	return reports
}

// source is the shape every source implements, on every platform.
type source interface {
	name() string
	// probe reports the source's capability with every metric selected.
	probe(opts Options) Report
	// open opens a counter for metrics, which all belong to this source
	// and are canonical names. It returns a nil Counter when it can produce
	// none of them; every metric it cannot produce is in the absences.
	open(metrics []string, opts Options) (Counter, []Absence)
}

// capabilityOrder is the vocabulary's order, in which reports list what is
// present.
var capabilityOrder = []Capability{
	CapCounting, CapCountingScaled, CapKernelCounting, CapIOAccounting, CapEventTracing, CapRawEvents,
}

// finish puts a report in its canonical shape: capabilities in vocabulary
// order and a one-line status derived from what it holds.
func (r Report) finish() Report {
	have := map[Capability]bool{}
	for _, c := range r.Capabilities {
		have[c] = true
	}
	r.Capabilities = r.Capabilities[:0:0]
	for _, c := range capabilityOrder {
		if have[c] {
			r.Capabilities = append(r.Capabilities, c)
		}
	}
	if r.Status == "" {
		switch {
		case !r.Available && len(r.Absences) > 0:
			r.Status = "unavailable: " + r.Absences[0].Reason
		case !r.Available:
			r.Status = "unavailable"
		case len(r.Degraded) > 0:
			r.Status = strings.Join(r.Degraded, "; ")
		}
	}
	return r
}

// absentAll turns one reason into the absence of every metric asked for.
func absentAll(c Capability, metrics []string, reason string) []Absence {
	return []Absence{{Capability: c, Metrics: append([]string(nil), metrics...), Reason: reason}}
}
