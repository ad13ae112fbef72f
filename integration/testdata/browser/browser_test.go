// Package browser is the fixture of integration/browser_test.go: a few
// quick benchmarks, one with sub-benchmarks, one sweeping n, one whose second measuring
// process crashes (so the report shows a failed process beside a good one),
// and a workload of two windows (workload_test.go).
package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var sink int

func work(n int) {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	sink = s
}

func BenchmarkSum(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(100)
	}
}

func BenchmarkSizes(b *testing.B) {
	for _, n := range []struct {
		name string
		n    int
	}{{"small", 10}, {"large", 1000}} {
		b.Run(n.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				work(n.n)
			}
		})
	}
}

// BenchmarkGrow sweeps n: a sweep family, drawn as a log-log plot.
func BenchmarkGrow(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				work(n)
			}
		})
	}
}

// BenchmarkCrashOnce exits in the second process that measures it at the
// fixed N the test asks for (calibration and testing's probe run at other
// N): the first process to create $CRASHDIR/first measures, the first to
// create $CRASHDIR/second dies, so the row has a good process and a failed
// one, and a later run with both files there crashes in none. A process
// decides once: it measures several samples.
func BenchmarkCrashOnce(b *testing.B) {
	if dir := os.Getenv("CRASHDIR"); dir != "" && b.N == 2000 {
		decide.Do(func() {
			crash = !create(filepath.Join(dir, "first")) && create(filepath.Join(dir, "second"))
		})
		if crash {
			os.Exit(3)
		}
	}
	for i := 0; i < b.N; i++ {
		work(100)
	}
}

var (
	decide sync.Once
	crash  bool
)

// create reports whether it made the file, which did not exist.
func create(path string) bool {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	return f.Close() == nil
}
