package demo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchsup/benchsup/measure"
)

// BenchmarkCountFile is a workload: counting the words of a 16 MiB file is
// one run, not a loop of nanosecond operations. Under benchsup each window
// reports where its wall-clock time went (on CPU, waiting for a CPU, waiting
// for the disk, other), with the file cold, then warm, in the page cache.
// Under plain go test -bench it runs as an ordinary benchmark.
func BenchmarkCountFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "corpus.txt")
	if err := os.WriteFile(path, []byte(corpus(16<<20)), 0o644); err != nil {
		b.Fatal(err)
	}
	measure.Workload(b, func(w *measure.W) {
		count := func() {
			if _, err := CountFile(path); err != nil {
				b.Fatal(err)
			}
		}
		w.Files(measure.Cold, path)
		w.Window("cold", count)
		w.Files(measure.Warm, path)
		w.Window("warm", count)
	})
}
