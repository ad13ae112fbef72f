package protocol

import (
	"strconv"
	"strings"
)

// SplitBenchPattern splits a -test.bench pattern (RequestConfig.Bench) as
// testing's matcher does: into alternatives at each "|", and each into
// levels at each "/", outside brackets and parentheses. The supervisor
// reads it to give each top-level function a child of its own, the worker
// to tell which leaves the pattern selects; both must read it as testing
// does.
func SplitBenchPattern(s string) [][]string {
	var alts [][]string
	var levels []string
	brackets, parens := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
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
				levels = append(levels, s[:i])
				if s[i] == '|' {
					alts, levels = append(alts, levels), nil
				}
				s, i = s[i+1:], 0
				continue
			}
		}
		i++
	}
	return append(alts, append(levels, s))
}

// RewritePatternLevel rewrites one level of a -test.bench pattern as
// testing rewrites it before matching names: each space (testing's set,
// which is not unicode.IsSpace) becomes "_", and an unprintable rune its
// Go escape.
func RewritePatternLevel(s string) string {
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

// isSpace is testing's notion of a space in a name.
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
