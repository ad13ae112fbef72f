// Package plain needs nothing from the module cache.
package plain

import "testing"

var sink []byte

func BenchmarkPlain(b *testing.B) {
	for range b.N {
		sink = make([]byte, 8)
	}
}
