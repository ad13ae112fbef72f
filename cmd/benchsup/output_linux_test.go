package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutputFileOpen(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // "" when it opens
	}{
		{"missing directory", filepath.Join(dir, "missing", "out.json"), "no such file or directory"},
		{"a directory", dir, "it is a directory"},
		{"under /proc", "/proc/benchsup-out.json", "/proc/benchsup-out.json"},
		{"under /proc/self", "/proc/self/nonexistent/out.json", "no such file or directory"},
		{"a FIFO nobody reads", fifo, "no such device or address"},
		{"new file", filepath.Join(dir, "new.json"), ""},
		{"/dev/full", "/dev/full", ""}, // fails only when written: see TestOutputFileCommit
		{"/dev/null", "/dev/null", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := createOutput("--json", tt.path)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("createOutput(%s): %v", tt.path, err)
				}
				o.abort()
				if _, err := os.Stat(filepath.Join(dir, "new.json")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("abort left a file behind: %v", err)
				}
				return
			}
			if err == nil {
				o.abort()
				t.Fatalf("createOutput(%s) succeeded, want an error mentioning %q", tt.path, tt.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "--json "+tt.path+": cannot write there: ") || !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming --json %s and %q", msg, tt.path, tt.want)
			}
		})
	}
	if o, err := createOutput("--json", ""); o != nil || err != nil {
		t.Errorf("no path: %v, %v; want nothing", o, err)
	}
}

func TestOutputFileCommit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cases name Linux paths (/dev/full)")
	}
	const old = "old results\n"
	errWrite := errors.New("renderer failed")
	tests := []struct {
		name     string
		path     func(dir string) string // the flag's value; dir/out.json holds old
		write    func(io.Writer) error
		wantErr  string
		wantFile string // what dir/out.json holds afterwards
	}{
		{
			name:     "replaces",
			path:     func(dir string) string { return filepath.Join(dir, "out.json") },
			write:    func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err },
			wantFile: "new\n",
		},
		{
			name:     "through a symbolic link",
			path:     func(dir string) string { return filepath.Join(dir, "link.json") },
			write:    func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err },
			wantFile: "new\n",
		},
		{
			name: "a failed write keeps the old file",
			path: func(dir string) string { return filepath.Join(dir, "out.json") },
			write: func(w io.Writer) error {
				io.WriteString(w, strings.Repeat("x", 10000)) // past the buffer: part of it reached the file
				return errWrite
			},
			wantErr:  "renderer failed",
			wantFile: old,
		},
		{
			name:     "/dev/full",
			path:     func(string) string { return "/dev/full" },
			write:    func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err },
			wantErr:  "no space left on device",
			wantFile: old,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "out.json")
			if err := os.WriteFile(target, []byte(old), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("out.json", filepath.Join(dir, "link.json")); err != nil {
				t.Fatal(err)
			}
			path := tt.path(dir)
			o, err := createOutput("--json", path)
			if err != nil {
				t.Fatal(err)
			}
			err = o.commit(tt.write)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("commit: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "results not written to "+path)):
				t.Errorf("commit: %v; want an error saying results not written to %s: %s", err, path, tt.wantErr)
			}
			got, rerr := os.ReadFile(target)
			if rerr != nil || string(got) != tt.wantFile {
				t.Errorf("%s holds %q (%v), want %q", target, got, rerr, tt.wantFile)
			}
			if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o640 {
				t.Errorf("%s: mode %v (%v), want the old file's 0640", target, fi.Mode(), err)
			}
			if fi, err := os.Lstat(filepath.Join(dir, "link.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the symbolic link was replaced: %v, %v", fi.Mode(), err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 2 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("%s holds %q: a temporary file was left", dir, names)
			}
		})
	}
}

// TestOutputCheckedFirst: a --json path that cannot be written fails the
// command before anything runs (here, before the missing --dir would).
func TestOutputCheckedFirst(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("fresh-process children need Linux")
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"benchsup", "run", "--dir=" + filepath.Join(t.TempDir(), "nowhere"), "--json=/proc/nonexistent/out.json", "./..."}, &stdout, &stderr)
	if code != exitFailed {
		t.Errorf("exit status %d, want %d", code, exitFailed)
	}
	want := "benchsup: --json /proc/nonexistent/out.json: cannot write there: "
	if !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q, want one line starting %q", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
}

// TestCoverProfileCheckedFirst: a -coverprofile that cannot be written is
// a usage error before anything runs (before the missing --dir would
// fail the run), not a warning after the tests with exit status 0.
func TestCoverProfileCheckedFirst(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"benchsup", "run", "--dir=" + filepath.Join(t.TempDir(), "nowhere"), "-coverprofile=/proc/nonexistent/c.out", "./..."}, &stdout, &stderr)
	if code != exitUsage {
		t.Errorf("exit status %d, want %d", code, exitUsage)
	}
	want := "benchsup: -coverprofile /proc/nonexistent/c.out: cannot write there: "
	if !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q, want one line starting %q", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
}

func TestCheckCoverProfile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	for _, tc := range []struct {
		name, path string
		want       string // in the error; "" for none
	}{
		{"none", "", ""},
		{"a new file", filepath.Join(dir, "c.out"), ""},
		{"relative to --dir", "sub/c.out", ""},
		{"a missing directory", filepath.Join(dir, "missing", "c.out"), "no such file or directory"},
		{"relative, missing under --dir", "missing/c.out", "no such file or directory"},
		{"a directory", filepath.Join(dir, "sub"), "it is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkCoverProfile(tc.path, dir)
			if tc.want == "" {
				assert.NoError(t, err)
			} else {
				var ue usageError
				require.ErrorAs(t, err, &ue)
				assert.ErrorContains(t, err, "-coverprofile "+tc.path+": cannot write there: ")
				assert.ErrorContains(t, err, tc.want)
			}
			for _, d := range []string{dir, filepath.Join(dir, "sub")} {
				ents, err := os.ReadDir(d)
				require.NoError(t, err)
				for _, e := range ents {
					assert.False(t, strings.Contains(e.Name(), ".benchsup-"), "a temporary file was left: %s", e.Name())
				}
			}
		})
	}
}
