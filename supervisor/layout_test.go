package supervisor

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goBinaries returns two Go ELF binaries with different build IDs: this
// test binary and the toolchain's gofmt.
func goBinaries(t *testing.T) (string, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("layout records are read from ELF binaries: Linux only")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command to find a second Go binary with: %v", err)
	}
	other := filepath.Join(strings.TrimSpace(string(goroot)), "bin", "gofmt")
	if _, err := os.Stat(other); err != nil {
		t.Skipf("no second Go binary to compare with: %v", err)
	}
	return self, other
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

func TestGoBuildID(t *testing.T) {
	self, other := goBinaries(t)
	id, err := goBuildID(self)
	require.NoError(t, err)
	if out, err := exec.Command("go", "tool", "buildid", self).Output(); err == nil {
		assert.Equal(t, strings.TrimSpace(string(out)), id, "what go tool buildid reads")
	}
	otherID, err := goBuildID(other)
	require.NoError(t, err)
	assert.NotEqual(t, id, otherID)

	notELF := filepath.Join(t.TempDir(), "x.test")
	require.NoError(t, os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755))
	_, err = goBuildID(notELF)
	assert.Error(t, err)
}

// heldBinary opens the binary path as a run holds one kept in the cache.
func heldBinary(t *testing.T, path string) *testBinary {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return &testBinary{path: path, file: f, cached: path}
}

func TestLayoutRecord(t *testing.T) {
	self, other := goBinaries(t)
	const note = "p.F at go test's offset modulo 4096 (padded by 64 bytes)"
	for _, tc := range []struct {
		name string
		// change runs after the record is written, before it is read.
		change func(t *testing.T, cache, target, padded string)
		padded bool
		recall bool
	}{
		{name: "unchanged measured binary", recall: true},
		{name: "unchanged padded binary", padded: true, recall: true},
		{name: "measured binary rebuilt", change: func(t *testing.T, _, target, _ string) { copyFile(t, other, target) }},
		{name: "padded binary replaced", padded: true, change: func(t *testing.T, _, _, padded string) { copyFile(t, other, padded) }},
		{name: "padded binary trimmed", padded: true, change: func(t *testing.T, _, _, padded string) { require.NoError(t, os.Remove(padded)) }},
		{name: "record names a file outside the cache", padded: true, change: func(t *testing.T, cache, target, padded string) {
			outside := filepath.Join(t.TempDir(), filepath.Base(padded))
			copyFile(t, padded, outside)
			rec, err := os.ReadFile(target + layoutRecordSuffix)
			require.NoError(t, err)
			forged := strings.Replace(string(rec), `"padded":"`, `"padded":"../`+filepath.Base(filepath.Dir(outside))+`/`, 1)
			require.NoError(t, os.WriteFile(target+layoutRecordSuffix, []byte(forged), 0o644))
		}},
		{name: "record damaged", change: func(t *testing.T, _, target, _ string) {
			require.NoError(t, os.WriteFile(target+layoutRecordSuffix, []byte(`{"buildID":`), 0o644))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			held, err := holdPath(cache)
			require.NoError(t, err)
			defer held.close()
			target := filepath.Join(cache, "p-0123456789abcdef0123.test")
			copyFile(t, self, target)
			measured := heldBinary(t, target)
			bin := measured
			if tc.padded {
				padded := filepath.Join(cache, "p-fedcba9876543210fedc.test")
				copyFile(t, self, padded)
				bin = heldBinary(t, padded)
			}
			rememberLayout(held, measured, bin, note)
			if tc.change != nil {
				tc.change(t, cache, target, bin.path)
			}
			// The next run holds what the cache has then.
			fetch := func(key string) *testBinary {
				if _, err := os.Stat(filepath.Join(cache, key)); err != nil {
					return nil
				}
				return heldBinary(t, filepath.Join(cache, key))
			}
			got, layout, ok := recallLayout(held, heldBinary(t, target), fetch)
			require.Equal(t, tc.recall, ok)
			if ok {
				assert.Equal(t, bin.cached, got.cached)
				assert.Equal(t, note, layout)
			}
		})
	}

	t.Run("only binaries of the cache", func(t *testing.T) {
		cache := t.TempDir()
		held, err := holdPath(cache)
		require.NoError(t, err)
		defer held.close()
		target := filepath.Join(t.TempDir(), "p-0123456789abcdef0123.test")
		copyFile(t, self, target)
		measured := heldBinary(t, target)
		rememberLayout(held, measured, measured, note)
		_, _, ok := recallLayout(held, measured, func(string) *testBinary { return nil })
		assert.False(t, ok)
		assert.NoFileExists(t, target+layoutRecordSuffix)
		assert.NoFileExists(t, filepath.Join(cache, filepath.Base(target)+layoutRecordSuffix))
	})
}

func TestLayoutRecordsRemovedWithBinaries(t *testing.T) {
	self, _ := goBinaries(t)
	cache := t.TempDir()
	held, err := holdPath(cache)
	require.NoError(t, err)
	defer held.close()
	old := time.Now().Add(-2 * binCacheMaxAge)
	target := filepath.Join(cache, "p-0123456789abcdef0123.test")
	copyFile(t, self, target)
	rememberLayout(held, heldBinary(t, target), heldBinary(t, target), "p.F at go test's offset modulo 4096 (no padding needed)")
	require.FileExists(t, target+layoutRecordSuffix)
	require.NoError(t, os.Chtimes(target, old, old))
	pruneBinCache(held, time.Now(), DefaultCacheMax, time.Now())
	assert.NoFileExists(t, target)
	assert.NoFileExists(t, target+layoutRecordSuffix, "trimmed with its binary")

	// clean removes records, and one a run left half written.
	root := t.TempDir()
	t.Setenv(CacheEnv, root)
	uc := testCache(t, root)
	dir := uc.bin.path
	target = filepath.Join(dir, "p-0123456789abcdef0123.test")
	copyFile(t, self, target)
	measured := heldBinary(t, target)
	rememberLayout(uc.bin, measured, measured, "p.F at go test's offset modulo 4096 (no padding needed)")
	stray := target + layoutRecordSuffix + ".123.tmp"
	require.NoError(t, os.WriteFile(stray, nil, 0o644))
	mine := filepath.Join(dir, "notes.layout")
	require.NoError(t, os.WriteFile(mine, nil, 0o644))
	got, err := CleanCache()
	require.NoError(t, err)
	assert.Equal(t, 1, got.Files)
	assert.NoFileExists(t, target+layoutRecordSuffix)
	assert.NoFileExists(t, stray)
	assert.FileExists(t, mine, "not a name benchsup gives")
}
