package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// variantRun is a --vs=impl run measured on synthetic rounds: in
// BenchmarkHash/impl=*/n=8, fnv (the reference), xxh 20% faster, crc
// twice the time and copy, fnv's identical copy; in n=64 fnv and xxh
// (half the time). Each process's median carries 0.3% noise and the
// round's 3% drift, which pairing cancels.
func variantRun(t *testing.T) ([]rundoc.Row, []rundoc.Comparison) {
	t.Helper()
	rows, cs, err := variantRunRows()
	require.NoError(t, err)
	return rows, cs
}

func variantRunRows() ([]rundoc.Row, []rundoc.Comparison, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	vc := rundoc.VariantComparison{Key: "impl", Reference: "fnv", Iterations: "own"}
	var rows []rundoc.Row
	for _, g := range []struct {
		group   string
		members []string
		ns      []float64
	}{
		{"BenchmarkHash/impl=*/n=8", []string{"fnv", "xxh", "crc", "copy"}, []float64{40, 32, 80, 40}},
		{"BenchmarkHash/impl=*/n=64", []string{"fnv", "xxh"}, []float64{300, 150}},
	} {
		n := len(g.members)
		sched := analysis.VariantSchedule(n, analysis.VariantRounds(n, 6), 1)
		vc.Groups = append(vc.Groups, rundoc.VariantGroup{Group: g.group, Members: g.members, Schedule: sched})
		member := make([]rundoc.Row, n)
		for i, m := range g.members {
			member[i] = rundoc.Row{Package: "example.com/hash", Name: strings.Replace(g.group, "impl=*", "impl="+m, 1),
				Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK}
		}
		for k, round := range sched {
			drift := math.Exp(rng.NormFloat64() * 0.03)
			for _, v := range round {
				ns := g.ns[v] * drift * math.Exp(rng.NormFloat64()*0.003)
				member[v].Processes = append(member[v].Processes, rundoc.ProcessResult{Index: k, Outcome: rundoc.OutcomeOK,
					Samples: []rundoc.Sample{{Iterations: 1e6, ElapsedNs: int64(ns * 1e6)}}})
			}
		}
		rows = append(rows, member...)
	}
	cs, err := analysis.CompareVariants(rows, vc, analysis.CompareConfig{Bootstrap: analysis.Bootstrap{Seed: 1}})
	return rows, cs, err
}

// variantsHTMLDoc is variantRun's run document, its comparisons in it.
func variantsHTMLDoc() *rundoc.Document {
	rows, cs, err := variantRunRows()
	if err != nil {
		panic(err)
	}
	d := rundoctest.GreenDoc()
	d.Rows, d.Comparisons = rows, cs
	return &d
}

// The page shows a --vs run's comparisons per group: a forest whose rows
// read "impl=xxh vs impl=fnv", the table, the matrix of the group of four.
func TestWriteHTMLVariants(t *testing.T) {
	page := renderHTML(t, HTMLReport{Run: variantsHTMLDoc()})
	assert.Equal(t, 1, strings.Count(page, `<section class="variants">`))
	assert.Equal(t, 0, strings.Count(page, `<section class="comparison">`), "variant comparisons are not shown again as comparisons of builds")
	assert.Equal(t, 2, strings.Count(page, `<svg class="forest" data-metric="sec/op"`), "a forest per group")
	for _, label := range []string{"impl=xxh vs impl=fnv", "impl=crc vs impl=fnv", "impl=copy vs impl=fnv"} {
		assert.Contains(t, page, ">"+label+"</text>")
	}
	assert.Equal(t, 1, strings.Count(page, `<table class="vs-matrix">`))
	assert.Contains(t, page, "<td class=\"num\">0.801&lt;</td>")
	assert.Contains(t, page, "variant / impl=fnv time")
}

func TestWriteVariantTables(t *testing.T) {
	rows, cs := variantRun(t)
	var buf bytes.Buffer
	require.NoError(t, WriteVariantTables(&buf, rows, cs))
	out := buf.String()
	rundoctest.Golden(t, "variants.table", buf.Bytes())

	assert.Contains(t, out, "vs impl, reference impl=fnv")
	for _, tc := range []struct{ line, verdict, won string }{
		{"impl=xxh", "faster", "8–0"},
		{"impl=crc", "slower", "0–8"},
		{"impl=copy", "equivalent", ""},
	} {
		t.Run(tc.line, func(t *testing.T) {
			var found bool
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "  "+tc.line+" ") {
					found = true
					assert.True(t, strings.HasSuffix(l, tc.verdict), "%q: verdict %s", l, tc.verdict)
					assert.Contains(t, l, tc.won)
					break
				}
			}
			assert.True(t, found, "no line for %s in\n%s", tc.line, out)
		})
	}
	// The matrix only for the group of four, with its legend; its cells
	// mark xxh faster than every other and crc slower.
	assert.Equal(t, 1, strings.Count(out, "vs matrix"), out)
	assert.Contains(t, out, matrixLegend)
	var matrix []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  xxh ") || strings.HasPrefix(l, "  crc ") {
			matrix = append(matrix, l)
		}
	}
	require.Len(t, matrix, 2, out)
	assert.Equal(t, 3, strings.Count(matrix[0], "<"), "xxh is faster than the three others: %q", matrix[0])
	assert.Equal(t, 3, strings.Count(matrix[1], ">"), "crc is slower than the three others: %q", matrix[1])
	assert.Contains(t, out, "geomean over the groups, vs impl=fnv: impl=xxh")

	// Without the run's rows: the lines, no matrix.
	buf.Reset()
	require.NoError(t, WriteVariantTables(&buf, nil, cs))
	assert.NotContains(t, buf.String(), "vs matrix")
	assert.Contains(t, buf.String(), "impl=crc")

	// Comparisons of builds are not variant tables.
	buf.Reset()
	require.NoError(t, WriteVariantTables(&buf, nil, []rundoc.Comparison{rundoctest.ComparisonFixture()}))
	assert.Empty(t, buf.String())
}

