package supervisor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fuzz targets are found by the go command's rule: FuzzXxx (not Fuzzxxx)
// taking exactly one *testing.F, under whatever name testing is imported.
func TestScanFuzzTargets(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import tt "testing"

func FuzzB(f *tt.F)            {}
func FuzzA(f *tt.F)            {}
func Fuzz(f *tt.F)             {}
func Fuzzlower(f *tt.F)        {}
func FuzzWrongType(t *tt.T)    {}
func FuzzTwo(f *tt.F, n int)   {}
func FuzzResult(f *tt.F) error { return nil }
func TestT(t *tt.T)            {}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644))
	got, err := scanTestFiles(dir, []string{"p_test.go"})
	require.NoError(t, err)
	assert.Equal(t, []string{"FuzzB", "FuzzA", "Fuzz"}, got.Fuzz)
	assert.Equal(t, []string{"TestT"}, got.Tests)
}

// go test's order: Test functions, fuzz targets, examples; each internal,
// then external.
func TestTestsRunFuzzTargetsBeforeExamples(t *testing.T) {
	p := &pkgPlan{
		internal: testFuncs{Tests: []string{"TestA"}, Fuzz: []string{"FuzzA"}, Examples: []example{{Name: "ExampleA"}}},
		external: testFuncs{Tests: []string{"TestB"}, Fuzz: []string{"FuzzB"}, Examples: []example{{Name: "ExampleB"}}},
	}
	assert.Equal(t, []string{"TestA", "TestB", "FuzzA", "FuzzB", "ExampleA", "ExampleB"}, p.tests())
}

func TestEntryPointsRegisterFuzzTargets(t *testing.T) {
	pkgDir := t.TempDir()
	in, err := newInjector(t.TempDir(), "v0.0.0")
	require.NoError(t, err)
	// The external test package's file registers both packages' fuzz
	// targets.
	p := &pkgPlan{pkg: &goPackage{Name: "p", ImportPath: "example.com/m/p", Dir: pkgDir},
		internal: testFuncs{Fuzz: []string{"FuzzIn"}},
		external: testFuncs{Fuzz: []string{"FuzzOut"}}}
	require.NoError(t, in.entryPoints(p, 0, "example.com/m/zz/worker"))
	gen, ok := in.replace[filepath.Join(pkgDir, genExternal)]
	require.True(t, ok)
	src, err := os.ReadFile(gen)
	require.NoError(t, err)
	assert.Contains(t, string(src), `benchsupworker.RegisterFuzz("FuzzIn", benchsuptested.FuzzIn)`)
	assert.Contains(t, string(src), `benchsupworker.RegisterFuzz("FuzzOut", FuzzOut)`)
}
