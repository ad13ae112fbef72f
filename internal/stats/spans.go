package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
)

// MethodIndependentBootstrap is the Method of a span comparison: each
// side's spans resampled on their own, with replacement.
const MethodIndependentBootstrap = "independent-bootstrap"

// ErrTooFewSpans says a side has too few spans for the quantile asked.
var ErrTooFewSpans = errors.New("too few spans on a side")

// CompareSpanQuantiles compares quantiles (0.5 for the median, 0.95, ...)
// of two independent samples of individual span durations: the ratio of
// new's quantile to old's, with a percentile interval from resampling each
// side's spans with replacement. Spans are the unit (a recording has no
// processes to resample), so the interval holds only as far as spans are
// independent of each other. All quantiles are computed from the same
// resamples, one Ratio each, in the order of qs, which ascend. Each resample is drawn as
// counts over the sorted spans, so it costs O(n), not a sort.
func CompareSpanQuantiles(old, new []float64, qs []float64, b Bootstrap) ([]Ratio, error) {
	if !slices.IsSorted(qs) {
		return nil, errors.New("quantiles out of order")
	}
	b, err := b.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(old) < 2 || len(new) < 2 {
		return nil, ErrTooFewSpans
	}
	if err := positive(old, new); err != nil {
		return nil, err
	}
	os, ns := slices.Clone(old), slices.Clone(new)
	slices.Sort(os)
	slices.Sort(ns)
	rng := rand.New(rand.NewPCG(b.Seed, 0x7370616e73)) // "spans"
	logs := make([][]float64, len(qs))
	for i := range logs {
		logs[i] = make([]float64, b.Resamples)
	}
	oc, nc := make([]int, len(os)), make([]int, len(ns))
	oq, nq := make([]float64, len(qs)), make([]float64, len(qs))
	for r := range b.Resamples {
		resampledQuantiles(rng, os, oc, qs, oq)
		resampledQuantiles(rng, ns, nc, qs, nq)
		for i := range qs {
			logs[i][r] = math.Log(nq[i]) - math.Log(oq[i])
		}
	}
	alpha := (1 - b.Confidence) / 2
	out := make([]Ratio, len(qs))
	for i, q := range qs {
		l := logs[i]
		slices.Sort(l)
		below, above := 0, 0
		for _, x := range l {
			if x <= 0 {
				below++
			}
			if x >= 0 {
				above++
			}
		}
		out[i] = Ratio{
			Ratio: quantileSorted(ns, q) / quantileSorted(os, q),
			Low:   math.Exp(quantileSorted(l, alpha)), High: math.Exp(quantileSorted(l, 1-alpha)),
			Confidence: b.Confidence, Resamples: b.Resamples, Seed: b.Seed,
			P:      math.Min(1, 2*float64(min(below, above)+1)/float64(len(l)+1)),
			Method: MethodIndependentBootstrap,
		}
	}
	return out, nil
}

// resampledQuantiles draws len(sorted) spans with replacement as counts
// over sorted, and writes the resample's type 7 quantiles qs into out.
// qs ascend, so the order statistics they need are found in about one
// pass.
func resampledQuantiles(rng *rand.Rand, sorted []float64, counts []int, qs, out []float64) {
	clear(counts)
	n := len(sorted)
	for range n {
		counts[rng.IntN(n)]++
	}
	// Each quantile needs the order statistics lo and lo+1 (0-based).
	var stat [2]float64
	i, seen := 0, counts[0]
	orderStat := func(k int) float64 {
		// seen is the count of draws at or below sorted[i].
		for seen <= k && i < n-1 {
			i++
			seen += counts[i]
		}
		for i > 0 && seen-counts[i] > k { // lo+1 of one quantile may pass lo of the next
			seen -= counts[i]
			i--
		}
		return sorted[i]
	}
	for j, q := range qs {
		h := q * float64(n-1)
		lo := math.Floor(h)
		stat[0] = orderStat(int(lo))
		if int(lo)+1 >= n {
			out[j] = stat[0]
			continue
		}
		stat[1] = orderStat(int(lo) + 1)
		out[j] = stat[0] + (h-lo)*(stat[1]-stat[0])
	}
}

// QuantileOf is the type 7 q-quantile of xs, which it does not modify.
func QuantileOf(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return quantileSorted(s, q)
}
