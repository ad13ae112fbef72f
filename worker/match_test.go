package worker

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/protocol"
)

// TestBenchMatcher: a name is fully selected when the first alternative
// that matches it has no more levels than the name, as testing decides
// whether to report a benchmark.
func TestBenchMatcher(t *testing.T) {
	for _, tt := range []struct {
		pattern, name string
		fully         bool
	}{
		{".", "BenchmarkCount", true},
		{".", "BenchmarkCount/size=1KiB", true},
		{"Count", "BenchmarkCountLarge", true},
		{"Count/size=1K", "BenchmarkCountLarge", false}, // partly: testing runs it, reports nothing
		{"Count/size=1K", "BenchmarkCount/size=1KiB", true},
		{"Count/size=1K", "BenchmarkCount/size=1MiB", false},
		{"Count/size=1K", "BenchmarkOther/size=1KiB", false},
		{"^BenchmarkCount$/", "BenchmarkCount/x", true},
		{"^BenchmarkCount$/", "BenchmarkCount", false},
		{"X//z", "BenchmarkX/a/z1", true},
		{"X//z", "BenchmarkX/a", false},
		{"X/y|Other", "BenchmarkOther", true}, // the first matching alternative decides
		{"X/y|Other", "BenchmarkX", false},
		{"X|X/y", "BenchmarkX", true},
		{"X/[a/b]", "BenchmarkX/a", true}, // the slash inside brackets is part of the class
		{"X/(a|b)", "BenchmarkX/b", true},
		{"X/a b", "BenchmarkX/a_b", true}, // spaces in the pattern match testing's "_"
		{`X/a\/b`, "BenchmarkX/a", false}, // an escaped slash does not split
	} {
		t.Run(tt.pattern+"~"+tt.name, func(t *testing.T) {
			assert.Equal(t, tt.fully, newBenchMatcher(tt.pattern).fully(tt.name))
		})
	}
}

// TestDiscoveryListsOnlyFullySelected: discovery lists what go test would
// report for the pattern. A function the pattern selects only partly runs
// (testing runs it to reach its sub-benchmarks) but is no leaf, and
// neither is a sub-benchmark one level short of the pattern.
func TestDiscoveryListsOnlyFullySelected(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		want    []string
	}{
		{"^BenchmarkFixtureSetup$|^BenchmarkFixtureTable$", []string{"BenchmarkFixtureSetup", "BenchmarkFixtureTable/n=x", "BenchmarkFixtureTable/n=xxxxxxxxxx"}},
		{"^BenchmarkFixture(Setup|Table)$/n=x", []string{"BenchmarkFixtureTable/n=x", "BenchmarkFixtureTable/n=xxxxxxxxxx"}},
		{"^BenchmarkFixture(Setup|Table)$/n=x/deeper", nil},
		{"^BenchmarkFixtureTable$/n=x$", []string{"BenchmarkFixtureTable/n=x"}},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover, Config: protocol.RequestConfig{Bench: tt.pattern}})
			var got []string
			for _, l := range only[protocol.Listing](msgs) {
				for _, id := range l.Identities {
					got = append(got, id.Name)
				}
			}
			slices.Sort(got)
			assert.Equal(t, tt.want, got)
		})
	}
}
