package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/benchsup/benchsup/supervisor"
)

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// errFailed means the run happened and something in it failed; the results
// already say what.
var errFailed = errors.New("failures")

// unjudged is a gate run that ended before it could judge anything (the
// host never got quiet): the gate's "could not judge" status, with the
// reason printed.
type unjudged struct{ err error }

func (e unjudged) Error() string        { return e.err.Error() }
func (e unjudged) Is(target error) bool { return target == errIncomplete }
func (e unjudged) Unwrap() error        { return e.err }

// usageError is a malformed command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// run is the whole command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	args, err := normalizeArgs(app, args)
	if err == nil {
		err = app.Run(args)
	}
	return exitStatus(err, stderr)
}

// exitStatus prints err, unless the output already said it, and returns
// the exit status it means.
func exitStatus(err error, stderr io.Writer) int {
	var ue usageError
	var sig interrupted
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &sig):
		fmt.Fprintf(stderr, "benchsup: %s\n", errLine(err))
		return sig.status()
	case errors.Is(err, errFailed), errors.Is(err, errRegression):
		return exitFailed
	case errors.Is(err, errIncomplete):
		var u unjudged
		if errors.As(err, &u) {
			fmt.Fprintf(stderr, "benchsup: %s\n", oneLine(u.err.Error()))
		}
		return exitIncomplete
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "benchsup: %s\n", errLine(err))
		return exitUsage
	default:
		fmt.Fprintf(stderr, "benchsup: %s\n", errLine(err))
		return exitFailed
	}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " (…)"
	}
	return s
}

func newApp(stdout, stderr io.Writer) *cli.App {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version", DisableDefaultText: true}
	onUsage := func(_ *cli.Context, err error, _ bool) error { return usageError{err} }
	app := &cli.App{
		Name:            "benchsup",
		Usage:           "run Go tests and benchmarks in fresh, isolated child processes",
		Version:         version(),
		Writer:          stdout,
		ErrWriter:       stderr,
		OnUsageError:    onUsage,
		ExitErrHandler:  func(*cli.Context, error) {}, // run() owns exit statuses
		CommandNotFound: func(c *cli.Context, name string) {},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("unknown command %q (commands: run, list, record, compare, merge, report, list-metrics, clean, version, help)", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{
			{
				Name:         "run",
				Usage:        "run tests (default) or benchmarks (--bench) of packages",
				ArgsUsage:    "[packages]",
				Flags:        runFlags(),
				OnUsageError: onUsage,
				Action:       func(c *cli.Context) error { return runCommand(c, stdout, stderr) },
			},
			{
				Name:         "list-metrics",
				Usage:        "print the metric catalog and what this host can measure, with the reason for every absence",
				Flags:        []cli.Flag{&cli.BoolFlag{Name: "perf-scaled", Usage: "probe with a multiplexed hardware group allowed"}},
				OnUsageError: onUsage,
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usagef("list-metrics takes no arguments, got %q", c.Args().First())
					}
					return listMetrics(stdout, c.Bool("perf-scaled"))
				},
			},
			compareCommand(stdout, stderr),
			recordCommand(stdout, stderr),
			mergeCommand(stdout, stderr),
			reportCommand(stdout, stderr),
			{
				Name:         "list",
				Usage:        "list every test and benchmark identity, sub-benchmarks included",
				ArgsUsage:    "[packages]",
				Flags:        listFlags(),
				OnUsageError: onUsage,
				Action:       func(c *cli.Context) error { return listCommand(c, stdout, stderr) },
			},
			cleanCommand(stdout),
			versionCommand(stdout),
		},
	}
	for _, cmd := range app.Commands {
		oneDefault(cmd.Flags)
	}
	return app
}

// oneDefault leaves each flag's help with one default: a bool flag's
// "false" says nothing, and every other default is the flag's own text.
func oneDefault(flags []cli.Flag) {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok {
			b.DisableDefaultText = true
		}
	}
}

func commonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "dir", Aliases: []string{"C"}, Usage: "resolve packages in `DIR` instead of the current directory"},
		&cli.StringFlag{Name: "bench", Usage: "select benchmarks matching `REGEX` (go test -bench syntax, sub-benchmark paths included); " +
			"a bare --bench selects all, and what follows it must then be a flag or a package pattern"},
		&cli.StringFlag{Name: "run", Usage: "select tests matching `REGEX` (go test -run syntax)"},
		&cli.StringFlag{Name: "skip", Usage: "skip tests, subtests, benchmarks and sub-benchmarks matching `REGEX`, as go test -skip"},
		&cli.DurationFlag{Name: "timeout", Usage: "bound each child process from spawn to exit (go test's -timeout; 0 is refused: every child is bounded)",
			DefaultText: supervisor.DefaultTestTimeout.String()},
		&cli.DurationFlag{Name: "startup-timeout", Usage: "bound each child from spawn to the moment benchsup's worker starts (its package's init and TestMain)",
			DefaultText: "none in test mode (--timeout bounds it), " + supervisor.DefaultBenchStartupTimeout.String() + " with --bench"},
		&cli.StringSliceFlag{Name: "env-keep", Usage: "pass `NAME` from this environment to the children (repeatable)"},
		&cli.StringSliceFlag{Name: "env-set", Usage: "set `NAME=VALUE` in the children (repeatable)"},
		&cli.StringSliceFlag{Name: "env-remove", Usage: "remove `NAME` from the children's environment (repeatable)"},
		&cli.BoolFlag{Name: "env-inherit", Usage: "give the children this whole environment instead of the strict one"},
		// Build flags, passed to every go command of the build as go test passes them.
		&cli.StringFlag{Name: "tags", Usage: "build tags, as go test -tags"},
		&cli.BoolFlag{Name: "race", Usage: "build with the race detector, as go test -race"},
		&cli.BoolFlag{Name: "cover", Usage: "build with coverage instrumentation, as go test -cover"},
		&cli.StringFlag{Name: "coverprofile", Usage: "write the coverage of every child, merged, to `FILE`, as go test -coverprofile"},
		&cli.StringFlag{Name: "gcflags", Usage: "compiler flags, as go test -gcflags"},
		&cli.StringFlag{Name: "ldflags", Usage: "linker flags, as go test -ldflags"},
		&cli.BoolFlag{Name: "trimpath", Usage: "remove file system paths from the binaries, as go test -trimpath"},
		&cli.StringFlag{Name: "mod", Usage: "module download mode (readonly, vendor or mod), as go test -mod"},
		&cli.StringFlag{Name: "vet", Usage: "go test's vet step before each package's tests, beside its build: off, all, or a comma `LIST` of analyzers",
			DefaultText: strings.Join(supervisor.DefaultVetChecks, ",")},
	}
}