func TestMatrixCell(t *testing.T) {
	f := rundoctest.Fptr
	for _, tc := range []struct {
		r    *rundoc.ComparisonRow
		want string
	}{
		{nil, dash},
		{&rundoc.ComparisonRow{Ratio: f(0.912), Verdict: rundoc.VerdictFaster}, "0.912<"},
		{&rundoc.ComparisonRow{Ratio: f(1.25), Verdict: rundoc.VerdictSlower}, "1.25>"},
		{&rundoc.ComparisonRow{Ratio: f(1.001), Verdict: rundoc.VerdictEquivalent}, "1.00="},
		{&rundoc.ComparisonRow{Ratio: f(0.97), Verdict: rundoc.VerdictInconclusive}, "0.970?"},
		{&rundoc.ComparisonRow{Verdict: rundoc.VerdictFailed}, dash},
		{&rundoc.ComparisonRow{Ratio: f(2), Verdict: rundoc.VerdictUnavailable}, dash},
	} {
		t.Run(fmt.Sprint(tc.want), func(t *testing.T) {
			assert.Equal(t, tc.want, matrixCell(tc.r))
		})
	}
}

// WriteComparisonTable shows one contender's comparison (and any paired
// run's) with the pairs won and lost.
func TestWriteComparisonTableVariant(t *testing.T) {
	_, cs := variantRun(t)
	var buf bytes.Buffer
	require.NoError(t, WriteComparisonTable(&buf, cs[0]))
	out := buf.String()
	rundoctest.Golden(t, "variants-comparison.table", buf.Bytes())
	assert.Contains(t, out, "variants of impl: old is the reference impl=fnv, new impl=xxh")
	assert.Contains(t, out, "won–lost")
	assert.Contains(t, out, "BenchmarkHash/impl=*/n=64")
	assert.Regexp(t, `BenchmarkHash/impl=\*/n=8 .* 8–0 +faster`, out)
	// Unpaired comparisons have no such column.
	buf.Reset()
	require.NoError(t, WriteComparisonTable(&buf, rundoctest.ComparisonFixture()))
	assert.NotContains(t, buf.String(), "won–lost")
}

// A run compares each package's groups on their own (a group's identity
// is unique only inside its package): one table per key, each package's
// groups with their matrix, the contenders counted once.
func TestWriteVariantTablesPackages(t *testing.T) {
	rows, cs := variantRun(t)
	var both []rundoc.Row
	var comps []rundoc.Comparison
	for _, pkg := range []string{"example.com/a", "example.com/b"} {
		var pkgRows []rundoc.Row
		for _, r := range rows {
			r.Package = pkg
			pkgRows = append(pkgRows, r)
		}
		vc := *cs[0].Variants
		vc.Contender, vc.Groups = "", nil
		for _, c := range cs {
			for _, g := range c.Variants.Groups {
				if !slices.ContainsFunc(vc.Groups, func(h rundoc.VariantGroup) bool { return h.Group == g.Group }) {
					vc.Groups = append(vc.Groups, g)
				}
			}
		}
		pc, err := analysis.CompareVariants(pkgRows, vc, analysis.CompareConfig{Bootstrap: analysis.Bootstrap{Seed: 1}})
		require.NoError(t, err)
		both, comps = append(both, pkgRows...), append(comps, pc...)
	}
	var buf bytes.Buffer
	require.NoError(t, WriteVariantTables(&buf, both, comps))
	out := buf.String()
	assert.Equal(t, 1, strings.Count(out, "vs impl, reference impl=fnv: 3 contender(s)"), out)
	assert.Equal(t, 2, strings.Count(out, "vs matrix"), "a matrix per package's group of four")
	assert.Contains(t, out, "over 2 groups in example.com/a")
	assert.Contains(t, out, "over 2 groups in example.com/b")
	assert.Less(t, strings.Index(out, "example.com/a\n"), strings.Index(out, "example.com/b\n"))
}

// TestWriteVariantTablesShortOfConfidence: three rounds give three pairs,
// whose intervals reach 75% of the 95% asked: every contender's line is
// inconclusive, xxh's twice-as-fast included, and the set's header says
// why once.
func TestWriteVariantTablesShortOfConfidence(t *testing.T) {
	rows, cs := variantRun(t)
	for i := range rows {
		rows[i].Processes = rows[i].Processes[:3]
	}
	vc := *cs[0].Variants
	vc.Contender = ""
	vc.Groups = nil
	for _, c := range cs {
		for _, g := range c.Variants.Groups {
			if !slices.ContainsFunc(vc.Groups, func(h rundoc.VariantGroup) bool { return h.Group == g.Group }) {
				vc.Groups = append(vc.Groups, g)
			}
		}
	}
	short, err := analysis.CompareVariants(rows, vc, analysis.CompareConfig{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteVariantTables(&buf, nil, short))
	out := buf.String()
	assert.Contains(t, out, "\nshort of the confidence asked: 3 pairs reach 75%; 95% needs 6 (--repetitions=6); 4 rows are inconclusive whatever the interval shows\n")
	assert.Equal(t, 1, strings.Count(out, "needs 6"), "said once:\n%s", out)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  impl=") && !strings.HasPrefix(l, "  impl=fnv ") {
			assert.True(t, strings.HasSuffix(l, "inconclusive"), "%q", l)
		}
	}
}
