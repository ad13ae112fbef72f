//go:build linux

package worker

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/benchsup/benchsup/internal/timingtest"
	"github.com/stretchr/testify/require"
)

// TestTimingCaptureLeavesTheCPU holds the capture's reader to leaving the
// CPU to the code under test while it waits for output, with GOMAXPROCS=1
// (a child confined to one CPU, or in a cgroup of one CPU's quota). A
// reader that waited in a blocking system call kept the process's only P
// until sysmon took it back, up to 10 ms later, and the code under test
// stood still meanwhile: after each of testing's own lines (which the
// reader waits for at once) this test's trials took 2.4 times as long, and
// under taskset -c 0, 22 of 30 fresh processes of a 900 ns/op benchmark
// measured 1.43-1.51 µs/op.
func TestTimingCaptureLeavesTheCPU(t *testing.T) {
	timingtest.Require(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const spins, trials = 20, 9
	spin := func() {
		h := uint64(14695981039346656037)
		for i := range 3_000_000 {
			h ^= uint64(i)
			h *= 1099511628211
		}
		sink = h
	}
	// A trial prints a line of testing's, after which the reader waits at
	// once, then spins; its
	// time is the whole trial's, as a sample's is, since a stall
	// lengthens some spins only.
	trial := func(print func()) time.Duration {
		start := time.Now()
		for range spins {
			print()
			spin()
		}
		return time.Since(start)
	}
	var ratios []float64
	for range trials {
		bare := trial(func() {})
		var captured time.Duration
		_, err := captureOutput(func() {
			captured = trial(func() { fmt.Printf("%c=== RUN   BenchmarkX\n", frameMarker) })
		}, func([]byte, bool, io.Writer) {})
		require.NoError(t, err)
		ratios = append(ratios, float64(captured)/float64(bare))
	}
	slices.Sort(ratios)
	ratio := ratios[len(ratios)/2]
	t.Logf("a trial under the capture against one without, median of %d: %.2fx (range %.2f-%.2f)", trials, ratio, ratios[0], ratios[len(ratios)-1])
	require.Less(t, ratio, 1.1, "the code under test waited for the capture's reader")
}

var sink uint64
