package supervisor

import (
	"testing"

	"github.com/benchsup/benchsup/record"
)

// TestSpanTail: a snapshot passes on at most latestPerIdentity spans of
// an identity, the latest, oldest first, and none twice.
func TestSpanTail(t *testing.T) {
	for _, n := range []int{0, 1, latestPerIdentity - 1, latestPerIdentity, latestPerIdentity + 1, 3*latestPerIdentity + 7} {
		var tl spanTail
		for i := range n {
			tl.add(record.SharedSpan{DurationNs: int64(i)})
		}
		var got []int64
		tl.each(func(sp record.SharedSpan) { got = append(got, sp.DurationNs) })
		want := min(n, latestPerIdentity)
		if len(got) != want {
			t.Fatalf("%d added: %d passed on, want %d", n, len(got), want)
		}
		for i, d := range got {
			if d != int64(n-want+i) {
				t.Fatalf("%d added: span %d is %d, want %d (the latest, oldest first)", n, i, d, n-want+i)
			}
		}
		tl.n = 0
		tl.add(record.SharedSpan{DurationNs: -1})
		got = got[:0]
		tl.each(func(sp record.SharedSpan) { got = append(got, sp.DurationNs) })
		if len(got) != 1 || got[0] != -1 {
			t.Fatalf("%d added, emptied, one more: passed on %v", n, got)
		}
	}
}
