package layout

import "testing"

var sink uint64

func BenchmarkSum4(b *testing.B) {
	buf := []byte{1, 2, 3, 4}
	for i := 0; i < b.N; i++ {
		sink += Sum(buf)
	}
}
