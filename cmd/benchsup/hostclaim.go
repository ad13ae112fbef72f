package main

import (
	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/supervisor"
)

// hostFlags are run's flags for the quiescence preflight and the host
// claim.
func hostFlags() []cli.Flag { return nil }

// applyHost reads hostFlags into cfg.
func applyHost(c *cli.Context, cfg *supervisor.Config) error { return nil }
