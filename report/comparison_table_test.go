package report

import (
	"bytes"
	"testing"

	"github.com/benchsup/benchsup/internal/rundoctest"
)

func TestWriteComparisonTable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteComparisonTable(&buf, rundoctest.ComparisonFixture()); err != nil {
		t.Fatal(err)
	}
	rundoctest.Golden(t, "comparison.golden", buf.Bytes())
}
