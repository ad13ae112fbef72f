package rundoc_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

func TestWindowsJSON(t *testing.T) {
	t.Run("windowless documents keep their bytes", func(t *testing.T) {
		for _, doc := range []rundoc.Document{rundoctest.GreenDoc(), rundoctest.ErrorDoc(), rundoctest.CountedDoc(), {}} {
			var nilWindows, emptyWindows bytes.Buffer
			require.NoError(t, rundoc.WriteJSON(&nilWindows, doc))
			doc.Windows, doc.WindowSummaries = []rundoc.Window{}, []rundoc.WindowSummary{}
			require.NoError(t, rundoc.WriteJSON(&emptyWindows, doc))
			assert.Equal(t, nilWindows.String(), emptyWindows.String())
			assert.NotContains(t, nilWindows.String(), `"windows`)
			assert.NotContains(t, nilWindows.String(), `"windowMetrics"`)
		}
	})
	t.Run("nulls and objects", func(t *testing.T) {
		doc := rundoctest.Summarized(rundoctest.WindowDoc())
		doc.Windows[6].Totals = nil
		doc.WindowSummaries[4].Totals = nil
		var buf bytes.Buffer
		require.NoError(t, rundoc.WriteJSON(&buf, doc))
		var got struct {
			Windows   []map[string]any `json:"windows"`
			Summaries []map[string]any `json:"windowSummaries"`
		}
		require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
		require.Len(t, got.Windows, len(doc.Windows), "the per-process windows stay in the document")
		parse := got.Windows[1]
		for _, k := range []string{"offCpuRunqueueNs", "offCpuDiskNs"} {
			v, ok := parse[k]
			assert.True(t, ok, "%s keeps its key", k)
			assert.Nil(t, v, "%s is null, never 0", k)
		}
		assert.Equal(t, 0.0, parse["otherThreadsCpuNs"], "a measured zero stays 0")
		assert.Equal(t, map[string]any{}, got.Windows[6]["totals"], "totals are always an object")
		assert.Equal(t, "system", got.Windows[0]["psi"].(map[string]any)["scope"])
		assert.NotContains(t, got.Windows[6], "psi", "psi is absent without a reading")
		assert.NotContains(t, got.Windows[6], "regime", "regime is absent without a prep")
		assert.Equal(t, "partial", got.Windows[2]["regime"].(map[string]any)["effective"])
		assert.Contains(t, got.Windows[3], "regime", "an error window keeps its regime stamp")
		assert.Nil(t, doc.Windows[6].Totals, "the caller's document is untouched")

		require.Len(t, got.Summaries, len(doc.WindowSummaries))
		ingest := got.Summaries[0]
		assert.Equal(t, map[string]any{"median": 156_179_011.5, "spread": 3_833_333.5, "min": 152_345_678.0, "max": 160_012_345.0}, ingest["wallNs"])
		v, ok := ingest["offCpuDiskNs"]
		assert.True(t, ok)
		assert.Nil(t, v, "a component some process did not attribute is null")
		assert.Nil(t, ingest["totals"].(map[string]any)["perf-sw.task-clock"], "a total some process lacks is null")
		assert.Nil(t, got.Summaries[1]["wallNs"].(map[string]any)["spread"], "one process: no spread, null not 0")
		assert.Nil(t, got.Summaries[2]["wallNs"], "no process measured it")
		assert.Equal(t, map[string]any{}, got.Summaries[4]["totals"], "summary totals are always an object")
	})
	t.Run("HTML characters stay as they are", func(t *testing.T) {
		doc := rundoctest.Summarized(rundoctest.WindowDoc())
		doc.WindowSummaries[0].Note = "a <b> & c"
		var buf bytes.Buffer
		require.NoError(t, rundoc.WriteJSON(&buf, doc))
		assert.Contains(t, buf.String(), `"note": "a <b> & c"`)
	})
	t.Run("non-finite numbers are refused", func(t *testing.T) {
		doc := rundoctest.Summarized(rundoctest.WindowDoc())
		doc.Windows[2].Totals["tier0.syscr"] = math.NaN()
		var buf bytes.Buffer
		err := rundoc.WriteJSON(&buf, doc)
		assert.ErrorIs(t, err, rundoc.ErrNonFinite)
		assert.ErrorContains(t, err, `windows[2].totals["tier0.syscr"] is NaN`)
		assert.Zero(t, buf.Len(), "no partial document")

		doc = rundoctest.Summarized(rundoctest.WindowDoc())
		doc.WindowSummaries[0].Totals["tier0.syscr"] = rundoctest.F64(math.Inf(1))
		buf.Reset()
		err = rundoc.WriteJSON(&buf, doc)
		assert.ErrorIs(t, err, rundoc.ErrNonFinite)
		assert.ErrorContains(t, err, `BenchmarkIngest totals["tier0.syscr"] is +Inf`)
		assert.Zero(t, buf.Len(), "no partial document")
	})
}

func TestWindowsJSONGolden(t *testing.T) {
	tests := []struct {
		name string
		doc  rundoc.Document
	}{
		{"windows", rundoctest.Summarized(rundoctest.WindowDoc())},
		{"windows-only", rundoctest.Summarized(rundoctest.WindowsOnlyDoc())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first, second bytes.Buffer
			require.NoError(t, rundoc.WriteJSON(&first, tt.doc))
			require.NoError(t, rundoc.WriteJSON(&second, tt.doc))
			assert.Equal(t, first.String(), second.String(), "output is deterministic")
			rundoctest.Golden(t, tt.name+".json", first.Bytes())

			var back rundoc.Document
			require.NoError(t, json.Unmarshal(first.Bytes(), &back))
			assert.Equal(t, rundoc.Normalize(tt.doc).Windows, back.Windows, "every per-process window round-trips, nil durations staying nil")
			assert.Equal(t, tt.doc.WindowSummaries, back.WindowSummaries, "every summary round-trips")
		})
	}
}
