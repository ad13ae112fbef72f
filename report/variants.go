package report

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

// matrixLegend says what a vs matrix's markers mean, so that the matrix
// reads without colour.
const matrixLegend = "cells: row time / column time; < faster, > slower, = equivalent, ? inconclusive, — no verdict"

// WriteVariantTables writes the variant comparisons of cs (--vs; the
// others are left to WriteComparisonTable) as text: per key, a header
// naming the key, the reference and the statistics; then per group (under
// its package) the reference's time and one line per contender with its
// time, its ratio to the reference with the interval, the pairs it won and
// lost ("5–1") and the verdict; per contender the geometric mean over the
// groups; and for a group of three or more variants the "vs" matrix,
// every member against every other, paired by round (analysis
// VariantMatrices over rows, the run's rows), each cell the ratio with a
// marker. Then the notes. A group whose rows are not in rows gets no
// matrix.
func WriteVariantTables(w io.Writer, rows []rundoc.Row, cs []rundoc.Comparison) error {
	rows, cs = escaped(rows), escaped(cs)
	sets, err := variantSets(rows, cs)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for i, set := range sets {
		if i > 0 {
			bw.WriteString("\n")
		}
		writeVariantSet(bw, set)
	}
	return bw.Flush()
}

// variantSet is the comparisons of one key and reference, by group.
type variantSet struct {
	vc     rundoc.VariantComparison // Key, Reference, Iterations
	knobs  rundoc.CompareKnobs
	cs     []rundoc.Comparison
	groups []*variantGroupLines
}

// variantGroupLines is one group's time rows, one per contender in the
// group's order, and its matrix (three or more variants, with the run's
// rows).
type variantGroupLines struct {
	pkg, group string
	vg         rundoc.VariantGroup
	ref        *rundoc.ComparedValue
	lines      []variantLine
	matrix     *analysis.VariantMatrix
}

type variantLine struct {
	contender string
	row       rundoc.ComparisonRow
}

// variantSets groups the variant comparisons of cs by key and reference,
// and each set's time rows by group: a group name several packages hold
// is one group per package.
func variantSets(rows []rundoc.Row, cs []rundoc.Comparison) ([]variantSet, error) {
	var sets []variantSet
	index := map[string]int{}
	for _, c := range cs {
		if c.Variants == nil {
			continue
		}
		k := c.Variants.Key + "\x00" + c.Variants.Reference
		i, ok := index[k]
		if !ok {
			i = len(sets)
			index[k] = i
			sets = append(sets, variantSet{vc: *c.Variants, knobs: c.Knobs})
		}
		sets[i].cs = append(sets[i].cs, c)
	}
	for si := range sets {
		set := &sets[si]
		type gkey struct{ pkg, group string }
		byKey := map[gkey]*variantGroupLines{}
		lines := map[gkey]map[string]rundoc.ComparisonRow{}
		for _, c := range set.cs {
			for _, r := range c.Rows {
				if r.Metric != rundoc.MetricTime {
					continue
				}
				gk := gkey{r.Package, r.Name}
				g := byKey[gk]
				if g == nil {
					g = &variantGroupLines{pkg: r.Package, group: r.Name}
					// The group's members and schedule as this package's
					// comparison holds them.
					if i := slices.IndexFunc(c.Variants.Groups, func(vg rundoc.VariantGroup) bool { return vg.Group == r.Name }); i >= 0 {
						g.vg = c.Variants.Groups[i]
					}
					byKey[gk] = g
					lines[gk] = map[string]rundoc.ComparisonRow{}
					set.groups = append(set.groups, g)
				}
				lines[gk][c.Variants.Contender] = r
				if g.ref == nil && r.Old != nil && r.Old.Center != nil {
					g.ref = r.Old
				}
			}
		}
		k := set.knobs
		cfg := analysis.CompareConfig{Threshold: k.Threshold,
			Bootstrap: analysis.Bootstrap{Confidence: k.Confidence, Resamples: k.Resamples, Seed: k.Seed}}
		for _, g := range set.groups {
			gk := gkey{g.pkg, g.group}
			for _, m := range g.vg.Members {
				if r, ok := lines[gk][m]; ok {
					g.lines = append(g.lines, variantLine{m, r})
				}
			}
			if len(rows) == 0 || len(g.vg.Members) < 3 {
				continue
			}
			// A group's identity is unique inside its package: its
			// matrix is computed from that package's rows.
			var pkgRows []rundoc.Row
			for _, r := range rows {
				if r.Package == g.pkg {
					pkgRows = append(pkgRows, r)
				}
			}
			vc := rundoc.VariantComparison{Key: set.vc.Key, Reference: set.vc.Reference, Iterations: set.vc.Iterations,
				Groups: []rundoc.VariantGroup{g.vg}}
			ms, err := analysis.VariantMatrices(pkgRows, vc, cfg)
			if err != nil {
				return nil, fmt.Errorf("the vs matrix of %s %s: %w", g.pkg, g.group, err)
			}
			g.matrix = &ms[0]
		}
	}
	return sets, nil
}

