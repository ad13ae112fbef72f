package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A link planted at a lock file's name fails the run with exit status 1
// and one line naming it; the file it points to is untouched.
func TestClaimPlantedLink(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the host claim is implemented for Linux only")
	}
	base := t.TempDir()
	claims := filepath.Join(base, "claims")
	if err := os.Mkdir(claims, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(claims, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(base, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(claims, "cpu0.lock")
	if err := os.Symlink(victim, lock); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Lchown(lock, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"benchsup", "run", "--bench", "--claim", "--claim-timeout=0", "--cpus=0", "--claim-dir=" + claims, "--dir=" + filepath.Join(base, "nowhere"), "./..."}, &stdout, &stderr)
	if code != exitFailed {
		t.Errorf("exit status %d, want %d", code, exitFailed)
	}
	want := "benchsup: host claim: unsafe path " + lock + ": found a symbolic link"
	if !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want one line on stderr starting %q", stdout.String(), stderr.String(), want)
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "precious\n" {
		t.Errorf("the link's target holds %q (%v)", data, err)
	}
}
