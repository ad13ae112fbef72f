package analysis

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// ErrInvalidVariants is wrapped by CompareVariants' errors about its
// VariantComparison argument.
var ErrInvalidVariants = errors.New("invalid variant comparison")

// CompareVariants compares, for every contender value, its rows with the reference's in
// every group of vc.Groups, paired by round; one Comparison per contender, in Members order.
//
// Each group's rows are looked up in rows (a run's rows; other builds'
// are ignored) by the members' names: the group with "KEY=*" written
// "KEY=value". Both sides' rows are renamed to the group's identity and
// compared with ComparePaired, the reference as Old, process k of each
// paired with the other's process k (round k), the reference first in it
// when vc's schedule ran it first. A member with no row gives its group's
// rows the other side only (only-old or only-new), noted; a failed one
// its failure; no group is dropped. Contenders come in the order of their
// first appearance in the groups' Members. The comparisons' labels are
// "KEY=REF" and "KEY=CONTENDER"; their fingerprints are left for the
// caller, which knows the run. Groups whose name several packages hold
// are matched to those packages in the order vc.Groups and rows list
// them.
func CompareVariants(rows []rundoc.Row, vc rundoc.VariantComparison, cfg CompareConfig) ([]rundoc.Comparison, error) {
	found, err := variantInputs(rows, vc, cfg)
	if err != nil {
		return nil, err
	}
	var contenders []string
	for _, g := range vc.Groups {
		for _, m := range g.Members[1:] {
			if !slices.Contains(contenders, m) {
				contenders = append(contenders, m)
			}
		}
	}
	out := make([]rundoc.Comparison, 0, len(contenders))
	for _, con := range contenders {
		var all *rundoc.Comparison
		var oldRows, newRows []rundoc.Row
		v := vc
		v.Contender, v.Groups = con, nil
		for gi, g := range vc.Groups {
			ci := slices.Index(g.Members, con)
			if ci < 0 {
				continue
			}
			v.Groups = append(v.Groups, cloneGroup(g))
			o, oOK := renamed(found[gi].rows[0], g.Group)
			n, nOK := renamed(found[gi].rows[ci], g.Group)
			var os, ns []rundoc.Row
			if oOK {
				os = []rundoc.Row{o}
			}
			if nOK {
				ns = []rundoc.Row{n}
			}
			sched := g.Schedule
			c, err := ComparePaired(os, ns, cfg, func(k int) bool {
				// checkVariants and variantRows keep k inside the schedule.
				round := sched[k]
				return slices.Index(round, 0) < slices.Index(round, ci)
			})
			if err != nil {
				return nil, err
			}
			switch {
			case !oOK && !nOK:
				c.Rows = []rundoc.ComparisonRow{{Package: found[gi].pkg, Name: g.Group, Metric: rundoc.MetricTime,
					Verdict: rundoc.VerdictUnavailable, Note: fmt.Sprintf("neither %s=%s nor %s=%s has a row in the run", vc.Key, g.Members[0], vc.Key, con)}}
			case !oOK || !nOK:
				missing := map[bool]string{true: g.Members[0], false: con}[!oOK]
				for i := range c.Rows {
					c.Rows[i].Note = joinNote(c.Rows[i].Note, fmt.Sprintf("%s=%s has no row in the run", vc.Key, missing))
				}
			}
			if all == nil {
				all = c
			} else {
				all.Rows = append(all.Rows, c.Rows...)
			}
			oldRows, newRows = append(oldRows, os...), append(newRows, ns...)
		}
		all.Geomeans = Geomeans(all.Rows)
		all.Sweeps = compareSweepsOf(oldRows, newRows)
		all.Old = rundoc.ComparedRun{Label: vc.Key + "=" + vc.Reference}
		all.New = rundoc.ComparedRun{Label: vc.Key + "=" + con}
		all.Variants = &v
		out = append(out, *all)
	}
	return out, nil
}

