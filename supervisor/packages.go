package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// goPackage is the subset of `go list -json` output the supervisor uses.
type goPackage struct {
	ImportPath   string
	Name         string
	Dir          string
	TestGoFiles  []string
	XTestGoFiles []string
	Module       *goModule
	Error        *struct{ Err string }
}

type goModule struct {
	Path      string
	Dir       string
	GoMod     string
	GoVersion string
}

func (p *goPackage) hasTests() bool { return len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 }

// listPackages resolves patterns as `go test` would, in dir.
func (s *supervisor) listPackages(ctx context.Context, patterns []string) ([]*goPackage, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Name,Dir,TestGoFiles,XTestGoFiles,Module,Error"}, patterns...)
	out, err := s.goCmd(ctx, s.cfg.Dir, args...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", strings.Join(patterns, " "), commandError(err))
	}
	var pkgs []*goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: reading its output: %w", err)
		}
		pkgs = append(pkgs, &p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoPackages, strings.Join(patterns, " "))
	}
	return pkgs, nil
}

// goCmd returns a go command run in dir. It never gets -mod=mod without
// -modfile: the user's go.mod and go.sum are not to be touched.
func (s *supervisor) goCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.cfg.GoCommand, args...)
	cmd.Dir = dir
	return cmd
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
