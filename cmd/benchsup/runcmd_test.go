package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/benchsup/benchsup/supervisor"
)

// fixedHost answers as a host whose CPU 99 cannot be used, with no cgroup
// controller and one default metric.
var fixedHost = hostProbe{
	placement: func(cpus []int, _ sandbox.EnvPolicy) error {
		if slices.Contains(cpus, 99) {
			return errors.New("CPU 99 is not online")
		}
		return nil
	},
	limits: func() sandbox.LimitSupport {
		return sandbox.LimitSupport{MemoryNote: "no cgroup here", PidsNote: "no cgroup here"}
	},
	metrics: func(bool) []string { return []string{"fixed-default"} },
}

// parseRun reads a run command line into options, as benchsup's command
// line parser gives it to runOptionsFrom, without running anything.
func parseRun(t *testing.T, args ...string) (runOptions, error) {
	t.Helper()
	var opts runOptions
	var optsErr error
	app := newApp(io.Discard, io.Discard)
	for _, cmd := range app.Commands {
		if cmd.Name == "run" {
			cmd.Action = func(c *cli.Context) error {
				opts, optsErr = runOptionsFrom(c, fixedHost)
				return nil
			}
		}
	}
	full, err := normalizeArgs(app, append([]string{"benchsup", "run"}, args...))
	if err == nil {
		err = app.Run(full)
	}
	return opts, firstErr(err, optsErr)
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func TestRunOptions(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		err   string // a usage error starting so, instead of options
		check func(t *testing.T, o runOptions)
	}{
		{"test mode by default", []string{"./..."}, "", func(t *testing.T, o runOptions) {
			if o.cfg.Mode != supervisor.ModeTest || o.format != "table" || o.cfg.Metrics != nil || !slices.Equal(o.cfg.Packages, []string{"./..."}) {
				t.Errorf("mode %v, format %q, metrics %v, packages %v", o.cfg.Mode, o.format, o.cfg.Metrics, o.cfg.Packages)
			}
		}},
		{"a bare --bench selects all, with the host's default metrics", []string{"--bench", "./..."}, "", func(t *testing.T, o runOptions) {
			if o.cfg.Mode != supervisor.ModeBench || o.cfg.Bench != "." || !slices.Equal(o.cfg.Metrics, []string{"fixed-default"}) {
				t.Errorf("mode %v, bench %q, metrics %v", o.cfg.Mode, o.cfg.Bench, o.cfg.Metrics)
			}
		}},
		{"go test's -count is --repetitions", []string{"-bench=X", "-count=5"}, "", func(t *testing.T, o runOptions) {
			if o.cfg.Repetitions != 5 {
				t.Errorf("repetitions %d, want 5", o.cfg.Repetitions)
			}
		}},
		{"-benchtime=Nx pins the iterations", []string{"-bench=X", "-benchtime=100x"}, "", func(t *testing.T, o runOptions) {
			if o.cfg.Iterations != 100 {
				t.Errorf("iterations %d, want 100", o.cfg.Iterations)
			}
		}},
		{"-benchtime=DURATION is --sample-time", []string{"-bench=X", "-benchtime=250ms"}, "", func(t *testing.T, o runOptions) {
			if o.cfg.SampleTime != 250*time.Millisecond || o.cfg.Iterations != 0 {
				t.Errorf("sample time %v, iterations %d", o.cfg.SampleTime, o.cfg.Iterations)
			}
		}},
		{"--against counts pairs", []string{"--bench", "--against=HEAD~1"}, "", func(t *testing.T, o runOptions) {
			if o.cfg.Repetitions != supervisor.DefaultPairs || !slices.Equal(o.cfg.Against, []string{"HEAD~1"}) {
				t.Errorf("repetitions %d, against %v", o.cfg.Repetitions, o.cfg.Against)
			}
		}},
		{"output files", []string{"--bench", "--json=a.json", "--html=a.html", "--events=-", "--save-baseline=b.json", "--baseline=old.json", "--fail-on=slower"}, "", func(t *testing.T, o runOptions) {
			if o.json != "a.json" || o.html != "a.html" || o.events != "-" || o.save != "b.json" || o.baseline != "old.json" || o.failOn != "slower" {
				t.Errorf("%+v", o)
			}
		}},
		{"metrics that match nothing warn", []string{"--bench", "--metrics=nosuchmetric"}, "", func(t *testing.T, o runOptions) {
			if len(o.warnings) != 1 || !strings.HasPrefix(o.warnings[0], "--metrics: ") {
				t.Errorf("warnings %q, want one about --metrics", o.warnings)
			}
		}},
		{"--metrics=help asks for the catalog", []string{"--bench", "--metrics=help", "--perf-scaled"}, "", func(t *testing.T, o runOptions) {
			if !o.metricsHelp || !o.cfg.PerfScaled {
				t.Errorf("metricsHelp %v, perf-scaled %v", o.metricsHelp, o.cfg.PerfScaled)
			}
		}},
		{"--window-metrics=? asks for the catalog", []string{"--bench", "--window-metrics=?"}, "", func(t *testing.T, o runOptions) {
			if !o.metricsHelp {
				t.Error("metricsHelp false")
			}
		}},
		{"csv samples", []string{"--format=csv", "--csv-samples"}, "", func(t *testing.T, o runOptions) {
			if o.write == nil || o.format != "csv" {
				t.Errorf("write %v, format %q", o.write != nil, o.format)
			}
		}},
		{"a usable --cpus", []string{"--cpus=0"}, "", func(t *testing.T, o runOptions) {
			if !slices.Equal(o.cfg.CPUs, []int{0}) {
				t.Errorf("CPUs %v", o.cfg.CPUs)
			}
		}},
		{"--vs names a key; rounds default per group", []string{"--bench", "--vs=impl"}, "", func(t *testing.T, o runOptions) {
			if o.cfg.Vs != "impl" || o.cfg.VsReference != "" || o.cfg.VsIterations != supervisor.VsOwn || o.cfg.Repetitions != 0 {
				t.Errorf("vs %q, reference %q, iterations %q, repetitions %d", o.cfg.Vs, o.cfg.VsReference, o.cfg.VsIterations, o.cfg.Repetitions)
			}
		}},
		{"--vs=KEY:VALUE names the reference; --repetitions counts rounds", []string{"--bench", "--vs=impl:xxh", "--vs-iterations=shared", "--repetitions=8"}, "", func(t *testing.T, o runOptions) {
			if o.cfg.Vs != "impl" || o.cfg.VsReference != "xxh" || o.cfg.VsIterations != supervisor.VsShared || o.cfg.Repetitions != 8 {
				t.Errorf("vs %q, reference %q, iterations %q, repetitions %d", o.cfg.Vs, o.cfg.VsReference, o.cfg.VsIterations, o.cfg.Repetitions)
			}
		}},
		{"--vs KEY as its own argument, go test style", []string{"-bench=.", "-vs", "impl", "./..."}, "", func(t *testing.T, o runOptions) {
			if o.cfg.Vs != "impl" || !slices.Equal(o.cfg.Packages, []string{"./..."}) {
				t.Errorf("vs %q, packages %v", o.cfg.Vs, o.cfg.Packages)
			}
		}},
		{"--vs with a file to save", []string{"--bench", "--vs=impl", "--save-baseline=b.json"}, "", func(t *testing.T, o runOptions) {
			if o.save != "b.json" || o.cfg.Vs != "impl" {
				t.Errorf("save %q, vs %q", o.save, o.cfg.Vs)
			}
		}},
		{"--vs in test mode", []string{"--vs=impl"}, "--vs compares benchmarks: add --bench", nil},
		{"--vs with a gate", []string{"--bench", "--vs=impl", "--fail-on=slower"}, "--fail-on gates a change against an old build; --vs compares variants", nil},
		{"--vs with --against", []string{"--bench", "--vs=impl", "--against=HEAD~1"}, "--vs and --against: ", nil},
		{"--vs with --baseline", []string{"--bench", "--vs=impl", "--baseline=old.json"}, "--vs and --baseline: ", nil},
		{"--vs with an empty reference", []string{"--bench", "--vs=impl:"}, "--vs=impl:: give the reference value", nil},
		{"--vs without a key", []string{"--bench", "--vs=:fnv"}, "--vs wants KEY or KEY:VALUE", nil},
		{"--vs with an element for a key", []string{"--bench", "--vs=impl=fnv"}, "--vs must be the key of a name element", nil},
		{"--vs-iterations of another kind", []string{"--bench", "--vs=impl", "--vs-iterations=mine"}, "--vs-iterations must be own or shared", nil},
		{"--vs-iterations without --vs", []string{"--bench", "--vs-iterations=shared"}, "--vs-iterations sets the N of --vs's variants", nil},
		{"--events=- with a document format", []string{"--format=json", "--events=-"}, "--events=- takes stdout", nil},
		{"--csv-samples without csv", []string{"--csv-samples"}, "--csv-samples is a form of --format=csv", nil},
		{"a gate without a comparison", []string{"--bench", "--fail-on=slower"}, "--fail-on gates a comparison", nil},
		{"a baseline in test mode", []string{"--save-baseline=b.json"}, "--against, --baseline and --save-baseline compare benchmarks", nil},
		{"zero repetitions", []string{"--repetitions=0"}, "--repetitions must be at least 1, got 0", nil},
		{"zero repetitions before the host's refusal", []string{"--repetitions=0", "--cpus=99"}, "--repetitions must be at least 1", nil},
		{"a CPU the host refuses", []string{"--cpus=99"}, "--cpus=99: CPU 99 is not online", nil},
		{"a limit the host cannot apply", []string{"--memory-limit=1GiB"}, "--memory-limit: no cgroup memory controller can be written here: no cgroup here", nil},
		{"an unknown format", []string{"--format=xml"}, "--format must be table, markdown, benchfmt, json, csv or test2json", nil},
		{"benchfmt in test mode", []string{"--format=benchfmt"}, "--format=benchfmt needs --bench", nil},
		{"a bad shard", []string{"--bench", "--shard=3/2"}, "--shard: ", nil},
		{"markdown in test mode", []string{"--format=markdown"}, "--format=markdown needs --bench", nil},
		{"a column key that is not one", []string{"--bench", "--col=impl"}, `--col: "impl" is not a key`, nil},
		{"a key in both row and col", []string{"--bench", "--row=/n", "--col=.name,/n"}, "--row and --col both take /n", nil},
		{"a sort of another kind", []string{"--bench", "--sort=time"}, `--sort: "time": want name or median`, nil},
		{"a shape in test mode", []string{"--col=/impl"}, "--row, --col and --sort shape a benchmark table: add --bench", nil},
		{"a shape of json", []string{"--bench", "--sort=name", "--format=json"}, "--row, --col and --sort shape the table and markdown formats, not --format=json", nil},
		{"a shape", []string{"--bench", "--row=/n", "--col=.name,/impl", "--sort=median", "--format=markdown"}, "", func(t *testing.T, o runOptions) {
			want := report.Shape{Row: []report.Key{{Sub: "n"}}, Col: []report.Key{{Field: ".name"}, {Sub: "impl"}}, Sort: report.SortMedian}
			if !reflect.DeepEqual(o.shape, want) || o.format != "markdown" {
				t.Errorf("shape %+v, format %q; want %+v, markdown", o.shape, o.format, want)
			}
		}},
		{"--dry-run", []string{"--bench", "--dry-run"}, "", func(t *testing.T, o runOptions) {
			if !o.dryRun || o.cfg.Iterations != 1 || o.cfg.Samples != 1 || o.cfg.Repetitions != 1 || len(o.cfg.Metrics) != 0 {
				t.Errorf("dry run %v: iterations %d, samples %d, repetitions %d, metrics %v; want 1, 1, 1 and none",
					o.dryRun, o.cfg.Iterations, o.cfg.Samples, o.cfg.Repetitions, o.cfg.Metrics)
			}
		}},
		{"--dry-run in test mode", []string{"--dry-run"}, "--dry-run runs every selected benchmark once: add --bench", nil},
		{"--dry-run with a baseline", []string{"--bench", "--dry-run", "--baseline=old.json"}, "--dry-run and --baseline: a dry run measures nothing", nil},
		{"--dry-run with a gate", []string{"--bench", "--dry-run", "--against=HEAD", "--fail-on=slower"}, "--dry-run and --against: ", nil},
		{"--dry-run saving a baseline", []string{"--bench", "--dry-run", "--save-baseline=b.json"}, "--dry-run and --save-baseline: ", nil},
		{"--dry-run with repetitions", []string{"--bench", "--dry-run", "--count=3"}, "--dry-run runs each benchmark once (N=1, one sample, one process) and counts nothing: --count has no meaning with it", nil},
		{"--dry-run with metrics", []string{"--bench", "--dry-run", "--metrics=all"}, "--dry-run runs each benchmark once (N=1, one sample, one process) and counts nothing: --metrics", nil},
		{"--require-metrics in test mode", []string{"--require-metrics"}, "--require-metrics requires the metrics of a benchmark run: add --bench", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseRun(t, tt.args...)
			if tt.err != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error %v, want a usage error starting %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}
}

// TestEmitRunStatus: every failure at the end of a run is said, on one
// line, and an interruption keeps its exit status whatever failed after it
// (an interrupted run whose --json write failed exited 1, not 130).
func TestEmitRunStatus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the failing file is /dev/full")
	}
	sigint := interrupted{syscall.SIGINT}
	tests := []struct {
		name    string
		stopped error
		json    string // --json FILE, or ""
		html    string
		earlier []error
		status  int
		says    []string // in this order, on stderr's one line
		notSaid string
	}{
		{"interrupted, the files written", sigint, os.DevNull, "", nil, 130,
			[]string{"benchsup: interrupted (SIGINT): the results above are partial\n"}, "--json"},
		{"interrupted, then --json not written", sigint, "/dev/full", "", nil, 130,
			[]string{"benchsup: interrupted (SIGINT): the results above are partial; ", "--json: results not written to /dev/full: "}, ""},
		{"not interrupted, --json not written", nil, "/dev/full", "", nil, exitFailed,
			[]string{"benchsup: --json: results not written to /dev/full: "}, "interrupted"},
		{"two files not written", nil, "/dev/full", "/dev/full", nil, exitFailed,
			[]string{"benchsup: --json: results not written to /dev/full: ", "; --html: results not written to /dev/full: "}, ""},
		{"an earlier failure of several lines, interrupted", interrupted{syscall.SIGTERM}, "", "", []error{errors.New("--baseline: first\nsecond")}, 143,
			[]string{"benchsup: interrupted (SIGTERM): the results above are partial; --baseline: first (…)\n"}, "second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out runOutputs
			var err error
			if out.json, err = createOutput("--json", tt.json); err != nil {
				t.Fatal(err)
			}
			defer out.json.abort()
			if out.html, err = createOutput("--html", tt.html); err != nil {
				t.Fatal(err)
			}
			defer out.html.abort()
			opts := runOptions{format: "json", write: func(w io.Writer, d rundoc.Document) error {
				_, err := fmt.Fprintln(w, "results")
				return err
			}}
			var stdout, stderr bytes.Buffer
			err = emitRun(&rundoc.Document{}, opts, out, tt.stopped, tt.earlier, &stdout, &stderr)
			if stdout.String() != "results\n" {
				t.Errorf("stdout %q: the results were not written first", stdout.String())
			}
			if got := exitStatus(err, &stderr); got != tt.status {
				t.Errorf("exit status %d, want %d (error %v)", got, tt.status, err)
			}
			said := stderr.String()
			if strings.Count(said, "\n") != 1 {
				t.Errorf("stderr %q is not one line", said)
			}
			rest := said
			for _, s := range tt.says {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Fatalf("stderr %q lacks %q (in order)", said, s)
				}
				rest = rest[i+len(s):]
			}
			if tt.notSaid != "" && strings.Contains(said, tt.notSaid) {
				t.Errorf("stderr %q says %q", said, tt.notSaid)
			}
		})
	}
}

