package edge

import (
	"fmt"
	"testing"
)

var sink int

func work(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += i
	}
}

// BenchmarkEdge names sub-benchmarks the ways testing rewrites and
// de-duplicates.
func BenchmarkEdge(b *testing.B) {
	b.Run("simple iteration", work)
	b.Run("tab\there", work)
	b.Run("nbsp\u00a0thin\u2009space", work)
	b.Run("bell\a", work)
	b.Run("é/ü=日本", work)
	b.Run("dup", work)
	b.Run("dup", work)
	b.Run("dup", work)
	b.Run("dup#01", work)
	b.Run("", work)
	b.Run("", work)
	b.Run("expr=a=b", work)
	b.Run("key=", work)
	b.Run("=bare", work)
	b.Run("slash/inside", work)
	b.Run("trailing/", work)
	b.Run("size-4", work)
	b.Run("size-1", work)
	b.Run("n=-4", work)
	b.Run("n=1e4", work)
	b.Run("#7", work)
	b.Run("#007", work)
}

// BenchmarkGrid is a grid of two keys, as a sweep per implementation reads.
func BenchmarkGrid(b *testing.B) {
	for _, impl := range []string{"fnv", "xxh"} {
		b.Run("impl="+impl, func(b *testing.B) {
			for _, n := range []int{8, 1024, 1 << 20} {
				b.Run(fmt.Sprintf("n=%d", n), work)
			}
		})
	}
	for _, n := range []int{8, 8} {
		b.Run(fmt.Sprintf("impl=crc/n=%d", n), work)
	}
}

// BenchmarkDeep nests three levels with duplicates at every level.
func BenchmarkDeep(b *testing.B) {
	for range 2 {
		b.Run("a", func(b *testing.B) {
			for range 2 {
				b.Run("b", func(b *testing.B) {
					b.Run("c=1", work)
				})
			}
		})
	}
}
