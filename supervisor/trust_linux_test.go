package supervisor

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/rundoc"
)

// What root trusts (docs/design.md#containment): a directory benchsup
// reuses between runs is used only when it and every directory above it
// belong to root or this user and no one else may write them (a sticky
// directory above benchsup's own aside), walked without following a link
// it cannot trust, and held from then on.

// trustBase is a temporary directory the walk accepts, or the test is
// skipped: above it is the host's TMPDIR, which the test cannot choose.
func trustBase(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	d, err := openTrusted(base, 1, false)
	if err != nil {
		t.Skipf("the test's temporary directory is not one benchsup trusts itself: %v", err)
	}
	d.close()
	return base
}

func mkdirMode(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.Mkdir(path, 0o700))
	require.NoError(t, os.Chmod(path, mode))
}

// TestOpenTrustedModes walks base/anc/own, anc above benchsup's own
// directory own, with the modes and links of each case.
func TestOpenTrustedModes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		make    func(t *testing.T, base string) // makes base/anc and base/anc/own
		create  bool
		refused string // what the error says, "" when the walk succeeds
		is      error  // what the error is, when refused: host.ErrUnsafePath unless set
		missing bool   // refused as not existing
	}{
		{name: "private", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o755)
			mkdirMode(t, b+"/anc/own", 0o700)
		}},
		{name: "own readable by all is made private", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o755)
			mkdirMode(t, b+"/anc/own", 0o755)
		}},
		{name: "group-writable above", refused: "must be sticky", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o775)
			mkdirMode(t, b+"/anc/own", 0o700)
		}},
		{name: "world-writable above", refused: "must be sticky", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o777)
			mkdirMode(t, b+"/anc/own", 0o700)
		}},
		{name: "sticky above, as /tmp", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o777|os.ModeSticky)
			mkdirMode(t, b+"/anc/own", 0o700)
		}},
		{name: "own group-writable", refused: "writable by no other user", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o755)
			mkdirMode(t, b+"/anc/own", 0o770)
		}},
		{name: "own sticky and shared", refused: "writable by no other user", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o755)
			mkdirMode(t, b+"/anc/own", 0o777|os.ModeSticky)
		}},
		{name: "own a link", refused: "follows no link to its own", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o755)
			mkdirMode(t, b+"/real", 0o700)
			require.NoError(t, os.Symlink(b+"/real", b+"/anc/own"))
		}},
		{name: "own a file", refused: "must be a directory", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/anc", 0o755)
			require.NoError(t, os.WriteFile(b+"/anc/own", nil, 0o600))
		}},
		{name: "this user's link above is followed", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/real", 0o755)
			mkdirMode(t, b+"/real/own", 0o700)
			require.NoError(t, os.Symlink("real", b+"/anc"))
		}},
		{name: "a link above to a shared directory", refused: "must be sticky", make: func(t *testing.T, b string) {
			mkdirMode(t, b+"/shared", 0o777)
			mkdirMode(t, b+"/shared/own", 0o700)
			require.NoError(t, os.Symlink(b+"/shared", b+"/anc"))
		}},
		{name: "a loop of links", refused: "too many levels of symbolic links", is: syscall.ELOOP, make: func(t *testing.T, b string) {
			require.NoError(t, os.Symlink("anc", b+"/anc"))
		}},
		{name: "missing, made", create: true, make: func(t *testing.T, b string) {}},
		{name: "missing", missing: true, make: func(t *testing.T, b string) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := trustBase(t)
			tc.make(t, base)
			d, err := openTrusted(filepath.Join(base, "anc", "own"), 1, tc.create)
			switch {
			case tc.missing:
				require.ErrorIs(t, err, fs.ErrNotExist)
				return
			case tc.refused != "":
				if tc.is == nil {
					tc.is = host.ErrUnsafePath
				}
				require.ErrorIs(t, err, tc.is)
				require.ErrorContains(t, err, tc.refused)
				return
			}
			require.NoError(t, err)
			defer d.close()
			real, err := filepath.EvalSymlinks(filepath.Join(base, "anc", "own"))
			require.NoError(t, err)
			assert.Equal(t, real, d.path, "the path walked, without links")
			fi, err := os.Lstat(d.path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "benchsup's own directory is 0700")
			got, err := d.root.Stat(".")
			require.NoError(t, err)
			assert.True(t, os.SameFile(fi, got), "the root held is the directory walked")
		})
	}
	t.Run("relative", func(t *testing.T) {
		_, err := openTrusted("relative/cache", 1, true)
		assert.ErrorContains(t, err, "not an absolute path")
	})
}

