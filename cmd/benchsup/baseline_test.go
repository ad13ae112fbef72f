package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchsup/benchsup/rundoc"
)

// TestSaveBaselineKilled kills a process in the middle of saving a
// baseline (half of the new document written) with SIGKILL: the old
// baseline must be intact, byte for byte, and still a readable document.
func TestSaveBaselineKilled(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "base.json")
	var old bytes.Buffer
	if err := rundoc.WriteJSON(&old, rundoc.Document{Schema: rundoc.SchemaVersion, Meta: rundoc.Meta{Mode: rundoc.ModeBench}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSaveBaselineHalfway$")
	cmd.Env = append(os.Environ(), "BENCHSUP_TEST_SAVE="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "halfway") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the saving process said %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, old.Bytes()) {
		t.Fatalf("the baseline changed under a kill mid-save:\n%s", got)
	}
	if _, _, err := rundoc.ReadDocument(bytes.NewReader(got)); err != nil {
		t.Errorf("the old baseline no longer reads: %v", err)
	}
}

// TestSaveBaselineHalfway is the saving process of TestSaveBaselineKilled:
// it writes half a document over $BENCHSUP_TEST_SAVE as --save-baseline
// does, flushed to the disk, says so, and waits to be killed.
func TestSaveBaselineHalfway(t *testing.T) {
	path := os.Getenv("BENCHSUP_TEST_SAVE")
	if path == "" {
		t.Skip("the saving process of TestSaveBaselineKilled")
	}
	o, err := createOutput("--save-baseline", path)
	if err != nil {
		t.Fatal(err)
	}
	o.commit(func(w io.Writer) error {
		io.WriteString(w, `{"schema": 1, "meta": {"mode": "bench", "date": "`+strings.Repeat("x", 100000))
		if f, ok := w.(interface{ Flush() error }); ok {
			f.Flush()
		}
		os.Stdout.WriteString("halfway\n")
		time.Sleep(time.Minute)
		return nil
	})
}