// contenders are the set's contender values, each once, in order.
func (set variantSet) contenders() []string {
	var out []string
	for _, c := range set.cs {
		if !slices.Contains(out, c.Variants.Contender) {
			out = append(out, c.Variants.Contender)
		}
	}
	return out
}

// statistics says how a set's comparisons were measured and computed.
func (set variantSet) statistics() string {
	k := set.knobs
	iter := "each variant calibrated to the same timed slice (its own N)"
	if set.vc.Iterations == "shared" {
		iter = "every variant runs the reference's N"
	}
	return fmt.Sprintf("rounds of one process per variant in balanced order, paired by round, order-statistic intervals of the pair ratios; %s; %s confidence asked, seed %d; threshold ±%s",
		iter, trimPercent(100*k.Confidence), k.Seed, trimPercent(100*k.Threshold))
}

func (set variantSet) title() string {
	vc := set.vc
	return fmt.Sprintf("vs %s, reference %s=%s: %d contender(s)", vc.Key, vc.Key, vc.Reference, len(set.contenders()))
}

// cells are a line's ratio, interval and pairs won and lost, as text.
func (l variantLine) cells(confidence float64) (ratio, interval, won string) {
	r := l.row
	ratio, interval, won = dash, intervalCell(r, confidence, formatRatio), dash
	if r.Ratio != nil {
		ratio = formatRatio(*r.Ratio)
	}
	if r.Wins != nil && r.Losses != nil {
		won = strconv.Itoa(*r.Wins) + "–" + strconv.Itoa(*r.Losses)
	}
	return ratio, interval, won
}

// geomeans are each contender's geometric mean over its groups, one per
// comparison (with its package when the set spans several).
func (set variantSet) geomeans() []string {
	pkgs := map[string]bool{}
	for _, g := range set.groups {
		pkgs[g.pkg] = true
	}
	var out []string
	for _, c := range set.cs {
		for _, g := range c.Geomeans {
			if g.Metric == rundoc.MetricTime && g.Identities > 1 {
				where := ""
				if len(pkgs) > 1 && len(c.Rows) > 0 {
					where = " in " + c.Rows[0].Package
				}
				out = append(out, fmt.Sprintf("%s=%s %s over %d groups%s", set.vc.Key, c.Variants.Contender, formatRatio(g.Ratio), g.Identities, where))
			}
		}
	}
	return out
}

func (set variantSet) notes() []string {
	vc, k := set.vc, set.knobs
	var notes []string
	for _, c := range set.cs {
		for _, r := range c.Rows {
			if r.Note != "" {
				notes = append(notes, fmt.Sprintf("%s %s %s=%s (%s): %s", r.Package, r.Name, vc.Key, c.Variants.Contender, r.Metric, oneLine(r.Note)))
			}
			if r.OrderEffect != nil && math.Abs(*r.OrderEffect-1) > k.Threshold {
				notes = append(notes, fmt.Sprintf("%s %s %s=%s: order effect %s (the variant that ran first of the two measured differently; balanced rounds cancel it from the ratio)",
					r.Package, r.Name, vc.Key, c.Variants.Contender, formatChange(*r.OrderEffect)))
			}
		}
	}
	return notes
}

// shortfall is what the set's header says once about the rows held back
// for want of pairs (the table shows time rows only).
func (set variantSet) shortfall() confidenceShortfall {
	var rows []rundoc.ComparisonRow
	for _, c := range set.cs {
		for _, r := range c.Rows {
			if r.Metric == rundoc.MetricTime {
				rows = append(rows, r)
			}
		}
	}
	return shortOfConfidence(rows, set.knobs.Confidence)
}

func writeVariantSet(bw *bufio.Writer, set variantSet) {
	vc := set.vc
	bw.WriteString(set.title() + "\n")
	bw.WriteString("statistics: " + set.statistics() + "\n")
	if line := set.shortfall().line(); line != "" {
		bw.WriteString(line + "\n")
	}
	pkg := ""
	for _, gl := range set.groups {
		bw.WriteString("\n")
		if gl.pkg != pkg {
			pkg = gl.pkg
			bw.WriteString(pkg + "\n")
		}
		g := grid{cols: []column{
			{truncate(gl.group, maxCompareName), alignLeft}, {"time", alignDecimal}, {"vs " + vc.Reference, alignDecimal},
			{"interval", alignLeft}, {"won–lost", alignRight}, {"verdict", alignLeft},
		}}
		g.cells = append(g.cells, []string{"  " + vc.Key + "=" + vc.Reference, formatCenter(rundoc.MetricTime, gl.ref), "1", "", "", "reference"})
		for _, l := range gl.lines {
			ratio, interval, won := l.cells(set.knobs.Confidence)
			g.cells = append(g.cells, []string{"  " + vc.Key + "=" + l.contender, formatCenter(rundoc.MetricTime, l.row.New), ratio, interval, won, string(l.row.Verdict)})
		}
		writeGrid(bw, &g, false)
		if gl.matrix != nil {
			writeVariantMatrix(bw, *gl.matrix)
		}
	}
	if gm := set.geomeans(); len(gm) > 0 {
		fmt.Fprintf(bw, "\ngeomean over the groups, vs %s=%s: %s\n", vc.Key, vc.Reference, strings.Join(gm, ", "))
	}
	writeNotes(bw, "notes:", set.notes())
}

