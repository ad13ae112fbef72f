package main

import (
	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/supervisor"
)

// placementFlags are run's flags for where the children run (--cpus).
func placementFlags() []cli.Flag { return nil }

// applyPlacement reads placementFlags into cfg.
func applyPlacement(c *cli.Context, cfg *supervisor.Config) error { return nil }
