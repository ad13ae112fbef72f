package worker

import (
	"slices"
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
	ok, partly := m.match(name)
	return ok && !partly
}

// match reports, as testing's matcher does, whether name is selected, and
// whether only partly: the first alternative that matches it has more
// levels than the name.
func (m benchMatcher) match(name string) (ok, partly bool) {
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
			return true, len(elems) < len(levels)
		}
	}
	return false, false
}

// siblingsPattern returns a -test.bench pattern that selects exactly the
// leaves before, then the leaf name: one alternative per leaf, each its
// exactPattern, so that testing runs their parents on the way (partly
// selected, unreported) and the leaves in its own order. An alternation
// per level (^(a|b)$/^(c|d)$) would also select every other combination
// of the levels' names.
func siblingsPattern(before []string, name string) string {
	alts := make([]string, 0, len(before)+1)
	for _, leaf := range before {
		alts = append(alts, exactPattern(leaf))
	}
	return strings.Join(append(alts, exactPattern(name)), "|")
}

// precedingIn returns the leaves that order (every leaf of one top-level
// function, in the order testing ran them) has before name; nil when name
// is not among them.
func precedingIn(order []string, name string) []string {
	i := slices.Index(order, name)
	if i < 0 {
		return nil
	}
	return slices.Clone(order[:i])
}
