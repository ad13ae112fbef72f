package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/supervisor"
)

// gateQuiescenceTimeout is the preflight's timeout in a --fail-on run
// that did not give --quiescence-timeout. A gate's verdict is what CI acts
// on: measured under a neighbour's compile, "slower" is a false alarm
// someone has to chase, so a gate waits for a quiet host by default. But
// CI hosts are shared and a neighbour's burst is usual, so the wait is
// long (an idle wait costs nothing but time) before the run fails with
// the load's numbers; a host that is never quiet needs --quiescence=false,
// said explicitly, and its samples are still annotated by the
// interference watch.
const gateQuiescenceTimeout = 2 * time.Minute

// hostFlags are run's flags for the quiescence preflight and the host
// claim.
func hostFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "claim", Usage: "take the host claim before building: lock files per CPU (of --cpus, else of benchsup's own affinity when a taskset or cpuset narrows it, else every CPU) that other benchsup runs on this host wait for, idle, and hold it until the run ends"},
		&cli.DurationFlag{Name: "claim-timeout", Value: host.DefaultClaimTimeout, Usage: "with --claim, how long (`DURATION`) to wait for CPUs another run holds before failing (0: do not wait)"},
		&cli.StringFlag{Name: "claim-dir", Usage: "with --claim, the `DIR` of the lock files; runs coordinate only when they share it",
			DefaultText: "$" + host.ClaimDirEnv + ", else /run/lock/benchsup, else benchsup-claim in the temporary directory"},
		&cli.BoolFlag{Name: "quiescence", Usage: "after building and before measuring, wait until the run's CPUs (--cpus, else benchsup's own affinity when a taskset or cpuset narrows it, else all; with their SMT siblings) stay under --quiet-average and --quiet-core for --quiet-stable; fail rather than measure under known load. On by default with --fail-on (--quiescence=false turns it off)"},
		&cli.DurationFlag{Name: "quiescence-timeout", Value: host.DefaultTimeout, Usage: "how long (`DURATION`) the preflight waits for a quiet host before the run fails",
			DefaultText: host.DefaultTimeout.String() + "; " + gateQuiescenceTimeout.String() + " with --fail-on"},
		&cli.StringFlag{Name: "quiet-average", Value: percentString(host.DefaultMaxAverage), Usage: "the preflight's limit, in `PERCENT`, on the watched CPUs' busy share together"},
		&cli.StringFlag{Name: "quiet-core", Value: percentString(host.DefaultMaxCore), Usage: "the preflight's limit, in `PERCENT`, on any one watched CPU's busy share: one saturated CPU that many idle ones would hide"},
		&cli.DurationFlag{Name: "quiet-stable", Value: host.DefaultStable, Usage: "how long (`DURATION`) both limits must hold without a break"},
	}
}

// quietLimit reads a limit flag ("20%" or "20") as a fraction.
func quietLimit(c *cli.Context, flag string) (float64, error) {
	v, err := parsePercent(c.String(flag))
	if err != nil || !(v > 0 && v <= 1) {
		return 0, usagef("--%s must be a percentage in (0, 100], as 20%%, got %q", flag, c.String(flag))
	}
	return v, nil
}

// applyHost reads hostFlags into cfg.
func applyHost(c *cli.Context, cfg *supervisor.Config) error {
	if c.Bool("claim") {
		timeout := c.Duration("claim-timeout")
		switch {
		case timeout < 0:
			return usagef("--claim-timeout must not be negative, got %v", timeout)
		case timeout == 0:
			timeout = -1 // ClaimConfig's "do not wait"; its zero is the default
		}
		cfg.Claim = &host.ClaimConfig{Dir: c.String("claim-dir"), Timeout: timeout, Command: claimCommand()}
	} else {
		for _, f := range []string{"claim-timeout", "claim-dir"} {
			if c.IsSet(f) {
				return usagef("--%s sets the host claim: add --claim", f)
			}
		}
	}
	if w := c.App.ErrWriter; w != nil {
		cfg.Waiting = func(msg string) { fmt.Fprintf(w, "benchsup: %s\n", msg) }
	}

	// A gate run waits for a quiet host unless told not to (see
	// gateQuiescenceTimeout for why).
	gate := c.String("fail-on") != "" && !c.IsSet("quiescence")
	if !c.Bool("quiescence") && !gate {
		for _, f := range []string{"quiescence-timeout", "quiet-average", "quiet-core", "quiet-stable"} {
			if c.IsSet(f) {
				return usagef("--%s sets the quiescence preflight: add --quiescence", f)
			}
		}
		return nil
	}
	if cfg.Mode != supervisor.ModeBench {
		return usagef("--quiescence guards measurements: add --bench")
	}
	q := host.QuiescenceConfig{Timeout: c.Duration("quiescence-timeout"), Stable: c.Duration("quiet-stable")}
	if gate {
		if !c.IsSet("quiescence-timeout") {
			q.Timeout = gateQuiescenceTimeout
		}
		// The user did not ask for this wait: the first line of it says
		// where it comes from and how to do without.
		if say := cfg.Waiting; say != nil {
			told := false
			cfg.Waiting = func(msg string) {
				if !told && strings.HasPrefix(msg, "waiting for a quiet host") {
					told = true
					msg += "; a --fail-on run waits for one unless given --quiescence=false"
				}
				say(msg)
			}
		}
	}
	switch {
	case q.Timeout <= 0:
		return usagef("--quiescence-timeout must be positive, got %v", q.Timeout)
	case q.Stable <= 0:
		return usagef("--quiet-stable must be positive, got %v", q.Stable)
	case q.Timeout < q.Stable:
		return usagef("--quiescence-timeout %v is shorter than --quiet-stable %v: the host could never pass", q.Timeout, q.Stable)
	}
	var err error
	if q.MaxAverage, err = quietLimit(c, "quiet-average"); err != nil {
		return err
	}
	if q.MaxCore, err = quietLimit(c, "quiet-core"); err != nil {
		return err
	}
	cfg.Quiescence = &q
	return nil
}

// claimCommand is the command line other runs see in the owner record,
// shortened: it is for a human reading "waiting for ...".
func claimCommand() string {
	cmd := strings.Join(append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...), " ")
	if r := []rune(cmd); len(r) > 120 {
		cmd = string(r[:119]) + "…"
	}
	return cmd
}
