package supervisor

import (
	"slices"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sources"
)

// columns describes the selected catalog metrics for the document.
func (s *supervisor) columns() []rundoc.Column {
	cols := []rundoc.Column{}
	if s.cfg.Mode != ModeBench {
		return cols
	}
	for _, name := range s.cfg.Metrics {
		d, ok := sources.Describe(name)
		if !ok {
			continue // Select only returns known names; nothing to describe
		}
		cols = append(cols, rundoc.Column{Name: d.Name, Header: d.Header, Unit: d.Unit,
			Format: string(d.Format), Class: string(d.Class), Source: d.Source})
	}
	return cols
}

// sourceReports probes, in the supervisor's process on the same host, the
// sources the selected metrics need, for the run header and the document.
// The children report their own absences per row.
func (s *supervisor) sourceReports() []rundoc.SourceReport {
	needed := map[string]bool{}
	for _, name := range s.cfg.Metrics {
		if d, ok := sources.Describe(name); ok {
			needed[d.Source] = true
		}
	}
	out := []rundoc.SourceReport{}
	if len(needed) == 0 {
		return out
	}
	reports := sources.Probe(sources.Options{Scaled: s.cfg.PerfScaled})
	if slices.Equal(s.cfg.Metrics, sources.DefaultsOf(reports)) {
		// The default set less what this host cannot count: the sources
		// it lost are reported too, so that the table and the JSON
		// document name what is missing and why.
		for _, src := range sources.DefaultSources() {
			needed[src] = true
		}
	}
	for _, r := range reports {
		if needed[r.Source] {
			out = append(out, sourceReport(r))
		}
	}
	return out
}

func sourceReport(r sources.Report) rundoc.SourceReport {
	sr := rundoc.SourceReport{Source: r.Source, Available: r.Available, Status: r.Status,
		Absences: []rundoc.SourceAbsence{}, Degraded: append([]string{}, r.Degraded...)}
	for _, a := range r.Absences {
		sr.Absences = append(sr.Absences, rundoc.SourceAbsence{Capability: string(a.Capability),
			Metrics: append([]string{}, a.Metrics...), Reason: a.Reason})
	}
	return sr
}

// ProbeSources reports what every source can measure on this host, for
// `benchsup list-metrics`.
func ProbeSources(scaled bool) []rundoc.SourceReport {
	var out []rundoc.SourceReport
	for _, r := range sources.Probe(sources.Options{Scaled: scaled}) {
		out = append(out, sourceReport(r))
	}
	return out
}
