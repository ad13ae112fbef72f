package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// nobody is the user planted entries belong to when the test runs as
// root, so that the sticky directory's rules are those between two users.
const nobody = 65534

// stickyDir makes a directory like /run/lock: world-writable and sticky,
// owned by the user running the test.
func stickyDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return dir
}

// asNobody gives path (not what it links to) to nobody when the test runs
// as root; otherwise the entry stays the test user's, and the test says so.
func asNobody(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Logf("not root: %s stays this user's, so the sticky directory's rules between users are not exercised", path)
		return
	}
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// entryState is what a planted entry's target looks like: it must be the
// same after a refused claim.
type entryState struct {
	mode    os.FileMode
	size    int64
	content string
	link    string
	rdev    uint64
	nlink   uint64
}

func stateOf(t *testing.T, path string) entryState {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	s := entryState{mode: fi.Mode(), size: fi.Size(), rdev: st.Rdev, nlink: uint64(st.Nlink)}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		s.link, _ = os.Readlink(path)
	case fi.Mode().IsRegular():
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s.content = string(data)
	case fi.IsDir():
		ents, _ := os.ReadDir(path)
		for _, e := range ents {
			s.content += e.Name() + "\n"
		}
	}
	return s
}

// A link, a hard link, a FIFO, a device or a directory planted at a lock
// file's name is refused with one line naming it, and nothing it leads to
// is opened, truncated or written.
func TestClaimRefusesPlantedLockFiles(t *testing.T) {
	tests := []struct {
		name  string
		root  string // why the case needs root, "" when it does not
		plant func(t *testing.T, lock, scratch string) (watched []string)
		found string // in the error's description of what is there
	}{
		{"symlink to a file", "", func(t *testing.T, lock, scratch string) []string {
			must(t, os.Symlink(scratch, lock))
			return []string{lock, scratch}
		}, "a symbolic link"},
		{"symlink to nowhere", "", func(t *testing.T, lock, scratch string) []string {
			victim := filepath.Join(filepath.Dir(scratch), "would-be-created")
			must(t, os.Symlink(victim, lock))
			t.Cleanup(func() {
				if _, err := os.Lstat(victim); err == nil {
					t.Errorf("%s was created through the planted link", victim)
				}
			})
			return []string{lock}
		}, "a symbolic link"},
		{"hard link", "", func(t *testing.T, lock, scratch string) []string {
			must(t, os.Link(scratch, lock))
			return []string{scratch}
		}, "a regular file with 2 links"},
		{"fifo", "", func(t *testing.T, lock, scratch string) []string {
			must(t, unix.Mkfifo(lock, 0o666))
			return []string{lock}
		}, "a named pipe (FIFO)"},
		{"device", "mknod needs CAP_MKNOD", func(t *testing.T, lock, scratch string) []string {
			must(t, unix.Mknod(lock, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))))
			return []string{lock}
		}, "a character device (1,3)"},
		{"directory", "", func(t *testing.T, lock, scratch string) []string {
			must(t, os.Mkdir(lock, 0o777))
			must(t, os.WriteFile(filepath.Join(lock, "inside"), []byte("x"), 0o644))
			return []string{lock, filepath.Join(lock, "inside")}
		}, "a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root != "" && os.Geteuid() != 0 {
				t.Skipf("not root: %s", tc.root)
			}
			dir := stickyDir(t)
			scratch := filepath.Join(filepath.Dir(dir), "precious")
			must(t, os.WriteFile(scratch, []byte("precious data\n"), 0o640))
			asNobody(t, scratch)
			lock := filepath.Join(dir, "cpu0.lock")
			watched := tc.plant(t, lock, scratch)
			asNobody(t, lock)
			before := map[string]entryState{}
			for _, p := range watched {
				before[p] = stateOf(t, p)
			}

			c, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: -1}, nil)
			if err == nil {
				c.Release()
				t.Fatal("the claim went through a planted entry")
			}
			var ue *UnsafePathError
			if !errors.Is(err, ErrUnsafePath) || !errors.As(err, &ue) {
				t.Fatalf("err = %v, want an *UnsafePathError", err)
			}
			msg := err.Error()
			if ue.Path != lock || !strings.Contains(msg, lock) || !strings.Contains(ue.Found, tc.found) || strings.Contains(msg, "\n") {
				t.Errorf("error %q (path %q, found %q): want one line naming %s as %s", msg, ue.Path, ue.Found, lock, tc.found)
			}
			for _, p := range watched {
				if after := stateOf(t, p); after != before[p] {
					t.Errorf("%s changed: %+v, was %+v", p, after, before[p])
				}
			}
		})
	}
}

// A claim beside a planted entry takes nothing: the CPUs before it are
// free again.
func TestClaimPlantedLetsGo(t *testing.T) {
	dir := stickyDir(t)
	must(t, os.Symlink("/nonexistent", filepath.Join(dir, "cpu1.lock")))
	if _, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0, 1}, Timeout: -1}, nil); !errors.Is(err, ErrUnsafePath) {
		t.Fatalf("err = %v", err)
	}
	c, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: -1}, nil)
	if err != nil {
		t.Fatalf("cpu0 after the refused claim: %v", err)
	}
	c.Release()
}

