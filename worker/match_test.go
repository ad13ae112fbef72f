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

// TestSiblingsPattern: the pattern selects exactly the leaves given, as
// testing matches it, and of their parents only the levels on the way;
// each name is quoted, so a name's own regexp syntax selects nothing else.
func TestSiblingsPattern(t *testing.T) {
	for _, tt := range []struct {
		name     string
		before   []string
		leaf     string
		want     string
		selected []string // fully
		partly   []string // run to reach a leaf, not reported
		not      []string
	}{
		{name: "no leaf before", leaf: "BenchmarkX/a", want: "^BenchmarkX$/^a$",
			selected: []string{"BenchmarkX/a"}, partly: []string{"BenchmarkX"}, not: []string{"BenchmarkX/b"}},
		{name: "siblings", before: []string{"BenchmarkX/a", "BenchmarkX/b"}, leaf: "BenchmarkX/c",
			want:     "^BenchmarkX$/^a$|^BenchmarkX$/^b$|^BenchmarkX$/^c$",
			selected: []string{"BenchmarkX/a", "BenchmarkX/b", "BenchmarkX/c"}, not: []string{"BenchmarkX/d", "BenchmarkX/ab", "BenchmarkY/a"}},
		{name: "no other combination of the levels", before: []string{"BenchmarkX/p/a", "BenchmarkX/q/b"}, leaf: "BenchmarkX/q/c",
			want:     "^BenchmarkX$/^p$/^a$|^BenchmarkX$/^q$/^b$|^BenchmarkX$/^q$/^c$",
			selected: []string{"BenchmarkX/p/a", "BenchmarkX/q/b", "BenchmarkX/q/c"}, partly: []string{"BenchmarkX/p", "BenchmarkX/q"},
			not: []string{"BenchmarkX/p/b", "BenchmarkX/p/c", "BenchmarkX/q/a"}},
		{name: "leaves at different depths", before: []string{"BenchmarkX/a"}, leaf: "BenchmarkX/b/c",
			want:     "^BenchmarkX$/^a$|^BenchmarkX$/^b$/^c$",
			selected: []string{"BenchmarkX/a", "BenchmarkX/b/c"}, partly: []string{"BenchmarkX/b"}, not: []string{"BenchmarkX/b/a", "BenchmarkX/c"}},
		{name: "regexp syntax and testing's renames are quoted", before: []string{"BenchmarkX/n=1|2", "BenchmarkX/x_(y)"}, leaf: "BenchmarkX/x_(y)#01",
			want:     `^BenchmarkX$/^n=1\|2$|^BenchmarkX$/^x_\(y\)$|^BenchmarkX$/^x_\(y\)#01$`,
			selected: []string{"BenchmarkX/n=1|2", "BenchmarkX/x_(y)", "BenchmarkX/x_(y)#01"}, not: []string{"BenchmarkX/n=1", "BenchmarkX/2", "BenchmarkX/x_y"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := siblingsPattern(tt.before, tt.leaf)
			assert.Equal(t, tt.want, got)
			m := newBenchMatcher(got)
			for _, name := range tt.selected {
				assert.True(t, m.fully(name), "%s selected", name)
			}
			for _, name := range tt.partly {
				ok, partly := m.match(name)
				assert.True(t, ok && partly, "%s only partly selected: run on the way, not reported", name)
			}
			for _, name := range tt.not {
				ok, _ := m.match(name)
				assert.False(t, ok, "%s not run", name)
			}
		})
	}
}

func TestPrecedingIn(t *testing.T) {
	order := []string{"BenchmarkX/a", "BenchmarkX/b", "BenchmarkX/c"}
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"BenchmarkX/a", []string{}},
		{"BenchmarkX/c", []string{"BenchmarkX/a", "BenchmarkX/b"}},
		{"BenchmarkX/d", nil}, // not in the order: nothing known to run before it
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, precedingIn(order, tt.name))
		})
	}
}
