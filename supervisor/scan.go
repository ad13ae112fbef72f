package supervisor

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// testFuncs are the Test and Benchmark functions of one test package
// (internal or external), in the order `go test` runs them.
type testFuncs struct {
	Tests      []string
	Benchmarks []string
	HasMain    bool // the package defines TestMain
}

// scanTestFiles finds the functions `go test` would run in files, applying
// the same rules as the go command: a top-level func named Test or
// Benchmark followed by nothing or a non-lowercase rune, taking exactly one
// parameter of type *testing.T or *testing.B, with "testing" imported under
// whatever name.
func scanTestFiles(dir string, files []string) (testFuncs, error) {
	var out testFuncs
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
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
			}
		}
	}
	return out, nil
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
