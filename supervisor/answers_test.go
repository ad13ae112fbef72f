package supervisor

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// goRecorder is a go command that logs every invocation before running
// the real one: what a run asked the go command.
type goRecorder struct {
	path, log string
}

func newGoRecorder(t *testing.T, dir string) *goRecorder {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	g := &goRecorder{path: filepath.Join(dir, "go"), log: filepath.Join(dir, "go.log")}
	g.write(t, real, "")
	return g
}

// write (re)writes the recorder; extra is a comment that makes it another
// file (a reinstalled toolchain).
func (g *goRecorder) write(t *testing.T, real, extra string) {
	t.Helper()
	script := "#!/bin/sh\n# " + extra + "\necho \"$1 $2\" >>" + g.log + "\nexec " + real + " \"$@\"\n"
	tmp := g.path + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte(script), 0o755))
	require.NoError(t, os.Rename(tmp, g.path))
}

// asked returns the go commands run since the last call.
func (g *goRecorder) asked(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(g.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	require.NoError(t, os.Remove(g.log))
	return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(data)), " ", "_"))
}

// answersModule writes a module with two packages, one with a benchmark.
func answersModule(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod":          "module example.com/ans\n\ngo 1.22\n",
		"a/a.go":          "package a\n\nfunc A() int { return 1 }\n",
		"a/a_test.go":     "package a\n\nimport \"testing\"\n\nfunc BenchmarkA(b *testing.B) {\n\tfor b.Loop() {\n\t\tA()\n\t}\n}\n",
		"a/tagged.go":     "//go:build special\n\npackage a\n\nimport _ \"strconv\"\n",
		"b/b.go":          "package b\n",
		"b/sub/.keep":     "",
		"b/testdata/x.go": "package broken(\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// answersRun is one run's questions to the go command: its environment,
// the listing of ./..., and package a's test binary, current.
func answersRun(t *testing.T, s *supervisor) *listing {
	t.Helper()
	ctx := context.Background()
	var err error
	s.env, err = s.readGoEnv(ctx)
	require.NoError(t, err)
	s.plain, err = s.listPackages(ctx, nil, s.cfg.Packages)
	require.NoError(t, err)
	var a *goPackage
	for _, p := range s.plain.roots {
		if p.ImportPath == "example.com/ans/a" {
			a = p
		}
	}
	require.NotNil(t, a, "package a listed")
	bin, err := s.goTestCurrent(ctx, &pkgPlan{pkg: a}, "a.test", "a.test")
	require.NoError(t, err)
	require.FileExists(t, bin.path)
	require.Equal(t, filepath.Join(s.cache.bin.path, "a.test"), bin.cached, "kept in the cache")
	return s.plain
}

func TestAnswersInvalidation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command some forty times over fixture modules: run without -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("answers are kept on Linux only (change times and inodes)")
	}
	all := []string{"env_-json", "list_-e", "test_-c"}
	tests := []struct {
		name   string
		change func(t *testing.T, dir string, g *goRecorder)
		asked  []string                   // the go commands the run after the change asks
		check  func(*testing.T, *listing) // what the new answer says
	}{
		{
			name:   "nothing changed",
			change: func(*testing.T, string, *goRecorder) {},
			check: func(t *testing.T, l *listing) {
				require.Len(t, l.roots, 2)
			},
		},
		{
			name: "a package file edited",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				writeFile(t, filepath.Join(dir, "a/a.go"), "package a\n\nimport \"strings\"\n\nfunc A() int { return strings.Count(\"aa\", \"a\") }\n")
			},
			asked: []string{"list_-e", "test_-c"},
			check: func(t *testing.T, l *listing) {
				require.Contains(t, l.byPath["example.com/ans/a"].Deps, "strings")
			},
		},
		{
			name: "a file added to a package",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				writeFile(t, filepath.Join(dir, "a/more_test.go"), "package a\n")
			},
			asked: []string{"list_-e", "test_-c"},
			check: func(t *testing.T, l *listing) {
				require.Contains(t, l.byPath["example.com/ans/a"].TestGoFiles, "more_test.go")
			},
		},
		{
			name: "a package added where ./... walks",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				writeFile(t, filepath.Join(dir, "b/sub/sub.go"), "package sub\n")
			},
			asked: []string{"list_-e"}, // package a's binary does not link it
			check: func(t *testing.T, l *listing) {
				require.Contains(t, l.byPath, "example.com/ans/b/sub")
			},
		},
		{
			name: "a run's output and a log beside the sources",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				writeFile(t, filepath.Join(dir, "a/run.json"), "{}")
				writeFile(t, filepath.Join(dir, "a/bench.txt"), "ok")
				writeFile(t, filepath.Join(dir, "run.json"), "{}")
				writeFile(t, filepath.Join(dir, "a/_scratch.go"), "package broken(\n")
				writeFile(t, filepath.Join(dir, "b/sub/notes.md"), "")
			},
			asked: nil, // the go command reads none of them
		},
		{
			name: "the module written again as it was, as a fresh clone is",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
					if err != nil || !d.Type().IsRegular() {
						return err
					}
					b, err := os.ReadFile(path)
					if err != nil {
						return err
					}
					// A new file: another inode, change and modification time.
					if err := os.Remove(path); err != nil {
						return err
					}
					return os.WriteFile(path, b, 0o644)
				}))
			},
			asked: nil, // the same content
		},
		{
			name: "a C file added to a package",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				writeFile(t, filepath.Join(dir, "a/a.h"), "")
			},
			asked: []string{"list_-e", "test_-c"},
		},
		{
			name: "a module nested in a package",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				writeFile(t, filepath.Join(dir, "b/go.mod"), "module example.com/b\n\ngo 1.22\n")
			},
			asked: []string{"list_-e"},
			check: func(t *testing.T, l *listing) {
				require.NotContains(t, l.byPath, "example.com/ans/b")
			},
		},
		{
			name: "a directory added where ./... walks",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				writeFile(t, filepath.Join(dir, "b/sub/deeper/d.go"), "package deeper\n")
			},
			asked: []string{"list_-e"},
			check: func(t *testing.T, l *listing) {
				require.Contains(t, l.byPath, "example.com/ans/b/sub/deeper")
			},
		},
		{
			name: "a go.mod line",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/ans\n\ngo 1.23\n")
			},
			asked: all,
			check: func(t *testing.T, l *listing) {
				require.Equal(t, "1.23", l.byPath["example.com/ans/a"].Module.GoVersion)
			},
		},
		{
			name: "GOFLAGS",
			change: func(t *testing.T, _ string, _ *goRecorder) {
				t.Setenv("GOFLAGS", "-tags=special")
			},
			asked: all,
			check: func(t *testing.T, l *listing) {
				require.Contains(t, l.byPath["example.com/ans/a"].Deps, "strconv")
			},
		},
		{
			name: "the toolchain",
			change: func(t *testing.T, _ string, g *goRecorder) {
				real, _ := exec.LookPath("go")
				g.write(t, real, "reinstalled")
			},
			asked: all,
		},
		{
			name: "the test binary removed",
			change: func(t *testing.T, dir string, _ *goRecorder) {
				require.NoError(t, os.Remove(filepath.Join(dir, "..", "cache", "testbin", "a.test")))
			},
			asked: []string{"test_-c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir, cache := filepath.Join(root, "mod"), filepath.Join(root, "cache")
			answersModule(t, dir)
			uc := testCache(t, cache)
			g := newGoRecorder(t, root)
			newRun := func() *supervisor {
				s := cacheRun(t, Config{Dir: dir, GoCommand: g.path, Packages: []string{"./..."}}, uc)
				s.answers = newAnswers(uc, g.path)
				// The module was written just now: as if it had been
				// written before the cutoff (answerCutoff).
				s.answers.now = func() time.Time { return time.Now().Add(2 * answerCutoff) }
				return s
			}
			answersRun(t, newRun())
			require.Equal(t, all, g.asked(t), "the first run asks everything")
			answersRun(t, newRun())
			require.Empty(t, g.asked(t), "a second run with nothing changed asks nothing")

			tt.change(t, dir, g)
			l := answersRun(t, newRun())
			require.Equal(t, tt.asked, g.asked(t), "what the run after the change asks")
			if tt.check != nil {
				tt.check(t, l)
			}
			answersRun(t, newRun())
			require.Empty(t, g.asked(t), "the new answers are remembered")
		})
	}
}

