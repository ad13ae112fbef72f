package record

import (
	"cmp"
	"math"
	"slices"
)

// SampleSemantics is every Result's sampleSemantics: its percentiles are
// of individual spans, unlike a benchmark row's median of per-process
// medians.
const SampleSemantics = "individual-span"

// What a Summary's percentiles are computed over.
const (
	OverAll      = "all-observations" // nothing was omitted: the percentiles are exact
	OverRetained = "retained-sample"  // omitted > 0: the percentiles are of the retained spans
)

// MedianConfidence is the confidence the median's interval is built for.
const MedianConfidence = 0.95

// Result is what one identity recorded, once the recorder stopped.
type Result struct {
	Identity     string    `json:"identity"`
	Outcomes     Outcomes  `json:"outcomes"`
	Observations int64     `json:"observations"` // finished spans (all outcomes); exact
	Retained     int64     `json:"retained"`     // spans kept by the retention policy
	Omitted      int64     `json:"omitted"`      // observations - retained
	Retention    Retention `json:"retention"`
	// Summary summarizes the finished spans' durations, of every outcome;
	// nil when none finished, or none was retained (under benchsup, when
	// the shared ring lost every one before it was read: no percentile
	// is then known).
	Summary         *Summary `json:"summary"`
	SampleSemantics string   `json:"sampleSemantics"` // always SampleSemantics
	// Spans are the retained spans in observation order, with
	// Config.Spans; absent otherwise, and when none was retained.
	Spans []SpanRecord `json:"spans,omitempty"`
}

// Outcomes counts spans by how they ended; every count is exact,
// whatever retention kept.
type Outcomes struct {
	Success    int64 `json:"success"`
	Failure    int64 `json:"failure"`
	Timeout    int64 `json:"timeout"`
	Canceled   int64 `json:"canceled"`
	Unfinished int64 `json:"unfinished"` // begun and not finished when the recorder stopped
}

// Summary is the distribution of one identity's span durations, in
// nanoseconds. Percentiles interpolate linearly between order statistics
// (R's type 7; the median of an even count is the mean of the middle two).
type Summary struct {
	// PercentilesOver says what MedianNs, the P*Ns and Interval are of:
	// OverAll, or OverRetained when retention omitted spans.
	PercentilesOver string  `json:"percentilesOver"`
	Spans           int64   `json:"spans"` // how many durations the percentiles are of
	MedianNs        float64 `json:"medianNs"`
	P90Ns           float64 `json:"p90Ns"`
	P95Ns           float64 `json:"p95Ns"`
	P99Ns           float64 `json:"p99Ns"`
	// MinNs, MaxNs and MeanNs are exact over all observations (tracked
	// at every Finish), whatever retention kept.
	MinNs  int64   `json:"minNs"`
	MaxNs  int64   `json:"maxNs"`
	MeanNs float64 `json:"meanNs"`
	// Interval is the distribution-free confidence interval of the median
	// span duration, from the order statistics of the spans the
	// percentiles are of; nil for fewer than two.
	Interval *Interval `json:"interval"`
}

// Interval is a confidence interval of a median, in nanoseconds, with the
// confidence it achieves (at least MedianConfidence when there are enough
// spans; fewer give their whole range and its smaller confidence).
type Interval struct {
	LowNs      float64 `json:"lowNs"`
	HighNs     float64 `json:"highNs"`
	Confidence float64 `json:"confidence"`
}

// SpanRecord is one retained span.
type SpanRecord struct {
	Observation int64   `json:"observation"` // 1-based number among the identity's finished spans
	StartNs     int64   `json:"startNs"`     // offset from Start
	DurationNs  int64   `json:"durationNs"`
	Outcome     Outcome `json:"outcome"`
}

// count is how many of the identity's spans finished with o.
func (id *Identity) count(o Outcome) int64 { return id.c.outcomes[o-Success].Load() }

// result reads the identity's counts and retained spans. The recorder
// has stopped and no Finish is in flight, so the reads are consistent.
func (id *Identity) result(cfg Config) Result {
	o := Outcomes{
		Success:  id.count(Success),
		Failure:  id.count(Failure),
		Timeout:  id.count(Timeout),
		Canceled: id.count(Canceled),
	}
	obs := id.c.obs.Load()
	// A copy of a span finished twice counts twice (see Finish), so
	// observations can pass begun; unfinished is then 0, not negative.
	o.Unfinished = max(id.c.begun.Load()-obs, 0)
	var spans []SpanRecord
	for i := range id.slots {
		sl := &id.slots[i]
		sl.mu.Lock()
		if sl.obs > 0 {
			spans = append(spans, SpanRecord{Observation: sl.obs, StartNs: sl.start, DurationNs: sl.dur, Outcome: sl.outcome})
		}
		sl.mu.Unlock()
	}
	return summarize(id.name, cfg, o, obs, id.c.sumNs.Load(), id.c.minNs.Load(), id.c.maxNs.Load(), spans)
}

