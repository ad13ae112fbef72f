package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

// mergeCommand joins the documents of a sharded run's parts.
func mergeCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "join the run documents of every part of a sharded run (--shard=K/N) into the document of the whole run",
		ArgsUsage: "SHARD.json...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "-", Usage: "write the merged document to `FILE` (- for stdout)"},
			&cli.BoolFlag{Name: "allow-mismatch", Usage: "join parts whose fingerprints differ (runners on different CPU models); each part's differences are recorded. Paired comparisons (--against) stay sound, each made on one runner"},
			&cli.StringFlag{Name: "fail-on", Usage: "gate the joined comparisons, as run --fail-on: `slower` or inconclusive (exit 1), 3 when an identity crashed or is missing on a side"},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usagef("merge takes the run documents of every part of a sharded run")
			}
			failOn, err := parseFailOn(c.String("fail-on"))
			if err != nil {
				return err
			}
			out, err := createOutput("--out", outPath(c.String("out")))
			if err != nil {
				return err
			}
			defer out.abort() // after commit, a no-op
			docs := make([]*rundoc.Document, c.NArg())
			for i, path := range c.Args().Slice() {
				if docs[i], err = readRun(path, stderr); err != nil {
					return err
				}
			}
			merged, err := rundoc.Merge(docs, rundoc.MergeOptions{AllowMismatch: c.Bool("allow-mismatch")})
			if err != nil {
				return err
			}
			if failOn != "" && len(merged.Comparisons) == 0 {
				return usagef("--fail-on gates a comparison: the parts have none (run them with --against or --baseline)")
			}
			for i := range merged.Comparisons {
				merged.Comparisons[i].Geomeans = analysis.Geomeans(merged.Comparisons[i].Rows)
			}
			if err := out.commit(func(w io.Writer) error { return rundoc.WriteJSON(w, *merged) }); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "benchsup: merged %d parts: %d rows, %d comparisons\n", len(docs), len(merged.Rows), len(merged.Comparisons))
			for _, p := range merged.Meta.Shard.Merged {
				for _, m := range p.Mismatches {
					// The differences are from the first part that measured,
					// whose fingerprint the merged document carries.
					fmt.Fprintf(stderr, "benchsup: shard %d/%d ran with %s %q, the merged document's is %q\n", p.Index, merged.Meta.Shard.Count, m.Field, m.New, m.Old)
				}
			}
			if err := gateAll(merged.Comparisons, failOn, stderr); err != nil {
				return err
			}
			if merged.Failed() {
				return errFailed
			}
			return nil
		},
	}
}

// outPath reads "-" as standard output.
func outPath(p string) string {
	if p == "-" {
		return "/dev/stdout"
	}
	return p
}
