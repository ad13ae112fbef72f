package supervisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

// revision is one --against revision of a run: its exported tree and the
// plans of the same packages there, built as the working tree's are.
type revision struct {
	tree  *revisionTree
	plans []*pkgPlan
}

// label names the revision in rows and comparisons: as the user gave it,
// with the commit it resolved to.
func (r *revision) label() string { return r.tree.rev }

func (r *revision) describe() string {
	commit := r.tree.commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	return fmt.Sprintf("%s (commit %s)", r.tree.rev, commit)
}

// buildRevisions exports each --against revision, plans the same package
// patterns in it and builds their test binaries, as the working tree's
// were. A revision that cannot be exported ends the run (the user named
// something that is not there); a package that does not build at a
// revision is a row of that build. With the per-user cache, the exports
// are kept there (revcache.go) and their binaries are cached as the
// working tree's are: a later run against the same commit finds both up
// to date.
func (s *supervisor) buildRevisions(ctx context.Context, keep func(*pkgPlan) bool) ([]*revision, []rundoc.Row, error) {
	var revs []*revision
	var rows []rundoc.Row
	exports := revExportDir(s.cache)
	for i, rev := range s.cfg.Against {
		tree, err := exportRevision(ctx, s.cfg.Dir, rev, s.tmp, exports)
		if err != nil {
			return nil, nil, err
		}
		cfg := s.cfg
		cfg.Dir = tree.dir
		tmp := filepath.Join(s.tmp, fmt.Sprintf("build-rev-%d", i))
		if err := os.Mkdir(tmp, 0o755); err != nil {
			return nil, nil, err
		}
		sub := &supervisor{cfg: cfg, tmp: tmp, start: s.start}
		s.bins.also = append(s.bins.also, &sub.bins) // its binaries are held for the run
		if tree.cached {
			sub.cache = s.cache // trimmed once by s.trimCache, after these builds
		}
		plans, planRows, err := sub.plan(ctx, keep)
		if err != nil {
			return nil, nil, fmt.Errorf("--against=%s: %w", rev, err)
		}
		r := &revision{tree: tree, plans: plans}
		for _, p := range plans {
			// Before the build, so that its build events name the
			// revision, and its cached binary is its own.
			p.main().variant = r.label()
		}
		sub.buildAll(ctx, plans)
		for _, row := range planRows {
			if row.Outcome == rundoc.OutcomeSkipped {
				continue // a package with nothing to run: the working tree's row says so
			}
			row.Build = r.label()
			rows = append(rows, row)
		}
		for _, p := range plans {
			if f := p.main().failure; f != nil {
				row := *f
				row.Build = r.label()
				rows = append(rows, row)
			}
		}
		revs = append(revs, r)
	}
	return revs, rows, nil
}

// discoverRevisions discovers and calibrates every revision's benchmarks
// and pairs each with the working tree's identity of the same name, which
// then measures the working tree's N: both builds run the same iterations,
// so a sample of either covers the same work. An identity only a revision
// has keeps its own calibration and runs unpaired.
func (s *supervisor) discoverRevisions(ctx context.Context, ids []*benchIdentity, revs []*revision) (unpaired []*benchIdentity) {
	byKey := map[revKey]*benchIdentity{}
	for _, id := range ids {
		byKey[revKey{id.plan.pkg.ImportPath, id.name}] = id
		id.partners = make([]*benchIdentity, len(revs))
	}
	for r, rev := range revs {
		for _, found := range s.discoverAll(ctx, rev.plans, true) {
			for _, v := range found {
				v.variant = rev.label()
				m := byKey[revKey{v.plan.pkg.ImportPath, v.name}]
				if m == nil || m.partners[r] != nil {
					unpaired = append(unpaired, v)
					continue
				}
				m.partners[r] = v
				if m.row == nil && v.row == nil && m.n > 0 {
					v.n, v.sampleTime, v.fixedNs = m.n, m.sampleTime, m.fixedNs
				}
			}
		}
	}
	return unpaired
}

// group is the identities one repetition of id runs back to back, in
// order: id and its partners (the revisions' builds of it), rotated by
// the repetition so that each build runs first equally often. With one
// revision that is the balanced order A B, B A, A B, ...: drift of the
// host between the two processes of a pair favours neither build.
//
// The reference of a --vs group runs the group's round rep instead: every
// member once, in the order the group's schedule gives (variants.go).
func (id *benchIdentity) group(rep int) []*benchIdentity {
	if g := id.variantOf; g != nil {
		return g.round(rep)
	}
	// Absent partners keep their places, so that every build's position
	// in a repetition is the same whichever others exist (see oldFirst).
	sides := append(append([]*benchIdentity(nil), id.partners...), id)
	var out []*benchIdentity
	for _, b := range rotate(sides, rep) {
		if b != nil {
			out = append(out, b)
		}
	}
	return out
}

func rotate[T any](s []T, k int) []T {
	if len(s) == 0 {
		return s
	}
	k %= len(s)
	return append(append([]T(nil), s[k:]...), s[:k]...)
}

// oldFirst reports whether revision r's process of an identity ran before
// the working tree's in repetition rep, of partners revisions (see group).
func oldFirst(partners, r, rep int) bool {
	n := partners + 1 // the working tree's build is last before rotation
	pos := func(i int) int { return ((i-rep)%n + n) % n }
	return pos(r) < pos(partners)
}

// compareRevisions compares each revision's rows with the working tree's,
// pair by pair.
func (s *supervisor) compareRevisions(rows []rundoc.Row, revs []*revision, fp rundoc.Fingerprint) []rundoc.Comparison {
	var out []rundoc.Comparison
	var newRows []rundoc.Row
	for _, r := range rows {
		if r.Build == "" {
			newRows = append(newRows, r)
		}
	}
	for i, rev := range revs {
		var oldRows []rundoc.Row
		for _, r := range rows {
			if r.Build == rev.label() {
				oldRows = append(oldRows, r)
			}
		}
		// validated with the run's Config
		c, _ := analysis.ComparePaired(oldRows, newRows, s.cfg.Compare, func(k int) bool { return oldFirst(len(revs), i, k) })
		c.Old = rundoc.ComparedRun{Label: rev.describe(), Fingerprint: fp}
		c.New = rundoc.ComparedRun{Label: "working tree", Fingerprint: fp}
		out = append(out, *c)
	}
	return out
}

// revKey is a benchmark identity of one build: package and name.
type revKey struct{ pkg, name string }
