package worker

import (
	"strconv"
	"strings"
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
	var alts benchMatcher
	var levels []string
	brackets, parens := 0, 0
	for i := 0; i < len(pattern); {
		switch pattern[i] {
		case '[':
			brackets++
		case ']':
			if brackets--; brackets < 0 { // an unmatched ']' is a literal
				brackets = 0
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				levels = append(levels, rewritePattern(pattern[:i]))
				if pattern[i] == '|' {
					alts, levels = append(alts, levels), nil
				}
				pattern, i = pattern[i+1:], 0
				continue
			}
		}
		i++
	}
	return append(alts, append(levels, rewritePattern(pattern)))
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

// rewritePattern makes a pattern level match names as testing rewrites
// them: each space becomes "_" and an unprintable rune its Go escape.
func rewritePattern(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case isSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isSpace is testing's notion of a space in a name, which is not
// unicode.IsSpace.
func isSpace(r rune) bool {
	if r < 0x2000 {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680:
			return true
		}
		return false
	}
	if r <= 0x200a {
		return true
	}
	switch r {
	case 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return false
}
