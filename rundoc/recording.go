package rundoc

// SampleSemanticsSpan is every Recording's sampleSemantics: its
// percentiles are of individual spans, unlike a benchmark row's median of
// per-process medians.
const SampleSemanticsSpan = "individual-span"

// What a RecordingSummary's percentiles are computed over.
const (
	OverAll      = "all-observations" // nothing was omitted: the percentiles are exact
	OverRetained = "retained-sample"  // omitted > 0: the percentiles are of the retained spans
)

// Recording is what one identity of package record recorded: spans of
// work a program (or a test) decided to do, with exact counts and a bounded
// sample of durations (docs/design.md#recording). Its JSON is the shape
// package record writes on its own, member for member, so a recorder's
// output reads as a document's recordings; rundoc mirrors it with its own
// types because record imports only the standard library.
type Recording struct {
	// Source is where the recording came from: a test's package import
	// path, or the recorded program's path; absent when unknown (a
	// recorder's own output names none).
	Source       string             `json:"source,omitempty"`
	Identity     string             `json:"identity"`
	Outcomes     RecordingOutcomes  `json:"outcomes"`
	Observations int64              `json:"observations"` // finished spans, all outcomes; exact
	Retained     int64              `json:"retained"`     // spans kept by the retention policy
	Omitted      int64              `json:"omitted"`      // observations - retained
	Retention    RecordingRetention `json:"retention"`
	// Summary is the distribution of the finished spans' durations, every
	// outcome included; nil when none finished, or none was retained (the
	// shared ring lost every one before benchsup read it).
	Summary         *RecordingSummary `json:"summary"`
	SampleSemantics string            `json:"sampleSemantics"` // always SampleSemanticsSpan
	// Spans are the retained spans in observation order when the recorder
	// kept them (--spans); absent otherwise. A comparison of two
	// recordings' distributions needs them.
	Spans []RecordedSpan `json:"spans,omitempty"`
}

// RecordingOutcomes counts spans by how they ended; every count is exact,
// whatever retention kept.
type RecordingOutcomes struct {
	Success    int64 `json:"success"`
	Failure    int64 `json:"failure"`
	Timeout    int64 `json:"timeout"`
	Canceled   int64 `json:"canceled"`
	Unfinished int64 `json:"unfinished"` // begun and not finished when the recorder stopped
}

// Finished is the count of spans that finished, whatever their outcome:
// what a recording's observations must equal.
func (o RecordingOutcomes) Finished() int64 {
	return o.Success + o.Failure + o.Timeout + o.Canceled
}

// RecordingRetention is the retention policy an identity was recorded
// with: "reservoir", "first-n" or "latest-n", and its capacity in spans.
type RecordingRetention struct {
	Policy   string `json:"policy"`
	Capacity int    `json:"capacity"`
}

// The retention policies package record knows.
var retentionPolicies = map[string]bool{"reservoir": true, "first-n": true, "latest-n": true}

// RecordingSummary is one identity's span durations in nanoseconds.
// Percentiles interpolate linearly between order statistics (type 7).
type RecordingSummary struct {
	// PercentilesOver says what the median, the P*Ns and Interval are of:
	// OverAll, or OverRetained when retention omitted spans.
	PercentilesOver string  `json:"percentilesOver"`
	Spans           int64   `json:"spans"` // how many durations the percentiles are of
	MedianNs        float64 `json:"medianNs"`
	P90Ns           float64 `json:"p90Ns"`
	P95Ns           float64 `json:"p95Ns"`
	P99Ns           float64 `json:"p99Ns"`
	// MinNs, MaxNs and MeanNs are exact over all observations, whatever
	// retention kept.
	MinNs  int64   `json:"minNs"`
	MaxNs  int64   `json:"maxNs"`
	MeanNs float64 `json:"meanNs"`
	// Interval is the distribution-free confidence interval of the median;
	// nil for fewer than two spans.
	Interval *RecordingInterval `json:"interval"`
}

// RecordingInterval is a confidence interval of a median, in nanoseconds,
// with the confidence it achieves.
type RecordingInterval struct {
	LowNs      float64 `json:"lowNs"`
	HighNs     float64 `json:"highNs"`
	Confidence float64 `json:"confidence"`
}

// RecordedSpan is one retained span.
type RecordedSpan struct {
	Observation int64  `json:"observation"` // 1-based number among the identity's finished spans
	StartNs     int64  `json:"startNs"`     // offset from the recorder's start
	DurationNs  int64  `json:"durationNs"`
	Outcome     string `json:"outcome"` // "success", "failure", "timeout" or "canceled"
}

var spanOutcomes = map[string]bool{"success": true, "failure": true, "timeout": true, "canceled": true}

func (v *validator) recordings(recs []Recording) {
	type identity struct{ source, name string }
	seen := map[identity]int{}
	for i, r := range recs {
		path := idx("recordings", i)
		id := identity{r.Source, r.Identity}
		if j, dup := seen[id]; dup {
			v.fail(path, "identity %q%s repeats recordings[%d]", r.Identity, sourceSuffix(r.Source), j)
		}
		seen[id] = i
		v.recording(path, r)
		if v.err != nil {
			return
		}
	}
}

// Validate checks one recording as the document's validation does: what
// a supervisor calls on a recording a child delivered, before it joins a
// document (the child wrote its counts and may have written over them).
func (r Recording) Validate() error {
	var v validator
	v.recording("recording", r)
	return v.err
}

func sourceSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " of " + s
}

