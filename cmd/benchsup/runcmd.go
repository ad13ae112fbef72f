package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/benchsup/benchsup/sources"
	"github.com/benchsup/benchsup/supervisor"
)

// The run command goes in three steps: its flags are read into a
// runOptions (runOptionsFrom, which runs nothing), the run is executed
// (executeRun), and its results are emitted (emitRun).

// runOptions is everything the run command's flags decide.
type runOptions struct {
	cfg      supervisor.Config // without Warnings, Progress and Events, which executeRun sets
	failOn   analysis.FailOn   // --fail-on: "", slower or inconclusive
	format   string            // --format
	shape    report.Shape      // --row, --col, --sort
	write    func(io.Writer, rundoc.Document) error
	verbose  bool
	json     string // --json FILE, or ""
	html     string // --html FILE, or ""
	save     string // --save-baseline FILE, or ""
	baseline string // --baseline FILE, or ""
	events   string // --events FILE, - for stdout, or ""
	sel      selection
	// required are the metrics --require-metrics requires; nil without it.
	required []string
	dryRun   bool // --dry-run

	// metricsHelp: --metrics or --window-metrics asked for the catalog,
	// which is printed instead of running.
	metricsHelp bool
	// warnings are said before the run (or the usage error), one line each.
	warnings []string
}

// hostProbe is what reading the options asks of this host: whether a
// --cpus list can be honored, which cgroup limits can be written and which
// metrics can be counted. Tests give fixed answers, so reading options
// runs nothing.
type hostProbe struct {
	placement func(cpus []int, env sandbox.EnvPolicy) error
	limits    func() sandbox.LimitSupport
	metrics   func(scaled bool) []string // the default --metrics set
	sources   func(scaled bool) []rundoc.SourceReport
}

// thisHost answers for the host benchsup runs on.
var thisHost = hostProbe{
	placement: func(cpus []int, env sandbox.EnvPolicy) error {
		_, _, err := supervisor.CheckPlacement(cpus, env)
		return err
	},
	limits:  sandbox.ProbeLimits,
	metrics: func(scaled bool) []string { return sources.Defaults(sources.Options{Scaled: scaled}) },
	sources: supervisor.ProbeSources,
}

func runCommand(c *cli.Context, stdout, stderr io.Writer) error {
	opts, err := runOptionsFrom(c, thisHost)
	for _, w := range opts.warnings {
		fmt.Fprintf(stderr, "benchsup: %s\n", w)
	}
	switch {
	case err != nil:
		return err
	case opts.metricsHelp:
		return listMetrics(stdout, opts.cfg.PerfScaled)
	}
	return executeRun(opts, stdout, stderr)
}

