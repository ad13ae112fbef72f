package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap configures the seeded hierarchical bootstrap of a comparison.
// The zero value means the defaults.
type Bootstrap struct {
	// Confidence is the interval's nominal coverage; zero means
	// DefaultConfidence. It must lie in [MinConfidence, MaxConfidence].
	Confidence float64
	// Resamples is the number of bootstrap resamples; zero means
	// DefaultResamples. It must lie in [MinResamples, MaxResamples].
	Resamples int
	// Seed makes the resampling deterministic: the same inputs and seed
	// give the same interval, bit for bit.
	Seed uint64
}

// Bounds and defaults of Bootstrap.
const (
	DefaultConfidence = 0.95
	MinConfidence     = 0.5
	MaxConfidence     = 0.999
	DefaultResamples  = 10000
	MinResamples      = 1000
	MaxResamples      = 1000000
)

// ErrBootstrapConfig is wrapped by the error a Bootstrap out of bounds gives.
var ErrBootstrapConfig = errors.New("bootstrap configuration out of bounds")

// ErrTooFewProcesses says a side has fewer than two processes with values:
// one process says nothing about how much processes differ, so no interval
// can be drawn.
var ErrTooFewProcesses = errors.New("fewer than two processes with values on a side")

// ErrNotPositive says a value is zero, negative or not finite: a ratio of
// such values means nothing.
var ErrNotPositive = errors.New("a value is not positive and finite")

// withDefaults returns b with zero fields defaulted, or an error naming the
// field out of bounds.
func (b Bootstrap) withDefaults() (Bootstrap, error) {
	if b.Confidence == 0 {
		b.Confidence = DefaultConfidence
	}
	if b.Resamples == 0 {
		b.Resamples = DefaultResamples
	}
	if !(b.Confidence >= MinConfidence && b.Confidence <= MaxConfidence) {
		return b, fmt.Errorf("%w: confidence %v is outside [%v, %v]", ErrBootstrapConfig, b.Confidence, MinConfidence, MaxConfidence)
	}
	if b.Resamples < MinResamples || b.Resamples > MaxResamples {
		return b, fmt.Errorf("%w: %d resamples is outside [%d, %d]", ErrBootstrapConfig, b.Resamples, MinResamples, MaxResamples)
	}
	return b, nil
}

// Ratio is how NEW compares with OLD, with its interval. For
// independent sides it is the ratio of their centers, each the median over
// processes of per-process medians; for pairs (ComparePairs) it is the
// median over pairs of each pair's ratio of process medians, in which
// whatever moved both processes of a pair cancels.
type Ratio struct {
	Ratio      float64 // center(new) / center(old)
	Low, High  float64 // the percentile interval of the ratio
	Confidence float64
	Resamples  int // 0 when nothing was resampled (Paired)
	Seed       uint64
	// P is the two-sided p-value of "no difference": for independent
	// sides twice the smaller share of resampled ratios on either side of
	// 1 (with the usual +1 correction), at most 1; for pairs the exact sign
	// test.
	P float64
	// Paired says the unit was a pair of processes run next to each other
	// (ComparePairs), not each side's processes on their own.
	Paired bool
	// Method names how the interval was drawn.
	Method string
}

// Ratio.Method values.
const (
	MethodHierarchicalBootstrap = "hierarchical-bootstrap"
	MethodPairedSign            = "paired-order-statistics"
)

// Verdict values.
const (
	VerdictFaster       = "faster"
	VerdictSlower       = "slower"
	VerdictEquivalent   = "equivalent"
	VerdictInconclusive = "inconclusive"
)

// Verdict judges r against a practical threshold t (0.02 for 2%): slower
// when the whole interval lies above 1+t, faster when it lies below
// 1/(1+t), equivalent when it lies inside [1/(1+t), 1+t], and inconclusive
// otherwise. A difference is reported only when the interval clears the
// threshold, so a tiny but certain change is "equivalent", not "slower".
func (r Ratio) Verdict(t float64) string {
	hi, lo := 1+t, 1/(1+t)
	switch {
	case r.Low > hi:
		return VerdictSlower
	case r.High < lo:
		return VerdictFaster
	case r.Low >= lo && r.High <= hi:
		return VerdictEquivalent
	}
	return VerdictInconclusive
}

