package analysis

import (
	"fmt"
	"slices"

	"github.com/benchsup/benchsup/rundoc"
)

// FailOn is a regression gate's policy (benchsup's --fail-on).
type FailOn string

const (
	FailOnNone         FailOn = ""             // no gate
	FailOnSlower       FailOn = "slower"       // fail on a time row slower beyond the threshold
	FailOnInconclusive FailOn = "inconclusive" // also fail on one the comparison could not decide (fail closed)
)

// ParseFailOn reads a gate policy: "", "slower" or "inconclusive".
func ParseFailOn(s string) (FailOn, error) {
	switch f := FailOn(s); f {
	case FailOnNone, FailOnSlower, FailOnInconclusive:
		return f, nil
	}
	return FailOnNone, fmt.Errorf("gate policy must be slower or inconclusive, got %q", s)
}

// GateStatus is what a gate decided, worst last.
type GateStatus int

const (
	GatePass       GateStatus = iota
	GateRegression            // a time row is slower, or undecided under a fail-closed gate
	GateIncomplete            // an identity crashed or is missing on a side: worse than a regression
)

// GateResult is a gate's decision with the identities ("package name")
// that decided it, in the comparison's order, and why, in a few words.
type GateResult struct {
	Status     GateStatus
	Reason     string
	Identities []string
}

// Gate applies policy to a comparison. Only time rows are gated, and a
// recording's span-median and span-p95 rows (its span-p99 row too once it
// could be compared: a p99 unavailable for want of 1000 spans does not
// fail a fail-closed gate); the other metrics inform. A crash or a missing identity outranks a regression; a
// new identity (only in the new run) passes. A row whose interval reaches
// less confidence than c asked is undecided, whatever its verdict says.
func Gate(c rundoc.Comparison, policy FailOn) GateResult {
	if policy == FailOnNone {
		return GateResult{}
	}
	var slower, undecided, incomplete []string
	for _, r := range c.Rows {
		if !gated(r) {
			continue
		}
		id := r.Package + " " + r.Name
		add := func(ids []string) []string {
			if slices.Contains(ids, id) { // a recording's median and p95 are one identity
				return ids
			}
			return append(ids, id)
		}
		switch {
		case r.ShortOfConfidence(c.Knobs.Confidence) && r.Verdict != rundoc.VerdictOnlyOld && r.Verdict != rundoc.VerdictFailed:
			// A verdict from less confidence than asked (a document
			// written before verdicts were held back) decides nothing.
			undecided = add(undecided)
		case r.Verdict.Regressed():
			slower = add(slower)
		case r.Verdict.Undecided():
			undecided = add(undecided)
		case r.Verdict.Incomplete():
			incomplete = add(incomplete)
		}
	}
	switch {
	case len(incomplete) > 0:
		return GateResult{GateIncomplete, "identities crashed or are missing on a side", incomplete}
	case len(slower) > 0:
		return GateResult{GateRegression, "slower beyond the threshold", slower}
	case policy == FailOnInconclusive && len(undecided) > 0:
		return GateResult{GateRegression, "undecided (fail-closed gate)", undecided}
	}
	return GateResult{}
}

// gated reports whether a row counts toward the gate.
func gated(r rundoc.ComparisonRow) bool {
	switch r.Metric {
	case rundoc.MetricTime, rundoc.MetricSpanMedian, rundoc.MetricSpanP95:
		return true
	case rundoc.MetricSpanP99:
		return r.Verdict != rundoc.VerdictUnavailable
	}
	return false
}
