package main

import (
	"cmp"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/record"
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/benchsup/benchsup/supervisor"
)

func recordFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "dir", Aliases: []string{"C"}, Usage: "build and run the program in `DIR` instead of the current directory"},
		&cli.DurationFlag{Name: "for", Usage: "end the program after `D`: SIGTERM, --grace, SIGKILL (an expected end, not a failure)", DefaultText: "until it exits"},
		&cli.DurationFlag{Name: "timeout", Usage: "bound the program from spawn to exit; still running then is a failure (execution-timeout)",
			DefaultText: sandbox.DefaultTotalTimeout.String() + ", or --for plus a minute"},
		&cli.DurationFlag{Name: "grace", Value: sandbox.DefaultGrace, Usage: "time between SIGTERM and SIGKILL when the program is ended"},
		&cli.BoolFlag{Name: "spans", Usage: "keep the retained spans themselves in the document (benchsup compare needs them)"},
		&cli.StringFlag{Name: "retention", Value: string(record.Reservoir), Usage: "which spans each identity keeps: reservoir, first or latest"},
		&cli.IntFlag{Name: "capacity", Value: record.DefaultCapacity, Usage: "spans kept per identity"},
		&cli.StringFlag{Name: "json", Usage: "write the JSON document to `FILE`"},
		&cli.StringFlag{Name: "format", Value: "table", Usage: "stdout format: table, json or csv"},
		&cli.StringSliceFlag{Name: "env-keep", Usage: "pass `NAME` from this environment to the program (repeatable)"},
		&cli.StringSliceFlag{Name: "env-set", Usage: "set `NAME=VALUE` in the program (repeatable)"},
		&cli.StringSliceFlag{Name: "env-remove", Usage: "remove `NAME` from the program's environment (repeatable)"},
		&cli.BoolFlag{Name: "env-inherit", Usage: "give the program this whole environment instead of the strict one"},
	}
}

func recordCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "record",
		Usage: "run a program contained and record the spans its record package marks (docs/recording.md)",
		ArgsUsage: "[flags] -- PROGRAM [ARGS]: an executable, or a Go main package (./cmd/server) built once; " +
			"its stdout and stderr pass through to benchsup's stderr",
		Flags:  recordFlags(),
		Action: func(c *cli.Context) error { return recordRun(c, stdout, stderr) },
	}
}

// retentionPolicies maps --retention's words to record's policies.
var retentionPolicies = map[string]record.Policy{
	"reservoir": record.Reservoir, "first": record.FirstN, "latest": record.LatestN,
	string(record.FirstN): record.FirstN, string(record.LatestN): record.LatestN,
}

func recordRun(c *cli.Context, stdout, stderr io.Writer) error {
	if c.NArg() == 0 {
		return usagef("record: no program: benchsup record [flags] -- PROGRAM [ARGS]")
	}
	policy, ok := retentionPolicies[c.String("retention")]
	if !ok {
		return usagef("--retention=%s: want reservoir, first or latest", c.String("retention"))
	}
	if c.Int("capacity") <= 0 {
		return usagef("--capacity=%d: keep at least one span per identity", c.Int("capacity"))
	}
	for _, f := range []string{"for", "timeout", "grace"} {
		if c.Duration(f) < 0 {
			return usagef("--%s=%v: negative", f, c.Duration(f))
		}
	}
	format := c.String("format")
	switch format {
	case "table", "json", "csv":
	default:
		return usagef("--format=%s: want table, json or csv", format)
	}
	jsonOut, err := createOutput("--json", c.String("json"))
	if err != nil {
		return err
	}
	defer jsonOut.abort()
	ctx, stop := signalContext(stderr)
	defer stop()
	cfg := supervisor.RecordConfig{
		Program: c.Args().First(), Args: c.Args().Tail(), Dir: c.String("dir"),
		For: c.Duration("for"), Timeout: c.Duration("timeout"), Grace: c.Duration("grace"),
		Retention: record.Retention{Policy: policy, Capacity: c.Int("capacity")},
		Spans:     c.Bool("spans"),
		Env:       envPolicyOf(c),
		Shim:      true, // internal/reexec dispatches sandbox.ShimArg (docs/design.md#the-shim)
		// The program's output goes to stderr, so that stdout carries
		// only benchsup's document, whatever its format.
		Stdout: stderr, Stderr: stderr,
	}
	// On a terminal, the live view; elsewhere nothing changes, byte for
	// byte.
	var live *recordLive
	if f, ok := stderr.(*os.File); ok && report.LiveEnabled(f) {
		live = newRecordLive(stderr)
		cfg.Stdout, cfg.Stderr = live, live
		cfg.Snapshots, cfg.SnapshotEvery, cfg.Watch = live.snapshot, usagePeriod, live.watch
	}
	doc, err := supervisor.Record(ctx, cfg)
	if live != nil {
		live.close()
	}
	if err != nil {
		return cmp.Or(interruption(ctx), err)
	}
	switch format {
	case "table":
		err = report.WriteRecordRun(stdout, *doc, report.TableOptions{})
	case "json":
		err = rundoc.WriteJSON(stdout, *doc)
	case "csv":
		err = report.WriteCSV(stdout, *doc, report.CSVOptions{})
	}
	if err != nil {
		return err
	}
	if err := jsonOut.commit(func(w io.Writer) error { return rundoc.WriteJSON(w, *doc) }); err != nil {
		return err
	}
	if sig := interruption(ctx); sig != nil {
		return sig
	}
	if doc.Failed() {
		return errFailed
	}
	return nil
}
