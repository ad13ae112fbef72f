package supervisor

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVetFlags(t *testing.T) {
	tests := []struct {
		vet   string
		flags []string
		on    bool
		err   string
	}{
		{"", prefixed(DefaultVetChecks), true, ""},
		{"off", nil, false, ""},
		{"all", nil, true, ""},
		{"printf", []string{"-printf"}, true, ""},
		{"atomic,bool", []string{"-atomic", "-bool"}, true, ""},
		{"printf,off", nil, false, `does not accept "off" in a list with other analyzers`},
		{"all,printf", nil, false, `does not accept "all"`},
		{"printf,", nil, false, "empty list element"},
		{"printf=1", nil, false, "equal signs"},
		{"a b", nil, false, "spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.vet, func(t *testing.T) {
			err := checkVet(tt.vet)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			s := &supervisor{cfg: Config{Vet: tt.vet}}
			flags, on := s.vetFlags()
			assert.Equal(t, tt.flags, flags)
			assert.Equal(t, tt.on, on)
		})
	}
	assert.Contains(t, prefixed(DefaultVetChecks), "-printf", "go test's default checks")
}

func TestAttributeVet(t *testing.T) {
	plans := []*pkgPlan{
		{pkg: &goPackage{ImportPath: "example.com/m/a", Dir: "/src/m/a"}},
		{pkg: &goPackage{ImportPath: "example.com/m/b", Dir: "/src/m/b"}},
	}
	tests := []struct {
		name string
		out  string
		own  map[string][]string
		deps map[string][]string
	}{
		{"by file, relative and absolute, once each",
			"a/x.go:1:2: bad\n/src/m/b/y_test.go:3:4: worse\na/x.go:1:2: bad\n",
			map[string][]string{"example.com/m/a": {"a/x.go:1:2: bad"}, "example.com/m/b": {"/src/m/b/y_test.go:3:4: worse"}}, nil},
		{"by header, an external test package's too",
			"# example.com/m/b_test\n# [example.com/m/b_test]\nvet: type error without a file\n",
			map[string][]string{"example.com/m/b": {"vet: type error without a file"}}, nil},
		{"a dependency's header claims its lines for it",
			"# example.com/m/a\nfirst\n# example.com/dep\ndep's line\n",
			map[string][]string{"example.com/m/a": {"first"}}, map[string][]string{"example.com/dep": {"dep's line"}}},
		{"a dependency's lines alone are still claimed: no package's (golang.org/x/text@v0.21.0 under Go 1.26)",
			"# golang.org/x/tools/internal/tokeninternal\n/mod/golang.org/x/tools@v0.21.1/internal/tokeninternal/tokeninternal.go:64:9: invalid array length -delta * delta (constant -256 of type int64)\n",
			nil, map[string][]string{"golang.org/x/tools/internal/tokeninternal": {"/mod/golang.org/x/tools@v0.21.1/internal/tokeninternal/tokeninternal.go:64:9: invalid array length -delta * delta (constant -256 of type int64)"}}},
		{"a file of the run's under a dependency's header is its package's",
			"# example.com/dep [example.com/m/a.test]\n/src/m/a/x.go:1:2: bad\n",
			map[string][]string{"example.com/m/a": {"/src/m/a/x.go:1:2: bad"}}, nil},
		{"nothing claimed: the whole output is no one's",
			"flag provided but not defined: -nosuch\nusage: go vet\n",
			map[string][]string{"": {"flag provided but not defined: -nosuch", "usage: go vet"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := attributeVet(tt.out, "/src/m", plans)
			orEmpty := func(m map[string][]string) map[string][]string {
				if m == nil {
					return map[string][]string{}
				}
				return m
			}
			assert.Equal(t, orEmpty(tt.own), v.own)
			assert.Equal(t, orEmpty(tt.deps), v.deps)
		})
	}
}

// TestVetDependencyFailure runs the vet step over a module whose package
// a imports a package not under test that does not compile (as
// golang.org/x/text's message/pipeline imports x/tools' tokeninternal,
// which Go 1.26 refuses): go test fails a for its build and passes b, and
// so does the vet step, which fails neither, says so once, and does not
// remember a as clean.
func TestVetDependencyFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command over a fixture module: run without -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	files := map[string]string{
		"go.mod":           "module example.com/vd\n\ngo 1.22\n",
		"broken/broken.go": "package broken\n\nfunc B() int { return undefined }\n",
		"a/a.go":           "package a\n\nimport \"example.com/vd/broken\"\n\nfunc A() int { return broken.B() }\n",
		"a/a_test.go":      "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { A() }\n",
		"b/b.go":           "package b\n\nfunc B() int { return 2 }\n",
		"b/b_test.go":      "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { B() }\n",
		"c/c.go":           "package c\n\nimport \"fmt\"\n\nfunc C() string { return fmt.Sprintf(\"%d\", \"x\") }\n",
		"c/c_test.go":      "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) { C() }\n",
	}
	tests := []struct {
		name     string
		packages []string
		failed   []string // the packages the vet step fails
	}{
		{"the dependency's lines alone", []string{"./a", "./b"}, nil},
		{"beside another package's finding", []string{"./a", "./b", "./c"}, []string{"example.com/vd/c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "mod")
			for name, text := range files {
				writeFile(t, filepath.Join(dir, name), text)
			}
			var warnings strings.Builder
			s := &supervisor{cfg: Config{Dir: dir, GoCommand: "go", Packages: tt.packages, Warnings: &warnings}, cache: testCache(t, filepath.Join(root, "cache"))}
			ctx := context.Background()
			var err error
			s.env, err = s.readGoEnv(ctx)
			require.NoError(t, err)
			s.plain, err = s.listPackages(ctx, nil, tt.packages)
			require.NoError(t, err)
			var plans []*pkgPlan
			for _, p := range s.plain.roots {
				plans = append(plans, &pkgPlan{pkg: p})
			}
			require.Len(t, plans, len(tt.packages))
			failed := s.vetAll(ctx, plans)
			assert.ElementsMatch(t, tt.failed, slices.Collect(maps.Keys(failed)), "go test fails no package for a dependency's vet")
			if err := failed["example.com/vd/c"]; err != nil {
				assert.Contains(t, err.Error(), "vet: c/c.go:5:")
			}
			assert.Regexp(t, `^go vet: example.com/vd/broken, a dependency of example.com/vd/a, failed; as under go test, that fails no package \(one that cannot compile with it fails its build\): broken/broken.go:3:\d+: undefined: undefined\n$`, warnings.String())

			// b is remembered as clean, a (and c) are not: the next
			// run vets a again and warns again, as go test says it again.
			warnings.Reset()
			s.plain, err = s.listPackages(ctx, nil, tt.packages)
			require.NoError(t, err)
			cached, _ := s.vetCached(s.vetCacheDir(), plans, prefixed(DefaultVetChecks))
			assert.Equal(t, map[string]bool{"example.com/vd/b": true}, cached)
			s.vetAll(ctx, plans)
			assert.Contains(t, warnings.String(), "go vet: example.com/vd/broken, a dependency of example.com/vd/a, failed")
		})
	}
}

