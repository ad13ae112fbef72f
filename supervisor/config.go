package supervisor

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// Errors callers branch on.
var (
	// ErrNoPackages: the patterns matched no package.
	ErrNoPackages = errors.New("no packages to run")
	// ErrUnsupported: the module cannot be measured (GOPATH mode, ...).
	ErrUnsupported = errors.New("unsupported module layout")
	// ErrInvalidConfig: a Config field holds a value no run can use; the
	// error is a *ConfigError naming the field.
	ErrInvalidConfig = errors.New("invalid configuration")
)

// ConfigError is a Config field with a value no run can use.
type ConfigError struct {
	Field   string // the Config field, e.g. "Repetitions"
	Problem string // what is wrong with its value
}

func (e *ConfigError) Error() string { return e.Field + ": " + e.Problem }

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// Validate reports the first field of c that no run can use: a negative
// count, duration or iteration pin (zero means the default, see each
// field), or a -run or -bench pattern that does not compile. Run and List
// call it before anything starts.
func (c Config) Validate() error {
	for _, f := range []struct {
		field string
		v     int64
	}{
		{"Repetitions", int64(c.Repetitions)},
		{"Samples", int64(c.Samples)},
		{"SampleTime", int64(c.SampleTime)},
		{"Timeout", int64(c.Timeout)},
		{"StartupTimeout", int64(c.StartupTimeout)},
		{"TestDeadline", int64(c.TestDeadline)},
		{"Parallel", int64(c.Parallel)},
		{"TestParallel", int64(c.TestParallel)},
		{"PerfIters", c.PerfIters},
		{"PerfBatch", c.PerfBatch},
		{"Iterations", c.Iterations},
	} {
		if f.v < 0 {
			return &ConfigError{Field: f.field, Problem: fmt.Sprintf("must not be negative, got %d", f.v)}
		}
	}
	for _, p := range []struct{ field, pattern string }{{"Bench", c.Bench}, {"Run", c.Run}, {"Skip", c.Skip}} {
		for _, elem := range splitPattern(p.pattern) {
			if _, err := regexp.Compile(elem); err != nil {
				return &ConfigError{Field: p.field, Problem: fmt.Sprintf("pattern %q does not compile: %v", p.pattern, err)}
			}
		}
	}
	if err := checkVet(c.Vet); err != nil {
		return &ConfigError{Field: "Vet", Problem: err.Error()}
	}
	if a, name, reason := checkTestArgs(c.TestArgs); a != "" {
		return &ConfigError{Field: "TestArgs", Problem: fmt.Sprintf("%s: -%s %s", a, name, reason)}
	}
	if sh := c.Shard; sh.Count != 0 || sh.Index != 0 {
		switch {
		case sh.Count < 1 || sh.Index < 1 || sh.Index > sh.Count:
			return &ConfigError{Field: "Shard", Problem: fmt.Sprintf("must be K/N with 1 <= K <= N, got %d/%d", sh.Index, sh.Count)}
		case c.Mode != ModeBench:
			return &ConfigError{Field: "Shard", Problem: "splits benchmark functions: it needs benchmark mode"}
		}
	}
	for _, rev := range c.Against {
		switch {
		case c.Mode != ModeBench:
			return &ConfigError{Field: "Against", Problem: "compares benchmarks: it needs benchmark mode"}
		case strings.TrimSpace(rev) == "":
			return &ConfigError{Field: "Against", Problem: "names an empty revision"}
		}
	}
	if err := c.validateVs(); err != nil {
		return err
	}
	if len(c.Against) > 0 || c.Vs != "" {
		if err := c.Compare.Validate(); err != nil {
			var ce *analysis.ConfigError
			if errors.As(err, &ce) {
				return &ConfigError{Field: ce.Field, Problem: ce.Problem}
			}
			return err
		}
	}
	for _, f := range c.BuildFlags {
		if err := validateBuildFlag(f); err != nil {
			return err
		}
	}
	if err := c.Interference.Validate(); err != nil {
		return &ConfigError{Field: "Interference", Problem: err.Error()}
	}
	if err := checkLimits(c); err != nil {
		return err
	}
	return checkHost(c)
}

// splitPattern splits a go test -run/-bench pattern into its
// slash-separated elements, as testing does (a slash inside brackets or
// after a backslash does not split).
func splitPattern(pattern string) []string {
	var elems []string
	depth, start := 0, 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		case '/':
			if depth == 0 {
				elems = append(elems, pattern[start:i])
				start = i + 1
			}
		}
	}
	return append(elems, pattern[start:])
}

