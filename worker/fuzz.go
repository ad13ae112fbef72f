package worker

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/protocol"
)

// RegisterFuzz adds a fuzz target (a FuzzXxx function), in source order.
// Generated code calls it from init. Test mode runs its seed corpus (the
// f.Add values, then the files in testdata/fuzz/FuzzXxx of the package
// directory) as a test of its name, as go test does without -fuzz: after
// every Test function and before the examples. The worker never fuzzes.
func RegisterFuzz(name string, f func(*testing.F)) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.fuzz = append(registry.fuzz, testing.InternalFuzzTarget{Name: name, Fn: f})
}

// runEntry is one top-level function test mode runs: a test (a Test
// function or an example run as a test) or a fuzz target.
type runEntry struct {
	name string
	test *testing.InternalTest
	fuzz *testing.InternalFuzzTarget
}

// runOrder is go test's order (testing's M.Run): the Test functions, the
// fuzz targets' seed corpora, then the examples (the last examples of
// tests).
func runOrder(tests []testing.InternalTest, examples int, fuzz []testing.InternalFuzzTarget) []runEntry {
	var out []runEntry
	add := func(ts []testing.InternalTest) {
		for i := range ts {
			t := ts[i]
			out = append(out, runEntry{name: t.Name, test: &t})
		}
	}
	add(tests[:len(tests)-examples])
	for i := range fuzz {
		f := fuzz[i]
		out = append(out, runEntry{name: f.Name, fuzz: &f})
	}
	add(tests[len(tests)-examples:])
	return out
}

// entryGroup is a run of consecutive entries of one kind: tests run
// through testing.RunTests, fuzz targets through a testing.M of their own
// (runFuzzTargets).
type entryGroup struct {
	tests []testing.InternalTest
	fuzz  []testing.InternalFuzzTarget
	names []string
}

// groupEntries splits entries into groups of one kind, in order. With no
// fuzz target the tests and examples stay one group, run as before fuzz
// targets were known.
func groupEntries(entries []runEntry) []entryGroup {
	var out []entryGroup
	for _, e := range entries {
		isFuzz := e.fuzz != nil
		if n := len(out); n == 0 || (len(out[n-1].fuzz) > 0) != isFuzz {
			out = append(out, entryGroup{})
		}
		g := &out[len(out)-1]
		g.names = append(g.names, e.name)
		if isFuzz {
			g.fuzz = append(g.fuzz, *e.fuzz)
		} else {
			g.tests = append(g.tests, *e.test)
		}
	}
	return out
}

// selected reports whether the -test.run pattern selects any of g's
// top-level names: some alternative's first level matches it, as
// testing's matcher decides for a top-level name.
func (g entryGroup) selected(pattern string) bool {
	for _, name := range g.names {
		for _, levels := range protocol.SplitBenchPattern(pattern) {
			if ok, err := matchString(protocol.RewritePatternLevel(levels[0]), name); err == nil && ok {
				return true
			}
		}
	}
	return false
}

// fuzzOffFlags are the flags a testing.M acts on in its Run besides
// running functions: the profiles, coverage and the test log the child's
// own M already handles (a second M would truncate or rewrite them),
// shuffling, listing, benchmarks and fuzzing. They are cleared (set to
// these values) while the fuzz targets run. A flag this toolchain's
// testing lacks is passed over.
var fuzzOffFlags = []struct{ name, value string }{
	{"test.cpuprofile", ""}, {"test.memprofile", ""}, {"test.blockprofile", ""},
	{"test.mutexprofile", ""}, {"test.trace", ""}, {"test.coverprofile", ""},
	{"test.gocoverdir", ""}, {"test.testlogfile", ""}, {"test.shuffle", "off"},
	{"test.list", ""}, {"test.bench", ""}, {"test.fuzz", ""}, {"test.artifacts", "false"},
}

// RegisterFuzzMain sets how fuzz targets run: testing runs a fuzz target
// only from a testing.M (runFuzzTests in M.Run: testing.RunTests takes no
// fuzz target), made by testing.MainStart, whose signature and test
// dependencies change from release to release. The supervisor generates
// that call per toolchain in the entry file of a package with fuzz
// targets, which calls this from init; the worker itself never names
// MainStart (docs/design.md#injection).
func RegisterFuzzMain(run func(targets []testing.InternalFuzzTarget)) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.fuzzMain = run
}

