package analysis

import (
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/protocol"
)

// Benchmark names, parsed once.
//
// A name is what testing makes of a function and the arguments of nested
// b.Run calls: "BenchmarkHash/impl=fnv/n=1024". The parser follows
// golang.org/x/perf where x/perf has a rule, so that a projection a user
// writes for benchstat reads the same element here: benchfmt.Name.Parts
// splits at every '/', and benchproc's "/key" selects the first element
// whose text before its first '=' is key, the rest (more '=' included)
// being the value. It does not call them because they lack what testing
// itself tells apart, which this file adds:
//
//   - The "-N" GOMAXPROCS suffix. benchfmt strips any trailing "-digits",
//     from every name; testing appends "-P" only to result lines, only
//     when P (the -test.cpu entry) is not 1, and never with a leading zero.
//     So ParseName (names as b.Name, -v and the run document give them)
//     strips nothing, and ParseResultName strips "-P" exactly when the
//     caller knows P, and otherwise only a suffix testing could have
//     written ("-1", "-0", "-04" stay in the name).
//   - The "#NN" suffix testing's matcher adds to a repeated sub-name, read
//     with its own rule (parseSubtestNumber in testing/match.go), so that
//     "n=8#01" is the value 8 a second time, not the value "8#01".
//   - Families: benchproc's residue of a projection deletes the projected
//     element, which would put "BenchmarkHash/impl=fnv", a leaf with no n,
//     beside the members of "BenchmarkHash/impl=fnv/n=*". Family keeps the
//     element, as "n=*", at its position.
//
// What no parser can tell apart, because testing writes both the same:
//
//   - With P unknown, a last element that itself ends in "-N" (N ≥ 2):
//     "size-4" run at GOMAXPROCS 1 prints as "size" run at 4 does.
//   - A '/' inside one b.Run argument: b.Run("a/b") and b.Run("a") then
//     b.Run("b") both give ".../a/b"; each '/' starts an element here.
//   - A sub-name that already ends like a suffix: the first b.Run("x#01")
//     prints as the second b.Run("x"); and b.Run("#00") as b.Run("").
//   - testing's rewrite (SubName) is not reversible: "a b" and "a_b" both
//     print "a_b". Names are compared as testing prints them.

// Name is a parsed benchmark (or test) name.
type Name struct {
	Function string    // the top-level function, "BenchmarkHash"; testing rewrites none of it
	Elements []Element // the path elements after the function, outermost first
	// Procs is the GOMAXPROCS of a result line: from its "-N" suffix, or
	// 1 when the caller said so (testing writes no suffix then); 0 when
	// unknown. String writes the suffix when Procs > 1.
	Procs int
}

// Element is one path element of a name: "impl=fnv", "1000", "n=8#01".
type Element struct {
	Key   string // text before the first '=', or "" for a bare element (no '=', or '=' first)
	Value string // text after the first '=', or the whole bare element
	Dup   string // testing's de-duplication suffix with its '#' ("#01"), or ""
}

// Bare reports whether the element is not key=value.
func (e Element) Bare() bool { return e.Key == "" }

// String returns the element as testing printed it.
func (e Element) String() string {
	if e.Key == "" {
		return e.Value + e.Dup
	}
	return e.Key + "=" + e.Value + e.Dup
}

// FunctionOf is ParseName(name).Function without parsing the elements:
// the top-level function, for callers on a path that sees every event of
// a run (the supervisor's test clock) and needs nothing else.
func FunctionOf(name string) string {
	fn, _, _ := strings.Cut(name, "/")
	return fn
}

// ParseName parses a name as testing gives it outside result lines: from
// b.Name, in -v output, and in the rows of a run document. Such a name
// carries no GOMAXPROCS suffix, so a trailing "-4" is part of the last
// element and Procs is 0. ParseName(s).String() == s for every s.
func ParseName(name string) Name {
	fn, rest, more := strings.Cut(name, "/")
	n := Name{Function: fn}
	if !more {
		return n
	}
	parts := strings.Split(rest, "/")
	n.Elements = make([]Element, len(parts))
	for i, p := range parts {
		n.Elements[i] = parseElement(p)
	}
	return n
}

