package supervisor

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sources"
)

// The host claim and the quiescence preflight (Config.Claim,
// Config.Quiescence), in the order Run uses them: the claim first, before
// any build, since a build is load on the CPUs another run measures and a
// run waiting for a claim must be idle; the preflight after every build,
// since our own compiles would otherwise be the load it waits out, and
// before discovery and calibration, which already measure. Claiming
// before the preflight also keeps its verdict fresh: waiting for a claim
// after the host got quiet would leave the verdict stale.

// checkHost refuses host settings no run can use, before the run waits
// for anything. The preflight guards measurements: a test run measures
// none, so asking for one there is a mistake rather than a wait to add;
// the claim is useful in both modes (a test run is load on another run's
// benchmarks).
func checkHost(cfg Config) error {
	if cfg.Quiescence == nil {
		return nil
	}
	if cfg.Mode != ModeBench {
		return &ConfigError{Field: "Quiescence", Problem: "guards measurements: it needs benchmark mode"}
	}
	if err := cfg.Quiescence.Validate(); err != nil {
		return &ConfigError{Field: "Quiescence", Problem: err.Error()}
	}
	return nil
}

// claimHost takes cfg.Claim's claim on cpus, the run's CPUs
// (watchedCPUs), or on every online CPU when nil (ClaimConfig.CPUs is
// ignored: the claim covers what the run uses). cfg.Waiting hears of each
// new holder. No claim asked for: nil, which Release accepts.
func claimHost(ctx context.Context, cfg Config, cpus []int) (*host.HostClaim, error) {
	if cfg.Claim == nil {
		return nil, nil
	}
	cc := *cfg.Claim
	cc.CPUs = slices.Clone(cpus)
	return host.Claim(ctx, cc, func(h host.Holder) {
		if cfg.Waiting != nil {
			cfg.Waiting("waiting for the host claim: " + h.String())
		}
	})
}

// claimReport is what the document records of claim; nil without one.
func claimReport(claim *host.HostClaim) *rundoc.HostClaim {
	if claim == nil {
		return nil
	}
	r := claim.Report()
	return &r
}

// quietEvery is the least time between two of the preflight's waiting
// messages: it polls every 100 ms, which would flood a terminal.
const quietEvery = time.Second

// waitQuiet runs cfg.Quiescence's preflight (nil: none asked for, and no
// record; none either when ctx ends first). It watches cpus, the run's
// CPUs (watchedCPUs), and their SMT siblings, since load on a sibling
// slows a child while its own CPU looks idle, or every CPU when cpus is
// nil (QuiescenceConfig.CPUs is ignored). read is sources.ReadHostCPU
// when nil.
//
// A host that stays busy to the timeout ends the run with an error that
// wraps host.ErrNotQuiet and gives the last numbers: nothing is measured
// under known load.
func waitQuiet(ctx context.Context, cfg Config, cpus []int, read func() (sources.HostCPU, error)) (*rundoc.Quiescence, error) {
	if cfg.Quiescence == nil || ctx.Err() != nil {
		// Interrupted: nothing more will be measured, and the run's
		// partial results are due now.
		return nil, nil
	}
	qc := *cfg.Quiescence
	qc.CPUs = nil
	note := ""
	if cpus != nil {
		var err error
		if qc.CPUs, err = withSiblings(cpus, host.Siblings); err != nil {
			note = fmt.Sprintf("the SMT siblings of the run's CPUs are not watched: %v", err)
		}
	}
	qc = qc.WithDefaults()
	var last time.Time
	rep, err := host.WaitQuiet(ctx, qc, read, func(o host.Observation) {
		// A quiet interval that has not yet held for the stable time is
		// no news: the gate opens within Stable unless load returns.
		if cfg.Waiting == nil || o.Quiet || (!last.IsZero() && time.Since(last) < quietEvery) {
			return
		}
		last = time.Now()
		cfg.Waiting(fmt.Sprintf("waiting for a quiet host: %v (limits %.0f%%, %.0f%%)", o, 100*qc.MaxAverage, 100*qc.MaxCore))
	})
	switch {
	case ctx.Err() != nil:
		return nil, nil // as above; the wait is not recorded
	case err != nil:
		return nil, fmt.Errorf("%w; not measuring under known load", err)
	}
	rep.Note = note
	return &rep, nil
}

// withSiblings is cpus with every SMT sibling of each, sorted, without
// duplicates (the preflight's watch; the placement's siblings left out).
// When a sibling list cannot be read it returns cpus alone with the error,
// so the watch still covers the placed CPUs.
func withSiblings(cpus []int, siblings func(int) ([]int, error)) ([]int, error) {
	all := slices.Clone(cpus)
	for _, c := range cpus {
		sib, err := siblings(c)
		if err != nil {
			return slices.Compact(slices.Sorted(slices.Values(cpus))), err
		}
		all = append(all, sib...)
	}
	return slices.Compact(slices.Sorted(slices.Values(all))), nil
}
