package supervisor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScanExamples(t *testing.T) {
	got, err := scanTestFiles("testdata/scan", []string{"examples_test.go"})
	require.NoError(t, err)
	// Source order, as go test runs them; only those with an output
	// comment (an empty one included) run.
	assert.Equal(t, []example{
		{Name: "ExampleZed", Output: "z\n"},
		{Name: "ExampleAlpha", Output: "a\nb\n", Unordered: true},
		{Name: "ExampleEmpty", Output: ""},
	}, got.Examples)
	assert.Equal(t, []string{"ExampleZed", "ExampleAlpha", "ExampleEmpty"}, got.exampleNames())
	assert.Empty(t, got.Tests)
}

func TestTestsRunExamplesLast(t *testing.T) {
	p := &pkgPlan{
		internal: testFuncs{Tests: []string{"TestA"}, Examples: []example{{Name: "ExampleA"}}},
		external: testFuncs{Tests: []string{"TestB"}, Examples: []example{{Name: "ExampleB"}}},
	}
	assert.Equal(t, []string{"TestA", "TestB", "ExampleA", "ExampleB"}, p.tests())
}

func TestEntryPointsRegisterExamples(t *testing.T) {
	pkgDir := t.TempDir()
	in, err := newInjector(t.TempDir(), "v0.0.0")
	require.NoError(t, err)
	// An external test package holding only examples gets a file that
	// uses the worker it imports.
	p := &pkgPlan{pkg: &goPackage{Name: "p", ImportPath: "example.com/m/p", Dir: pkgDir},
		external: testFuncs{Examples: []example{{Name: "ExampleF", Output: "a\n\"b\"\n", Unordered: true}}}}
	require.NoError(t, in.entryPoints(p, 0, "example.com/m/zz/worker"))
	external, ok := in.replace[filepath.Join(pkgDir, genExternal)]
	require.True(t, ok)
	src, err := os.ReadFile(external)
	require.NoError(t, err)
	assert.Contains(t, string(src), "package p_test")
	assert.Contains(t, string(src), `benchsupworker.RegisterExample("ExampleF", ExampleF, "a\n\"b\"\n", true)`)
}
