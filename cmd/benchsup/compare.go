package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/rundoc"
)

// exitIncomplete is the status of a gate that could not judge every
// identity: one crashed or is missing on a side.
const exitIncomplete = 3

// The gate's outcomes, as errors that run() turns into exit statuses.
var (
	errRegression = errors.New("regression")
	errIncomplete = errors.New("incomplete comparison")
)

func compareFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "threshold", Value: percentString(analysis.DefaultThreshold),
			Usage: "practical threshold, in percent: a change is called only when its whole interval lies beyond it"},
		&cli.StringFlag{Name: "confidence", Value: percentString(stats.DefaultConfidence),
			Usage: fmt.Sprintf("confidence of the intervals, in percent (%v to %v)", 100*stats.MinConfidence, 100*stats.MaxConfidence)},
		&cli.IntFlag{Name: "resamples", Value: stats.DefaultResamples,
			Usage: fmt.Sprintf("bootstrap resamples (%d to %d)", stats.MinResamples, stats.MaxResamples)},
		&cli.Uint64Flag{Name: "seed", Usage: "seed of the bootstrap (the same seed and inputs give the same intervals)"},
		&cli.BoolFlag{Name: "allow-mismatch", Usage: "compare runs whose fingerprints (host, toolchain, environment, sampling) differ; the output records the differences"},
		&cli.StringFlag{Name: "fail-on", Usage: "gate: `slower` exits 1 when a slowdown beyond the threshold is established; inconclusive also fails on an undecided time row (fail closed); either exits 3 when an identity crashed or is missing on a side"},
	}
}

// shapeFlags are --row, --col and --sort, of run and compare.
func shapeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "row", Usage: "one table line per value of `KEYS`, as benchstat's -row: .name (the function), .fullname, /key (a sub-benchmark name element, /size); comma-separated",
			DefaultText: ".fullname"},
		&cli.StringFlag{Name: "col", Usage: "one table column per value of `KEYS` (--col=/impl: a column per implementation), as benchstat's -col; each cell the median, or in a comparison the change and its verdict",
			DefaultText: "one column"},
		&cli.StringFlag{Name: "sort", Usage: "order the table's lines within each group by name or median (ascending)", DefaultText: "measurement order"},
	}
}

// shapeOf reads --row, --col and --sort.
func shapeOf(c *cli.Context) (report.Shape, error) {
	var s report.Shape
	var err error
	for _, f := range []struct {
		name string
		keys *[]report.Key
	}{{"row", &s.Row}, {"col", &s.Col}} {
		if !c.IsSet(f.name) {
			continue
		}
		if *f.keys, err = report.ParseKeys(c.String(f.name)); err != nil {
			return s, usagef("--%s: %v", f.name, err)
		}
	}
	for _, r := range s.Row {
		if slices.Contains(s.Col, r) {
			return s, usagef("--row and --col both take %s: a key shapes lines or columns, not both", r)
		}
	}
	if s.Sort, err = report.ParseSort(c.String("sort")); err != nil {
		return s, usagef("--sort: %v", err)
	}
	return s, nil
}

// checkShapeFormat refuses --row, --col and --sort with a format other
// than the table and markdown, the renderers that take a shape.
func checkShapeFormat(s report.Shape, format string) error {
	if !s.IsZero() && format != "table" && format != "markdown" {
		return usagef("--row, --col and --sort shape the table and markdown formats, not --format=%s", format)
	}
	return nil
}

// checkShape says, in one line, which key of --row or --col no name of
// names has, and the keys they have.
func checkShape(s report.Shape, names []string) error {
	if err := report.CheckShape(s, names); err != nil {
		flag := "--row/--col"
		switch {
		case len(s.Row) == 0:
			flag = "--col"
		case len(s.Col) == 0:
			flag = "--row"
		}
		return usagef("%s: %v", flag, err)
	}
	return nil
}

func compareCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare two run documents (--json output of benchsup run --bench): is NEW faster or slower than OLD, and how sure",
		ArgsUsage: "OLD.json NEW.json",
		Flags: append(append(compareFlags(), shapeFlags()...),
			&cli.StringFlag{Name: "format", Value: "table", Usage: "stdout format: table, markdown (GitHub-flavored, for a job summary or a PR comment), json or csv (one row per identity and metric; the columns are in docs/output.md)"},
			&cli.StringFlag{Name: "json", Usage: "also write the comparison document to `FILE`"},
			&cli.StringFlag{Name: "html", Usage: "also write a self-contained HTML report of NEW, with OLD's processes beside its own and the comparison's forest plot, to `FILE`"},
		),
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usagef("compare takes two run documents, OLD and NEW; got %d arguments", c.NArg())
			}
			cfg, failOn, err := compareConfig(c)
			if err != nil {
				return err
			}
			format := c.String("format")
			if format != "table" && format != "markdown" && format != "json" && format != "csv" {
				return usagef("--format must be table, markdown, json or csv, got %q", format)
			}
			shape, err := shapeOf(c)
			if err != nil {
				return err
			}
			if err := checkShapeFormat(shape, format); err != nil {
				return err
			}
			// Opened first, as run does (see outputFile).
			jsonOut, err := createOutput("--json", c.String("json"))
			if err != nil {
				return err
			}
			defer jsonOut.abort() // after commit, a no-op
			htmlOut, err := createOutput("--html", c.String("html"))
			if err != nil {
				return err
			}
			defer htmlOut.abort()
			old, err := readRun(c.Args().Get(0), stderr)
			if err != nil {
				return err
			}
			new, err := readRun(c.Args().Get(1), stderr)
			if err != nil {
				return err
			}
			cfg.OldLabel, cfg.NewLabel = c.Args().Get(0), c.Args().Get(1)
			cmp, err := analysis.Compare(old, new, cfg)
			if err != nil {
				return err
			}
			if shape.Projected() {
				var names []string
				for _, r := range cmp.Rows {
					names = append(names, r.Name)
				}
				if err := checkShape(shape, names); err != nil {
					return err
				}
			}
			switch format {
			case "markdown":
				err = report.WriteComparisonMarkdown(stdout, *cmp, shape)
			case "json":
				err = rundoc.WriteComparisonJSON(stdout, *cmp)
			case "csv":
				err = report.WriteComparisonCSV(stdout, *cmp)
			default:
				err = report.WriteShapedComparisonTable(stdout, *cmp, shape)
			}
			var errs []error
			if err != nil {
				errs = append(errs, fmt.Errorf("writing the comparison: %w", err))
			}
			if err := jsonOut.commit(func(w io.Writer) error { return rundoc.WriteComparisonJSON(w, *cmp) }); err != nil {
				errs = append(errs, err)
			}
			page := report.HTMLReport{Run: new, Old: old, Comparisons: []rundoc.Comparison{*cmp}}
			if err := htmlOut.commit(func(w io.Writer) error { return report.WriteHTML(w, page) }); err != nil {
				errs = append(errs, err)
			}
			if len(errs) > 0 {
				return errors.Join(errs...)
			}
			return gate(*cmp, failOn, stderr)
		},
	}
}

