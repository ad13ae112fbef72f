package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
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
	bw := bufio.NewWriter(w)
	var keys []string
	byKey := map[string][]rundoc.Comparison{}
	for _, c := range cs {
		if c.Variants == nil {
			continue
		}
		k := c.Variants.Key + "\x00" + c.Variants.Reference
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], c)
	}
	for i, k := range keys {
		if i > 0 {
			bw.WriteString("\n")
		}
		if err := writeVariantKey(bw, rows, byKey[k]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// variantGroupKey identifies a group's rows: a group name several
// packages hold is one group per package.
type variantGroupKey struct{ pkg, group string }

func writeVariantKey(bw *bufio.Writer, rows []rundoc.Row, cs []rundoc.Comparison) error {
	vc := *cs[0].Variants
	k := cs[0].Knobs
	iter := "each variant calibrated to the same timed slice (its own N)"
	if vc.Iterations == "shared" {
		iter = "every variant runs the reference's N"
	}
	fmt.Fprintf(bw, "vs %s, reference %s=%s: %d contender(s); %s\n", vc.Key, vc.Key, vc.Reference, len(cs), iter)
	fmt.Fprintf(bw, "statistics: rounds of one process per variant in balanced order, paired by round, order-statistic intervals of the pair ratios; %s confidence asked, seed %d; threshold ±%s\n",
		trimPercent(100*k.Confidence), k.Seed, trimPercent(100*k.Threshold))

	// The groups, in the order the comparisons' rows first name them,
	// with their members and each contender's time row.
	var order []variantGroupKey
	members := map[variantGroupKey][]string{}
	lines := map[variantGroupKey]map[string]rundoc.ComparisonRow{}
	refCenter := map[variantGroupKey]*rundoc.ComparedValue{}
	groupMembers := map[string][]string{}
	for _, c := range cs {
		for _, g := range c.Variants.Groups {
			if groupMembers[g.Group] == nil {
				groupMembers[g.Group] = g.Members
			}
		}
	}
	for _, c := range cs {
		for _, r := range c.Rows {
			if r.Metric != rundoc.MetricTime {
				continue
			}
			gk := variantGroupKey{r.Package, r.Name}
			if lines[gk] == nil {
				order = append(order, gk)
				lines[gk] = map[string]rundoc.ComparisonRow{}
				members[gk] = groupMembers[r.Name]
			}
			lines[gk][c.Variants.Contender] = r
			if refCenter[gk] == nil && r.Old != nil && r.Old.Center != nil {
				refCenter[gk] = r.Old
			}
		}
	}

	matrices := map[variantGroupKey]analysis.VariantMatrix{}
	if len(rows) > 0 {
		ms, err := analysis.VariantMatrices(rows, matrixGroups(vc, cs), analysis.CompareConfig{Threshold: k.Threshold,
			Bootstrap: analysis.Bootstrap{Confidence: k.Confidence, Resamples: k.Resamples, Seed: k.Seed}})
		if err != nil {
			return fmt.Errorf("the vs matrix: %w", err)
		}
		for _, m := range ms {
			if len(m.Members) >= 3 {
				matrices[variantGroupKey{m.Package, m.Group}] = m
			}
		}
	}

	pkg := ""
	for _, gk := range order {
		bw.WriteString("\n")
		if gk.pkg != pkg {
			pkg = gk.pkg
			bw.WriteString(pkg + "\n")
		}
		g := grid{cols: []column{
			{truncate(gk.group, maxCompareName), alignLeft}, {"time", alignDecimal}, {"vs " + vc.Reference, alignDecimal},
			{"interval", alignLeft}, {"won–lost", alignRight}, {"verdict", alignLeft},
		}}
		g.cells = append(g.cells, []string{"  " + vc.Key + "=" + vc.Reference, formatCenter(rundoc.MetricTime, refCenter[gk]), "1", "", "", "reference"})
		for _, m := range members[gk] {
			r, ok := lines[gk][m]
			if !ok {
				continue
			}
			ratio, interval, won := dash, dash, dash
			if r.Ratio != nil {
				ratio = formatRatio(*r.Ratio)
			}
			if r.Low != nil && r.High != nil {
				interval = "[" + formatRatio(*r.Low) + ", " + formatRatio(*r.High) + "]"
				if r.Confidence != nil && math.Abs(*r.Confidence-k.Confidence) > 1e-9 {
					interval += " @" + trimPercent(100**r.Confidence)
				}
			}
			if r.Wins != nil && r.Losses != nil {
				won = strconv.Itoa(*r.Wins) + "–" + strconv.Itoa(*r.Losses)
			}
			g.cells = append(g.cells, []string{"  " + vc.Key + "=" + m, formatCenter(rundoc.MetricTime, r.New), ratio, interval, won, string(r.Verdict)})
		}
		header, cells := g.layout()
		bw.WriteString(strings.TrimRight(strings.Join(header, sep), " ") + "\n")
		for _, row := range cells {
			bw.WriteString(strings.TrimRight(strings.Join(row, sep), " ") + "\n")
		}
		if m, ok := matrices[gk]; ok {
			writeVariantMatrix(bw, m)
		}
	}

	var gm []string
	for _, c := range cs {
		for _, g := range c.Geomeans {
			if g.Metric == rundoc.MetricTime && g.Identities > 1 {
				gm = append(gm, fmt.Sprintf("%s=%s %s", vc.Key, c.Variants.Contender, formatRatio(g.Ratio)))
			}
		}
	}
	if len(gm) > 0 {
		fmt.Fprintf(bw, "\ngeomean over the groups, vs %s=%s: %s\n", vc.Key, vc.Reference, strings.Join(gm, ", "))
	}

	var notes []string
	for _, c := range cs {
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
	if len(notes) > 0 {
		bw.WriteString("\nnotes:\n")
		for _, n := range notes {
			bw.WriteString("  " + n + "\n")
		}
	}
	return nil
}

// matrixGroups is vc with every group of cs: each comparison holds only
// the groups of its contender. A group name that several packages hold
// is kept as often as a comparison holds it.
func matrixGroups(vc rundoc.VariantComparison, cs []rundoc.Comparison) rundoc.VariantComparison {
	vc.Contender, vc.Groups = "", nil
	var names []string
	count := map[string]int{}
	first := map[string]rundoc.VariantGroup{}
	for _, c := range cs {
		here := map[string]int{}
		for _, g := range c.Variants.Groups {
			here[g.Group]++
			if _, ok := first[g.Group]; !ok {
				names = append(names, g.Group)
				first[g.Group] = g
			}
			count[g.Group] = max(count[g.Group], here[g.Group])
		}
	}
	for _, n := range names {
		for range count[n] {
			vc.Groups = append(vc.Groups, first[n])
		}
	}
	return vc
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
	header, cells := g.layout()
	bw.WriteString(strings.TrimRight(strings.Join(header, sep), " ") + "\n")
	for _, row := range cells {
		bw.WriteString(strings.TrimRight(strings.Join(row, sep), " ") + "\n")
	}
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
