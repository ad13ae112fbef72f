// Package siblings holds benchmarks whose parents check, between their
// b.Run calls, what the sub-benchmark before left, as roaring64's
// BenchmarkIteratorAlloc does: run alone, every leaf but the first is
// never reached.
package siblings

import "testing"

var data = make([]int, 1000)

// BenchmarkCardinality's leaves each count data into counter; the parent
// checks the count after each, so a leaf whose sibling before it did not
// run fails the parent before it is reached.
func BenchmarkCardinality(b *testing.B) {
	counter, expected := 0, len(data)
	b.Run("simple iteration with alloc", func(b *testing.B) {
		for range b.N {
			counter = 0
			for range append([]int(nil), data...) {
				counter++
			}
		}
	})
	if counter != expected {
		b.Fatalf("Cardinalities don't match: %d, %d", counter, expected)
	}
	b.Run("simple iteration", func(b *testing.B) {
		for range b.N {
			counter = 0
			for range data {
				counter++
			}
		}
	})
	if counter != expected {
		b.Fatalf("Cardinalities don't match: %d, %d", counter, expected)
	}
	b.Run("reverse iteration", func(b *testing.B) {
		for range b.N {
			counter = 0
			for i := len(data) - 1; i >= 0; i-- {
				counter++
			}
		}
	})
	if counter != expected {
		b.Fatalf("Cardinalities don't match: %d, %d", counter, expected)
	}
}

// BenchmarkBroken's second leaf is never reached alone, and fails after
// its sibling too.
func BenchmarkBroken(b *testing.B) {
	ready := false
	b.Run("setup", func(b *testing.B) {
		for range b.N {
			ready = true
		}
	})
	if !ready {
		b.Fatal("setup did not run")
	}
	b.Run("fails", func(b *testing.B) {
		b.Fatal("fails after its sibling too")
	})
}
