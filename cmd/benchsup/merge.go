package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/report"
)

// mergeCommand joins the documents of a sharded run's parts.
func mergeCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "join the run documents of every part of a sharded run (--shard=K/N) into the document of the whole run",
		ArgsUsage: "SHARD.json...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "-", Usage: "write the merged document to `FILE` (- for stdout)"},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usagef("merge takes the run documents of every part of a sharded run")
			}
			out, err := createOutput("--out", outPath(c.String("out")))
			if err != nil {
				return err
			}
			defer out.abort() // after commit, a no-op
			docs := make([]*report.Document, c.NArg())
			for i, path := range c.Args().Slice() {
				if docs[i], err = readRun(path); err != nil {
					return err
				}
			}
			merged, err := report.Merge(docs)
			if err != nil {
				return err
			}
			dropped := 0
			for _, d := range docs {
				dropped += len(d.Comparisons)
			}
			if dropped > 0 {
				fmt.Fprintf(stderr, "benchsup: merge: the parts' %d comparisons cover only their own identities and are not joined: compare the merged document (benchsup compare OLD.json MERGED.json)\n", dropped)
			}
			return out.commit(func(w io.Writer) error { return report.WriteJSON(w, *merged) })
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
