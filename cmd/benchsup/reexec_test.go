package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/sandbox"
)

// TestShimStartsBeforeTheCLI: a re-executed benchsup is a shim before the
// CLI's packages are initialized (internal/reexec), so a child's shim
// never pays for them. The runtime's init trace names every package it
// initialized; a shim with arguments it cannot parse exits 127 at once.
func TestShimStartsBeforeTheCLI(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, sandbox.ShimArg)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 {
		t.Fatalf("shim without arguments: %v, want exit status 127\n%s", err, out)
	}
	inited := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			inited[f[1]] = true
		}
	}
	if !inited["github.com/benchsup/benchsup/sandbox"] {
		t.Fatalf("the init trace does not name the sandbox, which the shim runs in:\n%s", out)
	}
	for _, pkg := range []string{
		"github.com/urfave/cli/v2",
		"github.com/russross/blackfriday/v2",
		"github.com/benchsup/benchsup/report",
		"github.com/benchsup/benchsup/supervisor",
		"net/http",
		"text/template",
		"testing",
	} {
		if inited[pkg] {
			t.Errorf("the shim initialized %s before it ran", pkg)
		}
	}
}
