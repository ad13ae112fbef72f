//go:build linux

package integration

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// interruptModule has a test that passes and one that says it is running
// (a file in $READY) and then waits to be interrupted.
var interruptModule = map[string]string{
	"go.mod": "module example.com/interrupt\n\ngo 1.22\n",
	"int_test.go": `package interrupt

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFirst(t *testing.T) {}

func TestWaits(t *testing.T) {
	os.WriteFile(filepath.Join(os.Getenv("READY"), "ready"), nil, 0o644)
	time.Sleep(5 * time.Minute)
}
`,
}

// testInterruptExitStatus: a SIGINT or SIGTERM ends the run with the
// results so far on stdout, a line saying they are partial, and the exit
// status a shell gives a process the signal killed (128 plus its number),
// even when a file then cannot be written (which the line says too).
func testInterruptExitStatus(t *testing.T) {
	endToEnd(t)
	// One copy for every case, one after the other: the go command
	// compiles the injected worker once per module directory.
	mod := writeModule(t, interruptModule)
	for _, tt := range []struct {
		sig   syscall.Signal
		name  string
		flags []string
		want  int
		also  string // said after the interruption, on its line
	}{
		{syscall.SIGINT, "SIGINT", nil, 130, ""},
		{syscall.SIGTERM, "SIGTERM", nil, 143, ""},
		{syscall.SIGINT, "SIGINT", []string{"--json=/dev/full"}, 130, "; --json: results not written to /dev/full: "},
	} {
		t.Run(strings.Join(append([]string{tt.name}, tt.flags...), " "), func(t *testing.T) {
			ready := t.TempDir()
			args := append([]string{"run", "-v", "--env-set=READY=" + ready, "--timeout=2m"}, tt.flags...)
			cmd := exec.Command(filepath.Join(binDir, "benchsup"), append(args, "./...")...)
			cmd.Dir = mod
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			deadline := time.Now().Add(90 * time.Second) // a cold build of the fixture
			for {
				if _, err := os.Stat(filepath.Join(ready, "ready")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the fixture never got ready; benchsup said:\n%s%s", stdout.String(), stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.want {
				t.Fatalf("benchsup ended with %v, want exit status %d; stderr:\n%s", err, tt.want, stderr.String())
			}
			if !strings.Contains(stdout.String(), "TestFirst") {
				t.Errorf("the partial results lack the test that passed before the %s:\n%s", tt.name, stdout.String())
			}
			want := "benchsup: interrupted (" + tt.name + "): the results above are partial" + tt.also
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
		})
	}
}
