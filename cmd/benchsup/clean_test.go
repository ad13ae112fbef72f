package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCleanCommand(t *testing.T) {
	root := t.TempDir()
	t.Setenv("BENCHSUP_CACHE", root)
	dir := filepath.Join(root, "testbin")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p-0123456789abcdef0123.test"), make([]byte, 3<<10), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "q-0123456789abcdef0124.test"), make([]byte, 1<<10), 0o755))

	rev := filepath.Join(root, "rev")
	require.NoError(t, os.MkdirAll(filepath.Join(rev, "commit-0123456789abcdef0123456789abcdef01234567", "sub"), 0o755))

	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, run([]string{"benchsup", "clean"}, &stdout, &stderr), stderr.String())
	assert.Equal(t, "removed 2 test binaries, 4.0 KiB, from "+dir+"\n"+
		"removed 1 exported --against revision from "+rev+"\n", stdout.String())
	revs, err := os.ReadDir(rev)
	require.NoError(t, err)
	assert.Empty(t, revs)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)

	stdout.Reset()
	require.Equal(t, exitOK, run([]string{"benchsup", "clean"}, &stdout, &stderr), stderr.String())
	assert.Equal(t, "removed 0 test binaries, 0 bytes, from "+dir+"\n", stdout.String())

	assert.Equal(t, exitUsage, run([]string{"benchsup", "clean", "x"}, &stdout, &stderr))
	t.Setenv("BENCHSUP_CACHE", "rel")
	stderr.Reset()
	assert.Equal(t, exitFailed, run([]string{"benchsup", "clean"}, &stdout, &stderr))
	assert.Equal(t, "benchsup: clean: BENCHSUP_CACHE=rel is not an absolute path\n", stderr.String())
}

func TestSizeText(t *testing.T) {
	for in, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1 << 10: "1.0 KiB", 1536 << 20: "1.5 GiB"} {
		assert.Equal(t, want, sizeText(in))
	}
}
