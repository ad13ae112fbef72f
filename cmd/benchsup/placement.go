package main

import (
	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/benchsup/benchsup/supervisor"
)

// placementFlags are run's flags for where the children run (--cpus).
func placementFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cpus", Usage: "pin every child to the CPUs in `LIST` (\"0\", \"0-1,3\"; Linux); the children's GOMAXPROCS follows the list, and the placement is part of the run's fingerprint, so a baseline compares only with a run pinned alike"},
	}
}

// applyPlacement reads placementFlags into cfg. A list this host cannot
// honor (a CPU offline or outside this process's affinity, no strict
// affinity on this platform) is refused here, as a usage error with the
// reason, before anything is built.
func applyPlacement(c *cli.Context, cfg *supervisor.Config, check func([]int, sandbox.EnvPolicy) error) error {
	if !c.IsSet("cpus") {
		return nil
	}
	list := c.String("cpus")
	cpus, err := host.ParseCPUList(list)
	if err != nil {
		return usagef("--cpus: %v", err)
	}
	if err := check(cpus, cfg.Env); err != nil {
		return usagef("--cpus=%s: %v", list, err)
	}
	cfg.CPUs = cpus
	return nil
}
