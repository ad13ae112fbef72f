// Package interference is integration/interference_test.go's fixture:
// CPU-bound benchmark leaves with no allocation and no I/O, so that what
// slows a sample is the CPU it shares with the test's load generator.
package interference

import (
	"strconv"
	"testing"
)

var sink uint64

func mix(n int) uint64 {
	x := uint64(n) | 1
	for j := 0; j < 2000; j++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func BenchmarkSpin(b *testing.B) {
	for _, size := range []int{1, 2, 3} {
		b.Run("size="+strconv.Itoa(size), func(b *testing.B) {
			var s uint64
			for i := 0; i < b.N; i++ {
				for k := 0; k < size; k++ {
					s += mix(i + k)
				}
			}
			sink = s
		})
	}
}
