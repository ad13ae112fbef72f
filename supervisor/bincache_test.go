package supervisor

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/host"
)

func TestBinCacheKey(t *testing.T) {
	base := binCacheKey("/m", "example.com/m/p", "", []byte(`{"GOFLAGS":""}`), "d1")
	assert.Regexp(t, `^p-[0-9a-f]{20}\.test$`, base)
	assert.Equal(t, base, binCacheKey("/m", "example.com/m/p", "", []byte(`{"GOFLAGS":""}`), "d1"), "the same build, the same name")
	for name, other := range map[string]string{
		"directory": binCacheKey("/n", "example.com/m/p", "", []byte(`{"GOFLAGS":""}`), "d1"),
		"package":   binCacheKey("/m", "example.com/m/q", "", []byte(`{"GOFLAGS":""}`), "d1"),
		"go env":    binCacheKey("/m", "example.com/m/p", "", []byte(`{"GOFLAGS":"-tags=x"}`), "d1"),
		"overlay":   binCacheKey("/m", "example.com/m/p", "", []byte(`{"GOFLAGS":""}`), "d2"),
		"variant":   binCacheKey("/m", "example.com/m/p", "HEAD~1", []byte(`{"GOFLAGS":""}`), "d1"),
	} {
		assert.NotEqual(t, base, other, "a different %s is a different binary", name)
	}
}

// testCache opens (making it) the cache rooted at root, as a run does,
// closed when the test ends.
func testCache(t *testing.T, root string) *userCache {
	t.Helper()
	c, err := openUserCache(root, true)
	require.NoError(t, err)
	t.Cleanup(c.close)
	return c
}

// heldOrNil holds the directory dir as a run holds its cache's, closed
// when the test ends; "" is nil, no cache.
func heldOrNil(t *testing.T, dir string) *heldDir {
	t.Helper()
	if dir == "" {
		return nil
	}
	d, err := holdPath(dir)
	require.NoError(t, err)
	t.Cleanup(d.close)
	return d
}

// cacheRun is a run's supervisor with cfg, its own scratch directory and
// the cache c (nil: none).
func cacheRun(t *testing.T, cfg Config, c *userCache) *supervisor {
	t.Helper()
	s := &supervisor{cfg: cfg, tmp: t.TempDir(), cache: c}
	t.Cleanup(s.bins.close)
	return s
}

// TestSeedAndHold: a cached binary is linked (or copied) into the run's
// directory and held; what a later build puts into the cache changes
// nothing the run executes, and hold refuses what is not a single file of
// this user's.
func TestSeedAndHold(t *testing.T) {
	c := testCache(t, filepath.Join(t.TempDir(), "cache"))
	s := cacheRun(t, Config{}, c)
	bins, err := s.scratchBins()
	require.NoError(t, err)
	fi, err := os.Stat(bins.path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "the run's directory of binaries")

	const key = "p-00000000000000000001.test"
	src := filepath.Join(c.bin.path, key)
	require.NoError(t, os.WriteFile(src, []byte("binary v1"), 0o755))
	assert.Nil(t, s.seed(bins, "q-00000000000000000002.test", "0-q.test"), "nothing cached: nothing seeded")
	seeded := s.seed(bins, key, "0-p.test")
	require.NotNil(t, seeded)
	fi, err = os.Stat(src)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "a cached binary is made 0700 when used (an older benchsup's were 0755)")
	tb, err := s.hold(bins, "0-p.test", key, seeded)
	require.NoError(t, err)
	t.Cleanup(func() { tb.file.Close() })
	assert.Equal(t, src, tb.cached, "the cache's own binary")
	fi, err = os.Stat(src)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "cached binaries are 0700")

	// A later build replaces the cached file by rename, as keepBinary
	// does: the run's binary stays what it was.
	tmp := src + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte("binary v2"), 0o755))
	require.NoError(t, os.Rename(tmp, src))
	got, err := io.ReadAll(io.NewSectionReader(tb.file, 0, 100))
	require.NoError(t, err)
	assert.Equal(t, "binary v1", string(got))

	// What the go command would write anew is kept in the cache.
	require.NoError(t, os.WriteFile(filepath.Join(bins.path, "1-r.test"), []byte("binary r"), 0o777))
	tb, err = s.hold(bins, "1-r.test", "r-00000000000000000003.test", nil)
	require.NoError(t, err)
	t.Cleanup(func() { tb.file.Close() })
	assert.Equal(t, filepath.Join(c.bin.path, "r-00000000000000000003.test"), tb.cached)
	kept, err := os.ReadFile(tb.cached)
	require.NoError(t, err)
	assert.Equal(t, "binary r", string(kept))
	fi, err = tb.file.Stat()
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "made 0700 though the go command wrote 0777")

	t.Run("refused", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("owners and links are checked on Linux")
		}
		outside := filepath.Join(t.TempDir(), "elsewhere")
		require.NoError(t, os.WriteFile(outside, []byte("#!/bin/sh\n"), 0o755))
		require.NoError(t, os.Symlink(outside, filepath.Join(bins.path, "link.test")))
		_, err := s.hold(bins, "link.test", "", nil)
		assert.Error(t, err, "a link at the binary's name")
		require.NoError(t, os.Link(outside, filepath.Join(bins.path, "hard.test")))
		_, err = s.hold(bins, "hard.test", "", nil)
		assert.ErrorContains(t, err, "has 2 links", "a hard link of a file elsewhere")
		require.NoError(t, os.Mkdir(filepath.Join(bins.path, "dir.test"), 0o700))
		_, err = s.hold(bins, "dir.test", "", nil)
		assert.Error(t, err, "a directory")
	})

	old := filepath.Join(c.bin.path, "q-00000000000000000002.test")
	require.NoError(t, os.WriteFile(old, nil, 0o700))
	long := time.Now().Add(-2 * binCacheMaxAge)
	require.NoError(t, os.Chtimes(old, long, long))
	left := filepath.Join(c.bin.path, "q-00000000000000000002.test.12345.tmp")
	require.NoError(t, os.WriteFile(left, nil, 0o700))
	require.NoError(t, os.Chtimes(left, long, long))
	pruneBinCache(c.bin, time.Now(), DefaultCacheMax, time.Now())
	assert.NoFileExists(t, old, "unused for longer than the maximum age")
	assert.NoFileExists(t, left, "left behind by a run killed while keeping it")
	assert.FileExists(t, src, "used just now")
}