// CompareProcesses compares two independent sets of processes, each
// process given by its samples' values (ns/op, or any positive
// per-iteration value). The hierarchical bootstrap resamples each side's
// processes with replacement, then each chosen process's samples, so the
// interval carries the variation between processes, which one process's
// samples cannot show, and never pools samples of different processes.
func CompareProcesses(old, new [][]float64, b Bootstrap) (Ratio, error) {
	return compare(old, new, b)
}

// ComparePairs compares processes run in pairs (old[i] next to new[i], in
// a balanced order). Each pair gives one value, the ratio of its processes'
// medians, in which whatever moved both processes of a pair (drift of the
// host) cancels; the ratio is the median of those, and its interval the
// distribution-free interval of that median from the order statistics of
// the pair ratios (MedianInterval), whose confidence is exact rather than
// approximate. A bootstrap of the median of a few pairs is not: with 5 to 10
// pairs its percentile interval covered the truth only 85–94% of the time
// at a nominal 95% (TestCompareCalibration), because a resampled median
// can take only a few distinct values. The confidence achieved is the
// largest the pair count allows at or above the one asked for (6 pairs:
// 96.9%), or, with too few pairs for it, what their range achieves (5
// pairs: 93.75%), and is reported as such. P is the exact two-sided sign
// test. b.Resamples is not used. old and new must have the same length;
// pairs missing a side are left out.
func ComparePairs(old, new [][]float64, b Bootstrap) (Ratio, error) {
	if len(old) != len(new) {
		return Ratio{}, fmt.Errorf("paired comparison of %d and %d processes", len(old), len(new))
	}
	b, err := b.withDefaults()
	if err != nil {
		return Ratio{}, err
	}
	var logs []float64
	for i := range old {
		if len(old[i]) == 0 || len(new[i]) == 0 {
			continue
		}
		if err := positive(old[i], new[i]); err != nil {
			return Ratio{}, err
		}
		logs = append(logs, math.Log(median(new[i])/median(old[i])))
	}
	if len(logs) < 2 {
		return Ratio{}, ErrTooFewProcesses
	}
	iv, _ := MedianInterval(logs, b.Confidence)
	pos, neg := 0, 0
	for _, l := range logs {
		switch {
		case l > 0:
			pos++
		case l < 0:
			neg++
		}
	}
	return Ratio{
		Ratio: math.Exp(median(logs)), Low: math.Exp(iv.Low), High: math.Exp(iv.High),
		Confidence: iv.Confidence, P: signTest(pos, neg), Paired: true,
		Method: MethodPairedSign,
	}, nil
}

// signTest is the exact two-sided p-value of pos positive and neg negative
// differences under "each sign equally likely".
func signTest(pos, neg int) float64 {
	n := pos + neg
	if n == 0 {
		return 1
	}
	k := min(pos, neg)
	tail, c := 0.0, 1.0
	for i := 0; i <= k; i++ {
		if i > 0 {
			c = c * float64(n-i+1) / float64(i)
		}
		tail += c
	}
	return math.Min(1, 2*tail*math.Pow(0.5, float64(n)))
}

// positive returns ErrNotPositive unless every value is positive and finite.
func positive(sides ...[]float64) error {
	for _, p := range sides {
		for _, x := range p {
			if !(x > 0) || math.IsInf(x, 0) {
				return ErrNotPositive
			}
		}
	}
	return nil
}

func compare(old, new [][]float64, b Bootstrap) (Ratio, error) {
	b, err := b.withDefaults()
	if err != nil {
		return Ratio{}, err
	}
	old, new = nonEmpty(old), nonEmpty(new)
	if len(old) < 2 || len(new) < 2 {
		return Ratio{}, ErrTooFewProcesses
	}
	if err := positive(append(slices.Clone(old), new...)...); err != nil {
		return Ratio{}, err
	}
	r := Ratio{Ratio: center(new) / center(old), Confidence: b.Confidence, Resamples: b.Resamples,
		Seed: b.Seed, Method: MethodHierarchicalBootstrap}

	rng := rand.New(rand.NewPCG(b.Seed, 0x62656e6368737570)) // "benchsup"
	logs := make([]float64, b.Resamples)
	oldMed := make([]float64, len(old))
	newMed := make([]float64, len(new))
	var scratch []float64
	for i := range logs {
		for j := range old {
			oldMed[j], scratch = resampledMedian(rng, old[rng.IntN(len(old))], scratch)
		}
		for j := range new {
			newMed[j], scratch = resampledMedian(rng, new[rng.IntN(len(new))], scratch)
		}
		logs[i] = math.Log(median(newMed)) - math.Log(median(oldMed))
	}
	slices.Sort(logs)
	r.Low, r.High, r.P = logRatioInterval(logs, b.Confidence)
	return r, nil
}

