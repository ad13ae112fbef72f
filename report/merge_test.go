package report_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/report"
)

// shards splits greenDoc's rows into n parts, row i to part i%n+1, with a
// package row repeated in every part.
func shards(n int) []*report.Document {
	whole := report.GreenDoc()
	docs := make([]*report.Document, n)
	for k := range docs {
		d := whole
		d.Rows = nil
		d.Meta.Shard = &report.ShardInfo{Index: k + 1, Count: n, Method: "hash", Functions: 1}
		d.Meta.Hostname = "runner-" + string(rune('a'+k))
		d.Rows = append(d.Rows, packageRow("github.com/acme/shop/broken"))
		docs[k] = &d
	}
	for i, r := range whole.Rows {
		docs[i%n].Rows = append(docs[i%n].Rows, r)
	}
	return docs
}

func packageRow(pkg string) report.Row {
	return report.Row{Package: pkg, Kind: report.KindPackage, Outcome: report.OutcomeBuildFailure, Error: report.Str("undefined: x")}
}

func TestMerge(t *testing.T) {
	docs := shards(3)
	// Reversed: the result does not depend on the order of the arguments.
	got, err := report.Merge([]*report.Document{docs[2], docs[0], docs[1]}, report.MergeOptions{})
	require.NoError(t, err)
	whole := report.GreenDoc()
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
		docs func() []*report.Document
		want string
	}{
		{"missing part", func() []*report.Document { return shards(3)[:2] }, "shard 3/3 missing"},
		{"part twice", func() []*report.Document { d := shards(2); return []*report.Document{d[0], d[1], d[0]} }, "shard 1/2 is given twice"},
		{"not a shard", func() []*report.Document { d := report.GreenDoc(); return []*report.Document{&d} }, "not the document of a shard"},
		{"other count", func() []*report.Document { return append(shards(2), shards(3)[2]) }, "a part of 3"},
		{"fingerprint", func() []*report.Document {
			d := shards(2)
			d[1].Meta.CPU = "Intel Xeon"
			d[1].Meta.GoVersion = "go1.25.0"
			return d
		}, `cpu "AMD EPYC 7B13" vs "Intel Xeon", goVersion "go1.26.8" vs "go1.25.0"`},
		{"knobs", func() []*report.Document { d := shards(2); d[1].Meta.Knobs.Repetitions = 5; return d }, `repetitions "3" vs "5"`},
		{"identity twice", func() []*report.Document {
			d := shards(2)
			d[1].Rows = append(d[1].Rows, d[0].Rows[1])
			return d
		}, "is in shard 1/2 and in shard 2/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := report.Merge(tc.docs(), report.MergeOptions{})
			require.Error(t, err)
			assert.True(t, errors.Is(err, report.ErrNotMergeable))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	var mm *report.MergeMismatchError
	d := shards(2)
	d[1].Meta.Containment = "process-group"
	_, err := report.Merge(d, report.MergeOptions{})
	require.ErrorAs(t, err, &mm)
	assert.Equal(t, "shard 2/2", mm.Part)
	assert.Equal(t, []report.FieldDiff{{"containment", "cgroup", "process-group"}}, mm.Diffs)
}

func TestMergeAllowMismatch(t *testing.T) {
	d := shards(2)
	d[1].Meta.CPU = "Intel Xeon"
	got, err := report.Merge(d, report.MergeOptions{AllowMismatch: true})
	require.NoError(t, err)
	require.Len(t, got.Meta.Shard.Merged, 2)
	assert.Empty(t, got.Meta.Shard.Merged[0].Mismatches)
	assert.Equal(t, []report.FieldDiff{{"cpu", "AMD EPYC 7B13", "Intel Xeon"}}, got.Meta.Shard.Merged[1].Mismatches)
	// Knobs are never allowed to differ: the parts would not be one run.
	d[1].Meta.Knobs.Bench = "Encode"
	_, err = report.Merge(d, report.MergeOptions{AllowMismatch: true})
	assert.ErrorContains(t, err, `bench "." vs "Encode"`)
}

func TestMergeComparisons(t *testing.T) {
	d := shards(2)
	side := func(label string) report.ComparedRun { return report.ComparedRun{Label: label} }
	knobs := report.CompareKnobs{Threshold: 0.02, Confidence: 0.95, Resamples: 1000, Paired: true}
	for k, part := range d {
		var rows []report.ComparisonRow
		for _, r := range part.Rows {
			if r.Kind == report.KindBenchmark {
				rows = append(rows, report.ComparisonRow{Package: r.Package, Name: r.Name, Metric: report.MetricTime, Verdict: report.VerdictEquivalent})
			}
		}
		part.Comparisons = []report.Comparison{{Schema: report.ComparisonSchemaVersion, Old: side("main (commit 0123)"), New: side("working tree"),
			Knobs: knobs, Rows: rows, Geomeans: []report.Geomean{{Metric: report.MetricTime, Ratio: 1 + float64(k), Identities: len(rows)}}}}
	}
	got, err := report.Merge(d, report.MergeOptions{})
	require.NoError(t, err)
	require.Len(t, got.Comparisons, 1)
	c := got.Comparisons[0]
	assert.Len(t, c.Rows, len(report.GreenDoc().Rows), "every identity's comparison row, once")
	assert.Empty(t, c.Geomeans, "a part's geomean is not the whole run's")
	assert.Equal(t, knobs, c.Knobs)

	d[1].Comparisons[0].Old.Label = "v1.2.0 (commit 4567)"
	_, err = report.Merge(d, report.MergeOptions{})
	assert.ErrorContains(t, err, "differs from shard 1/2's")
	d[1].Comparisons = nil
	_, err = report.Merge(d, report.MergeOptions{})
	assert.ErrorContains(t, err, "has 0 comparisons")
}

func TestMergeEmptyPart(t *testing.T) {
	d := shards(2)
	// A part that got no function: no child ran, so what only children
	// tell is unknown; its "nothing to run" row is not the package's.
	empty := *d[1]
	empty.Meta.Shard = &report.ShardInfo{Index: 3, Count: 3, Method: "hash"}
	empty.Meta.GoVersion, empty.Meta.GOMAXPROCS, empty.Meta.Containment, empty.Meta.Module = "", 0, "", ""
	empty.Rows = []report.Row{{Package: "github.com/acme/shop/codec", Kind: report.KindPackage, Outcome: report.OutcomeSkipped, Skipped: report.Str("no benchmarks to run")}}
	for _, p := range d {
		p.Meta.Shard.Count = 3
	}
	got, err := report.Merge([]*report.Document{&empty, d[0], d[1]}, report.MergeOptions{})
	require.NoError(t, err)
	assert.Equal(t, report.GreenDoc().Meta.Fingerprint(), got.Meta.Fingerprint(), "the fingerprint of the parts that measured")
	for _, r := range got.Rows {
		assert.False(t, r.Outcome == report.OutcomeSkipped && r.Kind == report.KindPackage, "a part's nothing-to-run row of a package another part ran: %+v", r)
	}
	assert.Len(t, got.Rows, len(report.GreenDoc().Rows)+1)
}
