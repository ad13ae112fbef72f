package supervisor

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/rundoc"
)

func TestRewriteWorkerFile(t *testing.T) {
	tests := []struct {
		name, src, want, err string
	}{
		{
			name: "no constraint, benchsup and std imports",
			src:  "// Package w is a worker.\npackage w\n\nimport (\n\t\"fmt\"\n\tp \"github.com/benchsup/benchsup/protocol\"\n)\n",
			want: "//go:build go1.22\n\n// Package w is a worker.\npackage w\n\nimport (\n\t\"fmt\"\n\tp \"example.com/m/zz_x/protocol\"\n)\n",
		},
		{
			name: "constraint joined",
			src:  "//go:build linux || darwin\n\npackage w\n\nimport \"github.com/benchsup/benchsup/sources\"\n",
			want: "//go:build go1.22 && (linux || darwin)\n\npackage w\n\nimport \"example.com/m/zz_x/sources\"\n",
		},
		{
			name: "constraint after a comment",
			src:  "// Copyright.\n\n//go:build !linux\n\npackage w\n",
			want: "// Copyright.\n\n//go:build go1.22 && !linux\n\npackage w\n",
		},
		{
			name: "a go:build inside the package is not the constraint",
			src:  "package w\n\n//go:build linux\nvar x = 1\n",
			want: "//go:build go1.22\n\npackage w\n\n//go:build linux\nvar x = 1\n",
		},
		{
			name: "a module import is refused",
			src:  "package w\n\nimport \"golang.org/x/sys/unix\"\n",
			err:  "imports golang.org/x/sys/unix, which is neither the standard library nor benchsup",
		},
		{name: "not Go", src: "pack age", err: "expected 'package'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rewriteWorkerFile([]byte(tt.src), "example.com/m/zz_x", "go1.22")
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// TestEmbeddedWorkerIsStandardOnly rewrites every embedded file as an
// injection does: any import outside the standard library and benchsup's
// own packages fails it. The embedded directories are exactly the worker
// and the benchsup packages it imports, directly or not. (measure is not
// among them: a test binary that does not import it does not link it, and
// one that does links the module's own benchsup.)
func TestEmbeddedWorkerIsStandardOnly(t *testing.T) {
	in, err := newInjector(t.TempDir(), "v0.0.0")
	require.NoError(t, err)
	require.NotEmpty(t, in.files)
	dirs := map[string]bool{}
	imports := map[string][]string{} // directory -> the benchsup directories its files import
	for rel, src := range in.files {
		dir := path.Dir(rel)
		dirs[dir] = true
		_, err := rewriteWorkerFile(src, "example.com/m/"+in.name, workerMinGo)
		assert.NoError(t, err, rel)
		assert.False(t, strings.HasSuffix(rel, "_test.go"), "%s: test files are not injected", rel)
		f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.ImportsOnly)
		require.NoError(t, err, rel)
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if rest, ok := strings.CutPrefix(p, benchsupModule+"/"); ok {
				imports[dir] = append(imports[dir], rest)
			}
		}
	}
	assert.Equal(t, map[string]bool{
		"worker": true, "protocol": true, "sources": true,
		"internal/hooks": true, "internal/stats": true,
	}, dirs)
	reached := map[string]bool{}
	var walk func(dir string)
	walk = func(dir string) {
		if reached[dir] {
			return
		}
		reached[dir] = true
		assert.True(t, dirs[dir], "%s is imported by the closure but not embedded", dir)
		for _, d := range imports[dir] {
			walk(d)
		}
	}
	walk("worker")
	assert.Equal(t, dirs, reached, "every embedded directory is the worker or imported by it")
	assert.Regexp(t, `^zz_benchsup_[0-9a-f]{12}$`, in.name)
}

// TestEmbeddedWorkerBuildsOffline extracts the injected worker into a
// module with an old go line and no requirements, as an injection places
// it, and builds and vets it with the network and the module cache out of
// reach: it must need nothing but the standard library, and vet's
// stdversion check holds it to Go 1.22's standard library.
func TestEmbeddedWorkerBuildsOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and vets the worker with the go command: run without -short")
	}
	t.Parallel() // a go build and a go vet: beside the tests that wait
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/old\n\ngo 1.12\n"), 0o644))
	in, err := newInjector(t.TempDir(), "v0.0.0")
	require.NoError(t, err)
	// No GOROOT: the route into the module, as for a downloaded toolchain.
	worker, err := in.inject(&goModule{Path: "example.com/old", Dir: root}, goEnv{GOVERSION: "go1.26.0"})
	require.NoError(t, err)
	assert.Equal(t, "example.com/old/"+in.name+"/worker", worker)
	for dst, src := range in.replace {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, data, 0o644))
	}
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOMODCACHE="+filepath.Join(root, "nocache"), "GOTOOLCHAIN=local", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		assert.NoError(t, err, "go %s: %s", strings.Join(args, " "), out)
	}
}

