package supervisor

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
)

// goPackage is the subset of `go list -json` output the supervisor uses.
type goPackage struct {
	ImportPath     string
	Name           string
	Dir            string
	TestGoFiles    []string
	XTestGoFiles   []string
	Module         *goModule
	Error          *struct{ Err string }
	DepOnly        bool     // listed only as a dependency of a matched package
	ForTest        string   // a test variant: the package whose test binary it is compiled for
	Match          []string // the patterns that matched the package
	Deps           []string // every package the package links, transitively
	DefaultGODEBUG string   // of a main package: the test binary's GODEBUG default
	Standard       bool     // in the standard library
	// What answers.go watches: cgo files (headers anywhere) and embedded
	// files (a pattern may match a new file below the package).
	CgoFiles        []string
	EmbedFiles      []string
	TestEmbedFiles  []string
	XTestEmbedFiles []string
}

type goModule struct {
	Path      string
	Version   string
	Main      bool
	Dir       string
	GoMod     string
	GoVersion string
	Replace   *goModule
}

// replacement is m's replacement, nil for none (or no module).
func (m *goModule) replacement() *goModule {
	if m == nil {
		return nil
	}
	return m.Replace
}

// dir is the directory of m's files: its replacement's, if any; "" for
// no module.
func (m *goModule) dir() string {
	if r := m.replacement(); r != nil {
		return r.Dir
	}
	if m == nil {
		return ""
	}
	return m.Dir
}

func (p *goPackage) hasTests() bool { return len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 }

// listing is what one `go list -deps -test` says of the matched packages:
// the packages themselves, and for each its test binary with everything
// that binary links.
type listing struct {
	roots  []*goPackage          // the packages the patterns matched, in the order go test reports them
	byPath map[string]*goPackage // every listed package by import path, test variants included
}

// testMain returns the test binary's main package of root, or nil when
// root has no test files.
func (l *listing) testMain(root *goPackage) *goPackage {
	return l.byPath[root.ImportPath+".test"]
}

// modules returns, sorted, one line per module whose packages the test
// binary of root links: "path version", with " => path version" for a
// replacement. Main modules have no version.
func (l *listing) modules(root *goPackage) []string {
	main := l.testMain(root)
	if main == nil {
		return nil
	}
	seen := map[string]bool{}
	add := func(m *goModule) {
		if m == nil {
			return
		}
		seen[moduleLine(m)] = true
	}
	add(main.Module)
	for _, d := range main.Deps {
		if p := l.byPath[d]; p != nil {
			add(p.Module)
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// links reports whether the test binary of root links a package of the
// module at path.
func (l *listing) links(root *goPackage, path string) bool {
	main := l.testMain(root)
	if main == nil {
		return false
	}
	for _, d := range main.Deps {
		if p := l.byPath[d]; p != nil && p.Module != nil && p.Module.Path == path {
			return true
		}
	}
	return false
}

// listFields are the go list fields the supervisor reads.
const listFields = "ImportPath,Name,Dir,TestGoFiles,XTestGoFiles,Module,Error,DepOnly,ForTest,Match,Deps,DefaultGODEBUG,Standard,CgoFiles,EmbedFiles,TestEmbedFiles,XTestEmbedFiles"

// listPackages resolves patterns as `go test` would, in the run's
// directory, with the run's build flags (they decide the files and the
// dependencies) and flags added to the go command's (an overlay, for the
// measured build's view).
func (s *supervisor) listPackages(ctx context.Context, flags []string, patterns []string) (*listing, error) {
	args := slices.Concat([]string{"list", "-e", "-deps", "-test", "-json=" + listFields}, s.buildFlags(), flags, patterns)
	dir, q := s.answerDir(), s.question(args)
	if out, ok := s.answers.recall(dir, q); ok {
		if l, err := readListing(out, patterns); err == nil {
			return l, nil
		}
	}
	asked := s.answers.clock()
	out, err := s.goCmd(ctx, args...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", strings.Join(patterns, " "), commandError(err))
	}
	l, err := readListing(out, patterns)
	if err != nil {
		return nil, err
	}
	if s.answersFollow(s.env.GOFLAGS) {
		if in, ok := s.listingInputs(l, patterns, nil); ok {
			s.answers.remember(dir, q, asked, out, in)
		}
	}
	return l, nil
}

// readListing reads go list -deps -test -json's output for patterns.
func readListing(out []byte, patterns []string) (*listing, error) {
	l := &listing{byPath: map[string]*goPackage{}}
	var all []*goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(goPackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: reading its output: %w", err)
		}
		l.byPath[p.ImportPath] = p
		all = append(all, p)
	}
	for _, p := range all {
		// -test adds, for each matched package with tests, its test
		// variants (ForTest set) and the test binary's main package
		// "path.test"; the matched packages are the rest.
		isTestMain := p.Name == "main" && strings.HasSuffix(p.ImportPath, ".test") && l.byPath[strings.TrimSuffix(p.ImportPath, ".test")] != nil
		if !p.DepOnly && p.ForTest == "" && !isTestMain {
			l.roots = append(l.roots, p)
		}
	}
	if len(l.roots) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoPackages, strings.Join(patterns, " "))
	}
	sortRoots(l.roots, patterns)
	return l, nil
}

