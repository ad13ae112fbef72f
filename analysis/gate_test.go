package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

func TestGate(t *testing.T) {
	row := func(name, metric string, v rundoc.Verdict) rundoc.ComparisonRow {
		return rundoc.ComparisonRow{Package: "p", Name: name, Metric: metric, Verdict: v}
	}
	time := func(name string, v rundoc.Verdict) rundoc.ComparisonRow { return row(name, rundoc.MetricTime, v) }
	// short is a time row whose interval reached 75% of the 95% asked: a
	// document written before verdicts were held back.
	short := func(name string, v rundoc.Verdict) rundoc.ComparisonRow {
		r := time(name, v)
		c := 0.75
		r.Confidence = &c
		return r
	}
	tests := []struct {
		name   string
		policy analysis.FailOn
		rows   []rundoc.ComparisonRow
		want   analysis.GateResult
	}{
		{"no gate", analysis.FailOnNone, []rundoc.ComparisonRow{time("A", rundoc.VerdictSlower)}, analysis.GateResult{}},
		{"slower fails", analysis.FailOnSlower, []rundoc.ComparisonRow{time("A", rundoc.VerdictSlower)},
			analysis.GateResult{Status: analysis.GateRegression, Reason: "slower beyond the threshold", Identities: []string{"p A"}}},
		{"only time is gated", analysis.FailOnSlower, []rundoc.ComparisonRow{row("A", rundoc.MetricBytes, rundoc.VerdictIncreased)}, analysis.GateResult{}},
		{"faster and equivalent pass", analysis.FailOnInconclusive, []rundoc.ComparisonRow{time("A", rundoc.VerdictFaster), time("B", rundoc.VerdictEquivalent)}, analysis.GateResult{}},
		{"inconclusive passes a slower gate", analysis.FailOnSlower, []rundoc.ComparisonRow{time("A", rundoc.VerdictInconclusive)}, analysis.GateResult{}},
		{"inconclusive fails closed", analysis.FailOnInconclusive, []rundoc.ComparisonRow{time("A", rundoc.VerdictInconclusive), time("B", rundoc.VerdictUnavailable)},
			analysis.GateResult{Status: analysis.GateRegression, Reason: "undecided (fail-closed gate)", Identities: []string{"p A", "p B"}}},
		{"slower outranks undecided", analysis.FailOnInconclusive, []rundoc.ComparisonRow{time("A", rundoc.VerdictInconclusive), time("B", rundoc.VerdictSlower)},
			analysis.GateResult{Status: analysis.GateRegression, Reason: "slower beyond the threshold", Identities: []string{"p B"}}},
		{"a crash is its own status", analysis.FailOnSlower, []rundoc.ComparisonRow{time("A", rundoc.VerdictFailed)},
			analysis.GateResult{Status: analysis.GateIncomplete, Reason: "identities crashed or are missing on a side", Identities: []string{"p A"}}},
		{"missing outranks slower", analysis.FailOnSlower, []rundoc.ComparisonRow{time("A", rundoc.VerdictSlower), time("B", rundoc.VerdictOnlyOld)},
			analysis.GateResult{Status: analysis.GateIncomplete, Reason: "identities crashed or are missing on a side", Identities: []string{"p B"}}},
		{"a new benchmark passes", analysis.FailOnInconclusive, []rundoc.ComparisonRow{time("A", rundoc.VerdictOnlyNew)}, analysis.GateResult{}},
		{"a recording's median and p95 gate, once per identity", analysis.FailOnSlower, []rundoc.ComparisonRow{
			row("request", rundoc.MetricSpanMedian, rundoc.VerdictSlower), row("request", rundoc.MetricSpanP95, rundoc.VerdictSlower)},
			analysis.GateResult{Status: analysis.GateRegression, Reason: "slower beyond the threshold", Identities: []string{"p request"}}},
		{"a compared p99 gates", analysis.FailOnSlower, []rundoc.ComparisonRow{row("request", rundoc.MetricSpanP99, rundoc.VerdictSlower)},
			analysis.GateResult{Status: analysis.GateRegression, Reason: "slower beyond the threshold", Identities: []string{"p request"}}},
		{"a p99 short of spans does not fail closed", analysis.FailOnInconclusive, []rundoc.ComparisonRow{
			row("request", rundoc.MetricSpanMedian, rundoc.VerdictEquivalent), row("request", rundoc.MetricSpanP99, rundoc.VerdictUnavailable)},
			analysis.GateResult{}},
		{"a p95 short of spans fails closed", analysis.FailOnInconclusive, []rundoc.ComparisonRow{row("request", rundoc.MetricSpanP95, rundoc.VerdictUnavailable)},
			analysis.GateResult{Status: analysis.GateRegression, Reason: "undecided (fail-closed gate)", Identities: []string{"p request"}}},
		{"slower at less confidence than asked passes a slower gate", analysis.FailOnSlower, []rundoc.ComparisonRow{short("A", rundoc.VerdictSlower)}, analysis.GateResult{}},
		{"slower at less confidence than asked fails closed as undecided", analysis.FailOnInconclusive, []rundoc.ComparisonRow{short("A", rundoc.VerdictSlower), short("B", rundoc.VerdictEquivalent)},
			analysis.GateResult{Status: analysis.GateRegression, Reason: "undecided (fail-closed gate)", Identities: []string{"p A", "p B"}}},
		{"a crash stays a crash at any confidence", analysis.FailOnSlower, []rundoc.ComparisonRow{short("A", rundoc.VerdictFailed)},
			analysis.GateResult{Status: analysis.GateIncomplete, Reason: "identities crashed or are missing on a side", Identities: []string{"p A"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rundoc.Comparison{Rows: tt.rows, Knobs: rundoc.CompareKnobs{Confidence: 0.95}}
			assert.Equal(t, tt.want, analysis.Gate(c, tt.policy))
		})
	}
}

func TestParseFailOn(t *testing.T) {
	tests := []struct {
		in      string
		want    analysis.FailOn
		wantErr bool
	}{
		{"", analysis.FailOnNone, false},
		{"slower", analysis.FailOnSlower, false},
		{"inconclusive", analysis.FailOnInconclusive, false},
		{"maybe", analysis.FailOnNone, true},
		{"Slower", analysis.FailOnNone, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := analysis.ParseFailOn(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantErr, err != nil, "error %v", err)
		})
	}
}

