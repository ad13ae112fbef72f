package supervisor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"go/version"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/benchsup/benchsup"
)

// benchsupModule is benchsup's module path.
const benchsupModule = "github.com/benchsup/benchsup"

// workerMinGo is the language version every injected file is compiled at
// (each carries a //go:build line for it, which raises the file's version
// above an older go line of the user's module and leaves the user's files
// alone) and so the oldest toolchain benchsup can inject into.
const workerMinGo = "go1.22"

// How the worker got into a test binary, as the document's provenance
// records it.
const (
	// routeOverlay: a copy of the worker, added by -overlay to the
	// package's module as a new package of that module.
	routeOverlay = "overlay"
	// routeModule: the test binary already links benchsup (the module
	// uses the measure API, or is benchsup): the worker package of the
	// version the module requires.
	routeModule = "module"
)

// Names of the generated entry-point files, as they appear (through the
// overlay) in the package directory.
const (
	genInternal = "zz_benchsup_internal_test.go"
	genPad      = "zz_benchsup_pad_test.go" // layout.go
	// workerBuildInfo is the worker's file that reads the build
	// information; the injected copy has a generated version file
	// instead (worker.Version).
	workerBuildInfo = "worker/buildinfo.go"
	genExternal     = "zz_benchsup_external_test.go"
)

// Errors of injection a caller can branch on.
var (
	// ErrModuleCache: the package's files are in the module cache, where
	// the go command accepts no overlay.
	ErrModuleCache = errors.New("package in the module cache")
	// ErrToolchain: the toolchain is older than the injected worker needs.
	ErrToolchain = errors.New("toolchain too old for benchsup's worker")
)

// errNoInjectedWorker: the package's module links benchsup's worker as a
// dependency (it imports measure), so no padding package can be placed
// beside it. It depends only on the build, so the layout it leaves is a
// settled answer.
var errNoInjectedWorker = errors.New("no worker injected in the module")

// injector places benchsup's worker and the generated entry points into
// the user's packages through one overlay file, writing only under its
// scratch directory. Nothing it does changes the user's go.mod, go.sum,
// go.work or vendor directory, so the test binary is built from exactly
// the build list, go line and toolchain go test would use.
type injector struct {
	dir     string            // scratch directory for the generated files
	name    string            // the injected directory's name: "zz_benchsup_" and a hash of the worker's source
	version string            // what the injected worker reports as its version
	files   map[string][]byte // the worker's closure: slash path ("worker/bench.go") -> source, tests excluded
	replace map[string]string // the overlay: path in the user's tree -> generated file
	workers map[string]string // module directory -> import path of the worker injected there
	digest  string            // of the overlay's content, set by writeOverlay
	merged  map[string]string // the overlay writeOverlay wrote, the user's entries included
}

// newInjector reads the worker's embedded source. Its hash names the
// injected directory, so that identical workers share the go command's
// build cache across runs.
func newInjector(dir, benchsupVersion string) (*injector, error) {
	in := &injector{dir: dir, files: map[string][]byte{}, replace: map[string]string{}, workers: map[string]string{}}
	h := sha256.New()
	err := fs.WalkDir(benchsup.WorkerSource, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := fs.ReadFile(benchsup.WorkerSource, p)
		if err != nil {
			return err
		}
		in.files[p] = data
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the embedded worker: %w", err)
	}
	sum := hex.EncodeToString(h.Sum(nil))[:12]
	in.name = "zz_benchsup_" + sum
	in.version = benchsupVersion + " (injected, source " + sum + ")"
	return in, nil
}

