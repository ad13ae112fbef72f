package rundoc_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// shards splits GreenDoc's rows into n parts, row i to part i%n+1, with a
// package row repeated in every part.
func shards(n int) []*rundoc.Document {
	whole := rundoctest.GreenDoc()
	docs := make([]*rundoc.Document, n)
	for k := range docs {
		d := whole
		d.Rows = nil
		d.Meta.Shard = &rundoc.ShardInfo{Index: k + 1, Count: n, Method: "hash", Functions: 1}
		d.Meta.Hostname = "runner-" + string(rune('a'+k))
		d.Rows = append(d.Rows, packageRow("github.com/acme/shop/broken"))
		docs[k] = &d
	}
	for i, r := range whole.Rows {
		docs[i%n].Rows = append(docs[i%n].Rows, r)
	}
	return docs
}

func packageRow(pkg string) rundoc.Row {
	return rundoc.Row{Package: pkg, Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeBuildFailure, Error: rundoctest.Str("undefined: x")}
}

func TestMerge(t *testing.T) {
	docs := shards(3)
	// Reversed: the result does not depend on the order of the arguments.
	got, err := rundoc.Merge([]*rundoc.Document{docs[2], docs[0], docs[1]}, rundoc.MergeOptions{})
	require.NoError(t, err)
	whole := rundoctest.GreenDoc()
	assert.Len(t, got.Rows, len(whole.Rows)+1, "every identity once, the package row once")
	var names []string
	for _, r := range got.Rows {
		names = append(names, r.Name)
	}
	for _, r := range whole.Rows {
		assert.Contains(t, names, r.Name)
	}
	require.NotNil(t, got.Meta.Shard)
	assert.Equal(t, 0, got.Meta.Shard.Index)
	assert.Equal(t, 3, got.Meta.Shard.Count)
	assert.Equal(t, 3, got.Meta.Shard.Functions)
	require.Len(t, got.Meta.Shard.Merged, 3)
	for i, p := range got.Meta.Shard.Merged {
		assert.Equal(t, i+1, p.Index)
		assert.Equal(t, "runner-"+string(rune('a'+i)), p.Hostname)
	}
	assert.Equal(t, whole.Meta.Fingerprint(), got.Meta.Fingerprint())
	assert.Len(t, got.Meta.Provenance.Builds, len(whole.Meta.Provenance.Builds), "each package's provenance once")
}

func TestMergeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		docs func() []*rundoc.Document
		want string
	}{
		{"missing part", func() []*rundoc.Document { return shards(3)[:2] }, "shard 3/3 missing"},
		{"part twice", func() []*rundoc.Document { d := shards(2); return []*rundoc.Document{d[0], d[1], d[0]} }, "shard 1/2 is given twice"},
		{"not a shard", func() []*rundoc.Document { d := rundoctest.GreenDoc(); return []*rundoc.Document{&d} }, "not the document of a shard"},
		{"other count", func() []*rundoc.Document { return append(shards(2), shards(3)[2]) }, "a part of 3"},
		{"fingerprint", func() []*rundoc.Document {
			d := shards(2)
			d[1].Meta.CPU = "Intel Xeon"
			d[1].Meta.GoVersion = "go1.25.0"
			return d
		}, `cpu "AMD EPYC 7B13" vs "Intel Xeon", goVersion "go1.26.8" vs "go1.25.0"`},
		{"knobs", func() []*rundoc.Document { d := shards(2); d[1].Meta.Knobs.Repetitions = 5; return d }, `repetitions "3" vs "5"`},
		{"identity twice", func() []*rundoc.Document {
			d := shards(2)
			d[1].Rows = append(d[1].Rows, d[0].Rows[1])
			return d
		}, "is in shard 1/2 and in shard 2/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rundoc.Merge(tc.docs(), rundoc.MergeOptions{})
			require.Error(t, err)
			assert.True(t, errors.Is(err, rundoc.ErrNotMergeable))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	var mm *rundoc.MergeMismatchError
	d := shards(2)
	d[1].Meta.Containment = "process-group"
	_, err := rundoc.Merge(d, rundoc.MergeOptions{})
	require.ErrorAs(t, err, &mm)
	assert.Equal(t, "shard 2/2", mm.Part)
	assert.Equal(t, []rundoc.FieldDiff{{"containment", "cgroup", "process-group"}}, mm.Diffs)
}

func TestMergeAllowMismatch(t *testing.T) {
	d := shards(2)
	d[1].Meta.CPU = "Intel Xeon"
	got, err := rundoc.Merge(d, rundoc.MergeOptions{AllowMismatch: true})
	require.NoError(t, err)
	require.Len(t, got.Meta.Shard.Merged, 2)
	assert.Empty(t, got.Meta.Shard.Merged[0].Mismatches)
	assert.Equal(t, []rundoc.FieldDiff{{"cpu", "AMD EPYC 7B13", "Intel Xeon"}}, got.Meta.Shard.Merged[1].Mismatches)
	// Knobs are never allowed to differ: the parts would not be one run.
	d[1].Meta.Knobs.Bench = "Encode"
	_, err = rundoc.Merge(d, rundoc.MergeOptions{AllowMismatch: true})
	assert.ErrorContains(t, err, `bench "." vs "Encode"`)
}

func TestMergeComparisons(t *testing.T) {
	d := shards(2)
	side := func(label string) rundoc.ComparedRun { return rundoc.ComparedRun{Label: label} }
	knobs := rundoc.CompareKnobs{Threshold: 0.02, Confidence: 0.95, Resamples: 1000, Paired: true}
	for k, part := range d {
		var rows []rundoc.ComparisonRow
		for _, r := range part.Rows {
			if r.Kind == rundoc.KindBenchmark {
				rows = append(rows, rundoc.ComparisonRow{Package: r.Package, Name: r.Name, Metric: rundoc.MetricTime, Verdict: rundoc.VerdictEquivalent})
			}
		}
		part.Comparisons = []rundoc.Comparison{{Schema: rundoc.ComparisonSchemaVersion, Old: side("main (commit 0123)"), New: side("working tree"),
			Knobs: knobs, Rows: rows, Geomeans: []rundoc.Geomean{{Metric: rundoc.MetricTime, Ratio: 1 + float64(k), Identities: len(rows)}}}}
	}
	got, err := rundoc.Merge(d, rundoc.MergeOptions{})
	require.NoError(t, err)
	require.Len(t, got.Comparisons, 1)
	c := got.Comparisons[0]
	assert.Len(t, c.Rows, len(rundoctest.GreenDoc().Rows), "every identity's comparison row, once")
	assert.Empty(t, c.Geomeans, "a part's geomean is not the whole run's")
	assert.Equal(t, knobs, c.Knobs)

	d[1].Comparisons[0].Old.Label = "v1.2.0 (commit 4567)"
	_, err = rundoc.Merge(d, rundoc.MergeOptions{})
	assert.ErrorContains(t, err, "differs from shard 1/2's")
	d[1].Comparisons = nil
	_, err = rundoc.Merge(d, rundoc.MergeOptions{})
	assert.ErrorContains(t, err, "has 0 comparisons")
}

func TestMergeEmptyPart(t *testing.T) {
	d := shards(2)
	// A part that got no function: no child ran, so what only children
	// tell is unknown; its "nothing to run" row is not the package's.
	empty := *d[1]
	empty.Meta.Shard = &rundoc.ShardInfo{Index: 3, Count: 3, Method: "hash"}
	empty.Meta.GoVersion, empty.Meta.GOMAXPROCS, empty.Meta.Containment, empty.Meta.Module = "", 0, "", ""
	empty.Rows = []rundoc.Row{{Package: "github.com/acme/shop/codec", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeSkipped, Skipped: rundoctest.Str("no benchmarks to run")}}
	for _, p := range d {
		p.Meta.Shard.Count = 3
	}
	got, err := rundoc.Merge([]*rundoc.Document{&empty, d[0], d[1]}, rundoc.MergeOptions{})
	require.NoError(t, err)
	assert.Equal(t, rundoctest.GreenDoc().Meta.Fingerprint(), got.Meta.Fingerprint(), "the fingerprint of the parts that measured")
	for _, r := range got.Rows {
		assert.False(t, r.Outcome == rundoc.OutcomeSkipped && r.Kind == rundoc.KindPackage, "a part's nothing-to-run row of a package another part ran: %+v", r)
	}
	assert.Len(t, got.Rows, len(rundoctest.GreenDoc().Rows)+1)
}

func TestMergeSweeps(t *testing.T) {
	docs := shards(2)
	sweeps := rundoctest.SweepsFixture()
	// Each family in the part that ran its function.
	docs[0].Sweeps = sweeps[1:]
	docs[1].Sweeps = sweeps[:1]
	got, err := rundoc.Merge([]*rundoc.Document{docs[1], docs[0]}, rundoc.MergeOptions{})
	require.NoError(t, err)
	require.Len(t, got.Sweeps, 2)
	assert.Equal(t, sweeps[1].Family, got.Sweeps[0].Family, "part by part")
	assert.Equal(t, sweeps[0].Family, got.Sweeps[1].Family)
}
