package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

func TestGate(t *testing.T) {
	row := func(name, metric string, verdict rundoc.Verdict) rundoc.ComparisonRow {
		return rundoc.ComparisonRow{Package: "p", Name: name, Metric: metric, Verdict: verdict}
	}
	for _, tc := range []struct {
		name   string
		failOn analysis.FailOn
		rows   []rundoc.ComparisonRow
		want   error
	}{
		{"no gate", "", []rundoc.ComparisonRow{row("A", rundoc.MetricTime, rundoc.VerdictSlower)}, nil},
		{"slower fails", "slower", []rundoc.ComparisonRow{row("A", rundoc.MetricTime, rundoc.VerdictSlower)}, errRegression},
		{"only time is gated", "slower", []rundoc.ComparisonRow{row("A", rundoc.MetricBytes, rundoc.VerdictIncreased)}, nil},
		{"inconclusive passes a slower gate", "slower", []rundoc.ComparisonRow{row("A", rundoc.MetricTime, rundoc.VerdictInconclusive)}, nil},
		{"inconclusive fails closed", "inconclusive", []rundoc.ComparisonRow{row("A", rundoc.MetricTime, rundoc.VerdictInconclusive)}, errRegression},
		{"a crash is its own status", "slower", []rundoc.ComparisonRow{row("A", rundoc.MetricTime, rundoc.VerdictFailed)}, errIncomplete},
		{"missing outranks slower", "slower", []rundoc.ComparisonRow{
			row("A", rundoc.MetricTime, rundoc.VerdictSlower), row("B", rundoc.MetricTime, rundoc.VerdictOnlyOld)}, errIncomplete},
		{"a new benchmark passes", "inconclusive", []rundoc.ComparisonRow{row("A", rundoc.MetricTime, rundoc.VerdictOnlyNew)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := gate(rundoc.Comparison{Rows: tc.rows}, tc.failOn, io.Discard)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("gate = %v, want %v", err, tc.want)
			}
		})
	}
	// args[0] is the program's name, as os.Args gives it; the error must
	// be --fail-on's, not some other usage error.
	var stderr strings.Builder
	if got := run([]string{"benchsup", "compare", "--fail-on=maybe", "a", "b"}, io.Discard, &stderr); got != exitUsage || !strings.Contains(stderr.String(), "fail-on") {
		t.Errorf("a bad --fail-on exits %d (%q), want %d naming --fail-on", got, stderr.String(), exitUsage)
	}
}

func TestParsePercent(t *testing.T) {
	for in, want := range map[string]float64{"2": 0.02, "2%": 0.02, " 2.5 % ": 0.025, "95": 0.95,
		"99.9": 0.999, // 99.9/100 is 0.9990000000000001, past the limit 0.999
	} {
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

// TestReadRunIntegrity checks what a command says of the document it
// reads: nothing when its checksum verifies, one note line when it has
// none, and an error naming the file when it was edited.
func TestReadRunIntegrity(t *testing.T) {
	var buf bytes.Buffer
	if err := rundoc.WriteJSON(&buf, rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeBench, Hostname: "h"}}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	tail := len(`,
  "checksum": "sha256:`) + 64 + len("\"\n}\n")
	for _, tc := range []struct {
		name, content, note, err string
	}{
		{"verified", string(good), "", ""},
		{"no checksum", string(good[:len(good)-tail]) + "\n}\n",
			"benchsup: note: DIR/no checksum.json has no checksum (written before benchsup checksummed its documents, or its checksum was taken away); read without an integrity check\n", ""},
		{"edited", strings.Replace(string(good), `"hostname": "h"`, `"hostname": "x"`, 1), "",
			"DIR/edited.json: checksum mismatch: the document was changed or cut after benchsup wrote it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.name+".json")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			doc, err := readRun(path, &stderr)
			if got, want := stderr.String(), strings.ReplaceAll(tc.note, "DIR", dir); got != want {
				t.Errorf("stderr = %q, want %q", got, want)
			}
			if tc.err == "" {
				if err != nil || doc == nil {
					t.Errorf("readRun = %v, %v", doc, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), strings.ReplaceAll(tc.err, "DIR", dir)) || !errors.Is(err, rundoc.ErrChecksum) {
				t.Errorf("err = %v, want one starting %q", err, tc.err)
			}
		})
	}
}