func TestInjectRefuses(t *testing.T) {
	root := t.TempDir()
	in, err := newInjector(filepath.Join(root, "gen"), "v0.0.0")
	require.NoError(t, err)
	tests := []struct {
		name      string
		mod       *goModule
		toolchain string
		setup     func(dir string)
		err       string
	}{
		{name: "GOPATH mode", err: "package outside a module"},
		{name: "old toolchain", mod: &goModule{Path: "m", Dir: filepath.Join(root, "a")}, toolchain: "go1.21.5",
			err: "benchsup's worker needs go1.22 or newer, and this module builds with go1.21.5"},
		{name: "module cache", mod: &goModule{Path: "m", Dir: filepath.Join(root, "cache", "m@v1.0.0")},
			err: "package in the module cache"},
		{name: "directory exists", mod: &goModule{Path: "m", Dir: filepath.Join(root, "b")},
			setup: func(dir string) { require.NoError(t, os.MkdirAll(filepath.Join(dir, in.name), 0o755)) },
			err:   "exists; benchsup needs that name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(tt.mod.Dir)
			}
			if tt.toolchain == "" {
				tt.toolchain = "go1.26.8"
			}
			_, err := in.inject(tt.mod, goEnv{GOVERSION: tt.toolchain, GOMODCACHE: filepath.Join(root, "cache")})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	t.Run("a devel toolchain is not refused", func(t *testing.T) {
		_, err := in.inject(&goModule{Path: "m", Dir: filepath.Join(root, "c")}, goEnv{GOVERSION: "devel go1.27-abcdef"})
		assert.NoError(t, err)
	})
}

func TestEntryPoints(t *testing.T) {
	pkgDir := t.TempDir()
	in, err := newInjector(t.TempDir(), "v0.0.0")
	require.NoError(t, err)
	read := func(file string) (string, bool) {
		gen, ok := in.replace[filepath.Join(pkgDir, file)]
		if !ok {
			return "", false
		}
		src, err := os.ReadFile(gen)
		require.NoError(t, err)
		_, err = parser.ParseFile(token.NewFileSet(), file, src, 0)
		require.NoError(t, err, "%s:\n%s", file, src)
		return string(src), true
	}
	p := &pkgPlan{pkg: &goPackage{Name: "p", ImportPath: "example.com/m/p", Dir: pkgDir},
		internal: testFuncs{Tests: []string{"TestA"}, Benchmarks: []string{"BenchmarkB"}}}
	require.NoError(t, in.entryPoints(p, 0, "example.com/m/zz/worker"))
	// One file, of the external test package, registers the internal
	// functions through the package it imports: "p [p.test]" is compiled
	// from the user's files alone, as go test and go vet compile it.
	_, ok := read(genInternal)
	assert.False(t, ok, "the internal test package gets no file")
	src, ok := read(genExternal)
	require.True(t, ok, "an external test package is added")
	assert.Contains(t, src, "package p_test\n")
	assert.Contains(t, src, `benchsupworker "example.com/m/zz/worker"`)
	assert.Contains(t, src, `benchsuptested "example.com/m/p"`)
	assert.Contains(t, src, `benchsupworker.RegisterTest("TestA", benchsuptested.TestA)`)
	assert.Contains(t, src, `benchsupworker.RegisterBenchmark("BenchmarkB", benchsuptested.BenchmarkB)`)
	assert.Contains(t, src, "func TestBenchsupWorker(t *testing.T) { benchsupworker.Serve(t) }")
	for _, name := range []string{"MainStart", "RegisterFuzzMain", "benchsupFuzzDeps"} {
		assert.NotContains(t, src, name, "a package without fuzz targets does not depend on testing.MainStart")
	}

	// Internal functions first, then external ones, as go test lists
	// them; the package under test is imported only when named.
	p.external = testFuncs{Tests: []string{"TestX"}}
	require.NoError(t, in.entryPoints(p, 1, "example.com/m/zz/worker"))
	src, _ = read(genExternal)
	assert.Less(t, strings.Index(src, `"TestA"`), strings.Index(src, `"TestX"`))
	assert.Contains(t, src, `benchsupworker.RegisterTest("TestX", TestX)`)
	internal := p.internal
	p.internal = testFuncs{}
	require.NoError(t, in.entryPoints(p, 2, "example.com/m/zz/worker"))
	src, _ = read(genExternal)
	assert.NotContains(t, src, "benchsuptested", "an unused import does not compile")
	p.external = testFuncs{}
	require.NoError(t, in.entryPoints(p, 3, "example.com/m/zz/worker"))
	src, _ = read(genExternal)
	assert.Contains(t, src, "func TestBenchsupWorker(", "nothing to register: the entry point still is")
	p.internal = internal

	// The imports' names clash with none the external package declares.
	p.external = testFuncs{Tests: []string{"TestX"}, declared: map[string]bool{"benchsupworker": true, "benchsuptested": true, "benchsuptested2": true}}
	require.NoError(t, in.entryPoints(p, 4, "example.com/m/zz/worker"))
	src, _ = read(genExternal)
	assert.Contains(t, src, `benchsupworker2 "example.com/m/zz/worker"`)
	assert.Contains(t, src, `benchsuptested3 "example.com/m/p"`)
	assert.Contains(t, src, `benchsupworker2.RegisterTest("TestA", benchsuptested3.TestA)`)
	assert.Contains(t, src, "benchsupworker2.Serve(t)")
	p.external = testFuncs{Tests: []string{"TestX"}}

	// A fuzz target of either test package gets the fuzz main, once.
	for i, funcs := range []*testFuncs{&p.internal, &p.external} {
		funcs.Fuzz = []string{"FuzzF"}
		require.NoError(t, in.entryPoints(p, 10+i, "example.com/m/zz/worker"))
		src, _ := read(genExternal)
		assert.Equal(t, 1, strings.Count(src, "testing.MainStart("))
		assert.Equal(t, 1, strings.Count(src, "benchsupworker.RegisterFuzzMain(benchsupFuzzMain)"))
		funcs.Fuzz = nil
	}

	// Files named on the command line make a package no other can
	// import: its internal test package holds the entry point.
	cmdline := &pkgPlan{pkg: &goPackage{Name: "main", ImportPath: "command-line-arguments", Dir: pkgDir}, internal: internal}
	in.replace = map[string]string{}
	require.NoError(t, in.entryPoints(cmdline, 20, "example.com/m/zz/worker"))
	src, ok = read(genInternal)
	require.True(t, ok)
	assert.Contains(t, src, "package main\n")
	assert.Contains(t, src, `benchsupworker.RegisterTest("TestA", TestA)`)
	assert.Contains(t, src, "func TestBenchsupWorker(")
	_, ok = read(genExternal)
	assert.False(t, ok, "an external test package with nothing to register gets no file")

	p.internal.Tests = append(p.internal.Tests, "TestBenchsupWorker")
	assert.ErrorContains(t, in.entryPoints(p, 30, "w"), "the package declares TestBenchsupWorker")

	p.internal.Tests = nil
	require.NoError(t, os.WriteFile(filepath.Join(pkgDir, genExternal), nil, 0o644))
	assert.ErrorContains(t, in.entryPoints(p, 31, "w"), "already exists")
}

func TestUserOverlay(t *testing.T) {
	for goflags, want := range map[string]string{
		"":                                  "",
		"-mod=mod":                          "",
		"-mod=mod -overlay=/tmp/o.json":     "/tmp/o.json",
		"--overlay=rel.json -tags=x":        "rel.json",
		"-tags=overlay=x -trimpath":         "",
		"-overlay=/a.json -overlay=/b.json": "/a.json",
	} {
		assert.Equal(t, want, userOverlay(goflags), goflags)
	}
	ours := map[string]string{"/m/p/zz.go": "/tmp/zz.go"}
	require.NoError(t, mergeOverlay(ours, map[string]string{"/m/p/gen.go": "/x/gen.go"}))
	assert.Equal(t, map[string]string{"/m/p/zz.go": "/tmp/zz.go", "/m/p/gen.go": "/x/gen.go"}, ours)
	assert.ErrorContains(t, mergeOverlay(ours, map[string]string{"/m/p/zz.go": ""}), "which benchsup generates")
}

func TestCompareBuilds(t *testing.T) {
	base := rundoc.BuildFacts{GoLine: "1.12", BuildList: "sha256:aa", Modules: 2, DefaultGODEBUG: "panicnil=1", Toolchain: "go1.26.8"}
	same, note := compareBuilds(base, base)
	assert.True(t, same)
	assert.Empty(t, note)

	raised := base
	raised.GoLine, raised.BuildList, raised.Modules, raised.DefaultGODEBUG = "1.21", "sha256:bb", 3, ""
	same, note = compareBuilds(base, raised)
	assert.False(t, same)
	assert.Equal(t, "go line 1.12 => 1.21; build list sha256:aa (2 modules) => sha256:bb (3 modules); GODEBUG default panicnil=1 => (none)", note)
}

func TestDescribeBuildFailure(t *testing.T) {
	tests := []struct{ name, out, msg, rest string }{
		{"the package's own error, headers dropped",
			"# example.com/m/p [example.com/m/p.test]\n./p.go:3:1: syntax error\n./p.go:4:1: another\n# example.com/m/p [example.com/m/p.test]\n",
			"./p.go:3:1: syntax error", "./p.go:4:1: another"},
		{"the go command's status lines", "# example.com/m/p\ngo: downloading example.com/x v1.0.0\np_test.go:7:1: wrong signature for TestTyped\nFAIL\texample.com/m/p [setup failed]\nFAIL\n",
			"p_test.go:7:1: wrong signature for TestTyped", ""},
		{"an external test package's header", "# example.com/m/p_test [example.com/m/p.test]\n./x_test.go:3:1: undefined: y\n", "./x_test.go:3:1: undefined: y", ""},
		{"a dependency's header stays", "# example.com/m/dep\ndep/d.go:1:1: bad\n", "# example.com/m/dep", "dep/d.go:1:1: bad"},
		{"the injected worker", "# example.com/m/zz_benchsup_0a/worker\nzz_benchsup_0a/worker/a.go:1: x\n",
			"benchsup's injected worker does not build here (a benchsup bug, please report it): # example.com/m/zz_benchsup_0a/worker", "zz_benchsup_0a/worker/a.go:1: x"},
		{"the entry point", "# example.com/m/p\n./zz_benchsup_internal_test.go:7:2: benchsupworker redeclared",
			"benchsup's generated entry point does not compile with this package (a name it declares collides?): ./zz_benchsup_internal_test.go:7:2: benchsupworker redeclared", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bf := describeBuildFailure(tt.out, "zz_benchsup_0a", "example.com/m/p")
			assert.Equal(t, tt.msg, bf.msg)
			assert.Equal(t, tt.rest, bf.rest)
		})
	}
	t.Run("bounded", func(t *testing.T) {
		bf := describeBuildFailure(strings.Repeat("p.go:1:1: e\n", 50), "", "example.com/m/p")
		assert.Equal(t, maxCompilerLines, strings.Count(bf.rest, "\n")+1, "the message and the rest hold the first lines and the count of the others")
		assert.Contains(t, bf.rest, "(30 more lines)")
	})
}