// Config.VsIterations values.
const (
	// VsOwn calibrates each variant to the same timed slice: its own N.
	VsOwn = "own"
	// VsShared runs every variant at its reference's calibrated N.
	VsShared = "shared"
)

// validateVs checks the --vs fields: a key needs benchmark mode and no
// Against (a run compares variants of one build or builds, not both:
// their comparisons would pair the same processes two ways); the
// reference and the iterations need a key.
func (c Config) validateVs() error {
	if c.Vs == "" {
		switch {
		case c.VsReference != "":
			return &ConfigError{Field: "VsReference", Problem: "names the reference variant of Vs: it needs Vs"}
		case c.VsIterations != "":
			return &ConfigError{Field: "VsIterations", Problem: "sets the N of Vs's variants: it needs Vs"}
		}
		return nil
	}
	switch {
	case c.Mode != ModeBench:
		return &ConfigError{Field: "Vs", Problem: "compares benchmarks: it needs benchmark mode"}
	case len(c.Against) > 0:
		return &ConfigError{Field: "Vs", Problem: "compares variants inside one build, Against compares builds: one kind of comparison per run"}
	case strings.ContainsAny(c.Vs, "=/ \t\n") || strings.TrimSpace(c.Vs) != c.Vs:
		return &ConfigError{Field: "Vs", Problem: fmt.Sprintf("must be the key of a name element such as impl (in BenchmarkHash/impl=fnv), got %q", c.Vs)}
	case strings.ContainsAny(c.VsReference, "/"):
		return &ConfigError{Field: "VsReference", Problem: fmt.Sprintf("must be one element's value, got %q", c.VsReference)}
	case c.VsIterations != "" && c.VsIterations != VsOwn && c.VsIterations != VsShared:
		return &ConfigError{Field: "VsIterations", Problem: fmt.Sprintf("must be %s or %s, got %q", VsOwn, VsShared, c.VsIterations)}
	}
	return nil
}

// Mode says what a run does.
type Mode int

const (
	// ModeTest (the zero value) runs each package's tests in children,
	// resuming past any test that crashes or hangs.
	ModeTest Mode = iota
	// ModeBench measures every selected benchmark in fresh children.
	ModeBench
)

// Defaults for zero Config fields.
const (
	// DefaultSampleTime and DefaultSamples are the protocol's defaults
	// (protocol.DefaultSampleNs, protocol.DefaultSamples): one sample of
	// 200 ms per process (docs/design.md#sampling).
	DefaultSampleTime = time.Duration(protocol.DefaultSampleNs)
	DefaultSamples    = protocol.DefaultSamples
	// Five processes: enough for a distribution-free interval of the
	// median process (their range covers it with 93.75% confidence) in
	// about go test's 1 s per benchmark.
	DefaultRepetitions = 5
	// DefaultPairs is the repetitions of a run with Against: 6 pairs are
	// the fewest whose order-statistic interval reaches 95% (96.9%; 5
	// pairs reach only 93.75%, see docs/design.md#comparison).
	DefaultPairs = 6
	// DefaultBenchTimeout bounds one benchmark child (calibration and all
	// samples); DefaultTestTimeout one test child, and DefaultTestDeadline
	// one test inside it.
	DefaultBenchTimeout = 10 * time.Minute
	DefaultTestTimeout  = 10 * time.Minute
	DefaultTestDeadline = 10 * time.Minute
	// DefaultBenchStartupTimeout bounds a benchmark child's start (init and
	// TestMain): generous, since a TestMain may legitimately build or start
	// what its benchmarks need, and short of DefaultBenchTimeout so that a
	// hung TestMain is named as one. A test child has none of its own:
	// its Timeout bounds it, as go test's -timeout bounds TestMain.
	DefaultBenchStartupTimeout = 2 * time.Minute
)

