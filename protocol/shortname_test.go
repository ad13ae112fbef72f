package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShortName(t *testing.T) {
	long := "BenchmarkLong/" + strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name, in string
		short    bool
	}{
		{"fits", "BenchmarkA/n=1", false},
		{"exactly the bound", strings.Repeat("y", MaxNameLen), false},
		{"one past the bound", strings.Repeat("y", MaxNameLen+1), true},
		{"long", long, true},
		{"multibyte at the cut", strings.Repeat("é", MaxNameLen), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ShortName(tc.in)
			if !tc.short {
				if got != tc.in {
					t.Fatalf("ShortName changed a name that fits: %q", got)
				}
				return
			}
			if len(got) > MaxNameLen || !utf8.ValidString(got) {
				t.Fatalf("ShortName = %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			}
			if ShortName(tc.in) != got {
				t.Error("not stable")
			}
			if !strings.Contains(got, "…#") || !strings.HasPrefix(tc.in, strings.Split(got, "…#")[0]) {
				t.Errorf("not a prefix, an ellipsis and a hash: %q", got[len(got)-40:])
			}
		})
	}
	// Two long names that share the kept prefix stay apart.
	if ShortName(long+"a") == ShortName(long+"b") {
		t.Error("names sharing a prefix collide")
	}
}