func TestListingModules(t *testing.T) {
	mod := func(path, version string) *goModule { return &goModule{Path: path, Version: version} }
	l := &listing{byPath: map[string]*goPackage{
		"m/p":             {ImportPath: "m/p", Module: &goModule{Path: "m", Main: true, GoVersion: "1.12"}},
		"m/p [m/p.test]":  {ImportPath: "m/p [m/p.test]", ForTest: "m/p", Module: &goModule{Path: "m", Main: true}},
		"fmt":             {ImportPath: "fmt"},
		"example.com/dep": {ImportPath: "example.com/dep", Module: &goModule{Path: "example.com/dep", Version: "v1.0.0", Replace: mod("../dep", "")}},
		"example.com/b/x": {ImportPath: "example.com/b/x", Module: mod("example.com/b", "v0.3.0")},
		"m/p.test": {ImportPath: "m/p.test", Name: "main", Module: &goModule{Path: "m", Main: true}, DefaultGODEBUG: "panicnil=1",
			Deps: []string{"example.com/b/x", "example.com/dep", "fmt", "m/p [m/p.test]"}},
	}}
	root := l.byPath["m/p"]
	assert.Equal(t, []string{"example.com/b v0.3.0", "example.com/dep v1.0.0 => ../dep", "m"}, l.modules(root))
	assert.True(t, l.links(root, "example.com/b"))
	assert.False(t, l.links(root, benchsupModule))
	f := listedFacts(l, root, "go1.26.8")
	assert.Equal(t, rundoc.BuildFacts{GoLine: "1.12", BuildList: hashLines(l.modules(root)), Modules: 3, DefaultGODEBUG: "panicnil=1", Toolchain: "go1.26.8"}, f)
	assert.Nil(t, l.modules(&goPackage{ImportPath: "m/none"}), "no test binary, no modules")
}

