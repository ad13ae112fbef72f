package stats

import (
	"cmp"
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

// MethodBlockBootstrap is the Method of a span comparison whose spans
// were resampled in blocks of consecutive spans (in the order they
// began), each side on its own.
const MethodBlockBootstrap = "block-bootstrap"

// CompareSpanQuantiles compares quantiles (0.5 for the median, 0.95, ...)
// of two independent samples of individual span durations: the ratio of
// new's quantile to old's, with a percentile interval from resampling each
// side's spans with replacement. Spans are the unit (a recording has no
// processes to resample), so the interval holds only as far as spans are
// independent of each other. All quantiles are computed from the same
// resamples, one Ratio each, in the order of qs, which ascend. Each resample is drawn as
// counts over the sorted spans, so it costs O(n), not a sort.
func CompareSpanQuantiles(old, new []float64, qs []float64, b Bootstrap) ([]Ratio, error) {
	return CompareSpanQuantileBlocks(old, new, len(old), len(new), qs, b)
}

// CompareSpanQuantileBlocks is CompareSpanQuantiles with each side's spans,
// given in the order they began, cut into oldBlocks and newBlocks runs of
// consecutive spans (as equal as whole spans allow) and resampled a block
// at a time: spans close in time share the host's load, the program's
// warm-up and its garbage collector's cycle, so they vary together, and
// resampling them one by one would give an interval narrower than two
// recordings of the same program differ by. With as many blocks as spans
// it is the spans' own bootstrap (MethodIndependentBootstrap).
func CompareSpanQuantileBlocks(old, new []float64, oldBlocks, newBlocks int, qs []float64, b Bootstrap) ([]Ratio, error) {
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
	if oldBlocks < 2 || newBlocks < 2 || oldBlocks > len(old) || newBlocks > len(new) {
		return nil, errors.New("blocks: want from 2 to the number of spans")
	}
	if err := positive(old, new); err != nil {
		return nil, err
	}
	method := MethodIndependentBootstrap
	if oldBlocks < len(old) || newBlocks < len(new) {
		method = MethodBlockBootstrap
	}
	os, ns := newBlocked(old, oldBlocks), newBlocked(new, newBlocks)
	rng := rand.New(rand.NewPCG(b.Seed, 0x7370616e73)) // "spans"
	logs := make([][]float64, len(qs))
	for i := range logs {
		logs[i] = make([]float64, b.Resamples)
	}
	oq, nq := make([]float64, len(qs)), make([]float64, len(qs))
	for r := range b.Resamples {
		os.resample(rng, qs, oq)
		ns.resample(rng, qs, nq)
		for i := range qs {
			logs[i][r] = math.Log(nq[i]) - math.Log(oq[i])
		}
	}
	out := make([]Ratio, len(qs))
	for i, q := range qs {
		l := logs[i]
		slices.Sort(l)
		out[i] = Ratio{
			Ratio:      quantileSorted(ns.sorted, q) / quantileSorted(os.sorted, q),
			Confidence: b.Confidence, Resamples: b.Resamples, Seed: b.Seed,
			Method: method,
		}
		out[i].Low, out[i].High, out[i].P = logRatioInterval(l, b.Confidence)
	}
	return out, nil
}

// blocked is one side's spans for resampling: sorted, and for each block
// of consecutive spans (in the order they began) the sorted positions of
// its spans.
type blocked struct {
	sorted []float64
	blocks [][]int
	counts []int
}

func newBlocked(spans []float64, nblocks int) *blocked {
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(spans[a], spans[b]) })
	rank := make([]int, len(spans))
	sorted := make([]float64, len(spans))
	for r, i := range order {
		rank[i], sorted[r] = r, spans[i]
	}
	bl := &blocked{sorted: sorted, counts: make([]int, len(spans))}
	for k := range nblocks {
		lo, hi := k*len(spans)/nblocks, (k+1)*len(spans)/nblocks
		bl.blocks = append(bl.blocks, rank[lo:hi])
	}
	return bl
}

// resample draws as many blocks as there are, with replacement, and
// writes the resample's type 7 quantiles qs into out.
func (bl *blocked) resample(rng *rand.Rand, qs, out []float64) {
	clear(bl.counts)
	total := 0
	for range bl.blocks {
		blk := bl.blocks[rng.IntN(len(bl.blocks))]
		for _, r := range blk {
			bl.counts[r]++
		}
		total += len(blk)
	}
	quantilesOfCounts(bl.sorted, bl.counts, total, qs, out)
}

// quantilesOfCounts writes the type 7 quantiles qs of a resample given as
// counts over sorted (total draws in all) into out. qs ascend, so the
// order statistics they need are found in about one pass.
func quantilesOfCounts(sorted []float64, counts []int, total int, qs, out []float64) {
	n := len(sorted)
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
		h := q * float64(total-1)
		lo := math.Floor(h)
		stat[0] = orderStat(int(lo))
		if int(lo)+1 >= total {
			out[j] = stat[0]
			continue
		}
		stat[1] = orderStat(int(lo) + 1)
		out[j] = stat[0] + (h-lo)*(stat[1]-stat[0])
	}
}
