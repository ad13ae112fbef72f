package measure

import (
	"math"
	"slices"
)

// Stats summarizes one stream of values.
type Stats struct {
	N      int     `json:"n"`      // number of values
	Median float64 `json:"median"` // middle value (mean of the two middle values for even N)
	MAD    float64 `json:"mad"`    // median absolute deviation from the median, unscaled
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Summarize returns the statistics of xs, or false when xs is empty or holds
// a NaN or infinity (a summary of such input would be a fabricated number).
func Summarize(xs []float64) (Stats, bool) {
	if len(xs) == 0 {
		return Stats{}, false
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Stats{}, false
		}
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	med := medianSorted(sorted)
	dev := make([]float64, len(sorted))
	for i, x := range sorted {
		dev[i] = math.Abs(x - med)
	}
	slices.Sort(dev)
	return Stats{
		N:      len(xs),
		Median: med,
		MAD:    medianSorted(dev),
		Min:    sorted[0],
		Max:    sorted[len(sorted)-1],
	}, true
}

func medianSorted(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
