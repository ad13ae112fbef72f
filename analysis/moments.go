package analysis

import "math"

// MedianMoments are the mean, standard deviation and coefficient of
// variation of a benchmark's process medians: what tools that report a
// mean and a deviation (benchstat's predecessors, spreadsheets) compare.
// They describe the processes, one value each; they are not the median
// the table shows (docs/design.md#statistics), and a single
// slow process moves them as it never moves the median.
type MedianMoments struct {
	Mean float64
	// SD is the sample standard deviation (n−1 in the denominator); nil
	// for one process, where it is undefined, never 0.
	SD *float64
	// CV is SD/Mean; nil when SD is, or when Mean is 0.
	CV *float64
}

// MomentsOfMedians computes the moments of the process medians given, one
// per process with samples; false for none.
func MomentsOfMedians(medians []float64) (MedianMoments, bool) {
	n := len(medians)
	if n == 0 {
		return MedianMoments{}, false
	}
	sum := 0.0
	for _, m := range medians {
		sum += m
	}
	mm := MedianMoments{Mean: sum / float64(n)}
	if n < 2 {
		return mm, true
	}
	ss := 0.0
	for _, m := range medians {
		d := m - mm.Mean
		ss += d * d
	}
	sd := math.Sqrt(ss / float64(n-1))
	mm.SD = &sd
	if mm.Mean != 0 {
		cv := sd / mm.Mean
		mm.CV = &cv
	}
	return mm, true
}
