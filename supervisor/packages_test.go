package supervisor

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSortRoots(t *testing.T) {
	pkg := func(path string, match ...string) *goPackage { return &goPackage{ImportPath: path, Match: match} }
	roots := []*goPackage{pkg("m/z/dep", "./..."), pkg("m/b", "./b", "./..."), pkg("m/a", "./..."), pkg("m/z", "./...")}
	sortRoots(roots, []string{"./b", "./..."})
	var got []string
	for _, p := range roots {
		got = append(got, p.ImportPath)
	}
	assert.Equal(t, []string{"m/b", "m/a", "m/z", "m/z/dep"}, got, "by the first pattern that matched, then by import path")
}
