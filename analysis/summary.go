package analysis

import (
	"math"

	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/internal/statsconv"
	"github.com/benchsup/benchsup/rundoc"
)

// intervalConfidence is the confidence the summary's interval aims at; with
// few processes it is the whole range and achieves less (recorded).
const intervalConfidence = 0.95

// summarize combines the processes that produced samples; nil when none did.
func Summarize(procs []rundoc.ProcessResult) *rundoc.Summary {
	var good []stats.Process
	var per []stats.Stats
	for _, p := range procs {
		if p.NsPerOp != nil {
			good = append(good, stats.Process{Index: p.Index, Samples: statsconv.Samples(p.Samples)})
			per = append(per, statsconv.Stats(*p.NsPerOp))
		}
	}
	across, ok := stats.Combine(per)
	if !ok {
		return nil
	}
	sum := &rundoc.Summary{
		Processes:  across.Processes,
		Iterations: good[0].Samples[0].Iterations,
		MedianNs:   across.Median,
		MinNs:      math.Inf(1),
		MaxNs:      math.Inf(-1),
		Metrics:    map[string]*float64{},
	}
	medians := make([]float64, len(per))
	within := false
	for i, st := range per {
		medians[i] = st.Median
		within = within || st.N > 1
		sum.MinNs = math.Min(sum.MinNs, st.Min)
		sum.MaxNs = math.Max(sum.MaxNs, st.Max)
	}
	if m, ok := MomentsOfMedians(medians); ok {
		sum.MeanOfProcessMediansNs, sum.SDOfProcessMediansNs, sum.CVOfProcessMedians = ptr(m.Mean), m.SD, m.CV
	}
	if iv, ok := stats.MedianInterval(medians, intervalConfidence); ok {
		sum.Interval = &rundoc.Interval{LowNs: iv.Low, HighNs: iv.High, Confidence: iv.Confidence}
	}
	if within {
		sum.WithinMADNs = ptr(across.Within)
	}
	for _, p := range good {
		for _, s := range p.Samples {
			if s.Short {
				sum.ShortSamples++
			}
		}
	}
	units := map[string]func(stats.Process) (stats.Stats, bool){
		"B/op":      stats.Process.BytesPerOp,
		"allocs/op": stats.Process.AllocsPerOp,
	}
	for _, p := range good {
		sum.Samples += len(p.Samples)
		for _, u := range p.ExtraUnits() {
			units[u] = func(p stats.Process) (stats.Stats, bool) { return p.Extra(u) }
		}
	}
	for unit, stat := range units {
		var vals []stats.Stats
		for _, p := range good {
			st, ok := stat(p)
			if !ok {
				break
			}
			vals = append(vals, st)
		}
		if len(vals) < len(good) {
			if unit != "B/op" && unit != "allocs/op" {
				sum.Metrics[unit] = nil // some process lacks it: unavailable, not 0
			}
			continue
		}
		if a, ok := stats.Combine(vals); ok {
			sum.Metrics[unit] = ptr(a.Median)
		}
	}
	return sum
}

// NsPerOp is the statistics of a process's samples' ns/op, as
// ProcessResult.NsPerOp holds them; false when there are no samples.
func NsPerOp(samples []rundoc.Sample) (*rundoc.Stats, bool) {
	st, ok := (stats.Process{Samples: statsconv.Samples(samples)}).NsPerOp()
	if !ok {
		return nil, false
	}
	ds := statsconv.DocStats(st)
	return &ds, true
}
