package main

import (
	"fmt"
	"slices"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/supervisor"
)

// selection is what a run's patterns select, for the no-match gate.
type selection struct {
	// patterns are the selecting flags as given, "--bench=Typo"; empty
	// when the run selects everything (test mode without --run or -skip).
	patterns []string
	// what is selected: "benchmark" or "test".
	what string
	// allowEmpty is --allow-empty: a run that selects nothing passes.
	allowEmpty bool
}

// selectionOf reads the selecting flags of a run: --bench in bench mode
// (bare, it selects every benchmark, and a module with none is still an
// empty run), --run and -skip in test mode.
//
// A --shard part is exempt: the deal may leave a part with no function
// of a selection that matches elsewhere, so an empty part says nothing
// about the pattern (a --dry-run of the whole selection does).
func selectionOf(cfg supervisor.Config, isSet func(string) bool, value func(string) string, allowEmpty bool) selection {
	s := selection{what: "test", allowEmpty: allowEmpty || cfg.Shard.Active()}
	if cfg.Mode == supervisor.ModeBench {
		s.what = "benchmark"
		s.patterns = append(s.patterns, "--bench="+cfg.Bench)
	}
	for _, f := range []string{"run", "skip"} {
		if isSet(f) {
			s.patterns = append(s.patterns, "--"+f+"="+value(f))
		}
	}
	return s
}

// errNoMatch is the one line of a run whose selection matched nothing in
// any package: a gate that checked nothing must not pass
// (docs/ci.md#an-empty-run-fails).
func (s selection) errNoMatch(doc *rundoc.Document) error {
	if s.allowEmpty || len(s.patterns) == 0 {
		return nil
	}
	var pkgs []string
	for _, r := range doc.Rows {
		if r.Build != "" {
			continue // an --against build's rows: the working tree decides
		}
		if !selectedNothing(r) {
			return nil
		}
		if !slices.Contains(pkgs, r.Package) {
			pkgs = append(pkgs, r.Package)
		}
	}
	if len(pkgs) == 0 {
		return nil // no package: the run said so already
	}
	return fmt.Errorf("%s matched no %s in %s searched (--allow-empty accepts an empty run)",
		joinPatterns(s.patterns), s.what, countOf(len(pkgs), "package", "packages"))
}

// selectedNothing reports whether r is a package row that ran nothing
// because nothing was there to run: no test files, or no function the
// patterns select.
func selectedNothing(r rundoc.Row) bool {
	if r.Kind != rundoc.KindPackage || r.Outcome != rundoc.OutcomeSkipped || r.Skipped == nil {
		return false
	}
	switch *r.Skipped {
	case rundoc.NoTestFiles, rundoc.NoTestsToRun, rundoc.NoBenchmarksToRun:
		return true
	}
	return false
}

func joinPatterns(ps []string) string {
	switch len(ps) {
	case 1:
		return ps[0]
	case 2:
		return ps[0] + " with " + ps[1]
	}
	out := ps[0]
	for _, p := range ps[1 : len(ps)-1] {
		out += ", " + p
	}
	return out + " and " + ps[len(ps)-1]
}

// countOf is n and the noun for n: "1 package", "3 packages".
func countOf(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}