// ParseResultName parses the name on a benchmark result line, to which
// testing appends "-P" when the line's -test.cpu entry P (its GOMAXPROCS)
// is not 1. procs is P when the caller knows it: then the suffix is read
// exactly ("-P" stripped when P > 1, nothing when P is 1; a name that
// lacks the "-P" it should carry is parsed whole, Procs 0). With procs 0
// (unknown) a trailing "-N" is taken as the suffix when testing could have
// written it: N ≥ 2 in decimal without a leading zero; a name that ends in
// "-N" itself is then misread (see the file comment).
// ParseResultName(s, p).String() == s for every s and p.
func ParseResultName(name string, procs int) Name {
	switch {
	case procs == 1:
		n := ParseName(name)
		n.Procs = 1
		return n
	case procs > 1:
		if base, ok := strings.CutSuffix(name, "-"+strconv.Itoa(procs)); ok && base != "" {
			n := ParseName(base)
			n.Procs = procs
			return n
		}
		return ParseName(name)
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if p, ok := procsSuffix(name[i+1:]); ok {
			n := ParseName(name[:i])
			n.Procs = p
			return n
		}
	}
	return ParseName(name)
}

// procsSuffix reads digits as testing's fmt "%s-%d" of a GOMAXPROCS other
// than 1 writes them.
func procsSuffix(digits string) (int, bool) {
	if digits == "" || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	p, err := strconv.Atoi(digits)
	if err != nil || p < 2 {
		return 0, false
	}
	return p, true
}

// parseElement splits one element into key, value and "#NN" suffix.
func parseElement(s string) Element {
	var e Element
	if i := strings.LastIndexByte(s, '#'); i >= 0 && isDupSuffix(s[:i], s[i+1:]) {
		s, e.Dup = s[:i], s[i:]
	}
	if k, v, ok := strings.Cut(s, "="); ok && k != "" {
		e.Key, e.Value = k, v
	} else {
		e.Value = s
	}
	return e
}

// isDupSuffix reports whether digits after a '#' are a suffix testing's
// matcher writes ("%s#%02d") after base, by its own reading
// (parseSubtestNumber): at least two digits, no leading zero beyond two,
// "00" only after an empty sub-name, and a count that fits an int32.
func isDupSuffix(base, digits string) bool {
	if len(digits) < 2 || (len(digits) > 2 && digits[0] == '0') {
		return false
	}
	if digits == "00" && base != "" {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	_, err := strconv.ParseInt(digits, 10, 32)
	return err == nil
}

// String returns the name as testing printed it; for a name from
// ParseResultName, with its "-P" suffix.
func (n Name) String() string {
	var b strings.Builder
	b.WriteString(n.Function)
	for _, e := range n.Elements {
		b.WriteByte('/')
		b.WriteString(e.String())
	}
	if n.Procs > 1 {
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(n.Procs))
	}
	return b.String()
}

// Value returns the value of the first element keyed key, as benchproc's
// "/key" does.
func (n Name) Value(key string) (string, bool) {
	if i := n.Index(key); i >= 0 {
		return n.Elements[i].Value, true
	}
	return "", false
}

// Index returns the position in n.Elements of the first element keyed
// key, or -1.
func (n Name) Index(key string) int {
	if key == "" {
		return -1
	}
	for i, e := range n.Elements {
		if e.Key == key {
			return i
		}
	}
	return -1
}

// Family returns the identity of the names that differ from n only in
// element i: n with that element written "key=*" ("*" when bare) and its
// "#NN" suffix dropped, every other element, and Procs, as they are.
// Two names share it exactly when they have the same number of elements
// and agree everywhere but at i. i must index n.Elements.
func (n Name) Family(i int) string {
	f := n
	f.Elements = append([]Element(nil), n.Elements...)
	f.Elements[i] = Element{Key: n.Elements[i].Key, Value: "*"}
	return f.String()
}

// Siblings is a set of names that differ only in the value of one key.
type Siblings struct {
	Family  string // the identity they share, the key's element written "key=*"
	Members []int  // indices into the names given, in their order
}

// GroupBy groups names by the family of their first element keyed key,
// as --vs=KEY compares them: groups in the order of their first member,
// members in the order given (a run document's rows are in testing's
// order, so the first member is the first in source order). Names without
// the key are in no group; a group may have one member, and may hold two
// with the same value (a "#NN" duplicate), which the caller judges.
func GroupBy(names []Name, key string) []Siblings {
	var groups []Siblings
	at := map[string]int{}
	for i, n := range names {
		k := n.Index(key)
		if k < 0 {
			continue
		}
		f := n.Family(k)
		g, ok := at[f]
		if !ok {
			g = len(groups)
			at[f] = g
			groups = append(groups, Siblings{Family: f})
		}
		groups[g].Members = append(groups[g].Members, i)
	}
	return groups
}

// SubName returns the element testing makes of a b.Run or t.Run argument
// (its rewrite in testing/match.go): white space as testing counts it
// becomes '_' and a non-printable rune its Go escape, so that a name a
// user types ("simple iteration") can be found among printed ones
// ("simple_iteration"). It adds no "#NN" suffix and does not treat '/'.
// The rewrite is protocol's, which the worker applies to patterns: one
// copy of testing's rule.
func SubName(s string) string { return protocol.RewritePatternLevel(s) }