// compareConfig reads the statistics flags.
func compareConfig(c *cli.Context) (analysis.CompareConfig, analysis.FailOn, error) {
	var cfg analysis.CompareConfig
	t, err := parsePercent(c.String("threshold"))
	if err != nil || t <= 0 {
		return cfg, "", usagef("--threshold must be a positive percentage such as 2 or 2%%, got %q", c.String("threshold"))
	}
	conf, err := parsePercent(c.String("confidence"))
	if err != nil {
		return cfg, "", usagef("--confidence must be a percentage such as 95 or 95%%, got %q", c.String("confidence"))
	}
	cfg.Threshold = t
	cfg.Bootstrap = analysis.Bootstrap{Confidence: conf, Resamples: c.Int("resamples"), Seed: c.Uint64("seed")}
	cfg.AllowMismatch = c.Bool("allow-mismatch")
	if err := cfg.Validate(); err != nil {
		var ce *analysis.ConfigError
		if errors.As(err, &ce) {
			return cfg, "", usagef("--%s %s", strings.ToLower(ce.Field), ce.Problem)
		}
		return cfg, "", usageError{err}
	}
	failOn, err := parseFailOn(c.String("fail-on"))
	return cfg, failOn, err
}

// parsePercent reads "2", "2%" or "2.5 %" as a fraction (0.02).
func parsePercent(s string) (float64, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a percentage: %q", s)
	}
	// Rounded to 12 decimals: 99.9/100 is 0.9990000000000001 in binary,
	// which the limit 0.999 would refuse though the user typed the limit.
	return math.Round(v/100*1e12) / 1e12, nil
}

func percentString(frac float64) string {
	return strconv.FormatFloat(100*frac, 'f', -1, 64) + "%"
}

// parseFailOn reads --fail-on: "" (no gate), slower or inconclusive.
func parseFailOn(s string) (analysis.FailOn, error) {
	f, err := analysis.ParseFailOn(s)
	if err != nil {
		return "", usagef("--fail-on must be slower or inconclusive, got %q", s)
	}
	return f, nil
}

// readRun reads a run document from a file, saying on stderr when it was
// read without an integrity check. Only a regular file is read
// (rundoc.ReadDocumentFile): a FIFO or a device is refused before a byte
// is read, so that a path someone else controls cannot hang the command.
func readRun(path string, stderr io.Writer) (*rundoc.Document, error) {
	return readFile(path, stderr, rundoc.ReadDocumentFile)
}

// readComparison reads a comparison document from a file, as readRun.
func readComparison(path string, stderr io.Writer) (*rundoc.Comparison, error) {
	return readFile(path, stderr, rundoc.ReadComparisonFile)
}

// readFile reads a document from the file at path with read, whose errors
// name the file, and names it in the note of a document without a
// checksum.
func readFile[T any](path string, stderr io.Writer, read func(string) (*T, rundoc.Integrity, error)) (*T, error) {
	v, integrity, err := read(path)
	if err != nil {
		return nil, err
	}
	if note := integrity.Note(); note != "" {
		fmt.Fprintf(stderr, "benchsup: note: %s %s\n", path, note)
	}
	return v, nil
}

// gateAll applies --fail-on to every comparison: a crash or a missing
// identity anywhere outranks a regression.
func gateAll(cs []rundoc.Comparison, failOn analysis.FailOn, stderr io.Writer) error {
	var worst error
	for _, c := range cs {
		switch err := gate(c, failOn, stderr); {
		case errors.Is(err, errIncomplete):
			worst = err
		case err != nil && worst == nil:
			worst = err
		}
	}
	return worst
}

// gate applies --fail-on to a comparison (analysis.Gate) and says on
// stderr what failed it: nil when it passes or no gate was asked for.
func gate(c rundoc.Comparison, failOn analysis.FailOn, stderr io.Writer) error {
	r := analysis.Gate(c, failOn)
	if r.Status == analysis.GatePass {
		return nil
	}
	fmt.Fprintf(stderr, "benchsup: gate: %d %s: %s\n", len(r.Identities), r.Reason, strings.Join(r.Identities, ", "))
	if r.Status == analysis.GateIncomplete {
		return errIncomplete
	}
	return errRegression
}
