package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/supervisor"
)

// cleanCommand empties the test-binary cache, as go clean -cache empties
// the go command's, and says what it removed.
func cleanCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name: "clean",
		Usage: "remove the cached test binaries, remembered vet results and go command answers, and exported --against revisions (under $" + supervisor.CacheEnv +
			", by default benchsup in the user cache directory) and say how many and how large",
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("clean takes no arguments, got %q", c.Args().First())
			}
			got, err := supervisor.CleanCache()
			if err != nil {
				return fmt.Errorf("clean: %w", err)
			}
			if _, err := fmt.Fprintf(stdout, "removed %d test %s, %s, from %s\n", got.Files, plural(got.Files, "binary", "binaries"), sizeText(got.Bytes), got.Dir); err != nil {
				return err
			}
			if got.VetRecords > 0 {
				if _, err = fmt.Fprintf(stdout, "removed %d remembered vet %s from %s\n", got.VetRecords, plural(got.VetRecords, "result", "results"), got.VetDir); err != nil {
					return err
				}
			}
			if got.Answers > 0 {
				if _, err = fmt.Fprintf(stdout, "removed %d remembered go command %s from %s\n", got.Answers, plural(got.Answers, "answer", "answers"), got.AnswersDir); err != nil {
					return err
				}
			}
			if got.RevExports > 0 {
				_, err = fmt.Fprintf(stdout, "removed %d exported --against %s from %s\n", got.RevExports, plural(got.RevExports, "revision", "revisions"), got.RevDir)
			}
			return err
		},
	}
}

// sizeText is a byte count as people read one: bytes below 1 KiB, else
// the largest binary unit, one decimal.
func sizeText(n int64) string {
	const units = "KMGT"
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n)/(1<<10), 0
	for v >= 1<<10 && i < len(units)-1 {
		v, i = v/(1<<10), i+1
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
