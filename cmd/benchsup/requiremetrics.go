package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sources"
)

// --require-metrics turns a metric that cannot be counted from an em dash
// in the table into a failed run (exit 1), so that a CI job that relies on
// a counter learns on the first run that its host lacks it. The host is
// asked before anything is built (uncountableMetric); a metric that some
// row still lacks once the run is over fails it then (missingMetric).

// uncountableMetric returns the error of the first metric of names that
// reports (the sources as probed on this host) say cannot be counted here,
// or nil.
func uncountableMetric(names []string, reports []rundoc.SourceReport) error {
	for _, name := range names {
		d, ok := sources.Describe(name)
		if !ok {
			continue
		}
		i := slices.IndexFunc(reports, func(r rundoc.SourceReport) bool { return r.Source == d.Source })
		if i < 0 {
			continue
		}
		r := reports[i]
		if !r.Available {
			return fmt.Errorf("--require-metrics: %s cannot be counted on this host: source %s: %s", name, r.Source, oneLine(r.Status))
		}
		for _, a := range r.Absences {
			if slices.Contains(a.Metrics, name) {
				return fmt.Errorf("--require-metrics: %s cannot be counted on this host: %s: %s", name, a.Capability, oneLine(a.Reason))
			}
		}
	}
	return nil
}

// missingMetric returns the error of a run some of whose measured rows
// lack a required metric: the first such metric and row, with its reason,
// and how many more rows lack one.
func missingMetric(doc *rundoc.Document, names []string) error {
	var first string
	n := 0
	for _, r := range doc.Rows {
		if r.Outcome != rundoc.OutcomeOK || r.Summary == nil {
			continue // no numbers at all: the row says why
		}
		for _, a := range r.Absences {
			if slices.Contains(names, a.Metric) {
				if n == 0 {
					first = fmt.Sprintf("%s not counted for %s: %s", a.Metric, strings.TrimPrefix(r.Package+"."+r.Name, "."), oneLine(a.Reason))
				}
				n++
				break
			}
		}
	}
	switch {
	case n == 0:
		return nil
	case n == 1:
		return fmt.Errorf("--require-metrics: %s", first)
	}
	return fmt.Errorf("--require-metrics: %s (and %d more rows lack a required metric)", first, n-1)
}
