//go:build !linux

package sources

import (
	"fmt"
	"os"
	"runtime"
)

// Page-cache control is Linux-only for now: posix_fadvise does not exist on
// macOS or Windows, and mincore's view of file pages differs by OS. A cold
// request here fails, saying so; a warm one still reads the files through,
// and its stamp is unverified.

func fileResidency(f *os.File, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	return 0, fmt.Errorf("%w: page-cache residency is implemented for Linux only (this is %s/%s)", ErrNoResidency, runtime.GOOS, runtime.GOARCH)
}

func evictFile(f *os.File) error {
	return fmt.Errorf("evicting files from the page cache is implemented for Linux only (this is %s/%s)", runtime.GOOS, runtime.GOARCH)
}

func preloadFile(f *os.File) error {
	return readThrough(f)
}

// fileSystem names f's file system; here it is not known.
func fileSystem(f *os.File) (name string, memoryOnly bool) {
	return "file system unknown on " + runtime.GOOS, false
}