// runFuzzTargets runs the seed corpora of targets as go test does without
// -fuzz, through the generated fuzz main (RegisterFuzzMain), with every
// flag M.Run would act on besides -test.run, -test.v, -test.count and
// -test.cpu cleared; its framed output goes to the capture as the tests'
// does. M.Run points os.Stderr at os.Stdout in framed mode; it is put
// back after.
func runFuzzTargets(st *testStream, targets []testing.InternalFuzzTarget) {
	registry.mu.Lock()
	run := registry.fuzzMain
	registry.mu.Unlock()
	if run == nil {
		// Only generated code registers fuzz targets, and it registers
		// the fuzz main with them: a target without one is benchsup's bug,
		// reported as the target's failure.
		var tests []testing.InternalTest
		for _, t := range targets {
			tests = append(tests, testing.InternalTest{Name: t.Name, F: st.syncAfter(func(t *testing.T) {
				t.Fatal("benchsup: no fuzz main was generated for this package's fuzz targets")
			})})
		}
		testing.RunTests(matchString, tests)
		return
	}
	var fs flagState
	defer fs.restore()
	for _, f := range fuzzOffFlags {
		_ = fs.set(f.name, f.value) // absent in this toolchain: nothing to clear
	}
	stderr := os.Stderr
	defer func() { os.Stderr = stderr }()
	wrapped := make([]testing.InternalFuzzTarget, len(targets))
	for i, t := range targets {
		wrapped[i] = testing.InternalFuzzTarget{Name: t.Name, Fn: st.syncAfterFuzz(t.Fn)}
	}
	run(wrapped)
}

// syncAfterFuzz is syncAfter for a fuzz target: the supervisor knows the
// target started before its code runs, and testing's frames about it
// reach the supervisor before a crashing seed ends the process (testing
// runs the target's cleanups before it re-panics).
func (st *testStream) syncAfterFuzz(fn func(*testing.F)) func(*testing.F) {
	return func(f *testing.F) {
		st.bracket(f)
		fn(f)
	}
}

// ErrNotFuzzing answers every request to fuzz: benchsup runs seed corpora
// only; fuzzing is go test -fuzz's. The generated fuzz main's test
// dependencies return it.
var ErrNotFuzzing = errors.New("benchsup runs fuzz targets' seed corpora only; fuzz with go test -fuzz")

// MatchString is testing's name matcher as go test's test dependencies
// provide it (regexp), for the generated fuzz main.
func MatchString(pat, str string) (bool, error) { return matchString(pat, str) }

// ReadSeedCorpus reads the seed corpus files in dir, as go test's test
// dependencies do (testing/internal/testdeps, which cannot be imported,
// delegates to internal/fuzz), for the generated fuzz main: each file's
// path and values, in the order read. No directory is no corpus; a
// malformed file is an error naming it, after the others are read.
func ReadSeedCorpus(dir string, types []reflect.Type) (paths []string, values [][]any, err error) {
	return readCorpus(dir, types)
}

// CheckSeedValues verifies that vals (one f.Add call's) have the fuzz
// function's parameter types, for the generated fuzz main.
func CheckSeedValues(vals []any, types []reflect.Type) error { return checkCorpus(vals, types) }

// readCorpus is ReadSeedCorpus, as internal/fuzz's ReadCorpus does it.
func readCorpus(dir string, types []reflect.Type) (paths []string, values [][]any, err error) {
	files, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("reading seed corpus from testdata: %v", err)
	}
	var errs []string
	for _, file := range files {
		if file.IsDir() {
			continue
		}
		filename := filepath.Join(dir, file.Name())
		data, err := os.ReadFile(filename)
		if err != nil {
			return nil, nil, fmt.Errorf("failed to read corpus file: %v", err)
		}
		vals, err := unmarshalCorpusFile(data)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%q: unmarshal: %v", filename, err))
			continue
		}
		if err := checkCorpus(vals, types); err != nil {
			errs = append(errs, fmt.Sprintf("%q: %v", filename, err))
			continue
		}
		paths = append(paths, filename)
		values = append(values, vals)
	}
	if len(errs) > 0 {
		return paths, values, errors.New(strings.Join(errs, "\n"))
	}
	return paths, values, nil
}

