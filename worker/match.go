package worker

import (
	"strings"

	"github.com/benchsup/benchsup/protocol"
)

// A benchMatcher decides, as testing's matcher does for -test.bench, which
// benchmark names a pattern selects and which of those it selects only
// partly: a name with fewer levels than the pattern. testing runs a partly
// selected benchmark once, to reach its sub-benchmarks, but never reports
// it, even when it runs none (go test prints no result line for
// BenchmarkCountLarge under -bench=Count/size=1K). Only a fully selected
// name can be a leaf.
//
// The rules are testing's: the pattern splits into alternatives at each
// "|" and each alternative into levels at each "/", outside brackets and
// parentheses; each level matches the name's level at the same depth,
// unanchored, after spaces in the pattern become "_"; the first
// alternative that matches decides.
type benchMatcher [][]string

func newBenchMatcher(pattern string) benchMatcher {
	m := benchMatcher(protocol.SplitBenchPattern(pattern))
	for _, levels := range m {
		for i, l := range levels {
			levels[i] = protocol.RewritePatternLevel(l)
		}
	}
	return m
}

// fully reports whether name (a full benchmark name as testing prints it)
// matches every level of the first alternative that matches it at all.
func (m benchMatcher) fully(name string) bool {
	elems := strings.Split(name, "/")
	for _, levels := range m {
		ok := true
		for i, e := range elems {
			if i >= len(levels) {
				break
			}
			if matched, err := matchString(levels[i], e); err != nil || !matched {
				ok = false
				break
			}
		}
		if ok {
			return len(elems) >= len(levels)
		}
	}
	return false
}