// inject adds the worker to mod, once per module, and returns its import
// path. env is the go command's environment in the run's directory: the
// toolchain go test would use (GOVERSION), its GOROOT and GOMODCACHE.
//
// Where it can, the worker goes into the toolchain's standard library
// tree, as packages zz_benchsup_<hash>/... beneath GOROOT/src that only the
// overlay holds (the worker imports nothing but the standard library, so
// it may live there). The go command keys a module's package by its
// directory and import path, so a copy inside each module compiles again
// in every module, checkout and --against tree (some 2.5 CPU seconds on
// this project's VM); beneath GOROOT it has one path for all of them and
// compiles once per toolchain and build flags. A toolchain the go command
// downloaded lives in the module cache, where it accepts no overlay: the
// worker then goes into the module, as a new package of it
// (docs/design.md#injection).
func (in *injector) inject(mod *goModule, env goEnv) (string, error) {
	if mod == nil {
		return "", fmt.Errorf("%w: package outside a module (GOPATH mode)", ErrUnsupported)
	}
	if w, ok := in.workers[mod.Dir]; ok {
		return w, nil
	}
	if version.IsValid(env.GOVERSION) && version.Compare(env.GOVERSION, workerMinGo) < 0 {
		return "", fmt.Errorf("%w: benchsup's worker needs %s or newer, and this module builds with %s", ErrToolchain, workerMinGo, env.GOVERSION)
	}
	if mod.Dir == "" {
		return "", fmt.Errorf("%w: module %s has no directory (vendored?)", ErrUnsupported, mod.Path)
	}
	modcache := env.GOMODCACHE
	if modcache != "" && within(mod.Dir, modcache) {
		return "", fmt.Errorf("%w (%s): the go command accepts no overlay there, so benchsup cannot add its entry point; run benchsup in a checkout of %s",
			ErrModuleCache, mod.Dir, mod.Path)
	}
	root, prefix := mod.Dir, mod.Path+"/"+in.name
	if g := env.GOROOT; filepath.IsAbs(g) && (modcache == "" || !within(g, modcache)) {
		root, prefix = filepath.Join(g, "src"), in.name
	}
	worker := prefix + "/worker"
	if slices.Contains(slices.Collect(maps.Values(in.workers)), worker) {
		in.workers[mod.Dir] = worker // the standard library's copy, written for another module
		return worker, nil
	}
	target := filepath.Join(root, in.name)
	if _, err := os.Lstat(target); err == nil {
		return "", fmt.Errorf("%s exists; benchsup needs that name for the worker package it adds to the build", target)
	}
	out := filepath.Join(in.dir, "worker", strconv.Itoa(len(in.workers)))
	add := func(rel string, data []byte) error {
		dst := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		in.replace[filepath.Join(target, filepath.FromSlash(rel))] = dst
		return os.WriteFile(dst, data, 0o644)
	}
	for _, rel := range slices.Sorted(maps.Keys(in.files)) {
		if rel == workerBuildInfo {
			continue // replaced by the version file below
		}
		src, err := rewriteWorkerFile(in.files[rel], prefix, workerMinGo)
		if err != nil {
			return "", fmt.Errorf("benchsup's embedded worker: %s: %w", rel, err)
		}
		if err := add(rel, src); err != nil {
			return "", err
		}
	}
	versionFile := fmt.Sprintf("//go:build %s\n\n// Code generated by benchsup. DO NOT EDIT.\n\npackage worker\n\nfunc linkedVersion() string { return %q }\n",
		workerMinGo, in.version)
	if err := add("worker/zz_benchsup_version.go", []byte(versionFile)); err != nil {
		return "", err
	}
	in.workers[mod.Dir] = worker
	return worker, nil
}

// ofWorker reports whether importPath is one of benchsup's packages the
// worker is made of.
func (in *injector) ofWorker(importPath string) bool {
	rel, ok := strings.CutPrefix(importPath, benchsupModule+"/")
	if !ok {
		return false
	}
	for f := range in.files {
		if path.Dir(f) == rel {
			return true
		}
	}
	return false
}

