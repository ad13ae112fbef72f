package rundoc_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

func TestComparisonJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	c := rundoctest.ComparisonFixture()
	if err := rundoc.WriteComparisonJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"mismatches": []`) {
		t.Errorf("empty mismatches must encode as [], got:\n%s", buf.String())
	}
	back, integrity, err := rundoc.ReadComparison(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(integrity.Checksum, "sha256:") || integrity.Note() != "" {
		t.Errorf("a written comparison reads with integrity %+v, note %q; want a verified checksum", integrity, integrity.Note())
	}
	// Encoding normalizes nil lists to empty ones.
	c.Mismatches = []rundoc.FieldDiff{}
	for i := range c.Rows {
		for _, v := range []*rundoc.ComparedValue{c.Rows[i].Old, c.Rows[i].New} {
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
			_, _, err := rundoc.ReadComparison(strings.NewReader(tc.in))
			if !errors.Is(err, rundoc.ErrNotComparison) || !strings.Contains(err.Error(), tc.err) {
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
			_, _, err := rundoc.ReadDocument(strings.NewReader(tc.in))
			if !errors.Is(err, rundoc.ErrNotDocument) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want ErrNotDocument mentioning %q", err, tc.err)
			}
		})
	}
	doc, integrity, err := rundoc.ReadDocument(strings.NewReader(`{"schema": 1, "meta": {"mode": "bench"}}`))
	if err != nil || doc.Meta.Mode != rundoc.ModeBench {
		t.Errorf("ReadDocument of a minimal document = %+v, %v", doc, err)
	}
	if integrity.Checksum != "" || !strings.Contains(integrity.Note(), "no checksum") {
		t.Errorf("a document without a checksum reads with integrity %+v, note %q; want a note", integrity, integrity.Note())
	}
}