// cacheFile writes a cached binary of size bytes last used at used.
func cacheFile(t *testing.T, dir, name string, size int, used time.Time) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, make([]byte, size), 0o755))
	require.NoError(t, os.Chtimes(p, used, used))
	return p
}

func TestPruneBinCacheLeastRecentlyUsed(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name string
		max  int64
		keep time.Time
		gone []string
	}{
		{"under the cap", 1000, now, nil},
		{"oldest first until under the cap", 250, now, []string{"a", "b"}},
		{"one over", 350, now, []string{"a"}},
		{"used since the run began stays", 50, now.Add(-90 * time.Minute), []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			held, err := holdPath(dir)
			require.NoError(t, err)
			defer held.close()
			files := map[string]string{
				"a": cacheFile(t, dir, "a-0000000000000000000a.test", 100, now.Add(-3*time.Hour)),
				"b": cacheFile(t, dir, "b-0000000000000000000b.test", 100, now.Add(-2*time.Hour)),
				"c": cacheFile(t, dir, "c-0000000000000000000c.test", 100, now.Add(-time.Hour)),
				"d": cacheFile(t, dir, "d-0000000000000000000d.test", 100, now.Add(-time.Minute)),
			}
			other := cacheFile(t, dir, "notes.txt", 5000, now.Add(-3*time.Hour))
			pruneBinCache(held, now, tc.max, tc.keep)
			for k, p := range files {
				if slices.Contains(tc.gone, k) {
					assert.NoFileExists(t, p)
				} else {
					assert.FileExists(t, p)
				}
			}
			assert.FileExists(t, other, "not a file benchsup names: neither counted nor removed")
		})
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1024", 1024}, {"2KiB", 2048}, {"1GiB", 1 << 30}, {"500M", 500 << 20},
		{"", -1}, {"0", -1}, {"-5", -1}, {"1.5GiB", -1}, {"1 GiB", -1}, {"500MB", -1}, {"lots", -1}, {"99999999999GiB", -1},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSize(tc.in)
			if tc.want < 0 {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestCacheDirFromEnvironment(t *testing.T) {
	t.Setenv(CacheEnv, "/somewhere/cache")
	dir, err := CacheDir()
	require.NoError(t, err)
	assert.Equal(t, "/somewhere/cache", dir)
	t.Setenv(CacheEnv, "relative/cache")
	_, err = CacheDir()
	assert.ErrorContains(t, err, "not an absolute path")
	_, _, err = openRunCache()
	assert.Error(t, err, "a run refuses a malformed cache setting")
	t.Setenv(CacheEnv, "off")
	_, err = CacheDir()
	assert.ErrorIs(t, err, ErrCacheOff)
	got, note, err := openRunCache()
	require.NoError(t, err)
	assert.Nil(t, got, "off: every build links afresh")
	assert.Empty(t, note, "off is no warning")
	t.Setenv(CacheEnv, t.TempDir())
	t.Setenv(CacheMaxEnv, "big")
	_, _, err = openRunCache()
	assert.ErrorContains(t, err, CacheMaxEnv)
}

func TestCleanCache(t *testing.T) {
	root := t.TempDir()
	t.Setenv(CacheEnv, root)
	got, err := CleanCache()
	require.NoError(t, err, "no cache yet: nothing to remove")
	assert.Equal(t, Cleaned{Dir: filepath.Join(root, "testbin"), VetDir: filepath.Join(root, "vet"), AnswersDir: filepath.Join(root, "answers"), RevDir: filepath.Join(root, "rev")}, got)

	uc, note, err := openRunCache()
	require.NoError(t, err)
	require.Empty(t, note)
	dir := uc.bin.path
	uc.close()
	require.Equal(t, filepath.Join(root, "testbin"), dir)
	for _, d := range []string{root, dir, filepath.Join(root, "vet"), filepath.Join(root, "answers"), filepath.Join(root, "rev")} {
		fi, err := os.Stat(d)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "%s: the cache is 0700", d)
	}
	now := time.Now()
	a := cacheFile(t, dir, "a-0000000000000000000a.test", 100, now)
	b := cacheFile(t, dir, "b-0000000000000000000b.test", 28, now)
	mine := cacheFile(t, dir, "README", 7, now)
	outside := cacheFile(t, t.TempDir(), "victim-0000000000000000000e.test", 9, now)
	link := filepath.Join(dir, "l-0000000000000000000f.test")
	require.NoError(t, os.Symlink(outside, link))

	vetDir := filepath.Join(root, "vet")
	record := cacheFile(t, vetDir, strings.Repeat("ab", 32), 0, now)
	notRecord := cacheFile(t, vetDir, "notes.txt", 3, now)

	answersDir := filepath.Join(root, "answers")
	answer := cacheFile(t, answersDir, strings.Repeat("cd", 32)+".answer", 5, now)
	notAnswer := cacheFile(t, answersDir, strings.Repeat("cd", 32), 5, now)

	revDir := filepath.Join(root, "rev")
	export := filepath.Join(revDir, "commit-"+strings.Repeat("c", 40))
	require.NoError(t, os.MkdirAll(filepath.Join(export, "sub"), 0o755))

	got, err = CleanCache()
	require.NoError(t, err)
	assert.Equal(t, Cleaned{Dir: dir, Files: 2, Bytes: 128, VetDir: vetDir, VetRecords: 1, AnswersDir: answersDir, Answers: 1, RevDir: revDir, RevExports: 1}, got)
	assert.NoFileExists(t, answer)
	assert.FileExists(t, notAnswer, "not a name benchsup gives")
	assert.NoDirExists(t, export)
	assert.NoFileExists(t, record)
	assert.FileExists(t, notRecord, "not a name benchsup gives")
	assert.NoFileExists(t, a)
	assert.NoFileExists(t, b)
	assert.FileExists(t, mine, "not a name benchsup gives")
	assert.FileExists(t, outside, "a link is never followed")
	_, err = os.Lstat(link)
	assert.NoError(t, err, "a link benchsup did not make stays")

	// A cache directory that is a link (planted, or moved by hand) is left
	// alone: what it points to is not benchsup's.
	elsewhere := t.TempDir()
	victim := cacheFile(t, elsewhere, "v-00000000000000000001.test", 5, now)
	require.NoError(t, os.Remove(mine))
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Remove(dir))
	require.NoError(t, os.Symlink(elsewhere, dir))
	_, err = CleanCache()
	if runtime.GOOS == "linux" {
		assert.ErrorIs(t, err, host.ErrUnsafePath)
	}
	assert.ErrorContains(t, err, "left alone")
	assert.FileExists(t, victim)

	// Records unused for vetRecordAge go when a run remembers more; a
	// record used since stays.
	require.NoError(t, os.Remove(dir))
	old := cacheFile(t, vetDir, strings.Repeat("cd", 32), 0, now.Add(-vetRecordAge-time.Hour))
	fresh := cacheFile(t, vetDir, strings.Repeat("ef", 32), 0, now)
	held, err := holdPath(vetDir)
	require.NoError(t, err)
	defer held.close()
	n, err := removeVetRecords(held, now.Add(-vetRecordAge))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoFileExists(t, old)
	assert.FileExists(t, fresh)
}
