package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
)

func TestUncountableMetric(t *testing.T) {
	reports := []rundoc.SourceReport{
		{Source: "perf-hw", Available: false, Status: "unavailable: no cpu PMU"},
		{Source: "perf-sw", Available: true, Absences: []rundoc.SourceAbsence{{Capability: "sw-events", Metrics: []string{"page-faults"}, Reason: "perf_event_paranoid is 3"}}},
		{Source: "tier0", Available: true},
	}
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"maxrss"}, ""},
		{[]string{"maxrss", "instructions"}, "--require-metrics: instructions cannot be counted on this host: source perf-hw: unavailable: no cpu PMU"},
		{[]string{"page-faults"}, "--require-metrics: page-faults cannot be counted on this host: sw-events: perf_event_paranoid is 3"},
	}
	for _, tt := range tests {
		err := uncountableMetric(tt.names, reports)
		if tt.want == "" {
			assert.NoError(t, err, "%v", tt.names)
		} else if assert.Error(t, err, "%v", tt.names) {
			assert.Equal(t, tt.want, err.Error())
		}
	}
}

func TestMissingMetric(t *testing.T) {
	measured := func(name string, absent ...string) rundoc.Row {
		r := rundoc.Row{Package: "p", Name: name, Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK, Summary: &rundoc.Summary{}}
		for _, m := range absent {
			r.Absences = append(r.Absences, rundoc.MetricAbsence{Metric: m, Reason: "not counted by default: pin --perf-iters"})
		}
		return r
	}
	failed := rundoc.Row{Package: "p", Name: "BenchmarkCrash", Kind: rundoc.KindBenchmark, Outcome: "signal",
		Absences: []rundoc.MetricAbsence{{Metric: "minflt", Reason: "the process died"}}}
	doc := &rundoc.Document{Rows: []rundoc.Row{measured("BenchmarkA"), failed, measured("BenchmarkB", "minflt"), measured("BenchmarkC", "syscr", "minflt")}}

	assert.NoError(t, missingMetric(doc, nil), "nothing required")
	assert.NoError(t, missingMetric(doc, []string{"maxrss"}))
	err := missingMetric(doc, []string{"minflt"})
	if assert.Error(t, err) {
		assert.Equal(t, "--require-metrics: minflt not counted for p.BenchmarkB: not counted by default: pin --perf-iters (and 1 more rows lack a required metric)", err.Error())
	}
	err = missingMetric(doc, []string{"syscr"})
	if assert.Error(t, err) {
		assert.Equal(t, "--require-metrics: syscr not counted for p.BenchmarkC: not counted by default: pin --perf-iters", err.Error())
	}
}
