package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/sandbox"
	"github.com/benchsup/benchsup/supervisor"
)

// limitFlags are run's flags for each child's resources.
func limitFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "memory-limit", Usage: "bound each child's memory to `SIZE` (bytes, or with K, M, G, T or KiB, MiB, GiB, TiB: powers of 1024), swap off; a child past it is killed by the kernel and reported out-of-memory (Linux, a writable cgroup memory controller)"},
		&cli.StringFlag{Name: "pids-limit", Usage: "bound each child's processes and threads to `N` (at least 1); forks past it fail and are counted in the row's notes (Linux, a writable cgroup pids controller)"},
	}
}

// applyLimits reads limitFlags into cfg. A limit this host cannot apply is
// refused here, as a usage error with the reason, before anything is built.
func applyLimits(c *cli.Context, cfg *supervisor.Config, probe func() sandbox.LimitSupport) error {
	if c.IsSet("memory-limit") {
		n, err := parseSize(c.String("memory-limit"))
		if err != nil {
			return usagef("--memory-limit: %v", err)
		}
		cfg.MemoryLimit = n
	}
	if c.IsSet("pids-limit") {
		s := c.String("pids-limit")
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return usagef("--pids-limit: want a whole number of at least 1, got %q", s)
		}
		cfg.PidsLimit = n
	}
	if cfg.MemoryLimit == 0 && cfg.PidsLimit == 0 {
		return nil
	}
	sup := probe()
	if cfg.MemoryLimit > 0 && sup.Memory == "" {
		return usagef("--memory-limit: no cgroup memory controller can be written here: %s", sup.MemoryNote)
	}
	if cfg.PidsLimit > 0 && sup.Pids == "" {
		return usagef("--pids-limit: no cgroup pids controller can be written here: %s", sup.PidsNote)
	}
	return nil
}

// sizeUnits are the suffixes parseSize accepts: each a power of 1024, as
// memory is counted.
var sizeUnits = map[string]uint{
	"": 0, "K": 10, "KiB": 10, "M": 20, "MiB": 20, "G": 30, "GiB": 30, "T": 40, "TiB": 40,
}

// parseSize reads a size: a whole number of bytes, or of K, M, G, T (KiB,
// MiB, GiB, TiB). Anything else (a fraction, "MB", a space, zero) is
// refused.
func parseSize(s string) (int64, error) {
	digits := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := s[len(digits):]
	shift, ok := sizeUnits[unit]
	if digits == "" || !ok || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, fmt.Errorf("want a size such as 512MiB, 1GiB, 64M or 1048576 (bytes), got %q", s)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q is too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("want a positive size, got %q (leave the flag out for no limit)", s)
	}
	return n << shift, nil
}
