package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// recordingsDoc is the green run with the recordings fixture and a third
// identity whose reservoir omitted spans.
func recordingsDoc() rundoc.Document {
	doc := rundoctest.GreenDoc()
	doc.Recordings = rundoctest.RecordingsFixture()
	sampled := rundoctest.RecordingOf("./cmd/server", "checkout", false, 3_100_000, 2_900_000, 3_400_000, 12_000_000)
	sampled.Observations += 96
	sampled.Outcomes.Success += 90
	sampled.Outcomes.Timeout += 6
	sampled.Outcomes.Unfinished = 2
	sampled.Omitted = 96
	sampled.Retention.Capacity = 4
	sampled.Summary.PercentilesOver = rundoc.OverRetained
	doc.Recordings = append(doc.Recordings, sampled)
	return doc
}

func TestWriteTableRecordings(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, recordingsDoc(), TableOptions{}))
	rundoctest.Golden(t, "recordings.table", buf.Bytes())
	out := buf.String()
	block := out[strings.Index(out, recordingsTitle):]
	assert.Equal(t, 1, strings.Count(out, "individual spans"), "said once")
	assert.Regexp(t, `\nrequest\s+\./cmd/server\s+10\s+2\s+0\s+0\s+0\s+1\.\d+ms`, block)
	assert.Contains(t, block, "4 of 100 (reservoir)")
	assert.Contains(t, block, "checkout: median, p95 and p99 are of the 4 retained spans (reservoir, capacity 4), not all 100; max is of all")
}

func TestWriteComparisonTableRecordings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	spans := func(n int, median float64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(median*math.Exp(0.4*rng.NormFloat64())) + 1
		}
		return out
	}
	old := []rundoc.Recording{rundoctest.RecordingOf("./cmd/server", "request", true, spans(400, 1e6)...)}
	new := []rundoc.Recording{rundoctest.RecordingOf("./cmd/server", "request", true, spans(400, 1.3e6)...)}
	rows, err := analysis.CompareRecordings(old, new, analysis.CompareConfig{Bootstrap: analysis.Bootstrap{Resamples: 1000, Seed: 1}})
	require.NoError(t, err)
	c := rundoctest.ComparisonFixture()
	c.Rows, c.Geomeans = rows, analysis.Geomeans(rows)
	c.Knobs.Resamples = 1000
	var buf bytes.Buffer
	require.NoError(t, WriteComparisonTable(&buf, c))
	rundoctest.Golden(t, "comparison-recordings.golden", buf.Bytes())
	out := buf.String()
	assert.Contains(t, out, "statistics: "+spanDesign+";")
	assert.Contains(t, out, "span-median")
	assert.Contains(t, out, "slower")
	assert.Contains(t, out, analysis.MinSpansForNote(0.99))
}

func TestWriteCSVRecordings(t *testing.T) {
	doc := recordingsDoc()
	doc.Recordings = append(doc.Recordings, rundoc.Recording{Identity: "idle", SampleSemantics: rundoc.SampleSemanticsSpan,
		Retention: rundoc.RecordingRetention{Policy: "reservoir", Capacity: 10000}})
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, doc, CSVOptions{}))
	rundoctest.Golden(t, "csv/recordings-wide.golden", buf.Bytes())
	header, rows := readCSV(t, buf.Bytes())
	require.Equal(t, csvRecordingColumns, header[len(header)-len(csvRecordingColumns):], "the recording columns come last")
	require.Len(t, rows, len(doc.Rows)+len(doc.Recordings))
	for i, r := range rows[:len(doc.Rows)] {
		for _, c := range csvRecordingColumns {
			assert.Equal(t, "", r[c], "row %d (%s): %s belongs to recording rows", i, r["name"], c)
		}
	}
	rec := rows[len(doc.Rows):]
	assert.Equal(t, "recording", rec[0]["kind"])
	assert.Equal(t, "request", rec[0]["name"])
	assert.Equal(t, "./cmd/server", rec[0]["package"])
	assert.Equal(t, "10", rec[0]["recording:observations"])
	assert.Equal(t, "", rec[0]["median_ns"], "a recording's median is not a benchmark's")
	assert.Equal(t, "retained-sample", rec[2]["recording:percentiles_over"])
	assert.Equal(t, "", rec[3]["recording:median_ns"], "no span finished: empty, never 0")
	assert.Equal(t, "0", rec[3]["recording:observations"])
}

func TestWriteHTMLRecordings(t *testing.T) {
	doc := recordingsDoc()
	page := renderHTML(t, HTMLReport{Run: &doc})
	assert.Contains(t, page, `<h2 id="recordings">Recordings</h2>`)
	assert.Contains(t, page, "percentiles of individual spans")
	for _, r := range doc.Recordings {
		svg := regexp.MustCompile(`(?s)<svg class="ecdf" data-identity="` + regexp.QuoteMeta(r.Identity) + `".*?</svg>`).FindString(page)
		require.NotEmpty(t, svg, r.Identity)
		if len(r.Spans) == 0 {
			assert.Contains(t, svg, "record with --spans", r.Identity)
			assert.NotContains(t, svg, "<path", r.Identity)
			continue
		}
		path := regexp.MustCompile(`data-curve="ecdf"[^>]* d="([^"]*)"`).FindStringSubmatch(svg)
		require.Len(t, path, 2, r.Identity)
		// One horizontal and one vertical move per distinct duration,
		// the last reaching the top (100%).
		distinct := map[int64]bool{}
		for _, sp := range r.Spans {
			distinct[sp.DurationNs] = true
		}
		assert.Equal(t, len(distinct), strings.Count(path[1], " H"), r.Identity)
		assert.True(t, strings.HasSuffix(path[1], " V"+px(ecdfTop)), "%s: ends at 100%%: %s", r.Identity, path[1])
	}
}
