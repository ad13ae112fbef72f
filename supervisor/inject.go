package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/benchsup/benchsup"
	"github.com/benchsup/benchsup/report"
)

// benchsupModule is the module path the generated files import the worker
// from.
const benchsupModule = "github.com/benchsup/benchsup"

// Injection methods recorded in the document's provenance.
const (
	injectModfile = "overlay+modfile"              // the module does not require benchsup: temporary go.mod adds it
	injectOwn     = "overlay+modfile (own worker)" // the module requires benchsup: its version's worker, temporary go.sum
	injectSelf    = "overlay"                      // the module is benchsup
)

// moduleBuild is how the packages of one module are built.
type moduleBuild struct {
	dir      string   // module root
	goFlags  []string // extra flags for go test -c and go list
	method   string
	changes  []report.ModuleChange
	compared error // why the build lists could not be compared, if so
}

// goModJSON is the subset of `go mod edit -json` output used here.
type goModJSON struct {
	Module  struct{ Path string }
	Go      string
	Require []struct{ Path, Version string }
	Replace []struct {
		Old struct{ Path string }
	}
}

func readGoMod(ctx context.Context, s *supervisor, gomod string) (*goModJSON, error) {
	out, err := s.goCmd(ctx, filepath.Dir(gomod), "mod", "edit", "-json", gomod).Output()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", gomod, commandError(err))
	}
	var m goModJSON
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("reading %s: %w", gomod, err)
	}
	return &m, nil
}

func (m *goModJSON) mentions(path string) bool {
	if m.Module.Path == path {
		return true
	}
	for _, r := range m.Require {
		if r.Path == path {
			return true
		}
	}
	for _, r := range m.Replace {
		if r.Old.Path == path {
			return true
		}
	}
	return false
}

// prepareModule decides how to link the worker into the module at mod and,
// when the module does not require benchsup, writes a temporary go.mod and
// go.sum that add it, leaving the user's files untouched. It also compares
// the build lists with and without the worker, so a version the worker
// raised is disclosed.
func (s *supervisor) prepareModule(ctx context.Context, mod *goModule, index int) (*moduleBuild, error) {
	mb := &moduleBuild{dir: mod.Dir}
	if mod.GoMod == "" {
		return nil, fmt.Errorf("%w: package outside a module (GOPATH mode)", ErrUnsupported)
	}
	gm, err := readGoMod(ctx, s, mod.GoMod)
	if err != nil {
		return nil, err
	}
	if gm.Module.Path == benchsupModule {
		mb.method = injectSelf
		return mb, nil
	}
	own := gm.mentions(benchsupModule)
	dir := filepath.Join(s.tmp, fmt.Sprintf("mod%d", index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	modfile := filepath.Join(dir, "go.mod")
	orig, err := os.ReadFile(mod.GoMod)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(modfile, orig, 0o644); err != nil {
		return nil, err
	}
	sum, err := os.ReadFile(strings.TrimSuffix(mod.GoMod, ".mod") + ".sum")
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	workerSum, err := fs.ReadFile(benchsup.WorkerSource, "worker.sum")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), mergeSums(sum, workerSum), 0o644); err != nil {
		return nil, err
	}
	mb.goFlags = []string{"-modfile=" + modfile, "-mod=mod"}
	if own {
		// The module requires benchsup (it uses the measure API): its own
		// version's worker is linked. Only go.sum may need lines for the
		// worker's imports, which the module's own code does not import.
		mb.method = injectOwn
		mb.changes, mb.compared = s.compareBuildLists(ctx, mod, gm.Go, modfile, mb.goFlags)
		return mb, nil
	}
	src, err := s.workerSource()
	if err != nil {
		return nil, err
	}
	if out, err := s.goCmd(ctx, mod.Dir, "mod", "edit",
		"-require="+benchsupModule+"@v0.0.0-00010101000000-000000000000",
		"-replace="+benchsupModule+"="+src, modfile).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("editing the temporary go.mod: %w: %s", err, firstLines(string(out), 5))
	}
	mb.method = injectModfile
	mb.changes, mb.compared = s.compareBuildLists(ctx, mod, gm.Go, modfile, mb.goFlags)
	return mb, nil
}