// The packages the worker is made of get an injected copy when tested in
// benchsup's own module: through the module's own worker, their tests
// would import themselves.
func TestOfWorker(t *testing.T) {
	in, err := newInjector(t.TempDir(), "v0.0.0")
	require.NoError(t, err)
	for path, want := range map[string]bool{
		benchsupModule + "/worker":         true,
		benchsupModule + "/protocol":       true,
		benchsupModule + "/internal/stats": true,
		benchsupModule + "/internal/hooks": true,
		benchsupModule + "/measure":        false,
		benchsupModule + "/supervisor":     false,
		"example.com/m/worker":             false,
	} {
		assert.Equal(t, want, in.ofWorker(path), path)
	}
}

// The build information of a binary names a module or replacement without
// a version "(devel)", where go list names none: go1.27's test binaries
// record the test's imports, so a directory replacement shows this.
func TestUnlisted(t *testing.T) {
	listed := []string{"example.com/b v0.3.0", "example.com/dep v1.0.0 => ../dep", "example.com/ws", "m"}
	dep := func(path, version string, replace ...string) *debug.Module {
		d := &debug.Module{Path: path, Version: version}
		if len(replace) == 2 {
			d.Replace = &debug.Module{Path: replace[0], Version: replace[1]}
		}
		return d
	}
	for _, tt := range []struct {
		name string
		deps []*debug.Module
		want []string
	}{
		{"none", nil, nil},
		{"listed", []*debug.Module{dep("example.com/b", "v0.3.0")}, nil},
		{"directory replacement, (devel)", []*debug.Module{dep("example.com/dep", "v1.0.0", "../dep", "(devel)")}, nil},
		{"directory replacement, no version", []*debug.Module{dep("example.com/dep", "v1.0.0", "../dep", "")}, nil},
		{"workspace module", []*debug.Module{dep("example.com/ws", "(devel)")}, nil},
		{"other version", []*debug.Module{dep("example.com/b", "v0.4.0")}, []string{"example.com/b v0.4.0"}},
		{"other replacement", []*debug.Module{dep("example.com/dep", "v1.0.0", "../other", "(devel)")}, []string{"example.com/dep v1.0.0 => ../other"}},
		{"replaced where go list has none", []*debug.Module{dep("example.com/b", "v0.3.0", "example.com/c", "v0.1.0")}, []string{"example.com/b v0.3.0 => example.com/c v0.1.0"}},
		{"unknown", []*debug.Module{dep("example.com/b", "v0.3.0"), dep("example.com/z", "v1.2.3")}, []string{"example.com/z v1.2.3"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, unlisted(listed, tt.deps))
		})
	}
}

