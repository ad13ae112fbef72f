package worker

import (
	"strings"
	"testing"
)

func TestSplitFramed(t *testing.T) {
	const m = "\x16"
	long := strings.Repeat("x", maxLine+10)
	for _, tc := range []struct {
		name, in string
		want     []string // parsed lines as emitted; "~" marks an unparsed piece
	}{
		{"plain", "a\nb\n", []string{"a\n", "b\n"}},
		{"no final newline", "a\nb", []string{"a\n", "b"}},
		{"framed", m + "=== RUN   X\nout\n", []string{m + "=== RUN   X\n", "out\n"}},
		{"partial line then frame", "..." + m + "=== NAME  \n", []string{"...", m + "=== NAME  \n"}},
		{"two frames on one line", m + "a" + m + "b\n", []string{m + "a", m + "b\n"}},
		{"empty lines", "\n\n", []string{"\n", "\n"}},
		{"overlong: its end is parsed", long + "\nz\n", []string{"~" + long[:11], long[11:] + "\n", "z\n"}},
		{"overlong then a frame", long + m + "=== NAME  \n", []string{"~" + long[:10], long[10:], m + "=== NAME  \n"}},
		{"very long", strings.Repeat(long, 5) + "\n", []string{"~" + strings.Repeat(long, 5)[:5*len(long)+1-maxLine], strings.Repeat(long, 5)[5*len(long)+1-maxLine:] + "\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			splitFramed(strings.NewReader(tc.in), func(raw []byte, parsed bool) {
				s := string(raw)
				if !parsed {
					s = "~" + s
				}
				got = append(got, s)
			})
			// Unparsed pieces may arrive split; join adjacent ones.
			var joined []string
			for _, s := range got {
				if n := len(joined); n > 0 && strings.HasPrefix(s, "~") && strings.HasPrefix(joined[n-1], "~") {
					joined[n-1] += s[1:]
					continue
				}
				joined = append(joined, s)
			}
			if strings.Join(joined, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", joined, tc.want)
			}
		})
	}
}