// Config is one run. Every zero value is documented and usable.
type Config struct {
	// Dir is where package patterns are resolved; "" is the current
	// directory.
	Dir string
	// Packages are `go test` package patterns; empty means ".".
	Packages []string
	// Mode selects tests or benchmarks.
	Mode Mode
	// Bench is the `go test -bench` pattern selecting benchmarks,
	// sub-benchmark paths included; "" means all.
	Bench string
	// Run is the `go test -run` pattern selecting tests; "" means all.
	Run string
	// Skip is the `go test -skip` pattern: tests, subtests, benchmarks and
	// sub-benchmarks it matches do not run, as testing decides it (the
	// worker sets -test.skip for its own calls); "" skips nothing.
	Skip string
	// Vet is go test's -vet: "" runs go test's default checks
	// (DefaultVetChecks) on each package before its tests, "off" none,
	// "all" every analyzer, or a comma list of analyzers.
	Vet string
	// TestParallel, when positive, is go test's -parallel: the number of
	// t.Parallel tests one child runs at once (-test.parallel).
	TestParallel int
	// TestArgs are go test's -args: given to every child after the flags
	// benchsup sets, for the code under test's own flags (see
	// ReservedTestFlag).
	TestArgs []string
	// Repetitions is the number of fresh processes per benchmark; zero
	// means DefaultRepetitions, or DefaultPairs with Against. With Vs, it
	// is also each group's number of rounds; zero gives a group of n
	// variants analysis.VariantRounds(n, DefaultPairs) rounds (6 pairs'
	// worth, a whole number of blocks in which every variant takes every
	// position), and every leaf in no group DefaultRepetitions.
	Repetitions int
	// Against are git revisions of the repository holding Dir whose builds
	// of the same packages are measured with the working tree's
	// (ModeBench): each exported with git archive outside the user's tree,
	// built, discovered, and run in interleaved pairs with the working
	// tree's processes in a balanced order. The document then holds one
	// comparison per revision. Empty means none.
	Against []string
	// Vs is the name element whose values make variants of one benchmark
	// (--vs=KEY, ModeBench): leaves whose names differ only in KEY's value
	// form a group, whose members run in rounds (one process of each, back
	// to back, every member in every position equally often) and are
	// compared with the group's reference, pair by round. The document
	// then holds one comparison per contender value. Leaves in no group
	// run as usual. "" means none; Against cannot be combined with it.
	Vs string
	// VsReference is the KEY value each group is compared with; "" means
	// each group's first member in source order.
	VsReference string
	// VsIterations is how each variant's N is chosen: VsOwn calibrates
	// every variant to SampleTime (the same timed slice, each its own N),
	// VsShared gives every variant its reference's calibrated N (the same
	// work). "" means VsOwn.
	VsIterations string
	// Compare configures the comparisons of Against and Vs (threshold,
	// interval).
	Compare analysis.CompareConfig
	// SampleTime is the time one sample should take: N is calibrated
	// once per benchmark, in discovery, for it, and every process
	// measures that N. Samples shorter than half of it are flagged. Zero
	// means DefaultSampleTime.
	SampleTime time.Duration
	// Samples is the number of timed samples per process; zero means
	// DefaultSamples.
	Samples int
	// Timeout bounds one child from spawn to exit; zero means
	// DefaultBenchTimeout or DefaultTestTimeout.
	Timeout time.Duration
	// StartupTimeout bounds spawn to hello; zero means
	// DefaultBenchStartupTimeout in ModeBench and Timeout (no bound of its
	// own) in ModeTest.
	StartupTimeout time.Duration
	// Iterations, when positive, is a fixed N (go test's -benchtime=Nx):
	// no benchmark is calibrated, and every sample runs exactly N
	// iterations. Zero means calibrate to SampleTime.
	Iterations int64
	// Short passes -test.short to every child, as go test -short does.
	Short bool
	// TestDeadline bounds one test (test mode); zero means
	// DefaultTestDeadline.
	TestDeadline time.Duration
	// Metrics are the catalog metrics (package sources) to count after
	// timing, as sources.Select returns them; empty means none.
	Metrics []string
	// PerfIters pins the iterations of a counting pass; zero means the
	// worker's default (the timing N, capped at 100,000).
	PerfIters int64
	// PerfBatch pins how many iterations one counter bracket spans where
	// the worker owns the loop; zero sizes it to about a millisecond.
	PerfBatch int64
	// PerfScaled keeps a multiplexed hardware group, every scaled value
	// marked estimated.
	PerfScaled bool
	// WindowMetrics are the catalog metrics read at every workload
	// window's edges besides what every window reads; empty means none.
	// sources.WindowDefault is the cheap set a window reads by default;
	// any other source is a counter enabled over the window, whose
	// measured cost each window's note discloses.
	WindowMetrics []string
	// Env is the children's environment policy (strict by default).
	Env sandbox.EnvPolicy
	// FailFast stops scheduling new work after the first failure.
	FailFast bool
	// Parallel bounds concurrent builds and test packages; zero means the
	// number of CPUs.
	Parallel int
	// GoCommand is the go tool to run; "" means "go" from PATH.
	GoCommand string
	// Warnings receives one line per warning (a measured build that is
	// not the one go test makes, ...); nil discards them.
	Warnings io.Writer
	// BuildFlags are go build flags for every go command of the build (go
	// list and go test -c), one flag an element, as go test takes them:
	// -tags=, -race, -msan, -asan, -cover, -covermode=, -coverpkg=,
	// -gcflags=, -ldflags=, -asmflags=, -trimpath, -mod= (buildflags.go).
	// Validate refuses any other. Empty means none.
	BuildFlags []string
	// CoverProfile, when set, is the file the coverage of every child is
	// written to, merged, as go test -coverprofile writes it (relative to
	// Dir); it implies -cover.
	CoverProfile string
	// Progress, when set, is called before each child with the identity
	// about to run, its 1-based position and the number of children
	// planned.
	Progress func(identity string, k, n int)
	// Watch, when set, is called with each child once it is spawned, and
	// the function it returns (if not nil) once the child has been reaped:
	// between the two, a live display may read the child's Usage. Children
	// run in parallel in test mode and discovery, so calls may overlap.
	Watch func(*sandbox.Child) (end func())
	// Events, when set, receives the run's events as they happen
	// (rundoc.Event: builds, discoveries, every child's start and end,
	// each row once final); it may be called from several goroutines at
	// once and should not block. Nil: none.
	Events func(rundoc.Event)

	// Host hygiene (docs/design.md#host-hygiene).

	// Shard runs one part of the benchmark functions (--shard=K/N); the
	// zero value runs them all.
	Shard Shard
	// CPUs pins every child to these CPUs (--cpus), set on the spawning
	// thread before exec so the child inherits it; nil: no pinning.
	CPUs []int
	// Interference is the watch for foreign load between samples; the
	// zero value observes (annotates) with the default limit.
	Interference InterferenceConfig
	// Quiescence, when set, waits before measuring until the host's CPUs
	// are quiet, and fails the run when they do not get quiet in time.
	Quiescence *host.QuiescenceConfig
	// Claim, when set, claims the host's CPUs (CPUs, or every online one)
	// for the run, waiting idle while another run holds any of them.
	Claim *host.ClaimConfig
	// MemoryLimit bounds each child's memory, in bytes, with swap off
	// (--memory-limit); PidsLimit its processes and threads
	// (--pids-limit). Zero means no limit. Validate refuses a limit no
	// controller on this host can apply (sandbox.ProbeLimits), with the
	// reason.
	MemoryLimit int64
	PidsLimit   int64
	// Shim runs every child under benchsup's shim (sandbox.Config.Shim):
	// code that signals its parent ends its own child only, and whatever
	// its processes leave, wherever they moved, is named and killed. The
	// calling program must dispatch sandbox.ShimArg to sandbox.ShimMain,
	// as benchsup's does (from an init function, before the rest of the
	// program initializes); false starts children directly.
	Shim bool
	// Waiting, when set, is told what the run waits for (a quiet host, a
	// claim another run holds), at most once per change.
	Waiting func(msg string)

	// defaultRounds records that Repetitions was zero when the defaults
	// were applied: Vs groups then get their own default rounds.
	defaultRounds bool
}