// sortRoots orders the matched packages as go test reports them: by the
// first pattern that matched each, then by import path (the order a
// pattern's matches are found in). -deps lists dependencies first instead.
func sortRoots(roots []*goPackage, patterns []string) {
	first := func(p *goPackage) int {
		for i, pat := range patterns {
			if slices.Contains(p.Match, pat) {
				return i
			}
		}
		return len(patterns)
	}
	slices.SortStableFunc(roots, func(a, b *goPackage) int {
		return cmp.Or(cmp.Compare(first(a), first(b)), strings.Compare(a.ImportPath, b.ImportPath))
	})
}

// goCmd returns a go command run in the run's directory, where go test
// would run: the main module, the workspace and the toolchain are the
// ones go test would use there.
func (s *supervisor) goCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.cfg.GoCommand, args...)
	cmd.Dir = s.cfg.Dir
	return cmd
}

// goEnv is the part of the go command's environment a run depends on.
type goEnv struct {
	GOVERSION  string // the toolchain go test would use in the run's directory
	GOROOT     string // that toolchain's tree
	GOMODCACHE string
	GOFLAGS    string
	GOMOD      string // the main module's go.mod, the null device outside any module
	GOWORK     string // the workspace file, "" for none
	raw        []byte // all of go env -json: what a cached test binary is keyed by
}

func (s *supervisor) readGoEnv(ctx context.Context) (goEnv, error) {
	dir, q := s.answerDir(), []string{"env", "-json"}
	if out, ok := s.answers.recall(dir, q); ok {
		if e, err := readGoEnvJSON(out); err == nil {
			return e, nil
		}
	}
	asked := s.answers.clock()
	out, err := s.goCmd(ctx, "env", "-json").Output()
	if err != nil {
		return goEnv{}, fmt.Errorf("go env: %w", commandError(err))
	}
	e, err := readGoEnvJSON(out)
	if err != nil {
		return e, err
	}
	s.answers.remember(dir, q, asked, out, envInputs(e))
	return e, nil
}

// readGoEnvJSON reads go env -json's output.
func readGoEnvJSON(out []byte) (goEnv, error) {
	var e goEnv
	if err := json.Unmarshal(out, &e); err != nil {
		return e, fmt.Errorf("go env: reading its output: %w", err)
	}
	var all map[string]string
	if err := json.Unmarshal(out, &all); err != nil {
		return e, fmt.Errorf("go env: reading its output: %w", err)
	}
	// GOGCCFLAGS names a fresh temporary directory each time; the rest is
	// what it is for every build.
	delete(all, "GOGCCFLAGS")
	e.raw, _ = json.Marshal(all) // sorted keys
	return e, nil
}

// commandError adds a command's stderr to its error.
func commandError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, firstLines(string(ee.Stderr), 10))
	}
	return err
}

// firstLines returns at most n lines of s, trimmed.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}