// TestAnswersCutoff: an answer whose inputs changed just before the
// question is not kept, as a timestamp may not tell a later change from it.
func TestAnswersCutoff(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("answers are kept on Linux only (change times and inodes)")
	}
	root := t.TempDir()
	dir, cache := filepath.Join(root, "mod"), filepath.Join(root, "cache")
	answersModule(t, dir)
	written := time.Now()
	uc := testCache(t, cache)
	g := newGoRecorder(t, root)
	for range 2 {
		s := cacheRun(t, Config{Dir: dir, GoCommand: g.path, Packages: []string{"./..."}}, uc)
		s.answers = newAnswers(uc, g.path)
		// Both runs ask as the module is written, however long the
		// first took: on a busy host it took more than the cutoff.
		s.answers.now = func() time.Time { return written }
		answersRun(t, s)
		asked := g.asked(t)
		require.Contains(t, asked, "list_-e", "a module written within the cutoff is listed every time")
		require.Contains(t, asked, "test_-c")
	}
}

// TestAnswersNotKept: flags naming files answers cannot follow, and a
// listing with an error, are asked every time.
func TestAnswersNotKept(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("answers are kept on Linux only (change times and inodes)")
	}
	tests := []struct {
		name  string
		flags []string
		edit  func(t *testing.T, dir string)
	}{
		{name: "-toolexec", flags: []string{"-toolexec=/bin/true"}},
		{name: "-modfile", flags: []string{"-modfile=go.mod"}},
		{name: "-pgo profile", flags: []string{"-pgo=x.pprof"}},
		{name: "a listing error", edit: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "b/b.go"), "package b\n\nimport _ \"example.com/missing\"\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir, cache := filepath.Join(root, "mod"), filepath.Join(root, "cache")
			answersModule(t, dir)
			if tt.edit != nil {
				tt.edit(t, dir)
			}
			uc := testCache(t, cache)
			g := newGoRecorder(t, root)
			for range 2 {
				s := cacheRun(t, Config{Dir: dir, GoCommand: g.path, Packages: []string{"./..."}, BuildFlags: tt.flags}, uc)
				s.answers = newAnswers(uc, g.path)
				s.answers.now = func() time.Time { return time.Now().Add(2 * answerCutoff) }
				var err error
				s.env, err = s.readGoEnv(context.Background())
				require.NoError(t, err)
				_, err = s.listPackages(context.Background(), nil, s.cfg.Packages)
				require.NoError(t, err)
			}
			asked := g.asked(t)
			require.Equal(t, 2, len(slices.DeleteFunc(asked, func(c string) bool { return c != "list_-e" })), "listed by both runs")
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// TestUsesCgo: only a binary's own packages decide whether its answer can
// be kept; a cgo package elsewhere in the module does not.
func TestUsesCgo(t *testing.T) {
	l := &listing{byPath: map[string]*goPackage{
		"m/p":         {ImportPath: "m/p"},
		"m/cg":        {ImportPath: "m/cg", CgoFiles: []string{"cg.go"}},
		"runtime/cgo": {ImportPath: "runtime/cgo", Standard: true, CgoFiles: []string{"cgo.go"}},
		"m/p.test":    {ImportPath: "m/p.test"},
	}}
	for _, tc := range []struct {
		name  string
		paths []string
		want  bool
	}{
		{"no cgo among its packages, a cgo package beside it", []string{"m/p", "m/p.test"}, false},
		{"links the module's cgo package", []string{"m/p", "m/cg", "m/p.test"}, true},
		{"the standard library's cgo", []string{"m/p", "runtime/cgo"}, false},
		{"a package the listing does not hold", []string{"m/p", "m/gone"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := l.usesCgo(tc.paths); got != tc.want {
				t.Errorf("usesCgo(%v) = %v, want %v", tc.paths, got, tc.want)
			}
		})
	}
}
