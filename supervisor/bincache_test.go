package supervisor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestUseCachedAndPrune(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "cache", "p-1.test")
	require.NoError(t, os.MkdirAll(filepath.Dir(src), 0o755))
	require.NoError(t, os.WriteFile(src, []byte("binary v1"), 0o755))
	dst := filepath.Join(dir, "run", "bin", "0-p.test")
	require.NoError(t, useCached(src, dst))
	// A later build replaces the cached file by rename, as the go command
	// does: the run's binary stays what it was.
	tmp := src + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte("binary v2"), 0o755))
	require.NoError(t, os.Rename(tmp, src))
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, "binary v1", string(got))

	old := filepath.Join(dir, "cache", "q-00000000000000000002.test")
	require.NoError(t, os.WriteFile(old, nil, 0o755))
	long := time.Now().Add(-2 * binCacheMaxAge)
	require.NoError(t, os.Chtimes(old, long, long))
	src2 := filepath.Join(dir, "cache", "p-00000000000000000001.test")
	require.NoError(t, os.Rename(src, src2))
	pruneBinCache(filepath.Join(dir, "cache"), time.Now(), DefaultCacheMax, time.Now())
	assert.NoFileExists(t, old, "unused for longer than the maximum age")
	assert.FileExists(t, src2, "used just now")
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
			files := map[string]string{
				"a": cacheFile(t, dir, "a-0000000000000000000a.test", 100, now.Add(-3*time.Hour)),
				"b": cacheFile(t, dir, "b-0000000000000000000b.test", 100, now.Add(-2*time.Hour)),
				"c": cacheFile(t, dir, "c-0000000000000000000c.test", 100, now.Add(-time.Hour)),
				"d": cacheFile(t, dir, "d-0000000000000000000d.test", 100, now.Add(-time.Minute)),
			}
			other := cacheFile(t, dir, "notes.txt", 5000, now.Add(-3*time.Hour))
			pruneBinCache(dir, now, tc.max, tc.keep)
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
	_, err = binCacheDir()
	assert.Error(t, err, "a run refuses a malformed cache setting")
	t.Setenv(CacheEnv, "off")
	_, err = CacheDir()
	assert.ErrorIs(t, err, ErrCacheOff)
	got, err := binCacheDir()
	require.NoError(t, err)
	assert.Empty(t, got, "off: every build links afresh")
	t.Setenv(CacheEnv, t.TempDir())
	t.Setenv(CacheMaxEnv, "big")
	_, err = binCacheDir()
	assert.ErrorContains(t, err, CacheMaxEnv)
}

func TestCleanCache(t *testing.T) {
	root := t.TempDir()
	t.Setenv(CacheEnv, root)
	got, err := CleanCache()
	require.NoError(t, err, "no cache yet: nothing to remove")
	assert.Equal(t, Cleaned{Dir: filepath.Join(root, "testbin"), VetDir: filepath.Join(root, "vet"), AnswersDir: filepath.Join(root, "answers"), RevDir: filepath.Join(root, "rev")}, got)

	dir, err := binCacheDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(root, "testbin"), dir)
	now := time.Now()
	a := cacheFile(t, dir, "a-0000000000000000000a.test", 100, now)
	b := cacheFile(t, dir, "b-0000000000000000000b.test", 28, now)
	mine := cacheFile(t, dir, "README", 7, now)
	outside := cacheFile(t, t.TempDir(), "victim-0000000000000000000e.test", 9, now)
	link := filepath.Join(dir, "l-0000000000000000000f.test")
	require.NoError(t, os.Symlink(outside, link))

	vetDir := filepath.Join(root, "vet")
	require.NoError(t, os.Mkdir(vetDir, 0o700))
	record := cacheFile(t, vetDir, strings.Repeat("ab", 32), 0, now)
	notRecord := cacheFile(t, vetDir, "notes.txt", 3, now)

	answersDir := filepath.Join(root, "answers")
	require.NoError(t, os.Mkdir(answersDir, 0o700))
	answer := cacheFile(t, answersDir, strings.Repeat("cd", 32)+".answer", 5, now)
	notAnswer := cacheFile(t, answersDir, strings.Repeat("cd", 32), 5, now)

	revDir := revExportDir(dir)
	require.Equal(t, filepath.Join(root, "rev"), revDir)
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
	assert.ErrorContains(t, err, "not a directory")
	assert.FileExists(t, victim)

	// Records unused for vetRecordAge go when a run remembers more; a
	// record used since stays.
	require.NoError(t, os.Remove(dir))
	old := cacheFile(t, vetDir, strings.Repeat("cd", 32), 0, now.Add(-vetRecordAge-time.Hour))
	fresh := cacheFile(t, vetDir, strings.Repeat("ef", 32), 0, now)
	n, err := removeVetRecords(vetDir, now.Add(-vetRecordAge))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoFileExists(t, old)
	assert.FileExists(t, fresh)
}