// otherUser creates a second local user for the test (removed when it
// ends) and returns its uid and gid; it skips the test where that is
// impossible.
func otherUser(t *testing.T) (uid, gid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: the trust rules are about what root runs, and another user's files need root to make")
	}
	useradd, err := exec.LookPath("useradd")
	if err != nil {
		t.Skip("no useradd to create a second local user with")
	}
	userdel, err := exec.LookPath("userdel")
	if err != nil {
		t.Skip("no userdel to remove a second local user with")
	}
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	name := "bsup" + hex.EncodeToString(b)
	if out, err := exec.Command(useradd, "-M", "--system", name).CombinedOutput(); err != nil {
		t.Skipf("useradd -M --system %s: %v: %s", name, err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command(userdel, name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	u, err := user.Lookup(name)
	require.NoError(t, err)
	uid, err = strconv.Atoi(u.Uid)
	require.NoError(t, err)
	gid, err = strconv.Atoi(u.Gid)
	require.NoError(t, err)
	return uid, gid
}

// chownAll gives path and everything below it to uid, links included.
func chownAll(t *testing.T, path string, uid, gid int) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	}))
}

// cacheEnv sets the variables that place the cache; "" unsets one.
func cacheEnv(t *testing.T, home, xdg, cache string) {
	t.Helper()
	for k, v := range map[string]string{"HOME": home, "XDG_CACHE_HOME": xdg, CacheEnv: cache} {
		t.Setenv(k, v)
		if v == "" {
			os.Unsetenv(k)
		}
	}
}

// TestCacheOfAnotherUser: a cache another user owns or may write, or
// that they own a directory or a link above, is refused with a one-line
// note naming it, and the run uses its private directory; nothing is made
// there. A sticky directory above and root's own link are fine.
func TestCacheOfAnotherUser(t *testing.T) {
	uid, gid := otherUser(t)
	for _, tc := range []struct {
		name string
		// setup makes the directories under base and places the cache.
		setup     func(t *testing.T, base string)
		refused   string // the path the note names; "" when the cache is used
		untouched string // a directory of theirs benchsup must not write into
	}{
		{name: "HOME in their directory (sudo keeping HOME)", refused: "/home", untouched: "/home", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/home", 0o755)
			require.NoError(t, os.Chown(b+"/home", uid, gid))
			cacheEnv(t, b+"/home", "", "")
		}},
		{name: "XDG_CACHE_HOME theirs", refused: "/xdg", untouched: "/xdg", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/xdg", 0o700)
			require.NoError(t, os.Chown(b+"/xdg", uid, gid))
			cacheEnv(t, b+"/home", b+"/xdg", "")
		}},
		{name: "their .cache in root's HOME", refused: "/home/.cache", untouched: "/home/.cache", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/home", 0o755)
			mkdirMode(t, b+"/home/.cache", 0o755)
			require.NoError(t, os.Chown(b+"/home/.cache", uid, gid))
			cacheEnv(t, b+"/home", "", "")
		}},
		{name: "a parent their group can write", refused: "/shared", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/shared", 0o775)
			require.NoError(t, os.Chown(b+"/shared", 0, gid))
			cacheEnv(t, b, "", b+"/shared/cache")
		}},
		{name: "a parent all can write", refused: "/shared", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/shared", 0o777)
			cacheEnv(t, b, "", b+"/shared/cache")
		}},
		{name: "a sticky parent all can write", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/shared", 0o777|os.ModeSticky)
			cacheEnv(t, b, "", b+"/shared/cache")
		}},
		{name: "the cache theirs", refused: "/cache", untouched: "/cache", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/cache", 0o700)
			require.NoError(t, os.Chown(b+"/cache", uid, gid))
			cacheEnv(t, b, "", b+"/cache")
		}},
		{name: "the cache made 0755 by an older benchsup, testbin theirs", refused: "/cache/testbin", untouched: "/cache/testbin", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/cache", 0o755)
			mkdirMode(t, b+"/cache/testbin", 0o755)
			require.NoError(t, os.Chown(b+"/cache/testbin", uid, gid))
			cacheEnv(t, b, "", b+"/cache")
		}},
		{name: "their link in a sticky directory above", refused: "/sticky/link", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/sticky", 0o777|os.ModeSticky)
			mkdirMode(t, b+"/target", 0o755)
			require.NoError(t, os.Symlink(b+"/target", b+"/sticky/link"))
			require.NoError(t, os.Lchown(b+"/sticky/link", uid, gid))
			cacheEnv(t, b, "", b+"/sticky/link/cache")
		}},
		{name: "root's link in a sticky directory above", setup: func(t *testing.T, b string) {
			mkdirMode(t, b+"/sticky", 0o777|os.ModeSticky)
			mkdirMode(t, b+"/target", 0o755)
			require.NoError(t, os.Symlink(b+"/target", b+"/sticky/link"))
			cacheEnv(t, b, "", b+"/sticky/link/cache")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := trustBase(t)
			require.NoError(t, os.Chmod(base, 0o755)) // the other user may look, as in /home
			tc.setup(t, base)
			c, note, err := openRunCache()
			require.NoError(t, err)
			if tc.refused == "" {
				require.NotNil(t, c, "the cache is used")
				c.close()
				assert.Empty(t, note)
				return
			}
			assert.Nil(t, c, "the cache is refused")
			assert.Contains(t, note, "is not used: unsafe path "+base+tc.refused+":", "the note names what was refused")
			assert.NotContains(t, note, "\n", "one line")
			if tc.untouched != "" {
				entries, err := os.ReadDir(base + tc.untouched)
				require.NoError(t, err)
				assert.Empty(t, entries, "nothing made in their directory")
			}

			// The run says so once, and builds in its private directory.
			var warnings bytes.Buffer
			s, err := newSupervisor(Config{Warnings: &warnings})
			require.NoError(t, err)
			defer s.close()
			assert.Nil(t, s.cache)
			assert.Equal(t, note+"\n", warnings.String())
		})
	}

	t.Run("their binary in this user's cache", func(t *testing.T) {
		c := testCache(t, filepath.Join(trustBase(t), "cache"))
		s := cacheRun(t, Config{}, c)
		bins, err := s.scratchBins()
		require.NoError(t, err)
		const key = "p-00000000000000000001.test"
		planted := filepath.Join(c.bin.path, key)
		require.NoError(t, os.WriteFile(planted, []byte("\x7fELF"), 0o755))
		require.NoError(t, os.Chown(planted, uid, gid))
		assert.Nil(t, s.seed(bins, key, "0-p.test"), "not seeded")
		assert.NoFileExists(t, filepath.Join(bins.path, "0-p.test"))
	})
}