// importPaths returns the import paths of the injected workers, sorted,
// each once.
func (in *injector) importPaths() []string {
	return slices.Compact(slices.Sorted(maps.Values(in.workers)))
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// rewriteWorkerFile prepares one file of the worker's closure for
// injection: imports of benchsup's packages point below prefix, and the
// file's build constraint gains minGo. Any other import that is not the
// standard library is refused: the injected worker must add no module.
func rewriteWorkerFile(src []byte, prefix, minGo string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, err
		}
		rest, ours := strings.CutPrefix(p, benchsupModule+"/")
		switch {
		case ours:
			edits = append(edits, edit{fset.Position(imp.Path.Pos()).Offset, fset.Position(imp.Path.End()).Offset, strconv.Quote(prefix + "/" + rest)})
		case !isStandard(p):
			return nil, fmt.Errorf("imports %s, which is neither the standard library nor benchsup", p)
		}
	}
	// The build constraint is a //go:build line before the package clause.
	pkgOffset := fset.Position(f.Package).Offset
	head := string(src[:pkgOffset])
	minExpr := &constraint.TagExpr{Tag: minGo}
	found := false
	for lineStart := 0; lineStart < len(head); {
		lineEnd := strings.IndexByte(head[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(head) - lineStart
		}
		line := head[lineStart : lineStart+lineEnd]
		if constraint.IsGoBuild(line) {
			expr, err := constraint.Parse(line)
			if err != nil {
				return nil, err
			}
			combined := &constraint.AndExpr{X: minExpr, Y: expr}
			edits = append(edits, edit{lineStart, lineStart + lineEnd, "//go:build " + combined.String()})
			found = true
			break
		}
		lineStart += lineEnd + 1
	}
	out := slices.Clone(src)
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	for _, e := range edits {
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
	}
	if !found {
		out = slices.Concat([]byte("//go:build "+minGo+"\n\n"), out)
	}
	return out, nil
}

// isStandard reports whether an import path names a standard-library
// package: its first element has no dot.
func isStandard(importPath string) bool {
	first, _, _ := strings.Cut(importPath, "/")
	return !strings.Contains(first, ".")
}

var genTemplate = template.Must(template.New("gen").Parse(`// Code generated by benchsup. DO NOT EDIT.

package {{.Package}}

import (
{{- if .Entry}}
	"testing"
{{end}}
{{- if .FuzzMain}}
	benchsuperrors "errors"
	benchsupio "io"
	benchsupreflect "reflect"
	benchsuptime "time"
{{end}}
	{{.WorkerName}} {{printf "%q" .Worker}}
{{- if .Tested}}
	{{.TestedName}} {{printf "%q" .Tested}}
{{- end}}
)

func init() {
{{- $w := .WorkerName}}
{{- range .Sets}}{{$q := .Qual}}
{{- range .Funcs.Tests}}
	{{$w}}.RegisterTest({{printf "%q" .}}, {{$q}}{{.}})
{{- end}}
{{- range .Funcs.Benchmarks}}
	{{$w}}.RegisterBenchmark({{printf "%q" .}}, {{$q}}{{.}})
{{- end}}
{{- range .Funcs.Fuzz}}
	{{$w}}.RegisterFuzz({{printf "%q" .}}, {{$q}}{{.}})
{{- end}}
{{- range .Funcs.Examples}}
	{{$w}}.RegisterExample({{printf "%q" .Name}}, {{$q}}{{.Name}}, {{printf "%q" .Output}}, {{.Unordered}})
{{- end}}
{{- end}}
{{- if .FuzzMain}}
	{{$w}}.RegisterFuzzMain(benchsupFuzzMain)
{{- end}}
}
{{if .Entry}}
// TestBenchsupWorker is the entry point benchsup starts the binary with.
func TestBenchsupWorker(t *testing.T) { {{.WorkerName}}.Serve(t) }
{{end}}
{{- if .FuzzMain}}{{template "fuzzmain" .}}{{end}}`))

