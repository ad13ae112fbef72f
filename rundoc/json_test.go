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

func TestWriteJSONGolden(t *testing.T) {
	tests := []struct {
		name string
		doc  rundoc.Document
	}{
		{"green", rundoctest.GreenDoc()},
		{"errors", rundoctest.ErrorDoc()},
		{"tests", rundoctest.TestsDoc()},
		{"counted", rundoctest.CountedDoc()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first, second bytes.Buffer
			require.NoError(t, rundoc.WriteJSON(&first, tt.doc))
			require.NoError(t, rundoc.WriteJSON(&second, tt.doc))
			assert.Equal(t, first.String(), second.String(), "output is deterministic")
			rundoctest.Golden(t, tt.name+".json", first.Bytes())

			var back rundoc.Document
			require.NoError(t, json.Unmarshal(first.Bytes(), &back), "output is valid JSON of the Document shape")
			assert.Equal(t, rundoc.SchemaVersion, back.Schema)
			assert.Len(t, back.Rows, len(tt.doc.Rows), "no row is dropped")
		})
	}
}

func TestWriteJSONNull(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, rundoctest.GreenDoc()))
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))

	scan := doc.Rows[3]["summary"].(map[string]any)
	metrics := scan["metrics"].(map[string]any)
	v, ok := metrics["hit-ratio"]
	assert.True(t, ok, "an unavailable metric keeps its key")
	assert.Nil(t, v, "an unavailable metric is null, never 0")
	assert.Equal(t, 128.0, metrics["rows/op"])

	buf.Reset()
	require.NoError(t, rundoc.WriteJSON(&buf, rundoctest.ErrorDoc()))
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	build := doc.Rows[4]
	assert.Nil(t, build["summary"], "a row that measured nothing has a null summary")
	assert.Equal(t, []any{}, build["processes"], "collections are arrays, not null")
	timedOut := doc.Rows[0]["processes"].([]any)[1].(map[string]any)
	assert.Nil(t, timedOut["nsPerOp"])
	assert.Equal(t, []any{}, timedOut["samples"])
}

func TestWriteJSONEmpty(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, rundoc.Document{}))
	assert.Contains(t, buf.String(), `"rows": []`)
	assert.Contains(t, buf.String(), `"builds": []`)
	assert.Contains(t, buf.String(), `"schema": 1`)
}

func TestWriteJSONDoesNotModifyInput(t *testing.T) {
	doc := rundoctest.ErrorDoc()
	doc.Rows[0].Summary.Metrics = nil
	require.NoError(t, rundoc.WriteJSON(&bytes.Buffer{}, doc))
	assert.Nil(t, doc.Rows[0].Summary.Metrics)
	assert.Nil(t, doc.Rows[4].Processes)
}

func TestWriteJSONRefusesNonFinite(t *testing.T) {
	tests := []struct {
		name string
		edit func(*rundoc.Document)
		path string
	}{
		{"summary field", func(d *rundoc.Document) { d.Rows[0].Summary.MaxNs = math.Inf(1) }, "rows[0].summary.maxNs is +Inf"},
		{"interval", func(d *rundoc.Document) { d.Rows[1].Summary.Interval.HighNs = math.NaN() }, "rows[1].summary.interval.highNs is NaN"},
		{"metric", func(d *rundoc.Document) { d.Rows[2].Summary.Metrics["B/op"] = new(math.NaN()) }, `rows[2].summary.metrics["B/op"] is NaN`},
		{"process stats", func(d *rundoc.Document) { d.Rows[0].Processes[2].NsPerOp = &rundoc.Stats{N: 1, MAD: math.Inf(-1)} },
			"rows[0].processes[2].nsPerOp.mad is -Inf"},
		{"sample extra", func(d *rundoc.Document) {
			d.Rows[0].Processes[1].Samples[2].Extra = map[string]float64{"MB/s": math.NaN()}
		}, `rows[0].processes[1].samples[2].extra["MB/s"] is NaN`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := rundoctest.GreenDoc()
			tt.edit(&doc)
			var buf bytes.Buffer
			err := rundoc.WriteJSON(&buf, doc)
			assert.ErrorIs(t, err, rundoc.ErrNonFinite)
			assert.ErrorContains(t, err, tt.path)
			assert.Zero(t, buf.Len(), "no partial document")
		})
	}
}

func TestWriteJSONSchema(t *testing.T) {
	doc := rundoctest.GreenDoc()
	doc.Schema = rundoc.SchemaVersion + 1
	assert.ErrorContains(t, rundoc.WriteJSON(&bytes.Buffer{}, doc), "schema")
	assert.ErrorIs(t, rundoc.WriteJSON(rundoctest.FailWriter{}, rundoctest.GreenDoc()), rundoctest.ErrWrite)
}