func TestVetKey(t *testing.T) {
	src, dep := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) {
		t.Helper()
		assert.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write(src, "a.go", "package a")
	write(dep, "d.go", "package d")
	root := &goPackage{ImportPath: "example.com/m/a", Dir: src}
	s := &supervisor{env: goEnv{raw: []byte(`{"GOVERSION":"go1.26"}`), GOMODCACHE: "/modcache"}}
	s.plain = &listing{byPath: map[string]*goPackage{
		"example.com/m/a":      root,
		"example.com/m/a.test": {ImportPath: "example.com/m/a.test", Deps: []string{"example.com/m/a", "example.com/m/d", "fmt", "rsc.io/q"}},
		"example.com/m/d":      {ImportPath: "example.com/m/d", Dir: dep},
		"fmt":                  {ImportPath: "fmt", Dir: "/goroot/src/fmt", Standard: true},
		"rsc.io/q":             {ImportPath: "rsc.io/q", Dir: "/modcache/rsc.io/q@v1.0.0", Module: &goModule{Path: "rsc.io/q", Version: "v1.0.0"}},
	}}
	p := &pkgPlan{pkg: root}
	key := func(flags ...string) string {
		k, ok := s.vetKey(p, flags, map[string]string{})
		assert.True(t, ok)
		return k
	}
	base := key("-printf")
	assert.Equal(t, base, key("-printf"), "the same inputs, the same key")
	assert.NotEqual(t, base, key("-atomic"), "other analyzers")
	write(src, "b_test.go", "package a")
	k1 := key("-printf")
	assert.NotEqual(t, base, k1, "a new file in the package")
	write(dep, "ignored.go", "//go:build never\npackage d")
	k2 := key("-printf")
	assert.NotEqual(t, k1, k2, "any file of a dependency's directory, ignored ones too")
	write(src, "run.json", "{}")
	write(dep, "_notes.go", "package broken(")
	assert.Equal(t, k2, key("-printf"), "files the go command does not read")
	s.plain.byPath["rsc.io/q"].Module.Version = "v1.0.1"
	assert.NotEqual(t, k2, key("-printf"), "a module-cache dependency's version")
	s.plain.byPath["example.com/m/a.test"].Deps = append(s.plain.byPath["example.com/m/a.test"].Deps, "missing")
	_, ok := s.vetKey(p, nil, map[string]string{})
	assert.False(t, ok, "a dependency the listing lacks: no key, no cache")
}

// TestVetAnalyzers reads the analyzers of go tool vet -flags as go test
// does: boolean flags, not the tool's own switches nor an analyzer's
// options.
func TestVetAnalyzers(t *testing.T) {
	known, err := vetAnalyzers([]byte(`[
		{"Name": "V", "Bool": true}, {"Name": "all", "Bool": true}, {"Name": "bool", "Bool": true},
		{"Name": "bools", "Bool": true}, {"Name": "printf", "Bool": true},
		{"Name": "printf.funcs", "Bool": false}, {"Name": "json", "Bool": true},
		{"Name": "unusedresult.stringmethods", "Bool": false}, {"Name": "c", "Bool": false}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"bool": true, "bools": true, "printf": true}
	if !maps.Equal(known, want) {
		t.Errorf("analyzers %v, want %v", known, want)
	}
	if _, err := vetAnalyzers([]byte("not json")); err == nil {
		t.Error("a reply that is not JSON was read")
	}
}

// A coverage build shares no compile with go vet, which leaves -cover
// out: only then does vet run beside the builds.
func TestCoverBuild(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want bool
	}{
		{"no flags", Config{}, false},
		{"other flags", Config{BuildFlags: []string{"-race", "-tags=x"}}, false},
		{"-cover", Config{BuildFlags: []string{"--cover"}}, true},
		{"-covermode", Config{BuildFlags: []string{"-covermode=atomic"}}, true},
		{"-coverprofile adds -cover", Config{CoverProfile: "c.out"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &supervisor{cfg: tt.cfg}
			assert.Equal(t, tt.want, s.coverBuild())
		})
	}
}
