package analysis

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/rundoc"
)

// scaled is ns times f, element by element.
func scaled(f float64, ns ...float64) []float64 {
	out := make([]float64, len(ns))
	for i, v := range ns {
		out[i] = v * f
	}
	return out
}

// timeRow is the comparison's time row of the group named name.
func timeRow(t *testing.T, c rundoc.Comparison, name string) rundoc.ComparisonRow {
	t.Helper()
	for _, r := range c.Rows {
		if r.Name == name && r.Metric == rundoc.MetricTime {
			return r
		}
	}
	t.Fatalf("no time row %s in %+v", name, c.Rows)
	return rundoc.ComparisonRow{}
}

func TestCompareVariants(t *testing.T) {
	base := []float64{100, 103, 98, 101, 99, 102}
	sched3 := [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2}, {2, 0, 1}, {1, 2, 0}}
	sched2 := [][]int{{0, 1}, {1, 0}, {1, 0}, {0, 1}, {0, 1}, {1, 0}}
	vc := rundoc.VariantComparison{Key: "impl", Reference: "fnv", Iterations: "own", Groups: []rundoc.VariantGroup{
		{Group: "BenchmarkHash/impl=*/n=8", Members: []string{"fnv", "xxh", "crc"}, Schedule: sched3},
		{Group: "BenchmarkHash/impl=*/n=64", Members: []string{"fnv", "xxh"}, Schedule: sched2},
	}}
	rows := []rundoc.Row{
		benchRow("BenchmarkHash/impl=crc/n=8", 0, base...),
		benchRow("BenchmarkHash/impl=fnv/n=8", 0, base...),
		benchRow("BenchmarkHash/impl=xxh/n=8", 0, scaled(0.8, base...)...),
		benchRow("BenchmarkHash/impl=fnv/n=64", 0, scaled(8, base...)...),
		benchRow("BenchmarkHash/impl=xxh/n=64", 0, scaled(8*0.5, base...)...),
		benchRow("BenchmarkOther", 0, base...),
	}
	other := benchRow("BenchmarkHash/impl=xxh/n=8", 0, base...)
	other.Build = "HEAD~1" // another build's row: not a variant of this run
	rows = append(rows, other)
	cs, err := CompareVariants(rows, vc, CompareConfig{Bootstrap: Bootstrap{Seed: 1}})
	require.NoError(t, err)
	require.Len(t, cs, 2, "one comparison per contender")

	xxh, crc := cs[0], cs[1]
	assert.Equal(t, "impl=fnv", xxh.Old.Label)
	assert.Equal(t, "impl=xxh", xxh.New.Label)
	assert.Equal(t, "impl=crc", crc.New.Label)
	assert.True(t, xxh.Knobs.Paired)
	require.NotNil(t, xxh.Variants)
	assert.Equal(t, "xxh", xxh.Variants.Contender)
	assert.Equal(t, "own", xxh.Variants.Iterations)
	assert.Len(t, xxh.Variants.Groups, 2, "xxh is in both groups")
	require.Len(t, crc.Variants.Groups, 1, "crc only in n=8")
	assert.Equal(t, "BenchmarkHash/impl=*/n=8", crc.Variants.Groups[0].Group)
	xxh.Variants.Groups[0].Members[0] = "changed"
	xxh.Variants.Groups[0].Schedule[0][0] = 9
	assert.Equal(t, "fnv", vc.Groups[0].Members[0], "the groups returned are copies")
	assert.Equal(t, 0, vc.Groups[0].Schedule[0][0], "the groups returned are copies")
	assert.Equal(t, "", vc.Contender)

	for _, tc := range []struct {
		c      rundoc.Comparison
		group  string
		ratio  float64
		want   rundoc.Verdict
		wins   int
		losses int
	}{
		{xxh, "BenchmarkHash/impl=*/n=8", 0.8, rundoc.VerdictFaster, 6, 0},
		{xxh, "BenchmarkHash/impl=*/n=64", 0.5, rundoc.VerdictFaster, 6, 0},
		{crc, "BenchmarkHash/impl=*/n=8", 1, rundoc.VerdictEquivalent, 0, 0},
	} {
		t.Run(tc.c.New.Label+" "+tc.group, func(t *testing.T) {
			r := timeRow(t, tc.c, tc.group)
			assert.Equal(t, tc.want, r.Verdict)
			require.NotNil(t, r.Ratio)
			assert.InDelta(t, tc.ratio, *r.Ratio, 1e-9)
			require.NotNil(t, r.Wins)
			require.NotNil(t, r.Losses)
			assert.Equal(t, tc.wins, *r.Wins)
			assert.Equal(t, tc.losses, *r.Losses)
			assert.Equal(t, 6, r.Old.Processes)
		})
	}
	require.NotEmpty(t, xxh.Geomeans)
	assert.Equal(t, rundoc.MetricTime, xxh.Geomeans[0].Metric)
	assert.Equal(t, 2, xxh.Geomeans[0].Identities)
	assert.InDelta(t, math.Sqrt(0.8*0.5), xxh.Geomeans[0].Ratio, 1e-9, "the geomean over the groups")
	for _, r := range append(slices.Clone(xxh.Rows), crc.Rows...) {
		assert.Contains(t, r.Name, "impl=*", "rows are named by the group")
	}
}