func TestVerdictClasses(t *testing.T) {
	all := []rundoc.Verdict{rundoc.VerdictFaster, rundoc.VerdictSlower, rundoc.VerdictIncreased, rundoc.VerdictDecreased,
		rundoc.VerdictEquivalent, rundoc.VerdictInconclusive, rundoc.VerdictSame, rundoc.VerdictWithinNoise,
		rundoc.VerdictOnlyOld, rundoc.VerdictOnlyNew, rundoc.VerdictFailed, rundoc.VerdictUnavailable}
	classes := map[rundoc.Verdict]string{}
	for _, v := range all {
		var c string
		for name, in := range map[string]bool{"regressed": v.Regressed(), "undecided": v.Undecided(), "incomplete": v.Incomplete()} {
			if in {
				assert.Empty(t, c, "%s is both %s and %s", v, c, name)
				c = name
			}
		}
		classes[v] = c
	}
	assert.Equal(t, map[rundoc.Verdict]string{
		rundoc.VerdictFaster: "", rundoc.VerdictSlower: "regressed", rundoc.VerdictIncreased: "", rundoc.VerdictDecreased: "",
		rundoc.VerdictEquivalent: "", rundoc.VerdictInconclusive: "undecided", rundoc.VerdictSame: "", rundoc.VerdictWithinNoise: "",
		rundoc.VerdictOnlyOld: "incomplete", rundoc.VerdictOnlyNew: "", rundoc.VerdictFailed: "incomplete", rundoc.VerdictUnavailable: "undecided",
	}, classes)
}
