package supervisor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a repository with two commits of sub/a.txt ("one", then
// "two") and returns its directory.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("sub/a.txt", "one")
	write("sub/link-target.txt", "target")
	if err := os.Symlink("link-target.txt", filepath.Join(dir, "sub", "link.txt")); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "one")
	write("sub/a.txt", "two")
	git("commit", "-q", "-am", "two")
	write("sub/a.txt", "uncommitted")
	write("sub/staged.txt", "staged")
	git("add", "sub/staged.txt")
	return dir
}

func TestExportRevision(t *testing.T) {
	repo := gitRepo(t)
	status := func() string {
		out, err := exec.Command("git", "-C", repo, "status", "--porcelain").CombinedOutput()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	before := status()
	tree, err := exportRevision(context.Background(), filepath.Join(repo, "sub"), "HEAD~1", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(tree.dir, "a.txt"))
	if err != nil || string(got) != "one" {
		t.Errorf("exported a.txt = %q, %v; want the first commit's \"one\"", got, err)
	}
	if _, err := os.Stat(filepath.Join(tree.dir, "staged.txt")); !os.IsNotExist(err) {
		t.Errorf("the export holds a file only the index has (%v)", err)
	}
	if target, err := os.Readlink(filepath.Join(tree.dir, "link.txt")); err != nil || target != "link-target.txt" {
		t.Errorf("symbolic link exported as %q, %v", target, err)
	}
	if len(tree.commit) < 40 {
		t.Errorf("commit %q is not a full hash", tree.commit)
	}
	if after := status(); after != before {
		t.Errorf("git status changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "sub", "a.txt")); string(b) != "uncommitted" {
		t.Errorf("the working tree's a.txt is now %q", b)
	}
}

func TestExportRevisionErrors(t *testing.T) {
	repo := gitRepo(t)
	for _, tc := range []struct{ name, dir, rev, want string }{
		{"no such revision", repo, "no-such-branch", "no such commit"},
		{"a revision read as a flag", repo, "--output=/tmp/x", "no such commit"},
		{"a tree, not a commit", repo, "HEAD^{tree}", "no such commit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := exportRevision(context.Background(), tc.dir, tc.rev, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
	_, err := exportRevision(context.Background(), t.TempDir(), "HEAD", t.TempDir())
	if !errors.Is(err, ErrNotGit) {
		t.Errorf("outside a repository: err = %v, want ErrNotGit", err)
	}
}
