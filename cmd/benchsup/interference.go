package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/supervisor"
)

// interferenceFlags are run's flags for the watch for foreign load.
func interferenceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "interference", Value: protocol.ResponseObserve, Usage: "watch for foreign CPU load between benchmark samples (host busy time minus the child's own CPU time): " +
			"`RESPONSE` observe (mark disturbed samples), retake (discard and redo them, bounded), pause (wait for quiet, re-warm, redo) or off; " +
			"no statistic is adjusted, and every retake and pause is counted per row"},
		&cli.StringFlag{Name: "interference-limit", Value: percentString(supervisor.DefaultMaxForeign), Usage: "a sample is disturbed when foreign load took more than `PERCENT` of the watched CPUs' capacity over it"},
		&cli.IntFlag{Name: "max-retakes", Value: supervisor.DefaultMaxRetakes, Usage: "retake at most `N` samples per process (retake, pause); past it, disturbed samples are kept, marked"},
		&cli.DurationFlag{Name: "pause-max", Value: supervisor.DefaultPauseMax, Usage: "wait at most `DURATION` in all per process for the host to go quiet (pause)"},
	}
}

// applyInterference reads interferenceFlags into cfg.
func applyInterference(c *cli.Context, cfg *supervisor.Config) error {
	w := supervisor.InterferenceConfig{}
	switch r := c.String("interference"); r {
	case "off":
		cfg.Interference = supervisor.InterferenceConfig{Off: true}
		return nil
	case protocol.ResponseObserve, protocol.ResponseRetake, protocol.ResponsePause:
		w.Response = r
	default:
		return usagef("--interference=%s: want observe, retake, pause or off", r)
	}
	limit, err := parsePercent(c.String("interference-limit"))
	if err == nil && !(limit > 0 && limit <= 1) {
		err = errors.New("want a percentage above 0 and at most 100")
	}
	if err != nil {
		return usagef("--interference-limit=%s: %v", c.String("interference-limit"), err)
	}
	w.MaxForeign = limit
	w.MaxRetakes = c.Int("max-retakes")
	if w.MaxRetakes < 1 {
		return usagef("--max-retakes=%d: want at least 1 (--interference=observe retakes nothing)", w.MaxRetakes)
	}
	w.PauseMax = c.Duration("pause-max")
	if w.PauseMax <= 0 {
		return usagef("--pause-max=%v: want a positive duration", w.PauseMax)
	}
	if err := w.Validate(); err != nil {
		return usagef("--interference: %v", err)
	}
	cfg.Interference = w
	return nil
}
