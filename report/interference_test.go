package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// TestTableShowsInterference: a row the watch repaired says so in its n
// cell and in the notes block; a row it watched quietly shows nothing; the
// JSON keeps every count.
func TestTableShowsInterference(t *testing.T) {
	doc := rundoctest.GreenDoc()
	doc.Meta.Interference = &rundoc.InterferencePolicy{Response: "retake", MaxForeign: 0.1, MaxRetakes: 25, Scope: rundoc.InterferenceScope}
	for i := range doc.Rows {
		doc.Rows[i].Interference = &rundoc.RowInterference{Samples: 9, MaxForeign: rundoctest.F64(0.02)}
	}
	repaired := &doc.Rows[1]
	repaired.Interference = &rundoc.RowInterference{Samples: 11, Disturbed: 3, Retakes: 2, BudgetExhausted: 1, MaxForeign: rundoctest.F64(0.47)}
	repaired.Notes = append(repaired.Notes, repaired.Interference.Note())

	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
	out := buf.String()
	var decodeLine string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "codec.BenchmarkDecode") {
			decodeLine = line
		}
		if strings.HasPrefix(line, "store.BenchmarkGet") {
			assert.NotContains(t, line, "retaken", "a quiet row is not marked")
		}
	}
	assert.Contains(t, decodeLine, "3×3 (2 retaken) (1 disturbed)")
	assert.Contains(t, out, "codec.BenchmarkDecode: interference: 3 of 11 samples disturbed (max 47% foreign CPU), 2 retaken, 1 disturbed sample kept; budget exhausted in 1 process")

	js, err := json.Marshal(doc)
	require.NoError(t, err)
	var back rundoc.Document
	require.NoError(t, json.Unmarshal(js, &back))
	assert.Equal(t, doc.Rows[1].Interference, back.Rows[1].Interference)
	assert.Equal(t, doc.Meta.Interference, back.Meta.Interference)
}