// summarize makes a Result of an identity's exact counts and the spans
// retention kept (in any order): a Recorder's at Stop, a Collector's from
// a shared region.
func summarize(name string, cfg Config, o Outcomes, obs, sumNs, minNs, maxNs int64, spans []SpanRecord) Result {
	res := Result{
		Identity:        name,
		Retention:       cfg.Retention,
		SampleSemantics: SampleSemantics,
		Outcomes:        o,
		Observations:    obs,
	}
	slices.SortFunc(spans, func(a, b SpanRecord) int { return cmp.Compare(a.Observation, b.Observation) })
	res.Retained = int64(len(spans))
	res.Omitted = res.Observations - res.Retained
	if res.Observations > 0 && len(spans) > 0 {
		durs := make([]float64, len(spans))
		for i, s := range spans {
			durs[i] = float64(s.DurationNs)
		}
		slices.Sort(durs)
		sum := &Summary{
			PercentilesOver: OverAll,
			Spans:           res.Retained,
			MinNs:           minNs,
			MaxNs:           maxNs,
			MeanNs:          float64(sumNs) / float64(res.Observations),
		}
		if res.Omitted > 0 {
			sum.PercentilesOver = OverRetained
		}
		if len(durs) > 0 {
			sum.MedianNs = quantile(durs, 0.5)
			sum.P90Ns = quantile(durs, 0.90)
			sum.P95Ns = quantile(durs, 0.95)
			sum.P99Ns = quantile(durs, 0.99)
			sum.Interval = medianInterval(durs, MedianConfidence)
		}
		res.Summary = sum
	}
	if cfg.Spans {
		res.Spans = spans
	}
	return res
}

// quantile is the q-quantile of sorted s (R's type 7).
func quantile(s []float64, q float64) float64 {
	h := q * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}

// medianInterval is [x(k), x(n+1-k)] of sorted s for the largest k whose
// coverage, 1 - 2·P(Binomial(n, 1/2) < k), is at least confidence; with
// too few values the whole range and the coverage it has. The binomial
// terms are summed in log space, so ten thousand spans neither overflow
// nor underflow. Nil for fewer than two values.
func medianInterval(s []float64, confidence float64) *Interval {
	n := len(s)
	if n < 2 {
		return nil
	}
	// logp is log P(B = i); tail is P(B <= k-1).
	logHalfN := float64(n) * math.Log(0.5)
	logp := logHalfN // i = 0: C(n,0) = 1
	tail := math.Exp(logp)
	k := 1
	for k+1 <= n/2 {
		// P(B <= k) with i = k added.
		next := logp + math.Log(float64(n-k+1)) - math.Log(float64(k))
		if 1-2*(tail+math.Exp(next)) < confidence {
			break
		}
		logp = next
		tail += math.Exp(next)
		k++
	}
	return &Interval{LowNs: s[k-1], HighNs: s[n-k], Confidence: 1 - 2*tail}
}

// Snapshot is a running recorder's view, cheap enough to poll a few times
// a second: counters read atomically (each exact at its read, not all at
// one instant) and the rolling figures of each identity's latest spans.
type Snapshot struct {
	ElapsedNs  int64              `json:"elapsedNs"` // since Start; 0 before
	Identities []IdentitySnapshot `json:"identities"`
}

// IdentitySnapshot is one identity in a Snapshot.
type IdentitySnapshot struct {
	Identity  string `json:"identity"`
	Completed int64  `json:"completed"` // finished spans, all outcomes
	Active    int64  `json:"active"`    // begun and not yet finished
	// Errors are the finished spans that did not succeed: failure,
	// timeout and canceled.
	Errors int64 `json:"errors"`
	// Recent is how many of the latest finished spans (at most 256) the
	// rolling median and p95 are of; both are nil when it is 0.
	Recent         int      `json:"recent"`
	RecentMedianNs *float64 `json:"recentMedianNs"`
	RecentP95Ns    *float64 `json:"recentP95Ns"`
}

// Snapshot reads the recorder while it runs (or after: then the counts are
// final). It allocates for its answer; Begin and Finish never wait for it.
func (r *Recorder) Snapshot() Snapshot {
	snap := Snapshot{ElapsedNs: r.ElapsedNs()}
	r.mu.Lock()
	ids := r.ids
	cs := make([]*counters, len(ids)) // Start may move them to the shared region
	for i, id := range ids {
		cs[i] = id.c
	}
	r.mu.Unlock()
	snap.Identities = make([]IdentitySnapshot, len(ids))
	var scratch []float64
	for i, id := range ids {
		// Finished before begun: a span finishing between the reads then
		// shows as neither active nor completed rather than as both.
		c := cs[i]
		completed := c.obs.Load()
		errs := c.outcomes[Failure-Success].Load() + c.outcomes[Timeout-Success].Load() + c.outcomes[Canceled-Success].Load()
		active := max(c.begun.Load()-completed, 0)
		is := IdentitySnapshot{Identity: id.name, Completed: completed, Active: active, Errors: errs}
		m := int(min(completed, recentSize))
		scratch = scratch[:0]
		for j := range m {
			if d := id.recent[j].Load(); d > 0 { // 0: claimed, not yet written
				scratch = append(scratch, float64(d-1))
			}
		}
		if m = len(scratch); m > 0 {
			slices.Sort(scratch)
			med, p95 := quantile(scratch, 0.5), quantile(scratch, 0.95)
			is.Recent, is.RecentMedianNs, is.RecentP95Ns = m, &med, &p95
		}
		snap.Identities[i] = is
	}
	return snap
}
