package supervisor

import (
	"context"
	"regexp"
	"strings"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
)

// ListEntry is one identity `benchsup list` prints.
type ListEntry struct {
	Package string
	Kind    rundoc.Kind // "test", "benchmark", "workload" or "package"
	Name    string
	Error   string // why the identity (or package) could not be listed
}

// List returns every test (top-level, from the source) and every benchmark
// leaf (discovered in fresh children, so sub-benchmarks are included) of the
// selected packages. A package that fails to build, or a benchmark function
// that crashes while being discovered, is an entry with its Error.
func List(ctx context.Context, cfg Config) ([]ListEntry, error) {
	s, err := newSupervisor(cfg)
	if err != nil {
		return nil, err
	}
	defer s.close()
	// What the flags select, as run would: --bench alone selects
	// benchmarks, --run alone tests, both both, neither everything. (go
	// test's -list takes a pattern of its own and ignores -bench and -run;
	// benchsup's list has none, so its flags are the selection.)
	listTests := s.cfg.Mode != ModeBench || s.cfg.Run != ""
	listBenchmarks := s.cfg.Mode == ModeBench || s.cfg.Run == ""
	plans, rows, err := s.plan(ctx, func(p *pkgPlan) bool {
		return listTests && len(p.tests()) > 0 || listBenchmarks && len(p.benchmarks()) > 0
	})
	if err != nil {
		return nil, err
	}
	var out []ListEntry
	for _, r := range rows {
		if r.Outcome == rundoc.OutcomeSkipped {
			continue // a package with nothing to list
		}
		out = append(out, ListEntry{Package: r.Package, Kind: r.Kind, Error: deref(r.Error)})
	}
	s.buildAll(ctx, plans)
	s.trimCache()
	for _, p := range plans {
		if f := p.main().failure; f != nil {
			out = append(out, ListEntry{Package: p.pkg.ImportPath, Kind: "package", Error: deref(f.Error)})
			continue
		}
		for _, t := range p.tests() {
			if listTests && s.runsTest(t) {
				out = append(out, ListEntry{Package: p.pkg.ImportPath, Kind: "test", Name: t})
			}
		}
		if !listBenchmarks {
			continue
		}
		for _, id := range s.discover(ctx, p, p.main(), false) {
			e := ListEntry{Package: p.pkg.ImportPath, Kind: id.kind(), Name: id.name}
			if id.row != nil {
				e.Kind, e.Error = id.row.Kind, deref(id.row.Error)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// runsTest reports whether the run runs the top-level test name: -run
// selects it and -skip does not skip it whole.
func (s *supervisor) runsTest(name string) bool {
	return matches(s.cfg.Run, name) && !skipsTop(s.cfg.Skip, name)
}

// skipsTop reports whether a -skip pattern skips the top-level function
// name whole, as testing's matcher decides it: an alternative of one level
// that matches it (an alternative of more levels skips only subtests or
// sub-benchmarks, so the function runs).
func skipsTop(pattern, name string) bool {
	if pattern == "" {
		return false
	}
	for _, alt := range protocol.SplitBenchPattern(pattern) {
		if len(alt) != 1 {
			continue
		}
		if ok, err := regexp.MatchString(alt[0], name); ok && err == nil {
			return true
		}
	}
	return false
}

// matches applies the top-level element of a -run pattern to a test name.
func matches(pattern, name string) bool {
	if pattern == "" {
		return true
	}
	top, _, _ := strings.Cut(pattern, "/")
	ok, err := regexp.MatchString(top, name)
	return ok && err == nil
}
