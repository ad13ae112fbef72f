package supervisor

import (
	"os"
	"path/filepath"
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

	old := filepath.Join(dir, "cache", "q-2.test")
	require.NoError(t, os.WriteFile(old, nil, 0o755))
	long := time.Now().Add(-2 * binCacheMaxAge)
	require.NoError(t, os.Chtimes(old, long, long))
	pruneBinCache(filepath.Join(dir, "cache"), time.Now())
	assert.NoFileExists(t, old, "unused for longer than the maximum age")
	assert.FileExists(t, src, "used just now")
}
