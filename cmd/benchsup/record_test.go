package main

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestRecordCommand runs benchsup record through the CLI on a shell: the
// program's output passes through to stderr, stdout holds the document,
// the exit status is the program's outcome, and bad flags are usage
// errors (run it with -race: both streams tee into one buffer); stderr,
// not a terminal, gets no live view.
func TestRecordCommand(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("benchsup runs children on Linux only")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	cases := []struct {
		name   string
		args   []string
		status int
		stdout []string
		stderr []string
	}{
		{"ok", []string{"record", "--", "/bin/sh", "-c", "echo out; echo err >&2"}, exitOK,
			[]string{"/bin/sh  ok", "no spans: /bin/sh did not use the record package"}, []string{"out\n", "err\n"}},
		{"json", []string{"record", "--format=json", "--", "/bin/sh", "-c", "exit 0"}, exitOK,
			[]string{`"mode": "record"`, `"kind": "program"`}, nil},
		{"failure", []string{"record", "--", "/bin/sh", "-c", "exit 4"}, exitFailed,
			[]string{"/bin/sh  exit", "status 4"}, nil},
		{"ended at --for", []string{"record", "--for=200ms", "--", "/bin/sh", "-c", "sleep 20"}, exitOK,
			[]string{"ended at --for=200ms as asked"}, nil},
		{"no program", []string{"record"}, exitUsage, nil, []string{"no program"}},
		{"bad retention", []string{"record", "--retention=all", "--", "/bin/sh"}, exitUsage, nil, []string{"--retention=all"}},
		{"bad capacity", []string{"record", "--capacity=0", "--", "/bin/sh"}, exitUsage, nil, []string{"--capacity=0"}},
		{"bad format", []string{"record", "--format=benchfmt", "--", "/bin/sh"}, exitUsage, nil, []string{"--format=benchfmt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run(append([]string{"benchsup"}, c.args...), &stdout, &stderr)
			if status != c.status {
				t.Errorf("status %d, want %d; stderr %q", status, c.status, stderr.String())
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			if strings.Contains(stderr.String(), "\x1b") {
				t.Errorf("stderr is not a terminal, yet got control sequences: %q", stderr.String())
			}
			for _, w := range c.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}