// writeVariantMatrix writes m as rows and columns of its members.
func writeVariantMatrix(bw *bufio.Writer, m analysis.VariantMatrix) {
	fmt.Fprintf(bw, "  vs matrix (%s)\n", matrixLegend)
	cols := []column{{"", alignLeft}}
	for _, name := range m.Members {
		cols = append(cols, column{name, alignRight})
	}
	g := grid{cols: cols}
	for i, name := range m.Members {
		row := []string{"  " + name}
		for j := range m.Members {
			row = append(row, matrixCell(m.Cells[i][j]))
		}
		g.cells = append(g.cells, row)
	}
	writeGrid(bw, &g, false)
}

// matrixCell is a ratio with its verdict's marker: "0.91<", "1.25>",
// "1.00=", "0.98?"; a dash where there is no ratio or no verdict.
func matrixCell(r *rundoc.ComparisonRow) string {
	if r == nil {
		return dash
	}
	marker := map[rundoc.Verdict]string{
		rundoc.VerdictFaster: "<", rundoc.VerdictSlower: ">",
		rundoc.VerdictEquivalent: "=", rundoc.VerdictInconclusive: "?",
	}[r.Verdict]
	if r.Ratio == nil || marker == "" {
		return dash
	}
	return formatRatio(*r.Ratio) + marker
}

// htmlVariants is one key's variant comparisons on the page.
type htmlVariants struct {
	Title, Statistics string
	Groups            []htmlVariantGroup
	Geomeans, Notes   []string
}

type htmlVariantGroup struct {
	Package, Group, Reference string
	SVG                       template.HTML
	Lines                     []htmlVariantLine
	Matrix                    *htmlMatrix
}

type htmlVariantLine struct{ Variant, Time, Ratio, Interval, Won, Verdict string }

type htmlMatrix struct {
	Members []string
	Rows    []htmlMatrixRow
	Legend  string
}

type htmlMatrixRow struct {
	Name  string
	Cells []string
}

// variantsView is the page's view of the variant comparisons cs: per
// group a forest of the contenders' ratios to the reference (the line at
// 1), labelled "impl=xxh vs impl=fnv", their table, and the vs matrix.
func variantsView(rows []rundoc.Row, cs []rundoc.Comparison) []htmlVariants {
	sets, err := variantSets(rows, cs)
	if err != nil {
		// The matrices need rows that agree with the schedules; the
		// forests and tables do not.
		sets, _ = variantSets(nil, cs)
	}
	var out []htmlVariants
	for _, set := range sets {
		vc := set.vc
		ref := vc.Key + "=" + vc.Reference
		v := htmlVariants{Title: set.title(), Statistics: set.statistics(), Geomeans: set.geomeans(), Notes: set.notes()}
		for _, gl := range set.groups {
			g := htmlVariantGroup{Package: gl.pkg, Group: gl.group, Reference: ref}
			forest := rundoc.Comparison{Knobs: set.knobs}
			g.Lines = append(g.Lines, htmlVariantLine{Variant: ref, Time: formatCenter(rundoc.MetricTime, gl.ref), Ratio: "1", Verdict: "reference"})
			for _, l := range gl.lines {
				r := l.row
				r.Name = vc.Key + "=" + l.contender + " vs " + ref
				forest.Rows = append(forest.Rows, r)
				ratio, interval, won := l.cells(set.knobs.Confidence)
				g.Lines = append(g.Lines, htmlVariantLine{Variant: vc.Key + "=" + l.contender, Time: formatCenter(rundoc.MetricTime, r.New),
					Ratio: ratio, Interval: interval, Won: won, Verdict: string(r.Verdict)})
			}
			g.SVG = forestSVGAxis(forest, rundoc.MetricTime, "variant / "+ref+" time (log axis; left is faster)")
			if m := gl.matrix; m != nil {
				hm := &htmlMatrix{Members: m.Members, Legend: matrixLegend}
				for i, name := range m.Members {
					row := htmlMatrixRow{Name: name}
					for j := range m.Members {
						row.Cells = append(row.Cells, matrixCell(m.Cells[i][j]))
					}
					hm.Rows = append(hm.Rows, row)
				}
				g.Matrix = hm
			}
			v.Groups = append(v.Groups, g)
		}
		out = append(out, v)
	}
	return out
}