func (c *Config) applyDefaults() {
	if len(c.Packages) == 0 {
		c.Packages = []string{"."}
	}
	if c.Repetitions <= 0 {
		c.defaultRounds = true
		c.Repetitions = DefaultRepetitions
		if len(c.Against) > 0 {
			c.Repetitions = DefaultPairs
		}
	}
	if c.Vs != "" && c.VsIterations == "" {
		c.VsIterations = VsOwn
	}
	if c.SampleTime <= 0 {
		c.SampleTime = DefaultSampleTime
	}
	if c.Samples <= 0 {
		c.Samples = DefaultSamples
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultBenchTimeout
		if c.Mode == ModeTest {
			c.Timeout = DefaultTestTimeout
		}
	}
	if c.StartupTimeout <= 0 {
		c.StartupTimeout = DefaultBenchStartupTimeout
		if c.Mode == ModeTest {
			c.StartupTimeout = c.Timeout // the sandbox caps it there: none of its own
		}
	}
	if c.TestDeadline <= 0 {
		c.TestDeadline = DefaultTestDeadline
	}
	if c.GoCommand == "" {
		c.GoCommand = "go"
	}
	if c.Warnings == nil {
		c.Warnings = io.Discard
	}
	if c.Progress == nil {
		c.Progress = func(string, int, int) {}
	}
}
