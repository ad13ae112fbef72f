package supervisor

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

// variantGroup is one group of --vs variants in one package: its
// members' identities, the reference first, and the rounds they run in.
type variantGroup struct {
	pkg      string
	plan     analysis.VariantPlan
	members  []*benchIdentity
	schedule [][]int // round k: indices into members, in the order they run
}

// planVariants groups each package's discovered leaves by Config.Vs
// (analysis.PlanVariants, per package: a group never spans packages),
// gives every group its schedule, and, with VsShared, every member its
// reference's N. Each group's reference becomes the identity the schedule
// runs the group through (see group); the other members are marked so
// that measure does not also run them alone. A group PlanVariants cannot
// compare (one member, ...) is said in the notes of its first leaf's row,
// once. The error is the run's: a key no leaf of any package has
// (analysis.ErrNoVariants), or a group too large to schedule.
func (s *supervisor) planVariants(found [][]*benchIdentity) ([]*variantGroup, error) {
	var groups []*variantGroup
	anyKey, failed := false, false
	for _, ids := range found {
		if len(ids) == 0 {
			continue
		}
		pkg := ids[0].plan.pkg.ImportPath
		byName := map[string]*benchIdentity{}
		var names []string
		for _, id := range ids {
			if id.name == "" || id.workload {
				failed = failed || id.row != nil
				continue // a package that could not be discovered; a workload measures windows, not samples
			}
			if id.row != nil && !strings.Contains(id.rowName(), "/") {
				failed = true // a whole function's error row: its leaves are unknown
			}
			byName[id.rowName()] = id
			names = append(names, id.rowName())
		}
		plans, skipped, err := analysis.PlanVariants(names, s.cfg.Vs, s.cfg.VsReference)
		switch {
		case errors.Is(err, analysis.ErrNoVariants):
			continue
		case err != nil:
			return nil, fmt.Errorf("--vs=%s: %s: %w", s.cfg.Vs, pkg, err)
		}
		anyKey = true
		for _, g := range skipped {
			// The group's first leaf in source order carries why.
			byName[g.Names[0]].addNote("--vs=" + s.cfg.Vs + ": " + g.String())
		}
		for _, p := range plans {
			g := &variantGroup{pkg: pkg, plan: p}
			for _, name := range p.Names {
				m := byName[name]
				m.variantOf = g
				g.members = append(g.members, m)
			}
			rounds := s.cfg.Repetitions
			if s.cfg.defaultRounds {
				rounds = analysis.VariantRounds(len(p.Members), DefaultPairs)
			}
			g.schedule = analysis.VariantSchedule(len(p.Members), rounds, s.scheduleSeed(pkg, p.Group))
			ref := g.members[0]
			if s.cfg.VsIterations == VsShared && ref.row == nil && ref.n > 0 {
				for _, m := range g.members[1:] {
					if m.row == nil {
						m.n = ref.n // the same work: each sample runs the reference's N
					}
				}
			}
			groups = append(groups, g)
		}
	}
	if !anyKey && !failed {
		// Nothing failed in discovery that could have held the key: the
		// user named a key the benchmarks do not have.
		return nil, fmt.Errorf("--vs=%s: %w %s=…", s.cfg.Vs, analysis.ErrNoVariants, s.cfg.Vs)
	}
	if !anyKey {
		fmt.Fprintf(s.cfg.Warnings, "--vs=%s: no discovered benchmark has the element %s=…; some could not be discovered (their rows say why)\n", s.cfg.Vs, s.cfg.Vs)
	}
	return groups, nil
}

// scheduleSeed seeds a group's schedule: the comparison's seed (--seed),
// mixed with the group's identity so that groups do not share one order.
func (s *supervisor) scheduleSeed(pkg, group string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(pkg + "\x00" + group))
	return h.Sum64() ^ s.cfg.Compare.Bootstrap.Seed
}

// rowName is the name the identity's row carries.
func (id *benchIdentity) rowName() string { return cmp.Or(id.fullName, id.name) }

// addNote adds a note to the identity's row (or, for one that ended in
// discovery, to that row).
func (id *benchIdentity) addNote(note string) {
	if id.row != nil {
		id.row.Notes = append(id.row.Notes, note)
		return
	}
	id.notes = append(id.notes, note)
}

// round is the members of g in the order they run in round k; nil past
// the last round.
func (g *variantGroup) round(k int) []*benchIdentity {
	if k >= len(g.schedule) {
		return nil
	}
	out := make([]*benchIdentity, len(g.schedule[k]))
	for i, m := range g.schedule[k] {
		out[i] = g.members[m]
	}
	return out
}

// compareVariants compares every group's contenders with its reference
// (analysis.CompareVariants), package by package (a group's identity is
// unique only inside its package) and, without --vs=KEY:VALUE, reference
// by reference (each group's first member is its own).
func (s *supervisor) compareVariants(rows []rundoc.Row, groups []*variantGroup) ([]rundoc.Comparison, error) {
	type side struct{ pkg, ref string }
	var sides []side
	byPkg := map[side][]rundoc.VariantGroup{}
	for _, g := range groups {
		k := side{g.pkg, g.plan.Members[0]}
		if _, ok := byPkg[k]; !ok {
			sides = append(sides, k)
		}
		byPkg[k] = append(byPkg[k], rundoc.VariantGroup{Group: g.plan.Group, Members: g.plan.Members, Schedule: g.schedule})
	}
	var out []rundoc.Comparison
	for _, k := range sides {
		var pkgRows []rundoc.Row
		for _, r := range rows {
			if r.Package == k.pkg {
				pkgRows = append(pkgRows, r)
			}
		}
		vc := rundoc.VariantComparison{Key: s.cfg.Vs, Reference: k.ref, Iterations: s.cfg.VsIterations, Groups: byPkg[k]}
		cs, err := analysis.CompareVariants(pkgRows, vc, s.cfg.Compare)
		if err != nil {
			return nil, fmt.Errorf("--vs=%s: %s: %w", s.cfg.Vs, k.pkg, err)
		}
		out = append(out, cs...)
	}
	return out, nil
}

// order says how the run scheduled its processes (rundoc.Knobs.Order):
// with --vs, also how many rounds the groups ran, which Knobs.Repetitions
// (the other leaves' processes) does not say when they were defaulted.
func (s *supervisor) order() string {
	const interleaved = "interleaved: repetition k of every benchmark runs before repetition k+1 of any"
	if s.cfg.Vs == "" {
		return interleaved
	}
	rounds := "the repetitions"
	if s.cfg.defaultRounds {
		rounds = fmt.Sprintf("%d pairs' worth, rounded up to whole blocks of one round per variant", DefaultPairs)
	}
	return interleaved + "; --vs=" + s.cfg.Vs + " groups run as rounds (" + rounds + "), one process of every variant back to back " +
		"in the group's schedule (comparisons[].variants.groups[].schedule), round k with repetition k"
}
