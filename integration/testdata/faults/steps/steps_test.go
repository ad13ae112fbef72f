// Package steps is integration/faults_linux_test.go's fixture for a fault
// that strikes mid-run: short benchmarks, measured one after another, so
// that the test can break the host after the first result.
package steps

import "testing"

var sink []byte

func BenchmarkStep1(b *testing.B) {
	for range b.N {
		sink = make([]byte, 8)
	}
}

func BenchmarkStep2(b *testing.B) {
	for range b.N {
		sink = make([]byte, 8)
	}
}

func BenchmarkStep3(b *testing.B) {
	for range b.N {
		sink = make([]byte, 8)
	}
}

func BenchmarkStep4(b *testing.B) {
	for range b.N {
		sink = make([]byte, 8)
	}
}

func BenchmarkStep5(b *testing.B) {
	for range b.N {
		sink = make([]byte, 8)
	}
}

func BenchmarkStep6(b *testing.B) {
	for range b.N {
		sink = make([]byte, 8)
	}
}
