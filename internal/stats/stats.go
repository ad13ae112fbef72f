package stats

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

// Interval is a confidence interval with the confidence it achieves.
type Interval struct {
	Low, High  float64
	Confidence float64 // the probability that the interval covers the true median
}

// MedianInterval returns the distribution-free confidence interval of the
// median of the population xs were drawn from (independently): the order
// statistics x(k) and x(n+1-k) of the sorted values for the largest k whose
// coverage, 1 - 2·P(Binomial(n, 1/2) < k), is at least confidence. With too
// few values for that confidence it returns the whole range and the smaller
// confidence the range achieves (3 values: 75%; 5: 93.75%; 6: 96.9%). It
// assumes nothing about the shape of the distribution, which suits
// processes whose medians differ for reasons (heap layout, code placement)
// no model describes. False for fewer than two values.
func MedianInterval(xs []float64, confidence float64) (Interval, bool) {
	n := len(xs)
	if n < 2 {
		return Interval{}, false
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Interval{}, false
		}
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	k := 1
	for k+1 <= n/2 && coverage(n, k+1) >= confidence {
		k++
	}
	return Interval{Low: sorted[k-1], High: sorted[n-k], Confidence: coverage(n, k)}, true
}

// ValuesFor is the fewest independent values whose range reaches
// confidence under MedianInterval's rule (1 - 2·0.5^n at least
// confidence): 95% needs 6 (96.9%), 99% needs 8, 75% needs 3. A
// comparison of pairs tells a user how many pairs a verdict at the asked
// confidence takes from it; 0 for a confidence of 1 or more, which no count
// reaches.
func ValuesFor(confidence float64) int {
	if !(confidence < 1) {
		return 0
	}
	n := 2
	for coverage(n, 1) < confidence {
		n++
	}
	return n
}

// ProcessesFor is the fewest processes a side at which CompareProcesses'
// hierarchical bootstrap reaches confidence: one fewer than ValuesFor (95%:
// 5, 99%: 7). Below it the percentile interval of a median of a few
// processes, which takes few distinct values, covers the truth less often
// than it says: at a nominal 95%, 3 processes a side covered a true ratio
// 90.8% of the time, 4 processes 93.0%, 5 processes 95.8% (at 99%: 5
// processes 98.1%, 7 99.5%; TestProcessesForCalibration).
func ProcessesFor(confidence float64) int {
	return max(2, ValuesFor(confidence)-1)
}

// coverage is the probability that [x(k), x(n+1-k)] of n independent
// values covers their median: 1 - 2·P(Binomial(n, 1/2) <= k-1).
func coverage(n, k int) float64 {
	tail := 0.0
	c := 1.0 // C(n, i)
	for i := 0; i < k; i++ {
		if i > 0 {
			c = c * float64(n-i+1) / float64(i)
		}
		tail += c
	}
	return 1 - 2*tail*math.Pow(0.5, float64(n))
}
