package report

import (
	"bytes"
	"testing"
)

func TestWriteComparisonTable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteComparisonTable(&buf, ComparisonFixture()); err != nil {
		t.Fatal(err)
	}
	Golden(t, "comparison.golden", buf.Bytes())
}