// runOptionsFrom reads the run command's flags. A command line that cannot
// run is a usage error; the warnings gathered before it are in the
// options returned with it.
func runOptionsFrom(c *cli.Context, probe hostProbe) (runOptions, error) {
	var o runOptions
	cfg, err := config(c)
	if err != nil {
		return o, err
	}
	cfg.Repetitions = c.Int("repetitions")
	cfg.SampleTime = c.Duration("sample-time")
	cfg.Short = c.Bool("short")
	if err := goTestCounts(c, &cfg); err != nil {
		return o, err
	}
	cfg.Samples = c.Int("samples")
	cfg.TestDeadline = c.Duration("test-timeout")
	cfg.FailFast = c.Bool("fail-fast")
	cfg.Parallel = c.Int("p")
	cfg.TestParallel = c.Int("parallel")
	if c.IsSet("parallel") && cfg.TestParallel < 1 {
		return o, usagef("-parallel must be at least 1, got %d (it is go test's limit on t.Parallel tests; packages at once is -p)", cfg.TestParallel)
	}
	cfg.PerfIters = c.Int64("perf-iters")
	cfg.PerfBatch = c.Int64("perf-batch")
	cfg.PerfScaled = c.Bool("perf-scaled")
	cfg.Against = c.StringSlice("against")
	if len(cfg.Against) > 0 && !c.IsSet("repetitions") && !c.IsSet("count") {
		cfg.Repetitions = supervisor.DefaultPairs
	}
	o.cfg = cfg // for the catalog's --perf-scaled, should a return below print it
	if cfg.Compare, o.failOn, err = compareConfig(c); err != nil {
		return o, err
	}
	o.baseline, o.save = c.String("baseline"), c.String("save-baseline")
	if err := applyVs(c, &cfg, o); err != nil {
		return o, err
	}
	comparing := len(cfg.Against) > 0 || o.baseline != ""
	switch {
	case o.failOn != "" && !comparing:
		return o, usagef("--fail-on gates a comparison: give --against or --baseline")
	case cfg.Mode != supervisor.ModeBench && (comparing || o.save != ""):
		return o, usagef("--against, --baseline and --save-baseline compare benchmarks: add --bench")
	case cfg.Mode != supervisor.ModeBench && c.Bool("require-metrics"):
		return o, usagef("--require-metrics requires the metrics of a benchmark run: add --bench")
	}
	if cfg.Mode == supervisor.ModeBench {
		names, warnings, help := sources.Select(c.String("metrics"))
		if help {
			o.metricsHelp = true
			return o, nil
		}
		for _, w := range warnings {
			if c.Bool("require-metrics") {
				// A selector that selects nothing counts nothing.
				return o, fmt.Errorf("--require-metrics: --metrics: %s", w)
			}
			o.warnings = append(o.warnings, "--metrics: "+w)
		}
		if strings.TrimSpace(c.String("metrics")) == "" {
			// The default set: only what this host can count.
			names = probe.metrics(cfg.PerfScaled)
		}
		cfg.Metrics = names
		if c.Bool("require-metrics") {
			if probe.sources != nil {
				if err := uncountableMetric(names, probe.sources(cfg.PerfScaled)); err != nil {
					return o, err
				}
			}
			o.required = names
		}
		cfg.WindowMetrics = sources.WindowDefault()
		if c.IsSet("window-metrics") {
			// Select reads "" as the benchmarks' default set; here it is none.
			names, warnings, help := sources.Select(cmp.Or(strings.TrimSpace(c.String("window-metrics")), "none"))
			if help {
				o.metricsHelp = true
				return o, nil
			}
			for _, w := range warnings {
				o.warnings = append(o.warnings, "--window-metrics: "+w)
			}
			cfg.WindowMetrics = names
		}
	}
	// Zero means the default to a Config; typed on the command line it is
	// a mistake for these.
	switch {
	case cfg.Repetitions == 0:
		return o, usagef("--repetitions must be at least 1, got 0")
	case cfg.Samples == 0:
		return o, usagef("--samples must be at least 1, got 0")
	case cfg.SampleTime == 0:
		return o, usagef("--sample-time must be positive, got 0s")
	case c.IsSet("test-timeout") && cfg.TestDeadline == 0:
		return o, usagef("--test-timeout must be positive, got 0s")
	}
	if c.Bool("dry-run") {
		if err := applyDryRun(c, &cfg, o); err != nil {
			return o, err
		}
		o.dryRun = true
	}
	if cfg.Vs != "" && !c.IsSet("repetitions") && !c.IsSet("count") {
		cfg.Repetitions = 0 // each group's own default rounds (supervisor.Config.Repetitions)
	}
	if err := applyPlacement(c, &cfg, probe.placement); err != nil {
		return o, err
	}
	if err := applyInterference(c, &cfg); err != nil {
		return o, err
	}
	if err := applyHost(c, &cfg); err != nil {
		return o, err
	}
	if err := applyLimits(c, &cfg, probe.limits); err != nil {
		return o, err
	}
	if c.IsSet("shard") {
		if cfg.Shard, err = supervisor.ParseShard(c.String("shard")); err != nil {
			return o, usagef("--shard: %v", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return o, configUsage(err)
	}
	o.format, o.verbose = c.String("format"), c.Bool("verbose")
	if o.shape, err = shapeOf(c); err != nil {
		return o, err
	}
	if o.write, err = formatter(o.format, cfg.Mode, o.verbose, o.shape); err != nil {
		return o, err
	}
	if c.Bool("csv-samples") {
		if o.format != "csv" {
			return o, usagef("--csv-samples is a form of --format=csv: add --format=csv")
		}
		o.write = func(w io.Writer, d rundoc.Document) error {
			return report.WriteCSV(w, d, report.CSVOptions{Samples: true})
		}
	}
	o.events = c.String("events")
	if o.events == "-" && o.format != "table" {
		// stdout is the event stream, and a document format would
		// interleave with the events.
		return o, usagef("--events=- takes stdout: write the document with --json=FILE instead of --format=%s", o.format)
	}
	o.json, o.html = c.String("json"), c.String("html")
	o.sel = selectionOf(cfg, c.IsSet, c.String, c.Bool("allow-empty"))
	o.cfg = cfg
	return o, nil
}

// applyVs reads --vs=KEY[:VALUE] and --vs-iterations, and refuses what
// cannot go with them. A run compares one kind of thing: variants inside
// this build (--vs) or this build with another (--against, --baseline),
// so that each comparison's rows are paired one way; and --fail-on gates
// a change against an old build, which variants do not have.
func applyVs(c *cli.Context, cfg *supervisor.Config, o runOptions) error {
	vs := c.String("vs")
	if !c.IsSet("vs") {
		if c.IsSet("vs-iterations") {
			return usagef("--vs-iterations sets the N of --vs's variants: add --vs=KEY")
		}
		return nil
	}
	key, ref, hasRef := strings.Cut(vs, ":")
	switch {
	case strings.TrimSpace(key) == "":
		return usagef("--vs wants KEY or KEY:VALUE, the key of a name element such as impl in BenchmarkHash/impl=fnv; got %q", vs)
	case hasRef && ref == "":
		return usagef("--vs=%s: give the reference value after the colon (KEY:VALUE), or no colon for each group's first variant", vs)
	case cfg.Mode != supervisor.ModeBench:
		return usagef("--vs compares benchmarks: add --bench")
	case len(cfg.Against) > 0:
		return usagef("--vs and --against: --vs compares variants inside this build, --against compares builds; one kind of comparison per run")
	case o.baseline != "":
		return usagef("--vs and --baseline: --vs compares variants inside this run, --baseline compares this run with another; one kind of comparison per run (save this run with --save-baseline and compare the two with benchsup compare)")
	case o.failOn != "":
		return usagef("--fail-on gates a change against an old build; --vs compares variants of one build, with no old side to gate")
	}
	cfg.Vs, cfg.VsReference, cfg.VsIterations = key, ref, c.String("vs-iterations")
	return nil
}

// applyDryRun sets what --dry-run means: every selected benchmark runs
// once (N=1, one sample, one process, as -benchtime=1x) with nothing
// counted, to prove the suite runs. What asks for numbers, or sets how
// they are taken, cannot go with it.
func applyDryRun(c *cli.Context, cfg *supervisor.Config, o runOptions) error {
	if cfg.Mode != supervisor.ModeBench {
		return usagef("--dry-run runs every selected benchmark once: add --bench (tests always run in full)")
	}
	for _, f := range []string{"against", "baseline", "save-baseline", "fail-on", "vs"} {
		if c.IsSet(f) {
			return usagef("--dry-run and --%s: a dry run measures nothing, so it has no numbers to compare, gate or keep as a baseline", f)
		}
	}
	for _, f := range []string{"repetitions", "count", "samples", "sample-time", "benchtime", "metrics", "perf-iters", "perf-batch", "require-metrics"} {
		if c.IsSet(f) {
			return usagef("--dry-run runs each benchmark once (N=1, one sample, one process) and counts nothing: --%s has no meaning with it", f)
		}
	}
	cfg.Iterations, cfg.Samples, cfg.Repetitions = 1, 1, 1
	cfg.Metrics, cfg.WindowMetrics = nil, nil
	return nil
}

// runOutputs are the files the run writes at its end, opened before it.
type runOutputs struct {
	json, html, baseline *outputFile
	events               *eventStream
}

// executeRun runs what opts describe and emits the results.
func executeRun(opts runOptions, stdout, stderr io.Writer) error {
	cfg := opts.cfg
	eventsOut := stdout // --events=-, before stdout moves
	if opts.events == "-" {
		stdout = stderr // the table moves to stderr
	}
	cfg.Warnings = prefixWriter{stderr}
	live := false
	if f, ok := stdout.(*os.File); ok && report.LiveEnabled(f) && opts.events != "-" {
		live = true
	}
	progress := report.NewProgress(stderr, live)
	cfg.Progress = progress.Update
	// The running child's CPU and memory, repainted every second: on a
	// terminal only (nil otherwise), so piped output stays byte-stable.
	usage := startLiveUsage(progress, live, usagePeriod)
	cfg.Watch = usage.watcher()
	defer usage.close()

	defer startRun(stderr, opts.verbose)()
	// Every file is opened before the run, so that one that cannot be
	// written fails now rather than after the whole run.
	// A file that is not committed is given up, as it was: abort after
	// commit does nothing.
	var out runOutputs
	var err error
	if out.json, err = createOutput("--json", opts.json); err != nil {
		return err
	}
	defer out.json.abort()
	if out.html, err = createOutput("--html", opts.html); err != nil {
		return err
	}
	defer out.html.abort()
	if out.baseline, err = createOutput("--save-baseline", opts.save); err != nil {
		return err
	}
	defer out.baseline.abort()
	if err := checkCoverProfile(cfg.CoverProfile, cfg.Dir); err != nil {
		return err
	}
	var baseline *rundoc.Document
	if opts.baseline != "" {
		if baseline, err = readRun(opts.baseline, stderr); err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
		if baseline.Meta.DryRun {
			// Refused before the run, not after it.
			return fmt.Errorf("--baseline: %s is %w: there are no numbers to compare with", opts.baseline, rundoc.ErrDryRun)
		}
		cfg.Shard = cfg.Shard.Balance(analysis.Durations(baseline))
	}
	if out.events, err = openEvents(opts.events, eventsOut); err != nil {
		return err
	}
	if out.events != nil {
		cfg.Events = out.events.w.Emit
	}
	if opts.format == "test2json" && cfg.Mode == supervisor.ModeTest {
		// go test -json writes each package as its test binary exits:
		// so does -json, from the result events, each package once its
		// rows are final.
		stream := report.NewTest2JSONStream(stdout)
		emit := cfg.Events
		cfg.Events = func(ev rundoc.Event) {
			if emit != nil {
				emit(ev)
			}
			if ev.Kind == rundoc.EventResult && ev.Row != nil {
				stream.Result(*ev.Row)
			}
		}
		opts.write = func(_ io.Writer, d rundoc.Document) error { return stream.Finish(d) }
	}
	ctx, stop := signalContext(stderr)
	defer stop()
	doc, err := supervisor.Run(ctx, cfg)
	usage.close()
	progress.Clear()
	if err == nil && opts.dryRun {
		rundoc.MarkDryRun(doc)
	}
	if err != nil && opts.failOn != "" && errors.Is(err, host.ErrNotQuiet) {
		err = unjudged{err}
	}
	if err != nil {
		err = cmp.Or(interruption(ctx), err)
		out.events.emit(rundoc.Event{Kind: rundoc.EventDone, Error: ptr(oneLine(err.Error()))})
		return errors.Join(err, out.events.close())
	}
	var errs []error
	if baseline != nil {
		ccfg := cfg.Compare
		ccfg.OldLabel, ccfg.NewLabel = "baseline "+opts.baseline, "this run"
		cmp, err := analysis.Compare(baseline, doc, ccfg)
		if err != nil {
			errs = append(errs, fmt.Errorf("--baseline: %w", err))
		} else {
			doc.Comparisons = append(doc.Comparisons, *cmp)
		}
	}
	return emitRun(doc, opts, out, interruption(ctx), errs, stdout, stderr)
}

// emitRun writes a run's results: its last events, stdout, then the files,
// and returns the run's outcome. stopped is the interruption that ended
// the run early, or nil; errs are what already failed. Every failure is
// returned, joined; an interruption among them keeps its exit status.
func emitRun(doc *rundoc.Document, opts runOptions, out runOutputs, stopped error, errs []error, stdout, stderr io.Writer) error {
	for _, c := range doc.Comparisons {
		out.events.emit(rundoc.ComparisonEvent(c))
	}
	var sig interrupted
	if errors.As(stopped, &sig) {
		doc.Interrupted = &rundoc.Interruption{Signal: signalName(sig.sig)}
		for _, r := range doc.Rows {
			if r.Outcome == rundoc.OutcomeNotRun {
				doc.Interrupted.NotRun++
			}
		}
	}
	done := rundoc.DoneEvent(*doc)
	if stopped != nil {
		done.Error = ptr(stopped.Error())
	}
	out.events.emit(done)
	if err := out.events.close(); err != nil {
		errs = append(errs, err)
	}
	if opts.shape.Projected() {
		// The keys are checked against the names measured: a key no name
		// has is said in one line, and the table is shown unshaped rather
		// than the run's results lost.
		var names []string
		for _, r := range doc.Rows {
			if r.Kind == rundoc.KindBenchmark {
				names = append(names, r.Name)
			}
		}
		for _, c := range doc.Comparisons {
			for _, r := range c.Rows {
				names = append(names, r.Name)
			}
		}
		if err := checkShape(opts.shape, names); err != nil {
			fmt.Fprintf(stderr, "benchsup: %s; the table is shown unshaped\n", errLine(err))
			opts.shape = report.Shape{}
			opts.write, _ = formatter(opts.format, supervisor.ModeBench, opts.verbose, opts.shape)
		}
	}
	// The table first: a file that cannot be written at the end does not
	// cost the results on stdout.
	if err := opts.write(stdout, *doc); err != nil {
		errs = append(errs, fmt.Errorf("writing results: %w", err))
	}
	if opts.format == "markdown" {
		for _, cmp := range doc.Comparisons {
			if cmp.Variants != nil {
				continue
			}
			fmt.Fprintln(stdout)
			if err := report.WriteComparisonMarkdown(stdout, cmp, opts.shape); err != nil {
				errs = append(errs, fmt.Errorf("writing the comparison: %w", err))
			}
		}
		if slices.ContainsFunc(doc.Comparisons, func(c rundoc.Comparison) bool { return c.Variants != nil }) {
			fmt.Fprintln(stdout)
			if err := report.WriteVariantMarkdown(stdout, doc.Rows, doc.Comparisons); err != nil {
				errs = append(errs, fmt.Errorf("writing the comparison: %w", err))
			}
		}
	}
	if opts.format == "table" {
		if opts.verbose {
			writeSchedules(stdout, doc.Comparisons)
		}
		// A --vs run's comparisons as one table per key (report's
		// variant tables, with the vs matrix); each contender's full
		// comparison (B/op, allocs/op, every note) under -v.
		variants := slices.ContainsFunc(doc.Comparisons, func(c rundoc.Comparison) bool { return c.Variants != nil })
		if variants && !opts.shape.IsZero() {
			fmt.Fprintln(stderr, "benchsup: note: --row, --col and --sort do not shape --vs's variant tables, which are one table per key already")
		}
		if variants {
			fmt.Fprintln(stdout)
			if err := report.WriteVariantTables(stdout, doc.Rows, doc.Comparisons); err != nil {
				errs = append(errs, fmt.Errorf("writing the comparison: %w", err))
			}
		}
		for _, cmp := range doc.Comparisons {
			if cmp.Variants != nil && !opts.verbose {
				continue
			}
			fmt.Fprintln(stdout)
			if err := report.WriteShapedComparisonTable(stdout, cmp, opts.shape); err != nil {
				errs = append(errs, fmt.Errorf("writing the comparison: %w", err))
			}
		}
	}
	if err := out.json.commit(func(w io.Writer) error { return rundoc.WriteJSON(w, *doc) }); err != nil {
		errs = append(errs, err)
	}
	if err := out.html.commit(func(w io.Writer) error { return report.WriteHTML(w, report.HTMLReport{Run: doc}) }); err != nil {
		errs = append(errs, err)
	}
	// A run whose selection matched nothing checked nothing, and one that
	// lacks a required metric did not count it: each fails, and is no
	// baseline.
	var unmet error
	if stopped == nil {
		unmet = cmp.Or(opts.sel.errNoMatch(doc), missingMetric(doc, opts.required))
	}
	// A partial run is no baseline (a later gate would find its missing
	// identities incomplete): uncommitted, the file is left as it was.
	if stopped == nil && unmet == nil {
		if err := out.baseline.commit(func(w io.Writer) error { return rundoc.WriteJSON(w, *doc) }); err != nil {
			errs = append(errs, err)
		}
	}
	// The interruption comes first: it decides the exit status (128 plus
	// the signal), and the failures after it are said on the same line.
	if err := errors.Join(append([]error{stopped, unmet}, errs...)...); err != nil {
		return err
	}
	if err := gateAll(doc.Comparisons, opts.failOn, stderr); err != nil {
		return err
	}
	if doc.Failed() {
		return errFailed
	}
	return nil
}

// writeSchedules prints, under -v, the rounds each --vs group ran in:
// "BenchmarkHash/impl=*/n=8: rounds fnv xxh crc | xxh crc fnv | ...". A
// group is in every comparison of its contenders; it is printed once.
func writeSchedules(w io.Writer, comparisons []rundoc.Comparison) {
	seen := map[string]bool{}
	for _, c := range comparisons {
		if c.Variants == nil {
			continue
		}
		for _, g := range c.Variants.Groups {
			key := c.Variants.Key + "\x00" + g.Group + "\x00" + strings.Join(g.Members, "\x00")
			if seen[key] {
				continue
			}
			if len(seen) == 0 {
				fmt.Fprintln(w) // apart from the table above
			}
			seen[key] = true
			rounds := make([]string, len(g.Schedule))
			for k, round := range g.Schedule {
				names := make([]string, len(round))
				for i, m := range round {
					names[i] = g.Members[m]
				}
				rounds[k] = strings.Join(names, " ")
			}
			fmt.Fprintf(w, "%s: rounds %s\n", g.Group, strings.Join(rounds, " | "))
		}
	}
}

// errLine is err on one line, as run prints it: the errors errors.Join
// joined, each on its one line, joined by "; ".
func errLine(err error) string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var lines, whole []string
		for _, e := range j.Unwrap() {
			lines = append(lines, errLine(e))
			whole = append(whole, e.Error())
		}
		// Only errors.Join's own text is taken apart: another error with
		// several causes (fmt.Errorf with two %w) says them its own way.
		if strings.Join(whole, "\n") == err.Error() {
			return strings.Join(lines, "; ")
		}
	}
	return oneLine(err.Error())
}
