package main

import (
	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/supervisor"
)

// interferenceFlags are run's flags for the watch for foreign load.
func interferenceFlags() []cli.Flag { return nil }

// applyInterference reads interferenceFlags into cfg.
func applyInterference(c *cli.Context, cfg *supervisor.Config) error { return nil }