// The order within each round comes from the group's schedule: with
// identical code whose first process in a round runs 10% slower, the
// order effect is (1/1.1)/1.1 only if oldFirst reads the schedule right,
// and the ratio stays 1 because the schedule is balanced.
func TestCompareVariantsOrder(t *testing.T) {
	sched := [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}}
	members := []string{"a", "b", "c"}
	rows := make([]rundoc.Row, len(members))
	for mi, m := range members {
		ns := make([]float64, len(sched))
		for k, round := range sched {
			ns[k] = 100
			if round[0] == mi {
				ns[k] = 110
			}
		}
		rows[mi] = benchRow("BenchmarkX/v="+m, 0, ns...)
	}
	vc := rundoc.VariantComparison{Key: "v", Reference: "a", Iterations: "own",
		Groups: []rundoc.VariantGroup{{Group: "BenchmarkX/v=*", Members: members, Schedule: sched}}}
	cs, err := CompareVariants(rows, vc, CompareConfig{Bootstrap: Bootstrap{Seed: 1}})
	require.NoError(t, err)
	require.Len(t, cs, 2)
	for _, c := range cs {
		r := timeRow(t, c, "BenchmarkX/v=*")
		require.NotNil(t, r.OrderEffect, c.New.Label)
		assert.InDelta(t, (100.0/110)/(110.0/100), *r.OrderEffect, 1e-9, c.New.Label)
		assert.InDelta(t, 1, *r.Ratio, 1e-9, c.New.Label)
	}
}

func TestCompareVariantsMissingAndFailed(t *testing.T) {
	sched := [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}
	base := []float64{100, 103, 98, 101, 99, 102}
	failed := rundoc.Row{Package: "example.com/p", Name: "BenchmarkHash/impl=crc", Kind: rundoc.KindBenchmark,
		Outcome: "signal", Error: ptr("killed by SIGSEGV")}
	vc := rundoc.VariantComparison{Key: "impl", Reference: "fnv", Iterations: "shared", Groups: []rundoc.VariantGroup{
		{Group: "BenchmarkHash/impl=*", Members: []string{"fnv", "xxh", "crc"}, Schedule: sched},
		{Group: "BenchmarkSum/impl=*", Members: []string{"fnv", "xxh"}, Schedule: sched[:0]},
	}}
	rows := []rundoc.Row{benchRow("BenchmarkHash/impl=fnv", 0, base...), failed}
	cs, err := CompareVariants(rows, vc, CompareConfig{})
	require.NoError(t, err)
	require.Len(t, cs, 2)
	for _, tc := range []struct {
		c       rundoc.Comparison
		group   string
		verdict rundoc.Verdict
		note    string
	}{
		{cs[0], "BenchmarkHash/impl=*", rundoc.VerdictOnlyOld, "impl=xxh has no row in the run"},
		{cs[0], "BenchmarkSum/impl=*", rundoc.VerdictUnavailable, "neither impl=fnv nor impl=xxh has a row in the run"},
		{cs[1], "BenchmarkHash/impl=*", rundoc.VerdictFailed, "new failed: killed by SIGSEGV"},
	} {
		t.Run(tc.c.New.Label+" "+tc.group, func(t *testing.T) {
			r := timeRow(t, tc.c, tc.group)
			assert.Equal(t, tc.verdict, r.Verdict)
			assert.Contains(t, r.Note, tc.note)
		})
	}
}

