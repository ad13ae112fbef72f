package worker

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