func cloneGroup(g rundoc.VariantGroup) rundoc.VariantGroup {
	g.Members = slices.Clone(g.Members)
	s := make([][]int, len(g.Schedule))
	for i, r := range g.Schedule {
		s[i] = slices.Clone(r)
	}
	g.Schedule = s
	return g
}

// memberName is group's name with its KEY=* element written KEY=value.
func memberName(group, key, value string) string {
	n := ParseName(group)
	n.Elements = slices.Clone(n.Elements)
	n.Elements[n.Index(key)].Value = value
	return n.String()
}

// groupRows are one group's member rows (nil: no row) and its package.
type groupRows struct {
	rows []*rundoc.Row
	pkg  string
}

// variantInputs checks vc and cfg and finds each group's member rows
// among rows of the working tree, for CompareVariants and VariantMatrices.
func variantInputs(rows []rundoc.Row, vc rundoc.VariantComparison, cfg CompareConfig) ([]groupRows, error) {
	if err := checkVariants(vc); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return variantRows(workingTree(rows), vc)
}

// variantRows finds every group's member rows. A group name several
// packages hold is matched to them in order: the j-th group of that name
// takes the j-th package (in the order of rows) holding any of its
// members.
func variantRows(rows []rundoc.Row, vc rundoc.VariantComparison) ([]groupRows, error) {
	byName := map[string][]int{} // name -> indices into rows, in order
	for i, r := range rows {
		if r.Kind == rundoc.KindBenchmark {
			byName[r.Name] = append(byName[r.Name], i)
		}
	}
	occurrence := map[string]int{}
	out := make([]groupRows, len(vc.Groups))
	for gi, g := range vc.Groups {
		names := make([]string, len(g.Members))
		var pkgs []string
		for mi, m := range g.Members {
			names[mi] = memberName(g.Group, vc.Key, m)
			for _, ri := range byName[names[mi]] {
				if !slices.Contains(pkgs, rows[ri].Package) {
					pkgs = append(pkgs, rows[ri].Package)
				}
			}
		}
		// Packages in the order of their first row.
		slices.SortStableFunc(pkgs, func(a, b string) int { return firstRow(rows, a) - firstRow(rows, b) })
		j := occurrence[g.Group]
		occurrence[g.Group]++
		gr := groupRows{rows: make([]*rundoc.Row, len(g.Members))}
		if j < len(pkgs) {
			gr.pkg = pkgs[j]
			for mi, name := range names {
				for _, ri := range byName[name] {
					if rows[ri].Package == gr.pkg {
						gr.rows[mi] = &rows[ri]
						break
					}
				}
			}
		}
		for mi, r := range gr.rows {
			if r == nil {
				continue
			}
			for _, p := range r.Processes {
				if p.Index < 0 || p.Index >= len(g.Schedule) {
					return nil, fmt.Errorf("%w: %s process %d ran in no round of the %d scheduled", ErrInvalidVariants, names[mi], p.Index, len(g.Schedule))
				}
			}
		}
		out[gi] = gr
	}
	return out, nil
}

func firstRow(rows []rundoc.Row, pkg string) int {
	return slices.IndexFunc(rows, func(r rundoc.Row) bool { return r.Package == pkg })
}

// renamed is a copy of *r named name, its processes in round order; false
// when r is nil.
func renamed(r *rundoc.Row, name string) (rundoc.Row, bool) {
	if r == nil {
		return rundoc.Row{}, false
	}
	c := *r
	c.Name = name
	c.Processes = slices.Clone(r.Processes)
	slices.SortStableFunc(c.Processes, func(a, b rundoc.ProcessResult) int { return a.Index - b.Index })
	return c, true
}