func TestCompareVariantsPackages(t *testing.T) {
	sched := [][]int{{0, 1}, {1, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 0}}
	base := []float64{100, 103, 98, 101, 99, 102}
	row := func(pkg, name string, f float64) rundoc.Row {
		r := benchRow(name, 0, scaled(f, base...)...)
		r.Package = pkg
		return r
	}
	g := rundoc.VariantGroup{Group: "BenchmarkHash/impl=*", Members: []string{"fnv", "xxh"}, Schedule: sched}
	vc := rundoc.VariantComparison{Key: "impl", Reference: "fnv", Iterations: "own", Groups: []rundoc.VariantGroup{g, g}}
	rows := []rundoc.Row{
		row("example.com/a", "BenchmarkHash/impl=fnv", 1), row("example.com/a", "BenchmarkHash/impl=xxh", 0.5),
		row("example.com/b", "BenchmarkHash/impl=fnv", 1), row("example.com/b", "BenchmarkHash/impl=xxh", 2),
	}
	cs, err := CompareVariants(rows, vc, CompareConfig{})
	require.NoError(t, err)
	require.Len(t, cs, 1)
	var got []string
	for _, r := range cs[0].Rows {
		if r.Metric == rundoc.MetricTime {
			got = append(got, r.Package+" "+string(r.Verdict))
		}
	}
	assert.Equal(t, []string{"example.com/a faster", "example.com/b slower"}, got)
}

func TestCompareVariantsInvalid(t *testing.T) {
	sched := [][]int{{0, 1}, {1, 0}}
	ok := rundoc.VariantGroup{Group: "BenchmarkHash/impl=*", Members: []string{"fnv", "xxh"}, Schedule: sched}
	for _, tc := range []struct {
		name string
		vc   rundoc.VariantComparison
		rows []rundoc.Row
	}{
		{"no key", rundoc.VariantComparison{Reference: "fnv", Groups: []rundoc.VariantGroup{ok}}, nil},
		{"reference not first", rundoc.VariantComparison{Key: "impl", Reference: "xxh", Groups: []rundoc.VariantGroup{ok}}, nil},
		{"one member", rundoc.VariantComparison{Key: "impl", Reference: "fnv", Groups: []rundoc.VariantGroup{
			{Group: ok.Group, Members: []string{"fnv"}, Schedule: [][]int{{0}}}}}, nil},
		{"member twice", rundoc.VariantComparison{Key: "impl", Reference: "fnv", Groups: []rundoc.VariantGroup{
			{Group: ok.Group, Members: []string{"fnv", "fnv"}, Schedule: sched}}}, nil},
		{"round not a permutation", rundoc.VariantComparison{Key: "impl", Reference: "fnv", Groups: []rundoc.VariantGroup{
			{Group: ok.Group, Members: ok.Members, Schedule: [][]int{{0, 0}}}}}, nil},
		{"group without KEY=*", rundoc.VariantComparison{Key: "impl", Reference: "fnv", Groups: []rundoc.VariantGroup{
			{Group: "BenchmarkHash/impl=fnv", Members: ok.Members, Schedule: sched}}}, nil},
		{"process outside the schedule", rundoc.VariantComparison{Key: "impl", Reference: "fnv", Groups: []rundoc.VariantGroup{ok}},
			[]rundoc.Row{benchRow("BenchmarkHash/impl=fnv", 0, 1, 2, 3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CompareVariants(tc.rows, tc.vc, CompareConfig{})
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidVariants), "%v", err)
		})
	}
	_, err := CompareVariants(nil, rundoc.VariantComparison{Key: "impl", Reference: "fnv", Groups: []rundoc.VariantGroup{ok}}, CompareConfig{Threshold: 2})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// ComparePaired counts every time row's pairs won and lost (--against's
// too), from the processes' medians; equal pairs are neither.
func TestComparePairedWinsLosses(t *testing.T) {
	old := []rundoc.Row{benchRow("BenchmarkA", 0, 100, 100, 100, 100, 100, 100)}
	new := []rundoc.Row{benchRow("BenchmarkA", 0, 90, 95, 99, 101, 100, 98)}
	c, err := ComparePaired(old, new, CompareConfig{}, func(k int) bool { return k%2 == 0 })
	require.NoError(t, err)
	for _, r := range c.Rows {
		if r.Metric != rundoc.MetricTime {
			assert.Nil(t, r.Wins, r.Metric)
			continue
		}
		require.NotNil(t, r.Wins)
		assert.Equal(t, 4, *r.Wins)
		assert.Equal(t, 1, *r.Losses)
	}
	// Unpaired comparisons count none.
	u, err := Compare(benchDoc(old...), benchDoc(new...), CompareConfig{})
	require.NoError(t, err)
	assert.Nil(t, u.Rows[0].Wins)
}