// plantScript writes, at path, a script that creates marker when run and
// carries the Go build ID id where the go command looks for one in a
// file that is not an object file: the go command takes it for the up to
// date binary of that ID.
func plantScript(t *testing.T, path, marker, id string) {
	t.Helper()
	script := "#!/bin/sh\ntouch " + marker + "\nexit 0\n\xff Go build ID: \"" + id + "\"\n \xff\n"
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
}

// trustModule writes a module with one passing test and returns its
// directory.
func trustModule(t *testing.T, base string) string {
	t.Helper()
	dir := filepath.Join(base, "mod")
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/trust\n\ngo 1.22\n")
	writeFile(t, filepath.Join(dir, "p", "p.go"), "package p\n\nfunc P() int { return 1 }\n")
	writeFile(t, filepath.Join(dir, "p", "p_test.go"), "package p\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) {\n\tif P() != 1 {\n\t\tt.Fatal(\"P\")\n\t}\n}\n")
	return dir
}

// goPaths pins the go command's own caches where they are, so that a
// HOME moved for the test does not move them (a cold build cache).
func goPaths(t *testing.T) {
	t.Helper()
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Skipf("go env %s: %v", v, err)
		}
		t.Setenv(v, strings.TrimSpace(string(out)))
	}
}

// trustRun runs the module's tests as benchsup run would.
func trustRun(t *testing.T, dir string, warnings *bytes.Buffer) *rundoc.Document {
	t.Helper()
	doc, err := Run(context.Background(), Config{Dir: dir, Packages: []string{"./..."}, Mode: ModeTest, Warnings: warnings})
	require.NoError(t, err)
	return doc
}

// passed reports whether doc's package row and test row passed.
func passed(t *testing.T, doc *rundoc.Document) {
	t.Helper()
	require.NotEmpty(t, doc.Rows)
	for _, r := range doc.Rows {
		msg := ""
		if r.Error != nil {
			msg = *r.Error
		}
		assert.Equal(t, rundoc.OutcomeOK, r.Outcome, "%s %s: %s", r.Package, r.Name, msg)
	}
}