func (v *validator) recording(path string, r Recording) {
	if r.Identity == "" {
		v.fail(path+".identity", "empty identity")
	}
	o := r.Outcomes
	v.count(path+".outcomes.success", o.Success)
	v.count(path+".outcomes.failure", o.Failure)
	v.count(path+".outcomes.timeout", o.Timeout)
	v.count(path+".outcomes.canceled", o.Canceled)
	v.count(path+".outcomes.unfinished", o.Unfinished)
	v.count(path+".observations", r.Observations)
	v.count(path+".retained", r.Retained)
	v.count(path+".omitted", r.Omitted)
	if v.err != nil {
		return
	}
	if r.Observations != o.Finished() {
		v.fail(path+".observations", "records %d, but the finished outcomes add up to %d", r.Observations, o.Finished())
	}
	if r.Retained+r.Omitted != r.Observations {
		v.fail(path+".omitted", "retained %d and omitted %d do not add up to observations %d", r.Retained, r.Omitted, r.Observations)
	}
	if !retentionPolicies[r.Retention.Policy] {
		v.fail(path+".retention.policy", "%q is not a retention policy", r.Retention.Policy)
	}
	if r.Retention.Capacity <= 0 {
		v.fail(path+".retention.capacity", "capacity %d is not positive", r.Retention.Capacity)
	} else if r.Retained > int64(r.Retention.Capacity) {
		v.fail(path+".retained", "retained %d is above capacity %d", r.Retained, r.Retention.Capacity)
	}
	if r.SampleSemantics != SampleSemanticsSpan {
		v.fail(path+".sampleSemantics", "%q, but a recording's percentiles are of %q", r.SampleSemantics, SampleSemanticsSpan)
	}
	switch {
	case r.Summary == nil && r.Retained > 0:
		v.fail(path+".summary", "null, but %d spans were retained", r.Retained)
	case r.Summary != nil && r.Retained == 0:
		v.fail(path+".summary", "present, but no span was retained")
	case r.Summary != nil:
		v.recordingSummary(path+".summary", r, *r.Summary)
	}
	if len(r.Spans) > 0 {
		v.recordedSpans(path+".spans", r)
	}
}

func (v *validator) recordingSummary(path string, r Recording, s RecordingSummary) {
	wantOver := OverAll
	if r.Omitted > 0 {
		wantOver = OverRetained
	}
	if s.PercentilesOver != wantOver {
		v.fail(path+".percentilesOver", "%q, but with %d omitted the percentiles are over %q", s.PercentilesOver, r.Omitted, wantOver)
	}
	if s.Spans != r.Retained {
		v.fail(path+".spans", "records %d, but %d spans were retained", s.Spans, r.Retained)
	}
	v.duration(path+".minNs", s.MinNs)
	// min <= median <= p90 <= p95 <= p99 <= max: the percentiles of the
	// retained spans lie within the exact extremes of all of them.
	chain := []struct {
		name string
		x    float64
	}{
		{"minNs", float64(s.MinNs)}, {"medianNs", s.MedianNs}, {"p90Ns", s.P90Ns},
		{"p95Ns", s.P95Ns}, {"p99Ns", s.P99Ns}, {"maxNs", float64(s.MaxNs)},
	}
	for i := 1; i < len(chain); i++ {
		v.ordered(path+"."+chain[i].name, chain[i-1].name, chain[i].name, chain[i-1].x, chain[i].x)
	}
	if s.MeanNs < float64(s.MinNs) || s.MeanNs > float64(s.MaxNs) {
		v.fail(path+".meanNs", "mean %v is outside [min %d, max %d]", s.MeanNs, s.MinNs, s.MaxNs)
	}
	if in := s.Interval; in != nil {
		v.ordered(path+".interval.lowNs", "lowNs", "medianNs", in.LowNs, s.MedianNs)
		v.ordered(path+".interval.highNs", "medianNs", "highNs", s.MedianNs, in.HighNs)
		v.fraction(path+".interval.confidence", &in.Confidence)
	}
}

func (v *validator) recordedSpans(path string, r Recording) {
	if int64(len(r.Spans)) != r.Retained {
		v.fail(path, "holds %d spans, but %d were retained", len(r.Spans), r.Retained)
		return
	}
	prev := int64(0)
	for i, sp := range r.Spans {
		p := idx(path, i)
		if sp.Observation <= prev || sp.Observation > r.Observations {
			v.fail(p+".observation", "%d is not after %d and within the %d observations", sp.Observation, prev, r.Observations)
		}
		prev = sp.Observation
		v.duration(p+".startNs", sp.StartNs)
		v.duration(p+".durationNs", sp.DurationNs)
		if !spanOutcomes[sp.Outcome] {
			v.fail(p+".outcome", "%q is not a span outcome", sp.Outcome)
		}
		if s := r.Summary; s != nil && (sp.DurationNs < s.MinNs || sp.DurationNs > s.MaxNs) {
			v.fail(p+".durationNs", "%d is outside the summary's [%d, %d]", sp.DurationNs, s.MinNs, s.MaxNs)
		}
		if v.err != nil {
			return
		}
	}
}

// SpanDurations returns the retained spans' durations in nanoseconds, in
// observation order; nil when the recording kept none.
func (r Recording) SpanDurations() []float64 {
	if len(r.Spans) == 0 {
		return nil
	}
	out := make([]float64, len(r.Spans))
	for i, sp := range r.Spans {
		out[i] = float64(sp.DurationNs)
	}
	return out
}