// TestInjectIntoGOROOT: with a toolchain the go command did not download,
// every module gets the one copy of the worker beneath GOROOT/src, so the
// go command compiles it once for all of them: a second module at another
// path builds without compiling any of the worker's packages (a copy per
// module, at the module's import path, would compile). A GOROOT in
// the module cache (a downloaded toolchain, where the go command accepts
// no overlay) puts the worker into the module instead.
func TestInjectIntoGOROOT(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two modules with the go command: run without -short")
	}
	t.Parallel() // builds: beside the tests that wait
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goBin, "env", "GOROOT", "GOVERSION").Output()
	require.NoError(t, err)
	fields := strings.Fields(string(out))
	require.Len(t, fields, 2)
	env := goEnv{GOROOT: fields[0], GOVERSION: fields[1], GOMODCACHE: filepath.Join(t.TempDir(), "modcache")}

	in, err := newInjector(t.TempDir(), "v0.0.0")
	require.NoError(t, err)
	var mods []string
	for _, name := range []string{"one", "two"} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/"+name+"\n\ngo 1.22\n"), 0o644))
		worker, err := in.inject(&goModule{Path: "example.com/" + name, Dir: dir}, env)
		require.NoError(t, err)
		assert.Equal(t, in.name+"/worker", worker, "the standard library's import path, the same for every module")
		// A package of the module that links the worker, through the overlay.
		main := filepath.Join(t.TempDir(), "main.go")
		require.NoError(t, os.WriteFile(main, []byte("package main\n\nimport _ "+strconv.Quote(worker)+"\n\nfunc main() {}\n"), 0o644))
		in.replace[filepath.Join(dir, "main.go")] = main
		mods = append(mods, dir)
	}
	assert.Equal(t, []string{in.name + "/worker"}, in.importPaths())
	for target := range in.replace {
		if !strings.HasSuffix(target, "main.go") {
			assert.True(t, within(target, filepath.Join(env.GOROOT, "src", in.name)), "%s is not beneath GOROOT/src/%s", target, in.name)
		}
	}
	overlay, err := in.writeOverlay("", mods[0])
	require.NoError(t, err)

	// The worker's packages the go command compiles for a module's build
	// (the user's build cache: the first module may find them there).
	compiled := func(dir string) []string {
		cmd := exec.Command(goBin, "build", "-x", "-overlay="+overlay, "-o", os.DevNull, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go build: %s", out)
		var pkgs []string
		for _, line := range strings.Split(string(out), "\n") {
			if _, after, ok := strings.Cut(line, " -p "); ok && strings.Contains(line, "/compile ") {
				if p := strings.Fields(after)[0]; strings.Contains(p, in.name+"/") {
					pkgs = append(pkgs, p)
				}
			}
		}
		return pkgs
	}
	compiled(mods[0])
	assert.Empty(t, compiled(mods[1]), "the second module's build compiles the worker again")

	t.Run("a downloaded toolchain", func(t *testing.T) {
		in, err := newInjector(t.TempDir(), "v0.0.0")
		require.NoError(t, err)
		dir := t.TempDir()
		inCache := goEnv{GOVERSION: env.GOVERSION, GOMODCACHE: env.GOMODCACHE, GOROOT: filepath.Join(env.GOMODCACHE, "golang.org", "toolchain@v0.0.1-"+env.GOVERSION+".linux-amd64")}
		worker, err := in.inject(&goModule{Path: "example.com/m", Dir: dir}, inCache)
		require.NoError(t, err)
		assert.Equal(t, "example.com/m/"+in.name+"/worker", worker)
		for target := range in.replace {
			assert.True(t, within(target, filepath.Join(dir, in.name)), "%s is not in the module", target)
		}
	})
}
