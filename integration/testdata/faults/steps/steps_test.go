// Package steps is integration/faults_linux_test.go's fixture for a fault
// that strikes mid-run: short benchmarks, measured one after another, so
// that the test can break the host after the first result.
package steps

import (
	"testing"
	"time"
)

var sink []byte

func BenchmarkStep1(b *testing.B) {
	for range b.N {
		sink = make([]byte, 8)
	}
}

// BenchmarkStep2 is slow, so that between the first result and the next
// spawns the test has time to break the host even on a loaded machine:
// polling for the first result and injecting the fault must not race the
// rest of the run.
func BenchmarkStep2(b *testing.B) {
	for range b.N {
		time.Sleep(250 * time.Millisecond)
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
