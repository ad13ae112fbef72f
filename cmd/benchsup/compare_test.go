package main

import (
	"errors"
	"io"
	"testing"

	"github.com/benchsup/benchsup/report"
)

func TestGate(t *testing.T) {
	row := func(name, metric, verdict string) report.ComparisonRow {
		return report.ComparisonRow{Package: "p", Name: name, Metric: metric, Verdict: verdict}
	}
	for _, tc := range []struct {
		name   string
		failOn string
		rows   []report.ComparisonRow
		want   error
	}{
		{"no gate", "", []report.ComparisonRow{row("A", report.MetricTime, report.VerdictSlower)}, nil},
		{"slower fails", "slower", []report.ComparisonRow{row("A", report.MetricTime, report.VerdictSlower)}, errRegression},
		{"only time is gated", "slower", []report.ComparisonRow{row("A", report.MetricBytes, report.VerdictIncreased)}, nil},
		{"inconclusive passes a slower gate", "slower", []report.ComparisonRow{row("A", report.MetricTime, report.VerdictInconclusive)}, nil},
		{"inconclusive fails closed", "inconclusive", []report.ComparisonRow{row("A", report.MetricTime, report.VerdictInconclusive)}, errRegression},
		{"a crash is its own status", "slower", []report.ComparisonRow{row("A", report.MetricTime, report.VerdictFailed)}, errIncomplete},
		{"missing outranks slower", "slower", []report.ComparisonRow{
			row("A", report.MetricTime, report.VerdictSlower), row("B", report.MetricTime, report.VerdictOnlyOld)}, errIncomplete},
		{"a new benchmark passes", "inconclusive", []report.ComparisonRow{row("A", report.MetricTime, report.VerdictOnlyNew)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := gate(report.Comparison{Rows: tc.rows}, tc.failOn, io.Discard)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("gate = %v, want %v", err, tc.want)
			}
		})
	}
	if got := run([]string{"compare", "--fail-on=maybe", "a", "b"}, io.Discard, io.Discard); got != exitUsage {
		t.Errorf("a bad --fail-on exits %d, want %d", got, exitUsage)
	}
}

func TestParsePercent(t *testing.T) {
	for in, want := range map[string]float64{"2": 0.02, "2%": 0.02, " 2.5 % ": 0.025, "95": 0.95} {
		if got, err := parsePercent(in); err != nil || got != want {
			t.Errorf("parsePercent(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "two", "NaN", "%"} {
		if _, err := parsePercent(in); err == nil {
			t.Errorf("parsePercent(%q): no error", in)
		}
	}
}