// checkCorpus verifies that vals have the fuzz function's parameter types.
func checkCorpus(vals []any, types []reflect.Type) error {
	if len(vals) != len(types) {
		return fmt.Errorf("wrong number of values in corpus entry: %d, want %d", len(vals), len(types))
	}
	valsT := make([]reflect.Type, len(vals))
	for i, v := range vals {
		valsT[i] = reflect.TypeOf(v)
	}
	for i := range types {
		if valsT[i] != types[i] {
			return fmt.Errorf("mismatched types in corpus entry: %v, want %v", valsT, types)
		}
	}
	return nil
}

// corpusVersion is the first line of every corpus file.
const corpusVersion = "go test fuzz v1"

// unmarshalCorpusFile decodes a corpus file: the version line, then one Go
// literal conversion per line ("int(1)", "[]byte(\"x\")"), as
// internal/fuzz's encoding does.
func unmarshalCorpusFile(b []byte) ([]any, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("cannot unmarshal empty string")
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) < 2 {
		return nil, fmt.Errorf("must include version and at least one value")
	}
	if v := strings.TrimSuffix(string(lines[0]), "\r"); v != corpusVersion {
		return nil, fmt.Errorf("unknown encoding version: %s", v)
	}
	var vals []any
	for _, line := range lines[1:] {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		v, err := parseCorpusValue(line)
		if err != nil {
			return nil, fmt.Errorf("malformed line %q: %v", line, err)
		}
		vals = append(vals, v)
	}
	return vals, nil
}

