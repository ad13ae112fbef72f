//go:build unix

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDocumentsFromFIFOs: compare, report, merge and --baseline refuse a
// FIFO at once, in one line, where opening it waited for a writer
// forever; a regression fails after 30 s instead of hanging.
func TestDocumentsFromFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"compare":    {"compare", fifo, fifo},
		"report":     {"report", "--format=markdown", fifo},
		"merge":      {"merge", "--out=" + filepath.Join(dir, "m.json"), fifo, fifo},
		"--baseline": {"run", "--bench", "--dir=" + dir, "--baseline=" + fifo, "./..."},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(append([]string{"benchsup"}, args...), &stdout, &stderr) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("blocked on the FIFO for 30 s")
			}
			if code != exitFailed {
				t.Errorf("exit status %d, want %d", code, exitFailed)
			}
			want := fifo + ": not a regular file (a named pipe); benchsup reads documents from regular files\n"
			if !strings.HasSuffix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q, want one line ending %q", stderr.String(), want)
			}
		})
	}
}