// compareBuildLists lists the module graph without and with the worker
// (which also settles the temporary go.mod before builds run in parallel)
// and returns every module whose selected version changed, plus the go line.
func (s *supervisor) compareBuildLists(ctx context.Context, mod *goModule, goLine, modfile string, flags []string) ([]report.ModuleChange, error) {
	list := func(flags ...string) (map[string]string, error) {
		args := append([]string{"list"}, flags...)
		args = append(args, "-m", "-f", "{{.Path}} {{.Version}}", "all")
		out, err := s.goCmd(ctx, mod.Dir, args...).Output()
		if err != nil {
			return nil, commandError(err)
		}
		versions := map[string]string{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if path, v, ok := strings.Cut(sc.Text(), " "); ok {
				versions[path] = v
			}
		}
		return versions, nil
	}
	with, err := list(flags...)
	if err != nil {
		return nil, fmt.Errorf("listing the build list with the worker: %w", err)
	}
	without, err := list()
	if err != nil {
		return nil, fmt.Errorf("listing the module's own build list: %w", err)
	}
	var changes []report.ModuleChange
	for path, from := range without {
		if to, ok := with[path]; ok && to != from {
			changes = append(changes, report.ModuleChange{Path: path, From: from, To: to})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	// The go command raises the go line when a requirement needs a newer
	// language version; that changes semantics such as loop variables.
	if after, err := readGoMod(ctx, s, modfile); err == nil && after.Go != goLine {
		changes = append(changes, report.ModuleChange{Path: "go (go.mod go line)", From: goLine, To: after.Go})
	}
	return changes, nil
}

// mergeSums appends the lines of extra that sum lacks.
func mergeSums(sum, extra []byte) []byte {
	have := map[string]bool{}
	for _, l := range strings.Split(string(sum), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	out := bytes.TrimRight(sum, "\n")
	if len(out) > 0 {
		out = append(out, '\n')
	}
	for _, l := range strings.Split(string(extra), "\n") {
		if l = strings.TrimSpace(l); l != "" && !have[l] {
			out = append(out, l...)
			out = append(out, '\n')
			have[l] = true
		}
	}
	return out
}

// workerSource writes the embedded worker module once per run and returns
// its directory.
func (s *supervisor) workerSource() (string, error) {
	s.srcOnce.Do(func() {
		dir := filepath.Join(s.tmp, "benchsup-worker")
		s.srcErr = fs.WalkDir(benchsup.WorkerSource, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := fs.ReadFile(benchsup.WorkerSource, path)
			if err != nil {
				return err
			}
			switch path {
			case "worker.mod":
				path = "go.mod"
			case "worker.sum":
				path = "go.sum"
			}
			dst := filepath.Join(dir, filepath.FromSlash(path))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		})
		s.srcDir = dir
	})
	return s.srcDir, s.srcErr
}

// Names of the generated files, as they appear (through the overlay) in the
// package directory.
const (
	genInternal = "zz_benchsup_internal_test.go"
	genExternal = "zz_benchsup_external_test.go"
)

var genTemplate = template.Must(template.New("gen").Parse(`// Code generated by benchsup. DO NOT EDIT.

package {{.Package}}

import (
{{- if .Entry}}
	"testing"
{{end}}
	benchsupworker "github.com/benchsup/benchsup/worker"
)

func init() {
{{- range .Tests}}
	benchsupworker.RegisterTest({{printf "%q" .}}, {{.}})
{{- end}}
{{- range .Benchmarks}}
	benchsupworker.RegisterBenchmark({{printf "%q" .}}, {{.}})
{{- end}}
}
{{if .Entry}}
// TestBenchsupWorker is the entry point benchsup starts the binary with.
func TestBenchsupWorker(t *testing.T) { benchsupworker.Serve(t) }
{{end}}`))

// overlay writes the generated files of one package and the overlay file
// that places them in the package directory; it returns the overlay's path.
func (s *supervisor) overlay(p *pkgPlan, index int) (string, error) {
	dir := filepath.Join(s.tmp, fmt.Sprintf("pkg%d", index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	gen := func(name, pkgName string, funcs testFuncs, entry bool) error {
		target := filepath.Join(p.pkg.Dir, name)
		if _, err := os.Stat(target); err == nil {
			return fmt.Errorf("%s already exists; benchsup needs that name for its generated file", target)
		}
		var buf bytes.Buffer
		if err := genTemplate.Execute(&buf, map[string]any{
			"Package": pkgName, "Tests": funcs.Tests, "Benchmarks": funcs.Benchmarks, "Entry": entry,
		}); err != nil {
			return err
		}
		src := filepath.Join(dir, name)
		replace[target] = src
		return os.WriteFile(src, buf.Bytes(), 0o644)
	}
	if err := gen(genInternal, p.pkg.Name, p.internal, true); err != nil {
		return "", err
	}
	if len(p.pkg.XTestGoFiles) > 0 {
		if err := gen(genExternal, p.pkg.Name+"_test", p.external, false); err != nil {
			return "", err
		}
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, data, 0o644)
}
