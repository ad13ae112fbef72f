// Package layout is integration/layout_test.go's fixture: a package with a
// short loop whose alignment matters, measured after the worker's code.
package layout

// Sum adds the bytes of b.
func Sum(b []byte) (s uint64) {
	for _, c := range b {
		s += uint64(c)
	}
	return s
}