// genTemplate's "fuzzmain" is the fuzz main of a package with fuzz targets:
// testing runs a fuzz target only from a testing.M, made by
// testing.MainStart, which "may change signature from release to
// release", with test dependencies whose methods change with it. As go
// test generates its main with the toolchain, benchsup generates this call
// beside the fuzz targets, never in the worker, so a change breaks only
// packages with fuzz targets and is mended here. These test dependencies
// are those of testing from go1.22 (the worker's oldest) through go1.27
// (the newest checked; .ci/run builds the fixtures with it): a method a
// toolchain does not ask for harms nothing. The seed corpus is read by the
// worker (ReadSeedCorpus, as internal/fuzz reads it); profiles, the test
// log and coverage stay with the child's own M, so those methods do
// nothing.
var _ = template.Must(genTemplate.New("fuzzmain").Parse(`
// benchsupFuzzMain runs fuzz targets' seed corpora for benchsup's worker,
// in a testing.M of their own.
func benchsupFuzzMain(targets []testing.InternalFuzzTarget) {
	testing.MainStart(benchsupFuzzDeps{}, nil, nil, targets, nil).Run()
}

// benchsupCorpusEntry is testing's corpusEntry.
type benchsupCorpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []interface{}
	Generation int
	IsSeed     bool
}

// benchsupFuzzDeps is testing's testDeps for running seed corpora.
type benchsupFuzzDeps struct{}

func (benchsupFuzzDeps) ImportPath() string { return "" }
func (benchsupFuzzDeps) ModulePath() string { return "" }
func (benchsupFuzzDeps) MatchString(pat, str string) (bool, error) {
	return {{.WorkerName}}.MatchString(pat, str)
}
func (benchsupFuzzDeps) SetPanicOnExit0(bool)                      {}
func (benchsupFuzzDeps) StartCPUProfile(benchsupio.Writer) error { return benchsuperrors.New("no profiles here") }
func (benchsupFuzzDeps) StopCPUProfile()                           {}
func (benchsupFuzzDeps) StartTestLog(benchsupio.Writer)            {}
func (benchsupFuzzDeps) StopTestLog() error                        { return nil }
func (benchsupFuzzDeps) WriteProfileTo(string, benchsupio.Writer, int) error {
	return benchsuperrors.New("no profiles here")
}
func (benchsupFuzzDeps) ResetCoverage()    {}
func (benchsupFuzzDeps) SnapshotCoverage() {}
func (benchsupFuzzDeps) CoordinateFuzzing(benchsuptime.Duration, int64, benchsuptime.Duration, int64, int, []benchsupCorpusEntry, []benchsupreflect.Type, string, string) error {
	return {{.WorkerName}}.ErrNotFuzzing
}
func (benchsupFuzzDeps) RunFuzzWorker(func(benchsupCorpusEntry) error) error {
	return {{.WorkerName}}.ErrNotFuzzing
}
func (benchsupFuzzDeps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil // "": testing keeps the coverage the child's M registered
}
func (benchsupFuzzDeps) ReadCorpus(dir string, types []benchsupreflect.Type) ([]benchsupCorpusEntry, error) {
	paths, values, err := {{.WorkerName}}.ReadSeedCorpus(dir, types)
	out := make([]benchsupCorpusEntry, len(paths))
	for i := range paths {
		out[i].Path, out[i].Values = paths[i], values[i]
	}
	return out, err
}
func (benchsupFuzzDeps) CheckCorpus(vals []interface{}, types []benchsupreflect.Type) error {
	return {{.WorkerName}}.CheckSeedValues(vals, types)
}
`))

