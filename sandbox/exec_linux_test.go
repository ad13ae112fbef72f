//go:build linux

package sandbox

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecutableByDescriptor runs children from a descriptor the caller
// holds: a child that deletes its own os.Args[0] changes nothing for the
// next one, and the path need not exist at all.
func TestExecutableByDescriptor(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "child.test")
	copyFile(t, exe, copyPath, 0o700)
	f, err := os.Open(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	for i, behaviour := range []string{"delete-self", "ok", "comm"} {
		cfg := helper(behaviour)
		cfg.Path, cfg.Executable = copyPath, f
		o := Run(cfg, testRequest, nil)
		if o.Class != ClassSuccess {
			t.Fatalf("child %d (%s): %v: %v\nstderr: %s", i, behaviour, o.Class, o.Err, o.Stderr.Tail)
		}
		if behaviour == "comm" && !strings.Contains(string(o.Stderr.Tail), "comm=child.test\n") {
			t.Errorf("the process is not named as its program (ps would show another name): stderr %q", o.Stderr.Tail)
		}
		if _, err := os.Stat(copyPath); i == 0 && !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the first child did not delete its os.Args[0] (%v): the test proves nothing", err)
		}
	}
}

func TestExecutableRefused(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("\x7fELF"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func(p string) *os.File {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, tc := range []struct {
		name, path string
		file       *os.File
		field      string
	}{
		{"script", script, open(script), "Executable"},
		{"not executable", plain, open(plain), "Executable"},
		{"directory", dir, open(dir), "Executable"},
		{"no argv[0]", "", open(script), "Path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := spawnAttempts.Load()
			_, err := Start(Config{Path: tc.path, Executable: tc.file})
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("Start = %v, want a *ConfigError of %s", err, tc.field)
			}
			if n := spawnAttempts.Load() - before; n != 0 {
				t.Fatalf("%d spawns for a refused Config", n)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
