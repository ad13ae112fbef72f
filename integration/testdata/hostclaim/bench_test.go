// Package hostclaim is integration/hostclaim_test.go's fixture: two
// short CPU-bound benchmarks, so that a run's measuring interval is brief
// and its load is on the CPU.
package hostclaim

import "testing"

var sink uint64

func BenchmarkMix(b *testing.B) {
	x := uint64(1)
	for i := 0; i < b.N; i++ {
		for j := 0; j < 200; j++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	sink = x
}

func BenchmarkSum(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		for j := uint64(0); j < 500; j++ {
			s += j * j
		}
	}
	sink = s
}
