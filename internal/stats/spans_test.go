package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestResampledQuantilesMatchSort checks the counting resample (blocks of
// one span each: the spans' own bootstrap) against sorting the same draws:
// the quantiles must be equal.
func TestResampledQuantilesMatchSort(t *testing.T) {
	for _, n := range []int{2, 3, 10, 101, 400} {
		t.Run("", func(t *testing.T) {
			src := rand.New(rand.NewPCG(uint64(n), 1))
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(src.IntN(50) + 1) // ties included
			}
			slices.Sort(xs)
			qs := []float64{0.5, 0.51, 0.9, 0.95, 0.99, 1}
			out := make([]float64, len(qs))
			bl := newBlocked(xs, n)
			for trial := range 50 {
				a := rand.New(rand.NewPCG(7, uint64(trial)))
				bl.resample(a, qs, out)
				// The same draws, sorted.
				b := rand.New(rand.NewPCG(7, uint64(trial)))
				draw := make([]float64, n)
				for i := range draw {
					draw[i] = xs[b.IntN(n)]
				}
				slices.Sort(draw)
				for j, q := range qs {
					if want := quantileSorted(draw, q); out[j] != want {
						t.Fatalf("n=%d trial %d q=%v: %v, want %v", n, trial, q, out[j], want)
					}
				}
			}
		})
	}
}
