//go:build unix

package rundoc_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/rundoc"
)

// TestReadDocumentFileFIFO: a FIFO nobody writes is refused at once. A
// plain open would wait for a writer forever; within turns that into a
// failure after 30 s.
func TestReadDocumentFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for name, read := range map[string]func(string) error{
		"document":   func(p string) error { _, _, err := rundoc.ReadDocumentFile(p); return err },
		"comparison": func(p string) error { _, _, err := rundoc.ReadComparisonFile(p); return err },
	} {
		t.Run(name, func(t *testing.T) {
			err := within(t, func() error { return read(fifo) })
			assert.ErrorIs(t, err, rundoc.ErrNotRegular)
			assert.EqualError(t, err, fifo+": not a regular file (a named pipe); benchsup reads documents from regular files")
		})
	}
	t.Run("a link to it", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "link.json")
		require.NoError(t, os.Symlink(fifo, link))
		err := within(t, func() error { _, _, err := rundoc.ReadDocumentFile(link); return err })
		assert.ErrorIs(t, err, rundoc.ErrNotRegular)
	})
}
