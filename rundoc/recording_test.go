package rundoc_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/record"
	"github.com/benchsup/benchsup/rundoc"
)

// TestRecordDocumentReadsAsRecordings checks that what package record
// writes on its own unmarshals into rundoc's mirror member for member, and
// that a document holding it validates. The test imports record; rundoc
// itself does not.
func TestRecordDocumentReadsAsRecordings(t *testing.T) {
	var out bytes.Buffer
	rec := record.New(record.Config{Spans: true, Output: &out, Retention: record.Retention{Policy: record.Reservoir, Capacity: 50}})
	req, idle := rec.Register("request"), rec.Register("idle")
	_ = idle
	rec.Start()
	for i := range 120 {
		s := req.Begin()
		o := record.Success
		switch i % 10 {
		case 7:
			o = record.Failure
		case 8:
			o = record.Timeout
		case 9:
			o = record.Canceled
		}
		s.Finish(o)
	}
	_ = req.Begin() // never finished: unfinished
	require.NoError(t, rec.Stop())

	var got struct {
		ElapsedNs  int64              `json:"elapsedNs"`
		Recordings []rundoc.Recording `json:"recordings"`
	}
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	dec.DisallowUnknownFields() // every member record writes has its field
	require.NoError(t, dec.Decode(&got))
	require.Len(t, got.Recordings, 2)
	r := got.Recordings[0]
	assert.Equal(t, "request", r.Identity)
	assert.Equal(t, rundoc.RecordingOutcomes{Success: 84, Failure: 12, Timeout: 12, Canceled: 12, Unfinished: 1}, r.Outcomes)
	assert.Equal(t, int64(120), r.Observations)
	assert.Equal(t, int64(50), r.Retained)
	assert.Equal(t, int64(70), r.Omitted)
	assert.Equal(t, rundoc.RecordingRetention{Policy: "reservoir", Capacity: 50}, r.Retention)
	require.NotNil(t, r.Summary)
	assert.Equal(t, rundoc.OverRetained, r.Summary.PercentilesOver)
	assert.Len(t, r.Spans, 50)
	assert.Equal(t, rundoc.SampleSemanticsSpan, r.SampleSemantics)
	assert.Nil(t, got.Recordings[1].Summary, "an identity with no finished span has no summary")

	// The same values, back out through record's own JSON: nothing lost.
	want, err := json.Marshal(rec.Results())
	require.NoError(t, err)
	again, err := json.Marshal(got.Recordings)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(again))

	doc := rundoctest.GreenDoc()
	doc.Recordings = got.Recordings
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, doc))
	read, _, err := rundoc.ReadDocument(&buf)
	require.NoError(t, err, "a recorder's own output is a valid document's recordings")
	assert.Equal(t, got.Recordings, read.Recordings)
}

func TestReadRefusesRecordings(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(rs []rundoc.Recording)
		want string
	}{
		{"observations against outcomes", func(rs []rundoc.Recording) { rs[0].Outcomes.Timeout++ },
			"recordings[0].observations: records 10, but the finished outcomes add up to 11"},
		{"retained and omitted", func(rs []rundoc.Recording) { rs[1].Omitted = 2 },
			"recordings[1].omitted: retained 4 and omitted 2 do not add up to observations 4"},
		{"negative count", func(rs []rundoc.Recording) { rs[0].Outcomes.Unfinished = -1 },
			"recordings[0].outcomes.unfinished: negative count -1"},
		{"unknown policy", func(rs []rundoc.Recording) { rs[0].Retention.Policy = "random" },
			`recordings[0].retention.policy: "random" is not a retention policy`},
		{"above capacity", func(rs []rundoc.Recording) { rs[1].Retention.Capacity = 3 },
			"recordings[1].retained: retained 4 is above capacity 3"},
		{"semantics", func(rs []rundoc.Recording) { rs[0].SampleSemantics = "per-process-median" },
			`recordings[0].sampleSemantics: "per-process-median", but a recording's percentiles are of "individual-span"`},
		{"p95 above p99", func(rs []rundoc.Recording) { rs[0].Summary.P95Ns = rs[0].Summary.P99Ns + 1 },
			"recordings[0].summary.p99Ns: p95Ns"},
		{"median below min", func(rs []rundoc.Recording) { rs[1].Summary.MedianNs = 1 },
			"recordings[1].summary.medianNs: minNs 3.85e+07 is above medianNs 1"},
		{"interval not around the median", func(rs []rundoc.Recording) { rs[0].Summary.Interval.LowNs = rs[0].Summary.MedianNs + 1 },
			"recordings[0].summary.interval.lowNs: lowNs"},
		{"mean outside", func(rs []rundoc.Recording) { rs[0].Summary.MeanNs = 1e12 },
			"recordings[0].summary.meanNs: mean 1e+12 is outside"},
		{"missing summary", func(rs []rundoc.Recording) { rs[1].Summary = nil },
			"recordings[1].summary: null, but 4 spans were retained"},
		{"summary of no retained span", func(rs []rundoc.Recording) { rs[1].Retained, rs[1].Omitted = 0, rs[1].Observations },
			"recordings[1].summary: present, but no span was retained"},
		{"over what", func(rs []rundoc.Recording) { rs[0].Summary.PercentilesOver = rundoc.OverRetained },
			`recordings[0].summary.percentilesOver: "retained-sample", but with 0 omitted`},
		{"spans against retained", func(rs []rundoc.Recording) { rs[0].Spans = rs[0].Spans[1:] },
			"recordings[0].spans: holds 9 spans, but 10 were retained"},
		{"spans out of order", func(rs []rundoc.Recording) { rs[0].Spans[3].Observation = 2 },
			"recordings[0].spans[3].observation: 2 is not after 3"},
		{"span outcome", func(rs []rundoc.Recording) { rs[0].Spans[0].Outcome = "ok" },
			`recordings[0].spans[0].outcome: "ok" is not a span outcome`},
		{"span above max", func(rs []rundoc.Recording) { rs[0].Spans[0].DurationNs = 9e9 },
			"recordings[0].spans[0].durationNs: 9000000000 is outside the summary's"},
		{"duplicate identity", func(rs []rundoc.Recording) { rs[1].Identity = "request" },
			`recordings[1]: identity "request" of ./cmd/server repeats recordings[0]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := rundoctest.GreenDoc()
			doc.Recordings = rundoctest.RecordingsFixture()
			tc.edit(doc.Recordings)
			var buf bytes.Buffer
			require.NoError(t, rundoc.WriteJSON(&buf, doc))
			_, _, err := rundoc.ReadDocument(&buf)
			require.ErrorIs(t, err, rundoc.ErrInvalidValue)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
