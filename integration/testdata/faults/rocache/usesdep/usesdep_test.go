// Package usesdep needs example.com/dep, which integration/faults_linux_test.go
// serves from a file proxy: building it downloads into the module cache.
package usesdep

import (
	"testing"

	"example.com/dep"
)

var sink int

func BenchmarkDep(b *testing.B) {
	for i := range b.N {
		sink = dep.Double(i)
	}
}