func TestVariantMatrices(t *testing.T) {
	base := []float64{100, 103, 98, 101, 99, 102}
	sched := [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}}
	vc := rundoc.VariantComparison{Key: "impl", Reference: "fnv", Iterations: "own", Groups: []rundoc.VariantGroup{
		{Group: "BenchmarkHash/impl=*", Members: []string{"fnv", "xxh", "crc"}, Schedule: sched},
		{Group: "BenchmarkSum/impl=*", Members: []string{"fnv", "xxh"}, Schedule: [][]int{{0, 1}, {1, 0}}},
	}}
	rows := []rundoc.Row{
		benchRow("BenchmarkHash/impl=fnv", 0, base...),
		benchRow("BenchmarkHash/impl=xxh", 0, scaled(0.8, base...)...),
		benchRow("BenchmarkHash/impl=crc", 0, scaled(2, base...)...),
		benchRow("BenchmarkSum/impl=fnv", 0, 5, 5),
	}
	ms, err := VariantMatrices(rows, vc, CompareConfig{})
	require.NoError(t, err)
	require.Len(t, ms, 2)
	m := ms[0]
	assert.Equal(t, "BenchmarkHash/impl=*", m.Group)
	assert.Equal(t, "example.com/p", m.Package)
	assert.Equal(t, []string{"fnv", "xxh", "crc"}, m.Members)
	for _, tc := range []struct {
		i, j    int
		ratio   float64
		verdict rundoc.Verdict
	}{
		{1, 0, 0.8, rundoc.VerdictFaster},
		{0, 1, 1.25, rundoc.VerdictSlower},
		{2, 0, 2, rundoc.VerdictSlower},
		{2, 1, 2.5, rundoc.VerdictSlower},
		{1, 2, 0.4, rundoc.VerdictFaster},
		{0, 2, 0.5, rundoc.VerdictFaster},
	} {
		t.Run(m.Members[tc.i]+" vs "+m.Members[tc.j], func(t *testing.T) {
			c := m.Cells[tc.i][tc.j]
			require.NotNil(t, c)
			require.NotNil(t, c.Ratio)
			assert.InDelta(t, tc.ratio, *c.Ratio, 1e-9)
			assert.Equal(t, tc.verdict, c.Verdict)
			assert.Equal(t, 6, *c.Wins+*c.Losses)
		})
	}
	for i := range m.Members {
		assert.Nil(t, m.Cells[i][i], "the diagonal")
	}
	// The matrix's reference column is CompareVariants' rows.
	cs, err := CompareVariants(rows, vc, CompareConfig{})
	require.NoError(t, err)
	for ci, c := range cs {
		r := timeRow(t, c, "BenchmarkHash/impl=*")
		assert.Equal(t, r, *m.Cells[ci+1][0], c.New.Label)
	}
	sum := ms[1]
	require.NotNil(t, sum.Cells[1][0])
	assert.Equal(t, rundoc.VerdictUnavailable, sum.Cells[1][0].Verdict)
	assert.Equal(t, "impl=xxh has no row in the run", sum.Cells[1][0].Note)
}

// Each cell pairs by its own two members' places in the rounds: with the
// first process of a round 10% slower, every cell's order effect is
// (1/1.1)/1.1.
func TestVariantMatricesOrder(t *testing.T) {
	sched := [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}}
	members := []string{"a", "b", "c"}
	var rows []rundoc.Row
	for mi, m := range members {
		ns := make([]float64, len(sched))
		for k, round := range sched {
			ns[k] = 100
			if round[0] == mi {
				ns[k] = 110
			}
		}
		rows = append(rows, benchRow("BenchmarkX/v="+m, 0, ns...))
	}
	vc := rundoc.VariantComparison{Key: "v", Reference: "a", Groups: []rundoc.VariantGroup{{Group: "BenchmarkX/v=*", Members: members, Schedule: sched}}}
	ms, err := VariantMatrices(rows, vc, CompareConfig{})
	require.NoError(t, err)
	for i := range members {
		for j := range members {
			if i != j {
				require.NotNil(t, ms[0].Cells[i][j].OrderEffect, "%d vs %d", i, j)
				assert.InDelta(t, (100.0/110)/(110.0/100), *ms[0].Cells[i][j].OrderEffect, 1e-9, "%d vs %d", i, j)
			}
		}
	}
}