// logRatioInterval is the percentile interval at confidence of bootstrap
// log ratios (sorted), as ratios, and the two-sided p-value of "no
// change": twice the smaller share of resamples on either side of 0.
func logRatioInterval(logs []float64, confidence float64) (low, high, p float64) {
	alpha := (1 - confidence) / 2
	low = math.Exp(quantileSorted(logs, alpha))
	high = math.Exp(quantileSorted(logs, 1-alpha))
	below, above := 0, 0
	for _, l := range logs {
		if l <= 0 {
			below++
		}
		if l >= 0 {
			above++
		}
	}
	p = math.Min(1, 2*float64(min(below, above)+1)/float64(len(logs)+1))
	return low, high, p
}

func nonEmpty(side [][]float64) [][]float64 {
	var out [][]float64
	for _, p := range side {
		if len(p) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// center is the median over processes of per-process medians.
func center(side [][]float64) float64 {
	meds := make([]float64, len(side))
	for i, p := range side {
		meds[i] = median(p)
	}
	return median(meds)
}

// median returns the median of xs without modifying it.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return medianSorted(s)
}

// resampledMedian is the median of len(xs) draws from xs with replacement;
// scratch is reused between calls.
func resampledMedian(rng *rand.Rand, xs []float64, scratch []float64) (float64, []float64) {
	if len(xs) == 1 {
		return xs[0], scratch
	}
	scratch = scratch[:0]
	for range xs {
		scratch = append(scratch, xs[rng.IntN(len(xs))])
	}
	slices.Sort(scratch)
	return medianSorted(scratch), scratch
}

// quantileSorted is the q-quantile of sorted s, interpolating linearly
// between order statistics (R's type 7).
func quantileSorted(s []float64, q float64) float64 {
	h := q * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}

// OrderEffect is a diagnostic of a paired run: the median log ratio
// (new/old) of the pairs whose old process ran first minus that of the
// pairs whose new process ran first, as a ratio (1 is none). A value far
// from 1 says the position in a pair matters (a warming cache, drift
// within the pair), which balanced ordering cancels from the ratio but
// which the user should know of. False when either order has no pair.
func OrderEffect(old, new []float64, oldFirst []bool) (float64, bool) {
	var a, b []float64
	for i := range old {
		if !(old[i] > 0) || !(new[i] > 0) {
			continue
		}
		l := math.Log(new[i] / old[i])
		if oldFirst[i] {
			a = append(a, l)
		} else {
			b = append(b, l)
		}
	}
	if len(a) == 0 || len(b) == 0 {
		return 0, false
	}
	return math.Exp(median(a) - median(b)), true
}

// OutlierProcesses returns the indexes of the values (per-process medians)
// far from the others: more than k scaled median absolute deviations
// (1.4826·MAD, a standard deviation for normal data) from the median, on a
// log scale so that fast and slow outliers are treated alike, and more
// than the fraction floor away (so that values that hardly vary, such as
// B/op with a rare extra allocation, flag nothing). Outliers are for
// flagging and counting, never for dropping. None with fewer than three
// values or when the MAD is zero.
func OutlierProcesses(medians []float64, k, floor float64) []int {
	if len(medians) < 3 {
		return nil
	}
	logs := make([]float64, 0, len(medians))
	for _, m := range medians {
		if !(m > 0) {
			return nil
		}
		logs = append(logs, math.Log(m))
	}
	s, ok := Summarize(logs)
	if !ok || s.MAD == 0 {
		return nil
	}
	var out []int
	for i, l := range logs {
		if d := math.Abs(l - s.Median); d > k*1.4826*s.MAD && d > math.Log1p(floor) {
			out = append(out, i)
		}
	}
	return out
}
