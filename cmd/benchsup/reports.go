package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/rundoc"
)

// reportCommand renders saved documents as one self-contained HTML page.
func reportCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write a self-contained HTML report (plots per process, comparisons, workload windows), or markdown, of a run document and, optionally, a comparison document",
		ArgsUsage: "RUN.json [COMPARISON.json]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "report.html", Usage: "write the page to `FILE` (- for stdout)",
				DefaultText: "report.html; stdout with --format=markdown"},
			&cli.StringFlag{Name: "format", Value: "html", Usage: "html, or markdown (GitHub-flavored: the run's table and its comparisons, for a job summary)"},
		}, shapeFlags()...),
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 || c.NArg() > 2 {
				return usagef("report takes a run document and, optionally, a comparison document; got %d arguments", c.NArg())
			}
			format := c.String("format")
			if format != "html" && format != "markdown" {
				return usagef("--format must be html or markdown, got %q", format)
			}
			shape, err := shapeOf(c)
			if err != nil {
				return err
			}
			if !shape.IsZero() && format != "markdown" {
				return usagef("--row, --col and --sort shape the markdown format's tables, not --format=%s", format)
			}
			outName := c.String("out")
			if format == "markdown" && !c.IsSet("out") {
				outName = "-"
			}
			out, err := createOutput("--out", outPath(outName))
			if err != nil {
				return err
			}
			defer out.abort() // after commit, a no-op
			doc, err := readRun(c.Args().Get(0), stderr)
			if err != nil {
				return err
			}
			page := report.HTMLReport{Run: doc}
			if c.NArg() == 2 {
				cmp, err := readComparison(c.Args().Get(1), stderr)
				if err != nil {
					return err
				}
				page.Comparisons = append(page.Comparisons, *cmp)
			}
			write := func(w io.Writer) error { return report.WriteHTML(w, page) }
			if format == "markdown" {
				if shape.Projected() {
					var names []string
					for _, r := range doc.Rows {
						names = append(names, r.Name)
					}
					if err := checkShape(shape, names); err != nil {
						return err
					}
				}
				write = func(w io.Writer) error { return writeMarkdownReport(w, *doc, page.Comparisons, shape) }
			}
			if err := out.commit(write); err != nil {
				return err
			}
			if outName != "-" {
				fmt.Fprintf(stderr, "benchsup: wrote %s\n", outName)
			}
			return nil
		},
	}
}

// writeMarkdownReport writes a saved benchmark run as markdown: its
// table, then each comparison it holds (--baseline, --against, a merge's)
// and the one given beside it.
func writeMarkdownReport(w io.Writer, doc rundoc.Document, extra []rundoc.Comparison, shape report.Shape) error {
	if doc.Meta.Mode != rundoc.ModeBench {
		return usagef("--format=markdown renders a benchmark run; this document is of mode %q", doc.Meta.Mode)
	}
	if err := report.WriteMarkdown(w, doc, report.TableOptions{Shape: shape}); err != nil {
		return err
	}
	var variants bool
	for _, c := range append(slices.Clone(doc.Comparisons), extra...) {
		if c.Variants != nil {
			variants = true
			continue
		}
		fmt.Fprintln(w)
		if err := report.WriteComparisonMarkdown(w, c, shape); err != nil {
			return err
		}
	}
	if variants {
		fmt.Fprintln(w)
		return report.WriteVariantMarkdown(w, doc.Rows, doc.Comparisons)
	}
	return nil
}

// eventStream is where --events goes: a file written as the run goes (not
// replaced at the end, so that a reader can follow it), or stdout.
type eventStream struct {
	w    *report.EventWriter
	file *os.File // nil for stdout
}

// openEvents opens the --events destination; "" is none (nil).
func openEvents(path string, stdout io.Writer) (*eventStream, error) {
	switch path {
	case "":
		return nil, nil
	case "-":
		return &eventStream{w: report.NewEventWriter(stdout)}, nil
	}
	f, err := openEventsFile(path)
	if err != nil {
		return nil, fmt.Errorf("--events %s: cannot write there: %w", path, err)
	}
	return &eventStream{w: report.NewEventWriter(f), file: f}, nil
}

// openEventsFile opens path to be written from its start, as O_TRUNC
// would, but in a directory other users can write (/tmp) it follows no
// other user's link and truncates no other user's file: the path is
// resolved and checked (host.ResolveShared), opened without following a
// link planted since, without blocking on a FIFO planted since, checked
// again once open, and only then truncated. A FIFO or device that was
// there when checked is written as before; a descriptor's path
// (/dev/stdout, /proc/self/fd/N) is opened as it is.
func openEventsFile(path string) (*os.File, error) {
	target, asIs, err := resolveOutput(path)
	if err != nil {
		return nil, err
	}
	if asIs {
		return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	}
	flags := os.O_WRONLY | os.O_CREATE | nofollowFlag
	if fi, err := os.Lstat(target); err != nil || fi.Mode().IsRegular() {
		flags |= nonblockFlag
	}
	f, err := os.OpenFile(target, flags, 0o644)
	if err != nil {
		return nil, err
	}
	if err := host.CheckOpened(f, target); err != nil {
		f.Close()
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// emit sends ev; a nil stream takes nothing.
func (e *eventStream) emit(ev rundoc.Event) {
	if e != nil {
		e.w.Emit(ev)
	}
}

// close ends the stream and says whether every event was written.
func (e *eventStream) close() error {
	if e == nil {
		return nil
	}
	err := e.w.Err()
	if e.file != nil {
		err = errors.Join(err, e.file.Close())
	}
	if err != nil {
		return fmt.Errorf("--events: %w", err)
	}
	return nil
}