// entryPoints generates p's entry-point file and adds it to the overlay:
// one file of the external test package (package p_test, added when the
// package has none), which imports the package under test as go test's
// own main does, registers the Test, Benchmark, Fuzz and runnable Example
// functions of both test packages with the worker at worker (test
// functions are exported names, so the external package can name the
// internal ones), and declares the one test benchsup starts the binary
// with. The internal test package, "p [p.test]", is then compiled from
// the user's files alone, exactly as go test and go vet compile it, and
// the go command's cache serves one compile to all three
// (docs/design.md#injection). Only a package the external test package
// cannot import (files named on the command line; refused before this, as
// outside a module) would get an internal file as well, which registers
// the internal functions and holds the entry point.
//
// The generated code uses nothing newer than Go 1.0 (the fuzz main's
// alias of testing's corpus entry, Go 1.9), so it compiles at any go line
// of a module: registering a fuzz target names *testing.F only through the
// function's type, which is API, not language (it needs a go1.18
// toolchain; the worker needs go1.22). Only a package with fuzz targets
// gets the fuzz main, so only its build depends on testing.MainStart.
func (in *injector) entryPoints(p *pkgPlan, index int, worker string) error {
	for _, f := range []testFuncs{p.internal, p.external} {
		if slices.Contains(f.Tests, "TestBenchsupWorker") {
			return fmt.Errorf("the package declares TestBenchsupWorker, the test benchsup adds to start its worker")
		}
	}
	dir := filepath.Join(in.dir, "pkg", strconv.Itoa(index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The fuzz main goes with the entry point, for fuzz targets of either
	// test package.
	fuzzMain := len(p.internal.Fuzz)+len(p.external.Fuzz) > 0
	type set struct {
		Qual  string // how the generated file names the functions: "" or "alias."
		Funcs testFuncs
	}
	gen := func(name, pkgName string, declared map[string]bool, tested string, sets []set, entry bool) error {
		target := filepath.Join(p.pkg.Dir, name)
		if _, err := os.Lstat(target); err == nil {
			return fmt.Errorf("%s already exists; benchsup needs that name for its generated file", target)
		}
		// The imports' names are file-scoped, yet clash with a name the
		// package declares: pick names the package leaves free.
		workerName := freeName("benchsupworker", declared)
		testedName := freeName("benchsuptested", declared)
		for i := range sets {
			if sets[i].Qual != "" {
				sets[i].Qual = testedName + "."
			}
		}
		var buf bytes.Buffer
		if err := genTemplate.Execute(&buf, map[string]any{
			"Package": pkgName, "Worker": worker, "WorkerName": workerName, "Tested": tested, "TestedName": testedName,
			"Sets": sets, "Entry": entry, "FuzzMain": entry && fuzzMain,
		}); err != nil {
			return err
		}
		src := filepath.Join(dir, name)
		in.replace[target] = src
		return os.WriteFile(src, buf.Bytes(), 0o644)
	}
	has := func(f testFuncs) bool { return len(f.Tests)+len(f.Benchmarks)+len(f.Fuzz)+len(f.Examples) > 0 }
	if !importable(p.pkg.ImportPath) {
		if err := gen(genInternal, p.pkg.Name, p.internal.declared, "", []set{{Funcs: p.internal}}, true); err != nil {
			return err
		}
		// An external test package with nothing to register (only
		// examples without an output comment, say) then gets no file: an
		// import it would not use does not compile.
		if has(p.external) {
			return gen(genExternal, p.pkg.Name+"_test", p.external.declared, "", []set{{Funcs: p.external}}, false)
		}
		return nil
	}
	// The package under test is imported only when the file names one of
	// its functions: an unused import does not compile.
	tested := ""
	sets := []set{{Funcs: p.external}}
	if has(p.internal) {
		tested = p.pkg.ImportPath
		sets = []set{{Qual: "tested.", Funcs: p.internal}, {Funcs: p.external}}
	}
	return gen(genExternal, p.pkg.Name+"_test", p.external.declared, tested, sets, true)
}

// importable reports whether an external test package can import the
// package of importPath: not so for files named on the command line.
func importable(importPath string) bool {
	return importPath != "command-line-arguments" && !strings.HasPrefix(importPath, "command-line-arguments ")
}

// freeName returns name, or name with the smallest number appended that
// declared does not hold.
func freeName(name string, declared map[string]bool) string {
	for i := 2; declared[name]; i++ {
		name = strings.TrimRight(name, "0123456789") + strconv.Itoa(i)
	}
	return name
}

// writeOverlay writes the overlay file and returns its path. goflags is
// the go command's GOFLAGS: an overlay the user set there is merged in,
// because the -overlay flag benchsup passes replaces it.
func (in *injector) writeOverlay(goflags, runDir string) (string, error) {
	replace := maps.Clone(in.replace)
	if user := userOverlay(goflags); user != "" {
		if !filepath.IsAbs(user) {
			user = filepath.Join(runDir, user) // the go command resolves it in its working directory
		}
		data, err := os.ReadFile(user)
		if err != nil {
			return "", fmt.Errorf("reading the overlay GOFLAGS names: %w", err)
		}
		var theirs struct{ Replace map[string]string }
		if err := json.Unmarshal(data, &theirs); err != nil {
			return "", fmt.Errorf("reading the overlay GOFLAGS names (%s): %w", user, err)
		}
		if err := mergeOverlay(replace, theirs.Replace); err != nil {
			return "", err
		}
	}
	in.merged = replace
	data, err := json.MarshalIndent(map[string]any{"Replace": replace}, "", "\t")
	if err != nil {
		return "", err
	}
	// The digest covers what the overlay places where, not where benchsup
	// keeps it, which changes with every run.
	h := sha256.New()
	for _, target := range slices.Sorted(maps.Keys(replace)) {
		content, err := os.ReadFile(replace[target])
		if err != nil && replace[target] != "" {
			content = []byte(replace[target]) // the user's entry, as written
		}
		fmt.Fprintf(h, "%s\x00%d\x00", target, len(content))
		h.Write(content)
	}
	in.digest = hex.EncodeToString(h.Sum(nil))
	if err := os.MkdirAll(in.dir, 0o755); err != nil { // nothing generated yet when no package has tests
		return "", err
	}
	p := filepath.Join(in.dir, "overlay.json")
	return p, os.WriteFile(p, data, 0o644)
}

// userOverlay returns the file of an -overlay flag in GOFLAGS, or "".
func userOverlay(goflags string) string {
	for _, f := range strings.Fields(goflags) {
		f = strings.TrimPrefix(f, "-")
		if v, ok := strings.CutPrefix(f, "-overlay="); ok {
			return v
		}
		if v, ok := strings.CutPrefix(f, "overlay="); ok {
			return v
		}
	}
	return ""
}

// mergeOverlay adds the user's overlay entries to ours, as written: the go
// command resolves relative ones in its working directory, which is the
// one go test would have. An entry for a path benchsup generates is a
// conflict.
func mergeOverlay(ours, theirs map[string]string) error {
	for k, v := range theirs {
		if _, clash := ours[k]; clash {
			return fmt.Errorf("the overlay in GOFLAGS replaces %s, which benchsup generates", k)
		}
		ours[k] = v
	}
	return nil
}

// padTemplate is the padding package of layout.go: units functions of one
// instruction each (the linker aligns each to funcAlign), kept live by its
// init, which hands them to a function the compiler does not inline.
var padTemplate = template.Must(template.New("pad").Parse(`// Code generated by benchsup. DO NOT EDIT.

// Package pad moves the code the linker places after it (docs/design.md#layout).
package pad

var funcs = []func(){
{{- range .}}
	f{{.}},
{{- end}}
}

func init() { keep(funcs) }

//go:noinline
func keep([]func()) {}
{{range .}}
func f{{.}}() {}
{{end}}`))

// padOverlay writes an overlay for p's build with a padding package of
// units functions, imported by p's internal test package, and returns its
// path and a digest of what it adds.
func (in *injector) padOverlay(p *pkgPlan, index, units int) (string, string, error) {
	mod := p.pkg.Module
	if mod == nil || in.workers[mod.Dir] == "" {
		return "", "", fmt.Errorf("%w of %s", errNoInjectedWorker, p.pkg.ImportPath)
	}
	dir := filepath.Join(in.dir, "pad", strconv.Itoa(index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	var src bytes.Buffer
	nums := make([]int, units)
	for i := range nums {
		nums[i] = i
	}
	if err := padTemplate.Execute(&src, nums); err != nil {
		return "", "", err
	}
	name := "pad" + strconv.Itoa(index)
	importPath := mod.Path + "/" + in.name + "/" + name
	imp := fmt.Sprintf("// Code generated by benchsup. DO NOT EDIT.\n\npackage %s\n\nimport _ %q\n", p.pkg.Name, importPath)
	files := map[string][]byte{
		filepath.Join(mod.Dir, in.name, name, "pad.go"): src.Bytes(),
		filepath.Join(p.pkg.Dir, genPad):                []byte(imp),
	}
	replace := maps.Clone(in.merged)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", in.digest)
	for _, target := range slices.Sorted(maps.Keys(files)) {
		if _, err := os.Lstat(target); err == nil {
			return "", "", fmt.Errorf("%s already exists; benchsup needs that name for its padding", target)
		}
		gen := filepath.Join(dir, filepath.Base(target))
		if err := os.WriteFile(gen, files[target], 0o644); err != nil {
			return "", "", err
		}
		replace[target] = gen
		fmt.Fprintf(h, "%s\x00%d\x00", target, len(files[target]))
		h.Write(files[target])
	}
	data, err := json.MarshalIndent(map[string]any{"Replace": replace}, "", "\t")
	if err != nil {
		return "", "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, hex.EncodeToString(h.Sum(nil)), os.WriteFile(path, data, 0o644)
}