// parseCorpusValue decodes one line of a corpus file.
func parseCorpusValue(line []byte) (any, error) {
	expr, err := parser.ParseExprFrom(token.NewFileSet(), "(test)", line, 0)
	if err != nil {
		return nil, err
	}
	call, ok := expr.(*ast.CallExpr)
	if !ok {
		return nil, fmt.Errorf("expected call expression")
	}
	if len(call.Args) != 1 {
		return nil, fmt.Errorf("expected call expression with 1 argument; got %d", len(call.Args))
	}
	arg := call.Args[0]
	if arrayType, ok := call.Fun.(*ast.ArrayType); ok {
		if arrayType.Len != nil {
			return nil, fmt.Errorf("expected []byte or primitive type")
		}
		if elt, ok := arrayType.Elt.(*ast.Ident); !ok || elt.Name != "byte" {
			return nil, fmt.Errorf("expected []byte")
		}
		lit, ok := arg.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return nil, fmt.Errorf("string literal required for type []byte")
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, err
		}
		return []byte(s), nil
	}
	var typ string
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Name != "math" {
			return nil, fmt.Errorf("invalid selector type")
		}
		switch sel.Sel.Name {
		case "Float64frombits":
			typ = "float64-bits"
		case "Float32frombits":
			typ = "float32-bits"
		default:
			return nil, fmt.Errorf("invalid selector type")
		}
	} else {
		id, ok := call.Fun.(*ast.Ident)
		if !ok {
			return nil, fmt.Errorf("expected []byte or primitive type")
		}
		typ = id.Name
		if typ == "bool" {
			b, ok := arg.(*ast.Ident)
			switch {
			case !ok:
				return nil, fmt.Errorf("malformed bool")
			case b.Name == "true":
				return true, nil
			case b.Name == "false":
				return false, nil
			}
			return nil, fmt.Errorf("true or false required for type bool")
		}
	}
	var val string
	var kind token.Token
	if op, ok := arg.(*ast.UnaryExpr); ok {
		switch lit := op.X.(type) {
		case *ast.BasicLit:
			if op.Op != token.SUB {
				return nil, fmt.Errorf("unsupported operation on int/float: %v", op.Op)
			}
			val, kind = op.Op.String()+lit.Value, lit.Kind
		case *ast.Ident:
			if lit.Name != "Inf" {
				return nil, fmt.Errorf("expected operation on int or float type")
			}
			val, kind = "+Inf", token.FLOAT
			if op.Op == token.SUB {
				val = "-Inf"
			}
		default:
			return nil, fmt.Errorf("expected operation on int or float type")
		}
	} else {
		switch lit := arg.(type) {
		case *ast.BasicLit:
			val, kind = lit.Value, lit.Kind
		case *ast.Ident:
			if lit.Name != "NaN" {
				return nil, fmt.Errorf("literal value required for primitive type")
			}
			val, kind = "NaN", token.FLOAT
		default:
			return nil, fmt.Errorf("literal value required for primitive type")
		}
	}
	switch typ {
	case "string":
		if kind != token.STRING {
			return nil, fmt.Errorf("string literal value required for type string")
		}
		return strconv.Unquote(val)
	case "byte", "rune":
		if kind == token.INT {
			if typ == "rune" {
				return parseCorpusInt(val, typ)
			}
			return parseCorpusUint(val, typ)
		}
		if kind != token.CHAR {
			return nil, fmt.Errorf("character literal required for byte/rune types")
		}
		if len(val) < 2 {
			return nil, fmt.Errorf("malformed character literal, missing single quotes")
		}
		code, _, _, err := strconv.UnquoteChar(val[1:len(val)-1], '\'')
		if err != nil {
			return nil, err
		}
		if typ == "rune" {
			return code, nil
		}
		if code >= 256 {
			return nil, fmt.Errorf("can only encode single byte to a byte type")
		}
		return byte(code), nil
	case "int", "int8", "int16", "int32", "int64":
		if kind != token.INT {
			return nil, fmt.Errorf("integer literal required for int types")
		}
		return parseCorpusInt(val, typ)
	case "uint", "uint8", "uint16", "uint32", "uint64":
		if kind != token.INT {
			return nil, fmt.Errorf("integer literal required for uint types")
		}
		return parseCorpusUint(val, typ)
	case "float32":
		if kind != token.FLOAT && kind != token.INT {
			return nil, fmt.Errorf("float or integer literal required for float32 type")
		}
		v, err := strconv.ParseFloat(val, 32)
		return float32(v), err
	case "float64":
		if kind != token.FLOAT && kind != token.INT {
			return nil, fmt.Errorf("float or integer literal required for float64 type")
		}
		return strconv.ParseFloat(val, 64)
	case "float32-bits":
		if kind != token.INT {
			return nil, fmt.Errorf("integer literal required for math.Float32frombits type")
		}
		bits, err := strconv.ParseUint(val, 0, 32)
		if err != nil {
			return nil, err
		}
		return math.Float32frombits(uint32(bits)), nil
	case "float64-bits":
		if kind != token.FLOAT && kind != token.INT {
			return nil, fmt.Errorf("integer literal required for math.Float64frombits type")
		}
		bits, err := strconv.ParseUint(val, 0, 64)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(bits), nil
	}
	return nil, fmt.Errorf("expected []byte or primitive type")
}

// parseCorpusInt parses a signed integer of the named type.
func parseCorpusInt(val, typ string) (any, error) {
	switch typ {
	case "int8":
		i, err := strconv.ParseInt(val, 0, 8)
		return int8(i), err
	case "int16":
		i, err := strconv.ParseInt(val, 0, 16)
		return int16(i), err
	case "int32", "rune":
		i, err := strconv.ParseInt(val, 0, 32)
		return int32(i), err
	case "int64":
		return strconv.ParseInt(val, 0, 64)
	}
	i, err := strconv.ParseInt(val, 0, 64)
	return int(i), err
}

// parseCorpusUint parses an unsigned integer of the named type.
func parseCorpusUint(val, typ string) (any, error) {
	switch typ {
	case "uint8", "byte":
		i, err := strconv.ParseUint(val, 0, 8)
		return uint8(i), err
	case "uint16":
		i, err := strconv.ParseUint(val, 0, 16)
		return uint16(i), err
	case "uint32":
		i, err := strconv.ParseUint(val, 0, 32)
		return uint32(i), err
	case "uint64":
		return strconv.ParseUint(val, 0, 64)
	}
	i, err := strconv.ParseUint(val, 0, 64)
	return uint(i), err
}
