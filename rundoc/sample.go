package rundoc

// Sample is one timed run of a benchmark inside a process: totals over
// Iterations, as the worker measured them. It is the document's own type
// (the supervisor's statistics use internal/stats.Sample, of the same
// shape), so that a reader of documents can name it.
type Sample struct {
	Iterations int64 `json:"n"`
	ElapsedNs  int64 `json:"ns"`
	// AllocBytes and Allocs are totals over the sample; nil when not
	// measured (never 0 for "unknown").
	AllocBytes *uint64 `json:"allocBytes"`
	Allocs     *uint64 `json:"allocs"`
	// Extra holds user-reported metrics (b.ReportMetric) by unit, as
	// reported: per iteration unless the unit says otherwise.
	Extra map[string]float64 `json:"extra,omitempty"`
	// Exact says the totals were read from testing's B after the run;
	// false means they were rebuilt from testing's printed per-iteration
	// values (ns/op to at least four significant digits, B/op and
	// allocs/op truncated to integers).
	Exact bool `json:"exact"`
	// Short marks a sample shorter than half the sample target: its
	// process ran faster than calibration predicted, and timer and
	// start-up effects weigh more in it. It is kept, counted and shown.
	Short bool `json:"short,omitempty"`
	// Foreign is the share of the watched CPUs' capacity something other
	// than the process used over the sample's window (the interference
	// watch); nil when no watch ran or the window was too short to tell.
	// An annotation, never a correction of the sample.
	Foreign *float64 `json:"foreign,omitempty"`
	// Disturbed marks a sample whose Foreign exceeded the run's limit.
	Disturbed bool `json:"disturbed,omitempty"`
}

// NsPerOp returns the sample's nanoseconds per iteration.
func (s Sample) NsPerOp() (float64, bool) {
	if s.Iterations <= 0 {
		return 0, false
	}
	return float64(s.ElapsedNs) / float64(s.Iterations), true
}

// BytesPerOp returns the bytes allocated per iteration, when measured.
func (s Sample) BytesPerOp() (float64, bool) {
	if s.Iterations <= 0 || s.AllocBytes == nil {
		return 0, false
	}
	return float64(*s.AllocBytes) / float64(s.Iterations), true
}

// AllocsPerOp returns the allocations per iteration, when measured.
func (s Sample) AllocsPerOp() (float64, bool) {
	if s.Iterations <= 0 || s.Allocs == nil {
		return 0, false
	}
	return float64(*s.Allocs) / float64(s.Iterations), true
}

// Stats summarizes one quantity over a process's samples.
type Stats struct {
	N      int     `json:"n"`      // number of values
	Median float64 `json:"median"` // middle value (mean of the two middle values for even N)
	MAD    float64 `json:"mad"`    // median absolute deviation from the median, unscaled
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}