func TestErrLine(t *testing.T) {
	a, b := errors.New("a"), errors.New("b\nmore")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"one error", a, "a"},
		{"one error of several lines", b, "b (…)"},
		{"joined", errors.Join(a, b), "a; b (…)"},
		{"joined, nested and wrapped", errors.Join(fmt.Errorf("x: %w", errors.Join(a, a)), b), "x: a (…); b (…)"},
		{"joined inside", errors.Join(errors.Join(a, b), a), "a; b (…); a"},
		{"two causes said another way", fmt.Errorf("%w and %w", a, b), "a and b (…)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errLine(tt.err); got != tt.want {
				t.Errorf("errLine = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteSchedules(t *testing.T) {
	g := rundoc.VariantGroup{Group: "BenchmarkHash/impl=*/n=8", Members: []string{"fnv", "xxh", "crc"},
		Schedule: [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}}
	vc := func(contender string) *rundoc.VariantComparison {
		return &rundoc.VariantComparison{Key: "impl", Reference: "fnv", Contender: contender, Groups: []rundoc.VariantGroup{g}}
	}
	var b bytes.Buffer
	writeSchedules(&b, []rundoc.Comparison{{}, {Variants: vc("xxh")}, {Variants: vc("crc")}})
	want := "\nBenchmarkHash/impl=*/n=8: rounds fnv xxh crc | xxh crc fnv | crc fnv xxh\n"
	if b.String() != want {
		t.Errorf("schedules %q, want %q: each group once, its members by name", b.String(), want)
	}
	b.Reset()
	writeSchedules(&b, []rundoc.Comparison{{}})
	if b.Len() != 0 {
		t.Errorf("a comparison of builds printed %q", b.String())
	}
}
