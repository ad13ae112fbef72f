package supervisor

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// testFuncs are the Test, Benchmark and Fuzz functions and the runnable
// Example functions of one test package (internal or external), in the
// order `go test` runs them.
type testFuncs struct {
	Tests      []string
	Benchmarks []string
	Fuzz       []string // fuzz targets: without -fuzz, go test runs their seed corpora as tests
	Examples   []example
	HasMain    bool // the package defines TestMain
	// declared holds the package-level names the files declare: a name
	// the generated file imports under must not be one of them.
	declared map[string]bool
}

// example is an Example function with an output comment: go test runs it
// as a test and checks what it printed. One without the comment is
// compiled only, and is not listed.
type example struct {
	Name      string // "ExampleHello"
	Output    string // the comment's text, as go/doc extracts it
	Unordered bool   // "// Unordered output:"
}

// exampleNames returns the names of f's examples.
func (f testFuncs) exampleNames() []string {
	var names []string
	for _, e := range f.Examples {
		names = append(names, e.Name)
	}
	return names
}

// scanTestFiles finds the functions `go test` would run in files, applying
// the same rules as the go command: a top-level func named Test, Benchmark
// or Fuzz followed by nothing or a non-lowercase rune, taking exactly one
// parameter of type *testing.T, *testing.B or *testing.F, with "testing" imported under
// whatever name. Examples are found as the go command finds them, with
// go/doc, in source order.
func scanTestFiles(dir string, files []string) (testFuncs, error) {
	var out testFuncs
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return testFuncs{}, fmt.Errorf("parsing %s: %w", name, err)
		}
		testingName := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "testing" {
				testingName = "testing"
				if imp.Name != nil {
					testingName = imp.Name.Name
				}
			}
		}
		for _, decl := range f.Decls {
			out.declare(decl)
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Type.TypeParams != nil {
				continue
			}
			name := fn.Name.Name
			switch {
			case name == "TestMain" && isTestingParam(fn, testingName, "M"):
				out.HasMain = true
			case isTestName(name, "Test") && isTestingParam(fn, testingName, "T"):
				out.Tests = append(out.Tests, name)
			case isTestName(name, "Benchmark") && isTestingParam(fn, testingName, "B"):
				out.Benchmarks = append(out.Benchmarks, name)
			case isTestName(name, "Fuzz") && isTestingParam(fn, testingName, "F"):
				out.Fuzz = append(out.Fuzz, name)
			}
		}
		examples := doc.Examples(f)
		slices.SortFunc(examples, func(a, b *doc.Example) int { return a.Order - b.Order })
		for _, e := range examples {
			if e.Output == "" && !e.EmptyOutput {
				continue // compiled, never run, as under go test
			}
			out.Examples = append(out.Examples, example{Name: "Example" + e.Name, Output: e.Output, Unordered: e.Unordered})
		}
	}
	return out, nil
}

// declare records the package-level names decl declares.
func (f *testFuncs) declare(decl ast.Decl) {
	if f.declared == nil {
		f.declared = map[string]bool{}
	}
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			f.declared[d.Name.Name] = true
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.ValueSpec:
				for _, n := range s.Names {
					f.declared[n.Name] = true
				}
			case *ast.TypeSpec:
				f.declared[s.Name.Name] = true
			}
		}
	}
}

// isTestName is the go command's rule: prefix, then end or a rune that is
// not lower case.
func isTestName(name, prefix string) bool {
	if len(name) < len(prefix) || name[:len(prefix)] != prefix {
		return false
	}
	if len(name) == len(prefix) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(name[len(prefix):])
	return !unicode.IsLower(r)
}

// isTestingParam reports whether fn takes exactly one *testing.<typ>.
func isTestingParam(fn *ast.FuncDecl, testingName, typ string) bool {
	if testingName == "" || testingName == "_" {
		return false
	}
	params := fn.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 || fn.Type.Results != nil {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == testingName && sel.Sel.Name == typ
}
