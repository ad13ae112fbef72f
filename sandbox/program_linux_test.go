//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/record"
)

// TestProgramMode: a plain program (Config.Program) runs without the
// handshake: its exit status is its class, the startup deadline never
// applies, the total one does, it gets no protocol endpoint, and a record
// file arrives at descriptor 3 named by record.EnvFD.
func TestProgramMode(t *testing.T) {
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		t.Skip("no /bin/sh")
	}
	memfd, err := os.CreateTemp(t.TempDir(), "region")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memfd.Close() }) // after the parallel subtests
	cases := []struct {
		name    string
		script  string
		startup time.Duration
		total   time.Duration
		file    *os.File
		want    Class
	}{
		{"canceled", "sleep 30", 0, 0, nil, ClassCanceled},
		{"exit 0 is success", "exit 0", 0, 0, nil, ClassSuccess},
		{"nonzero exit", "exit 3", 0, 0, nil, ClassExit},
		{"no startup deadline", "sleep 0.3", 50 * time.Millisecond, 0, nil, ClassSuccess},
		{"total deadline", "sleep 30", 0, 300 * time.Millisecond, nil, ClassExecTimeout},
		{"no endpoint", `test -z "$` + protocol.EnvFD + `" && test ! -e /proc/self/fd/3`, 0, 0, nil, ClassSuccess},
		{"no record fd without a file", `test -z "$` + record.EnvFD + `"`, 0, 0, nil, ClassSuccess},
		{"record file at 3", `test "$` + record.EnvFD + `" = 3 && test -e /proc/self/fd/3 && test ! -e /proc/self/fd/4`, 0, 0, memfd, ClassSuccess},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // the deadlines and sleeps overlap
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.want == ClassCanceled {
				time.AfterFunc(200*time.Millisecond, cancel)
			}
			o := RunProgram(ctx, Config{
				Path: sh, Args: []string{"-c", c.script},
				StartupTimeout: c.startup, TotalTimeout: c.total, RecordFile: c.file,
				Env: EnvPolicy{Keep: []string{"PATH"}},
			})
			if o.Class != c.want {
				t.Errorf("class %v (%v), want %v; stderr %q", o.Class, o.Err, c.want, o.Stderr.Tail)
			}
		})
	}
}

// TestProgramModeReservedName: record.EnvFD is the sandbox's to set.
func TestProgramModeReservedName(t *testing.T) {
	_, err := Start(Config{Path: "/bin/true", Program: true, Env: EnvPolicy{Set: []string{record.EnvFD + "=3"}}})
	if !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Start: %v, want a configuration error", err)
	}
}
