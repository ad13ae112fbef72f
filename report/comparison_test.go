package report

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func fptr(v float64) *float64 { return &v }

func comparisonFixture() Comparison {
	fp := Fingerprint{OS: "linux", Arch: "amd64", CPU: "cpu", GOMAXPROCS: 2, GoVersion: "go1.26", Placement: "none"}
	return Comparison{
		Schema: ComparisonSchemaVersion,
		Old:    ComparedRun{Label: "old.json", Date: "2026-12-01T09:00:00Z", Fingerprint: fp},
		New:    ComparedRun{Label: "new.json", Date: "2026-12-01T10:00:00Z", Fingerprint: fp},
		Knobs:  CompareKnobs{Threshold: 0.02, Confidence: 0.95, Resamples: 10000, Seed: 1},
		Rows: []ComparisonRow{
			{Package: "example.com/p", Name: "BenchmarkSlower", Metric: MetricTime,
				Old: &ComparedValue{Center: fptr(1234.5), Processes: 5}, New: &ComparedValue{Center: fptr(1604.9), Processes: 5, Outliers: []int{3}},
				Ratio: fptr(1.3), Low: fptr(1.27), High: fptr(1.33), Confidence: fptr(0.95), P: fptr(0.0001),
				Method: "hierarchical-bootstrap", Verdict: VerdictSlower, Note: "1 outlier process(es) in new (kept)"},
			{Package: "example.com/p", Name: "BenchmarkSame", Metric: MetricTime,
				Old: &ComparedValue{Center: fptr(100), Processes: 5}, New: &ComparedValue{Center: fptr(100.1), Processes: 5},
				Ratio: fptr(1.001), Low: fptr(0.995), High: fptr(1.006), Confidence: fptr(0.95), P: fptr(0.62),
				Method: "hierarchical-bootstrap", Verdict: VerdictEquivalent},
			{Package: "example.com/p", Name: "BenchmarkCrash", Metric: MetricTime,
				Old: &ComparedValue{Center: fptr(10), Processes: 5}, New: &ComparedValue{Outcome: "signal", Error: fptr2("killed by SIGSEGV")},
				Verdict: VerdictFailed, Note: "new failed: killed by SIGSEGV"},
			{Package: "example.com/q", Name: "BenchmarkGone", Metric: MetricTime,
				Old: &ComparedValue{Center: fptr(10), Processes: 5}, Verdict: VerdictOnlyOld},
			{Package: "example.com/p", Name: "BenchmarkSlower", Metric: MetricBytes,
				Old: &ComparedValue{Center: fptr(64), Processes: 5}, New: &ComparedValue{Center: fptr(128), Processes: 5},
				Ratio: fptr(2), Method: "exact", Verdict: VerdictIncreased},
			{Package: "example.com/p", Name: "BenchmarkSlower", Metric: MetricAllocs,
				Old: &ComparedValue{Center: fptr(1), Processes: 5}, New: &ComparedValue{Center: fptr(1), Processes: 5},
				Ratio: fptr(1), Method: "exact", Verdict: VerdictSame},
		},
		Geomeans: []Geomean{{Metric: MetricTime, Ratio: 1.14, Identities: 2}},
	}
}

func fptr2(s string) *string { return &s }

func TestWriteComparisonTable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteComparisonTable(&buf, comparisonFixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "comparison.golden", buf.Bytes())
}

func TestComparisonJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	c := comparisonFixture()
	if err := WriteComparisonJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"mismatches": []`) {
		t.Errorf("empty mismatches must encode as [], got:\n%s", buf.String())
	}
	back, integrity, err := ReadComparison(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(integrity.Checksum, "sha256:") || integrity.Note() != "" {
		t.Errorf("a written comparison reads with integrity %+v, note %q; want a verified checksum", integrity, integrity.Note())
	}
	// Encoding normalizes nil lists to empty ones.
	c.Mismatches = []FieldDiff{}
	for i := range c.Rows {
		for _, v := range []*ComparedValue{c.Rows[i].Old, c.Rows[i].New} {
			if v != nil && v.Outliers == nil {
				v.Outliers = []int{}
			}
		}
	}
	if !reflect.DeepEqual(*back, c) {
		t.Errorf("round trip changed the comparison:\n got %+v\nwant %+v", *back, c)
	}
}

func TestReadComparisonRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, err string }{
		{"not json", "hello", "not a benchsup comparison document"},
		{"other schema", `{"schema": 99, "old": {"label": "a"}}`, "comparison schema 99"},
		{"a run document", `{"schema": 1, "meta": {"mode": "bench"}, "rows": []}`, "a run document"},
		{"trailing data", `{"schema": 1, "old": {"label": "a"}} {}`, "data after the document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadComparison(strings.NewReader(tc.in))
			if !errors.Is(err, ErrNotComparison) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want ErrNotComparison mentioning %q", err, tc.err)
			}
		})
	}
}

func TestReadDocument(t *testing.T) {
	for _, tc := range []struct{ name, in, err string }{
		{"not json", "hello", "not a benchsup run document"},
		{"no schema", `{"rows": []}`, "no schema field"},
		{"other schema", `{"schema": 99}`, "schema 99"},
		{"trailing data", `{"schema": 1} {}`, "data after the document"},
		{"a comparison", `{"schema": 1, "old": {"label": "a.json"}, "new": {"label": "b.json"}, "rows": []}`, "a comparison document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadDocument(strings.NewReader(tc.in))
			if !errors.Is(err, ErrNotDocument) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want ErrNotDocument mentioning %q", err, tc.err)
			}
		})
	}
	doc, integrity, err := ReadDocument(strings.NewReader(`{"schema": 1, "meta": {"mode": "bench"}}`))
	if err != nil || doc.Meta.Mode != ModeBench {
		t.Errorf("ReadDocument of a minimal document = %+v, %v", doc, err)
	}
	if integrity.Checksum != "" || !strings.Contains(integrity.Note(), "no checksum") {
		t.Errorf("a document without a checksum reads with integrity %+v, note %q; want a note", integrity, integrity.Note())
	}
}
