// Package a is integration/faults_linux_test.go's fixture for a full
// temporary directory: its test and its first benchmark fill os.TempDir()
// (the run's TMPDIR, a small tmpfs) until the disk is full, so that every
// write after them, benchsup's and its children's, finds no space.
package a

import (
	"os"
	"path/filepath"
	"testing"
)

// fill appends to TMPDIR/fill until a write fails (no space left).
func fill() error {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "fill"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 1<<16)
	for {
		if _, err := f.Write(buf); err != nil {
			return nil
		}
	}
}

func TestFill(t *testing.T) {
	if err := fill(); err != nil {
		t.Fatal(err)
	}
}

// TestLater runs on the full disk: testing's stream of it may not reach
// the run's file, but its row must say what became of it.
func TestLater(t *testing.T) {
	t.Log("after the fill")
}

func BenchmarkAFill(b *testing.B) {
	if err := fill(); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		_ = make([]byte, 8)
	}
}

func BenchmarkB(b *testing.B) {
	for range b.N {
		_ = make([]byte, 8)
	}
}