func runFlags() []cli.Flag {
	hygiene := append(append(append(placementFlags(), interferenceFlags()...), hostFlags()...), limitFlags()...)
	return append(append(append(append(commonFlags(), compareFlags()...), shapeFlags()...), hygiene...),
		&cli.IntFlag{Name: "repetitions", Value: supervisor.DefaultRepetitions, Usage: "fresh processes per benchmark (go test's -count)"},
		&cli.IntFlag{Name: "count", Hidden: true, Usage: "go test's -count: --repetitions with --bench; test mode runs each test once"},
		&cli.DurationFlag{Name: "sample-time", Aliases: []string{"bench-min-time"}, Value: supervisor.DefaultSampleTime,
			Usage: "time one sample should take: N is calibrated once per benchmark for it, and samples under half of it are flagged"},
		&cli.StringFlag{Name: "benchtime", Usage: "go test's -benchtime, per sample: a `DURATION` is --sample-time; Nx measures exactly N iterations per sample, without calibration",
			DefaultText: "--sample-time"},
		&cli.IntFlag{Name: "samples", Value: supervisor.DefaultSamples, Usage: "timed samples per process"},
		&cli.DurationFlag{Name: "test-timeout", Usage: "bound each test", DefaultText: supervisor.DefaultTestDeadline.String()},
		&cli.BoolFlag{Name: "short", Usage: "tell tests to shorten (testing.Short reports true, as under go test -short)"},
		&cli.StringFlag{Name: "json", Usage: "write the JSON document to `FILE` (a bare -json, as go test takes it, is --format=test2json: go test -json's event stream)"},
		&cli.StringFlag{Name: "events", Usage: "write the run's events as they happen (build, discovery, process start and end, result, comparison, done) as newline-delimited JSON to `FILE`; - is stdout, and the table then goes to stderr"},
		&cli.StringFlag{Name: "html", Usage: "write a self-contained HTML report (every process's samples plotted, comparisons, workload windows) to `FILE`"},
		&cli.StringFlag{Name: "format", Value: "table", Usage: "stdout format: table, markdown (GitHub-flavored, for a job summary or a PR comment), benchfmt, json, csv (one row per identity; the columns are in docs/output.md) or test2json (go test -json's events, for gotestsum, tparse and CI annotations)"},
		&cli.BoolFlag{Name: "csv-samples", Usage: "with --format=csv, one row per sample (with its process index) instead of one per identity"},
		&cli.BoolFlag{Name: "dry-run", Usage: "with --bench, run every selected benchmark once (N=1, as -benchtime=1x) in a fresh process to prove the suite runs; the document is marked dryRun and holds no numbers, and no comparison, gate or baseline takes it"},
		&cli.BoolFlag{Name: "allow-empty", Usage: "pass a run whose --bench, --run or -skip selection matches nothing in any package (without it, such a run fails: a gate that checked nothing)"},
		&cli.BoolFlag{Name: "fail-fast", Aliases: []string{"failfast"}, Usage: "start nothing new after the first failure"},
		&cli.IntFlag{Name: "p", Usage: "builds and test packages at once, as go test -p",
			DefaultText: "number of CPUs"},
		&cli.IntFlag{Name: "parallel", Usage: "t.Parallel tests run at once in each child, as go test -parallel (-test.parallel)",
			DefaultText: "GOMAXPROCS"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list passing and skipped tests too"},
		&cli.StringFlag{Name: "metrics", Usage: "count `LIST` after timing: names, comma lists, *-globs, all, none; ? or help prints the catalog",
			DefaultText: "the catalog's default set, less what this host cannot count"},
		&cli.BoolFlag{Name: "require-metrics", Usage: "fail the run (exit 1, naming the metric and why) when a metric --metrics selects cannot be counted, instead of showing it as an em dash"},
		&cli.Int64Flag{Name: "perf-iters", Usage: "pin the iterations of a counting pass; it then runs even where the default would skip it",
			DefaultText: "sized to about 15% of the process's timed work, skipped where that cannot be done within 25%"},
		&cli.Int64Flag{Name: "perf-batch", Usage: "pin the iterations one counter bracket spans in loops benchsup owns (measure.Iter, measure.Case; 1: each call)",
			DefaultText: "about 1 ms"},
		&cli.BoolFlag{Name: "perf-scaled", Usage: "keep a multiplexed hardware counter group; every scaled value is marked ≈"},
		&cli.StringFlag{Name: "window-metrics", Usage: "read `LIST` at every workload window's edges, as --metrics selects; other sources than tier0 are counters enabled over the window, and each window's note gives their measured cost",
			DefaultText: "tier0's metrics, which every window reads anyway"},
		&cli.StringSliceFlag{Name: "against", Usage: "also build the packages at git revision `REV` (exported outside your tree) and run both builds' processes in interleaved pairs; prints how this tree compares (repeatable; --repetitions then counts pairs, 6 unless given)"},
		&cli.StringFlag{Name: "vs", Usage: "compare the variants of each benchmark that differ only in the name element `KEY`=VALUE (BenchmarkHash/impl=fnv, impl=xxh) inside this run: their processes run in rounds, every variant in every position equally often, and each is compared with the group's first (KEY:VALUE names the reference); --repetitions then counts rounds, 6 pairs' worth unless given"},
		&cli.StringFlag{Name: "vs-iterations", Value: supervisor.VsOwn, Usage: "with --vs, how each variant's N is chosen: own (each calibrated to the same sample time) or shared (every variant runs its reference's N)"},
		&cli.StringFlag{Name: "baseline", Usage: "compare this run with the run document in `FILE` (as --save-baseline wrote it); its fingerprint must match"},
		&cli.StringFlag{Name: "shard", Usage: "run part `K/N` of the benchmark functions (by a hash of each name, or balanced by --baseline's durations); benchsup merge joins the parts"},
		&cli.StringFlag{Name: "save-baseline", Usage: "write this run's document to `FILE` atomically, for later --baseline runs"},
	)
}

func listFlags() []cli.Flag { return commonFlags() }

// envPolicyOf is the children's environment policy the --env-* flags ask
// for (run, list and record).
func envPolicyOf(c *cli.Context) sandbox.EnvPolicy {
	return sandbox.EnvPolicy{
		Inherit: c.Bool("env-inherit"),
		Keep:    c.StringSlice("env-keep"),
		Set:     c.StringSlice("env-set"),
		Remove:  c.StringSlice("env-remove"),
	}
}

// config builds the supervisor configuration shared by run and list.
func config(c *cli.Context) (supervisor.Config, error) {
	cfg := supervisor.Config{
		Shim:           true, // internal/reexec dispatches sandbox.ShimArg (docs/design.md#the-shim)
		Dir:            c.String("dir"),
		Packages:       c.Args().Slice(),
		Bench:          c.String("bench"),
		Run:            c.String("run"),
		Skip:           c.String("skip"),
		Vet:            c.String("vet"),
		TestArgs:       testArgsOf(c),
		Timeout:        c.Duration("timeout"),
		StartupTimeout: c.Duration("startup-timeout"),
		Env:            envPolicyOf(c),
	}
	for _, f := range []string{"tags", "gcflags", "ldflags", "mod"} {
		if c.IsSet(f) {
			cfg.BuildFlags = append(cfg.BuildFlags, "-"+f+"="+c.String(f))
		}
	}
	for _, f := range []string{"race", "cover", "trimpath"} {
		if c.Bool(f) {
			cfg.BuildFlags = append(cfg.BuildFlags, "-"+f)
		}
	}
	cfg.CoverProfile = c.String("coverprofile")
	if c.IsSet("bench") {
		cfg.Mode = supervisor.ModeBench
		if cfg.Bench == "" {
			cfg.Bench = "."
		}
	}
	for _, d := range []string{"timeout", "startup-timeout"} {
		if c.IsSet(d) && c.Duration(d) <= 0 {
			// go test reads -timeout=0 as no limit; benchsup bounds every
			// child, so the fix is a long one.
			return cfg, usagef("--%s must be positive, got %v (every child is bounded: give a long one, such as --%s=24h)", d, c.Duration(d), d)
		}
	}
	for _, kv := range cfg.Env.Set {
		if name, _, ok := strings.Cut(kv, "="); !ok || name == "" {
			return cfg, usagef("--env-set wants NAME=VALUE, got %q", kv)
		}
	}
	return cfg, nil
}

// goTestCounts applies go test's -count and -benchtime: -count is
// --repetitions for benchmarks, and test mode runs each test once (so only
// -count=1, go test's way of skipping its cache, is accepted there);
// -benchtime is the time of one sample (--sample-time) or, as Nx, a fixed
// N per sample with no calibration.
func goTestCounts(c *cli.Context, cfg *supervisor.Config) error {
	if c.IsSet("count") {
		n := c.Int("count")
		switch {
		case cfg.Mode != supervisor.ModeBench && n != 1:
			return usagef("-count=%d: test mode runs each test once, in a fresh process; -count repeats benchmarks (--bench), as --repetitions", n)
		case n < 1:
			return usagef("-count must be at least 1, got %d", n)
		case c.IsSet("repetitions") && cfg.Repetitions != n:
			return usagef("-count=%d and --repetitions=%d disagree: give one", n, cfg.Repetitions)
		}
		if cfg.Mode == supervisor.ModeBench {
			cfg.Repetitions = n
		}
	}
	if !c.IsSet("benchtime") {
		return nil
	}
	bt := c.String("benchtime")
	if n, ok := strings.CutSuffix(bt, "x"); ok {
		iters, err := strconv.ParseInt(n, 10, 64)
		if err != nil || iters < 1 {
			return usagef("-benchtime=%s: want a duration (the time of one sample) or Nx with N at least 1", bt)
		}
		cfg.Iterations = iters
		return nil
	}
	d, err := time.ParseDuration(bt)
	if err != nil || d <= 0 {
		return usagef("-benchtime=%s: want a positive duration (the time of one sample) or Nx (exactly N iterations per sample)", bt)
	}
	if c.IsSet("sample-time") && d != cfg.SampleTime {
		return usagef("-benchtime=%s and --sample-time=%v disagree: give one", bt, cfg.SampleTime)
	}
	cfg.SampleTime = d
	return nil
}

// flagOf names the flag that sets each validated Config field.
var flagOf = map[string]string{
	"Repetitions": "--repetitions", "Samples": "--samples", "SampleTime": "--sample-time",
	"Timeout": "--timeout", "StartupTimeout": "--startup-timeout", "TestDeadline": "--test-timeout",
	"Parallel": "-p", "TestParallel": "-parallel", "Skip": "-skip", "TestArgs": "-args", "Vet": "-vet", "PerfIters": "--perf-iters", "PerfBatch": "--perf-batch",
	"Bench": "--bench", "Run": "--run", "Iterations": "-benchtime", "Shard": "--shard",
	"Vs": "--vs", "VsReference": "--vs", "VsIterations": "--vs-iterations",
}

// configUsage turns a Config validation error into a usage error that
// names the flag.
func configUsage(err error) error {
	var ce *supervisor.ConfigError
	if errors.As(err, &ce) && flagOf[ce.Field] != "" {
		return usagef("%s %s", flagOf[ce.Field], ce.Problem)
	}
	return usageError{err}
}

// formatter picks the stdout renderer; shape is --row, --col and --sort,
// which only the table and markdown of a benchmark run take.
func formatter(name string, mode supervisor.Mode, verbose bool, shape report.Shape) (func(io.Writer, rundoc.Document) error, error) {
	if !shape.IsZero() && mode == supervisor.ModeTest {
		return nil, usagef("--row, --col and --sort shape a benchmark table: add --bench")
	}
	if err := checkShapeFormat(shape, name); err != nil {
		return nil, err
	}
	switch name {
	case "table":
		if mode == supervisor.ModeTest {
			return func(w io.Writer, d rundoc.Document) error { return report.WriteTests(w, d, verbose) }, nil
		}
		return func(w io.Writer, d rundoc.Document) error {
			return report.WriteTable(w, d, report.TableOptions{Verbose: verbose, Width: report.TerminalWidth(w), Shape: shape})
		}, nil
	case "markdown":
		if mode == supervisor.ModeTest {
			return nil, usagef("--format=markdown needs --bench (a test run's results are go test's lines: --format=table)")
		}
		return func(w io.Writer, d rundoc.Document) error {
			return report.WriteMarkdown(w, d, report.TableOptions{Verbose: verbose, Shape: shape})
		}, nil
	case "benchfmt":
		if mode == supervisor.ModeTest {
			return nil, usagef("--format=benchfmt needs --bench")
		}
		return report.WriteBenchfmt, nil
	case "json":
		return rundoc.WriteJSON, nil
	case "test2json":
		return report.WriteTest2JSON, nil
	case "csv":
		return func(w io.Writer, d rundoc.Document) error { return report.WriteCSV(w, d, report.CSVOptions{}) }, nil
	}
	return nil, usagef("--format must be table, markdown, benchfmt, json, csv or test2json, got %q", name)
}

func listCommand(c *cli.Context, stdout, stderr io.Writer) error {
	cfg, err := config(c)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(stderr)
	defer stop()
	if err := cfg.Validate(); err != nil {
		return configUsage(err)
	}
	defer startRun(stderr, false)()
	entries, err := supervisor.List(ctx, cfg)
	if err != nil {
		return cmp.Or(interruption(ctx), err)
	}
	bad := false
	for _, e := range entries {
		if e.Error != "" {
			bad = true
			fmt.Fprintf(stdout, "%s\t%s\t%s\terror: %s\n", e.Package, e.Kind, e.Name, oneLine(e.Error))
			continue
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", e.Package, e.Kind, e.Name)
	}
	if err := interruption(ctx); err != nil {
		return err
	}
	if bad {
		return errFailed
	}
	return nil
}

// prefixWriter prefixes each warning line with "benchsup: ".
type prefixWriter struct{ w io.Writer }

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "benchsup: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}

func ptr[T any](v T) *T { return &v }