func TestClaimDirRefused(t *testing.T) {
	tests := []struct {
		name  string
		root  string
		make  func(t *testing.T, dir string)
		found string
		rule  string
	}{
		{"symlink to a sticky dir", "", func(t *testing.T, dir string) {
			real := stickyDir(t)
			must(t, os.Symlink(real, dir))
		}, "a symbolic link", "follows no link"},
		{"owned by another user", "chown needs root", func(t *testing.T, dir string) {
			must(t, os.Mkdir(dir, 0o777))
			must(t, os.Chmod(dir, 0o777|os.ModeSticky))
			must(t, os.Chown(dir, nobody, nobody))
		}, "a directory (owner uid 65534, mode 1777)", "owned by root or by this user"},
		{"world-writable, not sticky", "", func(t *testing.T, dir string) {
			must(t, os.Mkdir(dir, 0o777))
			must(t, os.Chmod(dir, 0o777))
		}, "mode 0777", "must be sticky"},
		{"group-writable, not sticky", "", func(t *testing.T, dir string) {
			must(t, os.Mkdir(dir, 0o777))
			must(t, os.Chmod(dir, 0o770))
		}, "mode 0770", "must be sticky"},
		{"a file", "", func(t *testing.T, dir string) {
			must(t, os.WriteFile(dir, []byte("x"), 0o644))
		}, "a regular file", "must be a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root != "" && os.Geteuid() != 0 {
				t.Skipf("not root: %s", tc.root)
			}
			dir := filepath.Join(t.TempDir(), "claims")
			tc.make(t, dir)
			real, _ := filepath.EvalSymlinks(dir)
			_, err := Claim(context.Background(), ClaimConfig{Dir: dir, CPUs: []int{0}, Timeout: -1}, nil)
			var ue *UnsafePathError
			if !errors.As(err, &ue) || !errors.Is(err, ErrUnsafePath) {
				t.Fatalf("err = %v, want an *UnsafePathError", err)
			}
			if msg := err.Error(); ue.Path != dir || !strings.Contains(ue.Found, tc.found) || !strings.Contains(ue.Rule, tc.rule) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s, %q and %q", msg, dir, tc.found, tc.rule)
			}
			if real != "" {
				if _, err := os.Lstat(filepath.Join(real, "cpu0.lock")); err == nil {
					t.Errorf("a lock file was created in the refused directory %s", real)
				}
			}
		})
	}
	// Accepted: this user's sticky shared directory, and a private one.
	for _, dir := range []string{stickyDir(t), t.TempDir()} {
		if err := ensureClaimDir(dir); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
}

// Another user's sticky directory is fine for ResolveShared's callers when
// they only create by name; the claim refuses it (TestClaimDirRefused).
func TestResolveShared(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: the cases need entries owned by another user (chown)")
	}
	shared := stickyDir(t)
	base := filepath.Dir(shared)
	private := filepath.Join(base, "private")
	must(t, os.Mkdir(private, 0o755))
	target := filepath.Join(private, "target")
	must(t, os.WriteFile(target, []byte("keep\n"), 0o644))

	plant := func(name, to string, owner int) string {
		p := filepath.Join(shared, name)
		must(t, os.Symlink(to, p))
		must(t, os.Lchown(p, owner, owner))
		return p
	}
	theirs := plant("theirs", target, nobody)
	mine := plant("mine", target, os.Geteuid())
	theirDir := plant("theirdir", private, nobody)
	relative := plant("relative", "../private/./target", os.Geteuid())
	theirFile := filepath.Join(shared, "theirfile")
	must(t, os.WriteFile(theirFile, nil, 0o666))
	must(t, os.Chown(theirFile, nobody, nobody))
	privLink := filepath.Join(private, "link")
	must(t, os.Symlink(target, privLink))
	must(t, os.Lchown(privLink, nobody, nobody))

	tests := []struct {
		path, want string
		unsafe     bool
	}{
		{theirs, "", true},
		{mine, target, false},
		{relative, target, false},
		{filepath.Join(theirDir, "out.json"), "", true},
		{theirFile, "", true},
		{filepath.Join(shared, "new.json"), filepath.Join(shared, "new.json"), false},
		{filepath.Join(shared, "no", "such", "dir"), filepath.Join(shared, "no", "such", "dir"), false},
		{privLink, target, false}, // another user's link where only its owner's writes: followed
		{shared, shared, false},
	}
	for _, tc := range tests {
		t.Run(strings.TrimPrefix(tc.path, base+"/"), func(t *testing.T) {
			got, err := ResolveShared(tc.path)
			if tc.unsafe {
				var ue *UnsafePathError
				if !errors.As(err, &ue) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), shared) {
					t.Errorf("ResolveShared(%s) = %q, %v; want a one-line *UnsafePathError", tc.path, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ResolveShared(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		})
	}

	// A file planted after ResolveShared, at a name that was free.
	f, err := os.Open(theirFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := CheckOpened(f, theirFile); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("CheckOpened(another user's file in a sticky dir) = %v", err)
	}
	g, err := os.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := CheckOpened(g, target); err != nil {
		t.Errorf("CheckOpened(this user's file) = %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "keep\n" {
		t.Errorf("target changed: %q", data)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
