package stats

import (
	"slices"
)

// Process is the measurement of one identity in one fresh process.
type Process struct {
	Index   int // repetition index, 0-based
	Samples []Sample
}

// NsPerOp summarizes the process's per-sample ns/op.
func (p Process) NsPerOp() (Stats, bool) {
	return p.summarize(Sample.NsPerOp)
}

// BytesPerOp summarizes the per-sample allocated bytes per iteration; false
// when any sample lacks the measurement.
func (p Process) BytesPerOp() (Stats, bool) { return p.summarize(Sample.BytesPerOp) }

// AllocsPerOp summarizes the per-sample allocations per iteration.
func (p Process) AllocsPerOp() (Stats, bool) { return p.summarize(Sample.AllocsPerOp) }

// Extra summarizes one user-reported unit; false unless every sample has it.
func (p Process) Extra(unit string) (Stats, bool) {
	return p.summarize(func(s Sample) (float64, bool) {
		v, ok := s.Extra[unit]
		return v, ok
	})
}

// ExtraUnits returns the user-reported units present in any sample, sorted.
func (p Process) ExtraUnits() []string {
	var units []string
	for _, s := range p.Samples {
		for u := range s.Extra {
			if !slices.Contains(units, u) {
				units = append(units, u)
			}
		}
	}
	slices.Sort(units)
	return units
}

func (p Process) summarize(value func(Sample) (float64, bool)) (Stats, bool) {
	xs := make([]float64, 0, len(p.Samples))
	for _, s := range p.Samples {
		v, ok := value(s)
		if !ok {
			return Stats{}, false
		}
		xs = append(xs, v)
	}
	return Summarize(xs)
}

// Across summarizes one metric over several processes. The process is the
// unit: Between is computed from the per-process medians only, Within is the
// median of the per-process MADs, so a reader can see whether process-level
// effects (Between) dominate the noise inside a process (Within).
type Across struct {
	Processes int     // processes with a value
	Median    float64 // median of per-process medians
	Between   Stats   // statistics of the per-process medians
	Within    float64 // median of per-process MADs
}

// Combine summarizes per-process statistics; false when there are none.
func Combine(per []Stats) (Across, bool) {
	if len(per) == 0 {
		return Across{}, false
	}
	medians := make([]float64, len(per))
	mads := make([]float64, len(per))
	for i, s := range per {
		medians[i], mads[i] = s.Median, s.MAD
	}
	between, ok := Summarize(medians)
	if !ok {
		return Across{}, false
	}
	within, _ := Summarize(mads)
	return Across{Processes: len(per), Median: between.Median, Between: between, Within: within.Median}, true
}