// cachedBinaries returns the names and build IDs of the test binaries in
// dir.
func cachedBinaries(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	ids := map[string]string{}
	for _, e := range entries {
		if cachedName.MatchString(e.Name()) {
			id, err := goBuildID(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			ids[e.Name()] = id
		}
	}
	require.NotEmpty(t, ids, "the first run cached its binaries")
	return ids
}

// TestPlantedCacheNeverRun is the attack without the race: root
// runs with HOME in another user's directory, whose cache holds a script
// under the name and with the build ID of the test binary. The cache is
// refused, the run says so once and passes, and the script never runs.
func TestPlantedCacheNeverRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a fixture module twice")
	}
	uid, gid := otherUser(t)
	base := trustBase(t)
	require.NoError(t, os.Chmod(base, 0o755))
	goPaths(t)
	dir := trustModule(t, base)
	home := filepath.Join(base, "home")
	mkdirMode(t, home, 0o755)

	// The names and build IDs the binaries have under that HOME, from a
	// cache benchsup trusts.
	cacheEnv(t, home, "", filepath.Join(base, "trusted"))
	passed(t, trustRun(t, dir, &bytes.Buffer{}))
	ids := cachedBinaries(t, filepath.Join(base, "trusted", "testbin"))

	marker := filepath.Join(base, "planted-script-ran")
	planted := filepath.Join(home, ".cache", "benchsup", "testbin")
	require.NoError(t, os.MkdirAll(planted, 0o755))
	for name, id := range ids {
		plantScript(t, filepath.Join(planted, name), marker, id)
	}
	chownAll(t, home, uid, gid)

	cacheEnv(t, home, "", "")
	var warnings bytes.Buffer
	passed(t, trustRun(t, dir, &warnings))
	assert.NoFileExists(t, marker, "the planted script ran")
	assert.Equal(t, 1, strings.Count(warnings.String(), "\n"), "one line: %q", warnings.String())
	assert.Contains(t, warnings.String(), "the cache "+filepath.Join(home, ".cache", "benchsup")+" is not used: unsafe path "+home+":")
}

// TestCacheSwappedAfterCheck is the attack: once the run has
// checked its cache, the cache's directory of binaries is replaced by a
// link to another user's directory holding scripts under the binaries'
// names and with their build IDs, theirs or, as if a root process had
// written them there through the link, root's (no owner check tells
// those from the cache's own). The run reads and executes only what it
// checked, through the directory it holds: it passes, the scripts never
// run and nothing is written into their directory.
func TestCacheSwappedAfterCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a fixture module three times")
	}
	uid, gid := otherUser(t)
	base := trustBase(t)
	require.NoError(t, os.Chmod(base, 0o755))
	goPaths(t)
	dir := trustModule(t, base)
	cache := filepath.Join(base, "cache")
	cacheEnv(t, os.Getenv("HOME"), "", cache)
	passed(t, trustRun(t, dir, &bytes.Buffer{}))
	testbin := filepath.Join(cache, "testbin")
	ids := cachedBinaries(t, testbin)

	for i, owner := range []struct {
		name     string
		uid, gid int
	}{{"their scripts", uid, gid}, {"scripts root wrote there", 0, 0}} {
		t.Run(owner.name, func(t *testing.T) {
			marker := filepath.Join(base, "planted-script-ran")
			evil := filepath.Join(base, "evil"+strconv.Itoa(i))
			mkdirMode(t, evil, 0o755)
			for name, id := range ids {
				plantScript(t, filepath.Join(evil, name), marker, id)
			}
			chownAll(t, evil, uid, gid)
			for name := range ids {
				require.NoError(t, os.Chown(filepath.Join(evil, name), owner.uid, owner.gid))
			}
			swapped := false
			testHookCacheChecked = func() {
				swapped = true
				require.NoError(t, os.Rename(testbin, filepath.Join(cache, "moved"+strconv.Itoa(i))))
				require.NoError(t, os.Symlink(evil, testbin))
			}
			t.Cleanup(func() { testHookCacheChecked = nil })

			var warnings bytes.Buffer
			passed(t, trustRun(t, dir, &warnings))
			require.True(t, swapped, "the cache was swapped")
			assert.NoFileExists(t, marker, "the planted script ran")
			assert.Empty(t, warnings.String())
			entries, err := os.ReadDir(evil)
			require.NoError(t, err)
			assert.Len(t, entries, len(ids), "nothing written into their directory")
			for name := range ids {
				fi, err := os.Lstat(filepath.Join(evil, name))
				require.NoError(t, err)
				assert.Equal(t, uint32(owner.uid), fi.Sys().(*syscall.Stat_t).Uid, "%s is still the planted file", name)
			}

			// The next run finds the link and refuses the cache.
			testHookCacheChecked = nil
			c, note, err := openRunCache()
			require.NoError(t, err)
			assert.Nil(t, c)
			assert.Contains(t, note, "unsafe path "+testbin+": found a symbolic link")
			require.NoError(t, os.Remove(testbin))
			require.NoError(t, os.Rename(filepath.Join(cache, "moved"+strconv.Itoa(i)), testbin))
		})
	}
}