// checkVariants refuses a VariantComparison CompareVariants cannot pair:
// no key, a group of fewer than two members or with a member twice, a
// reference that is not every group's first member, a round that is not
// a permutation of the members.
func checkVariants(vc rundoc.VariantComparison) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidVariants, fmt.Sprintf(format, args...))
	}
	if vc.Key == "" {
		return bad("no key")
	}
	for _, g := range vc.Groups {
		n := ParseName(g.Group)
		if i := n.Index(vc.Key); i < 0 || n.Elements[i].Value != "*" {
			return bad("group %q has no element %s=*", g.Group, vc.Key)
		}
		if len(g.Members) < 2 {
			return bad("group %s has %d member(s), not two or more", g.Group, len(g.Members))
		}
		if g.Members[0] != vc.Reference {
			return bad("group %s's first member is %q, not the reference %q", g.Group, g.Members[0], vc.Reference)
		}
		for i, m := range g.Members {
			if slices.Contains(g.Members[:i], m) {
				return bad("group %s has %s=%s twice", g.Group, vc.Key, m)
			}
		}
		for k, round := range g.Schedule {
			if !isPermutation(round, len(g.Members)) {
				return bad("group %s's round %d %v is not an order of its %d members", g.Group, k, round, len(g.Members))
			}
		}
	}
	return nil
}

// isPermutation reports whether s holds each of 0..n-1 once.
func isPermutation(s []int, n int) bool {
	if len(s) != n {
		return false
	}
	seen := make([]bool, n)
	for _, v := range s {
		if v < 0 || v >= n || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// VariantMatrix is every member of one group against every other: the
// "vs" table of --vs with three or more variants.
type VariantMatrix struct {
	Package string
	Group   string
	Members []string // as the group's, the reference first
	// Cells[i][j] is member i's time compared with member j's (the ratio
	// i/j, i as New and j as Old), paired by round as CompareVariants
	// pairs a contender with the reference; nil when i == j.
	Cells [][]*rundoc.ComparisonRow
}

// VariantMatrices compares, in every group of vc.Groups, every ordered
// pair of members by their time rows, paired by round; one matrix per
// group, in vc's order. Rows are looked up as CompareVariants looks them
// up; a missing or failed member's cells carry that outcome. vc is
// checked as CompareVariants checks it.
func VariantMatrices(rows []rundoc.Row, vc rundoc.VariantComparison, cfg CompareConfig) ([]VariantMatrix, error) {
	found, err := variantInputs(rows, vc, cfg)
	if err != nil {
		return nil, err
	}
	cmp := comparer{cfg: cfg.withDefaults()}
	out := make([]VariantMatrix, len(vc.Groups))
	for gi, g := range vc.Groups {
		m := VariantMatrix{Package: found[gi].pkg, Group: g.Group, Members: slices.Clone(g.Members),
			Cells: make([][]*rundoc.ComparisonRow, len(g.Members))}
		for i := range g.Members {
			m.Cells[i] = make([]*rundoc.ComparisonRow, len(g.Members))
			for j := range g.Members {
				if i == j {
					continue
				}
				m.Cells[i][j] = variantCell(cmp, found[gi], g, vc.Key, i, j)
			}
		}
		out[gi] = m
	}
	return out, nil
}

// variantCell compares member i (new) with member j (old) of group g.
func variantCell(cmp comparer, found groupRows, g rundoc.VariantGroup, key string, i, j int) *rundoc.ComparisonRow {
	o, oOK := renamed(found.rows[j], g.Group)
	n, nOK := renamed(found.rows[i], g.Group)
	if !oOK || !nOK {
		var missing []string
		for _, k := range []int{j, i} {
			if found.rows[k] == nil {
				missing = append(missing, key+"="+g.Members[k])
			}
		}
		return &rundoc.ComparisonRow{Package: found.pkg, Name: g.Group, Metric: rundoc.MetricTime,
			Verdict: rundoc.VerdictUnavailable, Note: strings.Join(missing, " and ") + " has no row in the run"}
	}
	rows := cmp.rows([]rundoc.Row{o}, []rundoc.Row{n}, func(k int) bool {
		round := g.Schedule[k]
		return slices.Index(round, j) < slices.Index(round, i)
	})
	for _, r := range rows {
		if r.Metric == rundoc.MetricTime {
			return &r
		}
	}
	// cmp.rows gives every compared identity a time row.
	panic("analysis: no time row for " + g.Group)
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
