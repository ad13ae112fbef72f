package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzNames checks the parsers of benchmark names and -test.bench
// patterns, which both sides apply to names a user's code chose:
// SplitBenchPattern loses and invents nothing and splits only where testing
// does, RewritePatternLevel leaves no space and is stable, and ShortName
// fits the bound, keeps a name that fits, and keeps two names apart.
func FuzzNames(f *testing.F) {
	for _, s := range []string{
		"", "BenchmarkX", "BenchmarkX/n=10-2", "A|B/c", `a\/b|c`, "[/|]x/(a|b)/y", "]]/((/))|",
		"Benchmark Sum64/4 KB", "x\u2028y\x00z", strings.Repeat("é", MaxNameLen), "\xff\xfe/\xc3",
	} {
		f.Add(s, s+"!")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		alts := SplitBenchPattern(a)
		var parts []string
		for _, levels := range alts {
			if len(levels) == 0 {
				t.Fatalf("%q: an alternative with no level: %q", a, alts)
			}
			for _, l := range levels {
				// A level holds no separator testing would split at.
				if again := SplitBenchPattern(l); len(again) != 1 || len(again[0]) != 1 {
					t.Errorf("%q: level %q splits again into %q", a, l, again)
				}
			}
			parts = append(parts, strings.Join(levels, "/"))
		}
		if joined := strings.Join(parts, "|"); joined != a {
			t.Fatalf("%q split into %q, which joins to %q", a, alts, joined)
		}

		r := RewritePatternLevel(a)
		if !utf8.ValidString(r) {
			t.Errorf("RewritePatternLevel(%q) = %q: not valid UTF-8", a, r)
		}
		for _, c := range r {
			if isSpace(c) {
				t.Errorf("RewritePatternLevel(%q) = %q keeps a space %U", a, r, c)
			}
		}
		if rr := RewritePatternLevel(r); rr != r {
			t.Errorf("RewritePatternLevel is not stable: %q -> %q -> %q", a, r, rr)
		}

		sa, sb := ShortName(a), ShortName(b)
		switch {
		case len(sa) > MaxNameLen:
			t.Errorf("ShortName of %d bytes is %d bytes, over %d", len(a), len(sa), MaxNameLen)
		case len(a) <= MaxNameLen && sa != a:
			t.Errorf("ShortName changed a name that fits: %q -> %q", a, sa)
		case utf8.ValidString(a) && !utf8.ValidString(sa):
			t.Errorf("ShortName of valid UTF-8 is not: %q", sa)
		case ShortName(a) != sa:
			t.Errorf("ShortName is not deterministic for %q", a)
		}
		if len(a) > MaxNameLen {
			prefix, _, ok := strings.Cut(sa, "…#")
			if !ok || !strings.HasPrefix(a, prefix) {
				t.Errorf("ShortName %q is not a prefix of the name and its hash", sa)
			}
		}
		if a != b && sa == sb {
			t.Errorf("ShortName joins two names: %q and %q both -> %q", a, b, sa)
		}
	})
}
