package rundoc

import "fmt"

// A dry run (--dry-run) runs every selected benchmark once (N=1, as
// -benchtime=1x) in a fresh process, to prove the suite runs: its
// document says so (Meta.DryRun) and holds no numbers, since one
// iteration of a benchmark measures nothing a reader should act on. It is
// refused as a baseline, by compare and by every gate
// (docs/design.md#dry-runs).

// ErrDryRun is the error of a dry run's document given where numbers are
// needed.
var ErrDryRun = fmt.Errorf("a dry run (--dry-run): every benchmark ran once and nothing was measured")

// MarkDryRun makes d the document of a dry run: Meta.DryRun set and every
// measured quantity taken out (samples and their statistics, calibration,
// counted metrics, interference tallies, peak memory, workload windows and
// sweeps); what ran and how each process ended stay.
func MarkDryRun(d *Document) {
	d.Meta.DryRun = true
	for i := range d.Rows {
		r := &d.Rows[i]
		r.Summary, r.Calibration, r.CountIterations, r.CountMethod = nil, nil, nil, ""
		r.Absences, r.Interference, r.PeakMemoryBytes = nil, nil, nil
		for j := range r.Processes {
			p := &r.Processes[j]
			p.NsPerOp, p.Samples, p.Retaken = nil, []Sample{}, nil
			p.Counted, p.Estimated, p.Uncertainty, p.CountedNotes = nil, nil, nil, nil
			p.Interference, p.PeakMemoryBytes = nil, nil
		}
	}
	d.Columns = []Column{}
	d.Windows, d.WindowSummaries, d.Sweeps = nil, nil, nil
}

// dryRun checks that a dry run's document holds no numbers.
func (v *validator) dryRun(d *Document) {
	if !d.Meta.DryRun {
		return
	}
	has := func(path string) { v.fail(path, "is set, but a dry run (meta.dryRun) has no numbers") }
	for i, r := range d.Rows {
		p := idx("rows", i)
		switch {
		case r.Summary != nil:
			has(p + ".summary")
		case r.Calibration != nil:
			has(p + ".calibration")
		case r.CountIterations != nil:
			has(p + ".countIterations")
		case r.Interference != nil:
			has(p + ".interference")
		}
		for j, pr := range r.Processes {
			pp := idx(p+".processes", j)
			switch {
			case len(pr.Samples) > 0:
				has(pp + ".samples")
			case pr.NsPerOp != nil:
				has(pp + ".nsPerOp")
			case len(pr.Counted) > 0:
				has(pp + ".counted")
			case len(pr.Retaken) > 0:
				has(pp + ".retaken")
			}
		}
	}
	switch {
	case len(d.Columns) > 0:
		has("columns")
	case len(d.Windows) > 0:
		has("windows")
	case len(d.WindowSummaries) > 0:
		has("windowSummaries")
	case len(d.Sweeps) > 0:
		has("sweeps")
	case len(d.Comparisons) > 0:
		has("comparisons")
	}
}
