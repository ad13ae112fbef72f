package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// readEvents decodes an NDJSON stream strictly: every line one object of
// exactly Event's fields.
func readEvents(t *testing.T, stream []byte) []rundoc.Event {
	t.Helper()
	var out []rundoc.Event
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var ev rundoc.Event
		require.NoError(t, dec.Decode(&ev), "line %q", sc.Text())
		assert.False(t, dec.More(), "one object per line: %q", sc.Text())
		out = append(out, ev)
	}
	require.NoError(t, sc.Err())
	require.True(t, len(stream) == 0 || stream[len(stream)-1] == '\n', "the stream ends with a newline")
	return out
}

func TestEventWriterConcurrent(t *testing.T) {
	var buf bytes.Buffer
	w := NewEventWriter(&buf)
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				row := rundoctest.BenchRow("example.com/p", "BenchmarkX", rundoctest.SamplesOf(100, nil, nil, nil, 10, 11, 12))
				row.Error = rundoctest.Str("a < b && c > d") // not HTML-escaped
				ev := rundoc.ResultEvent(row)
				ev.Process = &i
				ev.PID = g + 1
				w.Emit(ev)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, w.Err())
	assert.NotContains(t, buf.String(), `\u003c`, "HTML characters are written as they are")
	events := readEvents(t, buf.Bytes())
	require.Len(t, events, goroutines*each)
	perGoroutine := map[int]int{} // the last process index each goroutine wrote
	for i, ev := range events {
		assert.Equal(t, int64(i+1), ev.Seq, "seq is 1, 2, ... in line order")
		assert.Equal(t, rundoc.EventSchemaVersion, ev.Schema)
		assert.Equal(t, rundoc.EventResult, ev.Kind)
		_, err := time.Parse(time.RFC3339Nano, ev.Time)
		assert.NoError(t, err)
		assert.True(t, strings.HasSuffix(ev.Time, "Z"), "UTC: %s", ev.Time)
		require.NotNil(t, ev.Row)
		require.NotNil(t, ev.Row.Summary)
		require.NotNil(t, ev.Process)
		// Each goroutine's events keep their order within the stream.
		if last, ok := perGoroutine[ev.PID]; ok {
			assert.Greater(t, *ev.Process, last)
		}
		perGoroutine[ev.PID] = *ev.Process
	}
	assert.Len(t, perGoroutine, goroutines)
}

func TestEventWriterTime(t *testing.T) {
	var buf bytes.Buffer
	w := NewEventWriter(&buf)
	w.now = func() time.Time { return time.Date(2026, 12, 1, 23, 5, 6, 7_890_000, time.FixedZone("X", 3600)) }
	w.Emit(rundoc.Event{Kind: rundoc.EventBuild, Package: "example.com/p", Outcome: rundoc.OutcomeOK})
	assert.Equal(t, `{"schema":1,"seq":1,"time":"2026-12-01T22:05:06.007Z","kind":"build","package":"example.com/p","outcome":"ok"}`+"\n",
		buf.String(), "milliseconds, UTC, and every absent field left out")
}

// failingWriter fails every write from the failAt-th on (1-based).
type failingWriter struct {
	writes, failAt int
	buf            bytes.Buffer
}

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	f.writes++
	if f.writes >= f.failAt {
		return 0, errDiskFull
	}
	return f.buf.Write(p)
}

func TestEventWriterError(t *testing.T) {
	f := &failingWriter{failAt: 3}
	w := NewEventWriter(f)
	for range 10 {
		w.Emit(rundoc.Event{Kind: rundoc.EventProcessStart, Package: "example.com/p"})
	}
	err := w.Err()
	require.ErrorIs(t, err, errDiskFull, "the first error is kept, wrapped")
	assert.Contains(t, err.Error(), "event 3")
	assert.Equal(t, 3, f.writes, "nothing is written after the first error")
	assert.Len(t, readEvents(t, f.buf.Bytes()), 2)
}

func TestEventWriterNonFinite(t *testing.T) {
	row := rundoctest.BenchRow("example.com/p", "BenchmarkNaN", rundoctest.SamplesOf(100, nil, nil, nil, 10, 11))
	row.Summary.Metrics = map[string]*float64{"x/op": rundoctest.Fptr(math.NaN())}
	cmp := rundoc.Comparison{Rows: []rundoc.ComparisonRow{{Name: "BenchmarkInf"}}}
	cmpRow := &cmp.Rows[0]
	cmpRow.Ratio = rundoctest.Fptr(math.Inf(1))
	tests := []struct {
		name string
		ev   rundoc.Event
		want string // in Error
	}{
		{"row", rundoc.ResultEvent(row), "row left out of the event: non-finite number"},
		{"row with an error", func() rundoc.Event { ev := rundoc.ResultEvent(row); ev.Error = rundoctest.Str("earlier"); return ev }(), "earlier; row left out"},
		{"comparison", rundoc.ComparisonEvent(cmp), "comparison left out of the event: non-finite number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewEventWriter(&buf)
			w.Emit(tt.ev)
			w.Emit(rundoc.Event{Kind: rundoc.EventDone})
			require.NoError(t, w.Err())
			events := readEvents(t, buf.Bytes())
			require.Len(t, events, 2, "the event is written anyway, and the stream goes on")
			ev := events[0]
			assert.Nil(t, ev.Row)
			assert.Nil(t, ev.Comparison)
			require.NotNil(t, ev.Error)
			assert.Contains(t, *ev.Error, tt.want)
			assert.Equal(t, tt.ev.Kind, ev.Kind)
			assert.Equal(t, tt.ev.Name, ev.Name, "the identity stays")
		})
	}
}

func TestDoneEvent(t *testing.T) {
	tests := []struct {
		name       string
		doc        rundoc.Document
		wantFailed bool
	}{
		{"green", rundoctest.GreenDoc(), false},
		{"errors", rundoctest.ErrorDoc(), true},
		{"empty", rundoc.Document{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := rundoc.DoneEvent(tt.doc)
			assert.Equal(t, rundoc.EventDone, ev.Kind)
			require.NotNil(t, ev.Failed, "failed is always present on done")
			assert.Equal(t, tt.wantFailed, *ev.Failed)
			total := 0
			for o, n := range ev.Counts {
				assert.Positive(t, n, "outcome %s", o)
				total += n
			}
			assert.Equal(t, len(tt.doc.Rows), total, "every row counted once")
		})
	}
}
