package supervisor

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	for _, tc := range []struct {
		name  string
		cache string
	}{
		{"the run's own", ""},
		{"kept in the cache", t.TempDir()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := exportRevision(context.Background(), filepath.Join(repo, "sub"), "HEAD~1", t.TempDir(), heldOrNil(t, tc.cache))
			if err != nil {
				t.Fatal(err)
			}
			if tree.cached != (tc.cache != "") {
				t.Errorf("cached = %v with cache %q", tree.cached, tc.cache)
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
			if tc.cache == "" {
				return
			}
			if want := filepath.Join(tc.cache, "commit-"+tree.commit); tree.root != want {
				t.Errorf("cached export at %s, want %s", tree.root, want)
			}
			// The next run finds the export (this file would be gone had
			// it extracted again) and no extraction is left behind.
			mark := filepath.Join(tree.dir, "mark")
			if err := os.WriteFile(mark, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			again, err := exportRevision(context.Background(), filepath.Join(repo, "sub"), "main~1", t.TempDir(), heldOrNil(t, tc.cache))
			if err != nil {
				t.Fatal(err)
			}
			if again.root != tree.root || again.dir != tree.dir {
				t.Errorf("the same commit exported again at %s", again.root)
			}
			if _, err := os.Stat(mark); err != nil {
				t.Errorf("the export was extracted again: %v", err)
			}
			if entries, _ := os.ReadDir(tc.cache); len(entries) != 1 {
				t.Errorf("the cache holds %d entries, want the one export", len(entries))
			}
		})
	}
	if after := status(); after != before {
		t.Errorf("git status changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "sub", "a.txt")); string(b) != "uncommitted" {
		t.Errorf("the working tree's a.txt is now %q", b)
	}
}

// Runs exporting the same commit at once all use one complete export.
func TestCachedExportConcurrent(t *testing.T) {
	cache := t.TempDir()
	held := heldOrNil(t, cache)
	const runs = 8
	roots := make(chan string, runs)
	errs := make(chan error, runs)
	for i := range runs {
		go func() {
			root, err := cachedExport(held, strings.Repeat("a", 40), func(root *os.Root) error {
				return root.WriteFile("f", []byte(strconv.Itoa(i)), 0o644)
			})
			roots <- root
			errs <- err
		}()
	}
	first := ""
	for range runs {
		root, err := <-roots, <-errs
		if err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = root
		}
		if root != first {
			t.Errorf("exports at %s and %s", first, root)
		}
	}
	if _, err := os.ReadFile(filepath.Join(first, "f")); err != nil {
		t.Errorf("the export is not complete: %v", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 1 {
		t.Errorf("the cache holds %d entries, want the one export", len(entries))
	}
}

// A failed extraction leaves nothing, and the next run extracts.
func TestCachedExportFailed(t *testing.T) {
	cache := t.TempDir()
	commit := strings.Repeat("b", 40)
	if _, err := cachedExport(heldOrNil(t, cache), commit, func(*os.Root) error { return errors.New("disk full") }); err == nil {
		t.Fatal("a failed extraction returned no error")
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Fatalf("a failed extraction left %d entries", len(entries))
	}
	extracted := false
	if _, err := cachedExport(heldOrNil(t, cache), commit, func(*os.Root) error { extracted = true; return nil }); err != nil || !extracted {
		t.Errorf("after a failure: err %v, extracted %v", err, extracted)
	}
}

func TestPruneRevExports(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	exists := func(dir, name string) bool {
		_, err := os.Lstat(filepath.Join(dir, name))
		return err == nil
	}
	export := func(dir string, i int, idle time.Duration) string {
		name := fmt.Sprintf("commit-%040x", i)
		mkdirAt(t, filepath.Join(dir, name), now.Add(-idle))
		return name
	}
	t.Run("within the count", func(t *testing.T) {
		// The most recently used are kept however idle, short of a week.
		cache := t.TempDir()
		var kept []string
		for i := range revExportsKept {
			kept = append(kept, export(cache, i, time.Duration(i+1)*24*time.Hour))
		}
		spare := export(cache, revExportsKept, 6*24*time.Hour+time.Hour) // one beyond
		old := export(cache, revExportsKept+1, 8*24*time.Hour)           // past the age
		pruneRevExports(heldOrNil(t, cache), now)
		for _, name := range kept {
			if !exists(cache, name) {
				t.Errorf("%s removed", name)
			}
		}
		for _, name := range []string{spare, old} {
			if exists(cache, name) {
				t.Errorf("%s kept", name)
			}
		}
	})
	t.Run("busy beyond the count", func(t *testing.T) {
		// Used within the hour: kept beyond the count (a run may be
		// building in each); an extraction left behind goes after an hour.
		cache := t.TempDir()
		var busy []string
		for i := range revExportsKept + 2 {
			busy = append(busy, export(cache, i, time.Duration(5*i)*time.Minute))
		}
		idle := export(cache, 99, 2*time.Hour)
		mkdirAt(t, filepath.Join(cache, ".export-123"), now.Add(-2*time.Hour))
		mkdirAt(t, filepath.Join(cache, ".export-456"), now.Add(-time.Minute))
		pruneRevExports(heldOrNil(t, cache), now)
		for _, name := range append(busy, ".export-456") {
			if !exists(cache, name) {
				t.Errorf("%s removed", name)
			}
		}
		for _, name := range []string{idle, ".export-123"} {
			if exists(cache, name) {
				t.Errorf("%s kept", name)
			}
		}
	})
	t.Run("not benchsup's", func(t *testing.T) {
		cache := t.TempDir()
		mkdirAt(t, filepath.Join(cache, "commit-mine"), now.Add(-30*24*time.Hour))
		link := fmt.Sprintf("commit-%040x", 7)
		if err := os.Symlink(t.TempDir(), filepath.Join(cache, link)); err != nil {
			t.Fatal(err)
		}
		pruneRevExports(heldOrNil(t, cache), now)
		for _, name := range []string{"commit-mine", link} {
			if !exists(cache, name) {
				t.Errorf("%s removed", name)
			}
		}
	})
}

func TestRemoveRevExports(t *testing.T) {
	cache := t.TempDir()
	victim := t.TempDir()
	if err := os.WriteFile(filepath.Join(victim, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	mkdirAt(t, filepath.Join(cache, fmt.Sprintf("commit-%040x", 1), "sub"), now)
	mkdirAt(t, filepath.Join(cache, ".export-7"), now)
	mkdirAt(t, filepath.Join(cache, "notes"), now)
	if err := os.Symlink(victim, filepath.Join(cache, fmt.Sprintf("commit-%040x", 2))); err != nil {
		t.Fatal(err)
	}
	n, err := removeRevExports(heldOrNil(t, cache))
	if err != nil || n != 1 {
		t.Errorf("removed %d, %v; want the one export", n, err)
	}
	entries, _ := os.ReadDir(cache)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{fmt.Sprintf("commit-%040x", 2), "notes"}; !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Errorf("a link out of the cache was followed: %v", err)
	}
	if n, err := removeRevExports(nil); n != 0 || err != nil {
		t.Errorf("no directory: %d, %v", n, err)
	}
}

// mkdirAt makes dir and sets its modification time, the time of its last use.
func mkdirAt(t *testing.T, dir string, used time.Time) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dir, used, used); err != nil {
		t.Fatal(err)
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
			_, err := exportRevision(context.Background(), tc.dir, tc.rev, t.TempDir(), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
	_, err := exportRevision(context.Background(), t.TempDir(), "HEAD", t.TempDir(), nil)
	if !errors.Is(err, ErrNotGit) {
		t.Errorf("outside a repository: err = %v, want ErrNotGit", err)
	}
}

// An archive that writes through a link it made, to a directory outside
// the export, is refused, and nothing is written there; one that writes
// through a link inside the export is extracted as git would.
func TestExtractTarStaysInside(t *testing.T) {
	type entry struct {
		name, link, body string
	}
	archive := func(entries ...entry) *bytes.Buffer {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, e := range entries {
			h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(e.body))}
			if e.link != "" {
				h = &tar.Header{Name: e.name, Linkname: e.link, Typeflag: tar.TypeSymlink}
			}
			require.NoError(t, tw.WriteHeader(h))
			_, err := tw.Write([]byte(e.body))
			require.NoError(t, err)
		}
		require.NoError(t, tw.Close())
		return &buf
	}
	outside := t.TempDir()
	for _, tc := range []struct {
		name    string
		entries []entry
		refused bool
	}{
		{"absolute link", []entry{{name: "a", link: outside}, {name: "a/planted", body: "x"}}, true},
		{"relative link out", []entry{{name: "d/a", link: "../../../../../../../.." + outside}, {name: "d/a/planted", body: "x"}}, true},
		{"link inside", []entry{{name: "real/keep", body: "y"}, {name: "a", link: "real"}, {name: "a/planted", body: "x"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root, err := os.OpenRoot(dir)
			require.NoError(t, err)
			defer root.Close()
			err = extractTar(archive(tc.entries...), root)
			entries, _ := os.ReadDir(outside)
			assert.Empty(t, entries, "the archive wrote outside the export")
			if tc.refused {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(dir, "real", "planted"))
			require.NoError(t, err)
			assert.Equal(t, "x", string(b))
		})
	}
}
