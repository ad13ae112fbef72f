package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/benchsup/benchsup/rundoc"
)

// EventWriter writes events as newline-delimited JSON, one object per
// line, each written with a single Write. It is safe for concurrent use:
// lines never interleave, and Seq follows line order.
//
// The first write error is kept (Err) and every later event dropped: the
// stream is a view of the run, so losing it must not stop the run. An
// event whose Row or Comparison JSON cannot carry (a NaN or an infinity,
// ErrNonFinite) is written without them, with an Error saying why, rather
// than not at all.
type EventWriter struct {
	mu  sync.Mutex
	w   io.Writer
	seq int64
	err error
	now func() time.Time // time.Now; replaced in tests
}

// NewEventWriter returns a writer of events to w.
func NewEventWriter(w io.Writer) *EventWriter {
	return &EventWriter{w: w, now: time.Now}
}

// eventTime is RFC 3339 with milliseconds, fixed width.
const eventTime = "2006-01-02T15:04:05.000Z07:00"

// Emit writes ev with Schema, Seq and Time set; a no-op after a write
// error.
func (e *EventWriter) Emit(ev rundoc.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return
	}
	e.seq++
	ev.Schema, ev.Seq, ev.Time = rundoc.EventSchemaVersion, e.seq, e.now().UTC().Format(eventTime)
	line, err := marshalEvent(ev)
	if err != nil {
		// Not the writer's failure: the event itself. Keep the sequence
		// dense, but say so on the line that takes the seq.
		msg := "event not encodable: " + err.Error()
		line, _ = marshalEvent(rundoc.Event{Schema: ev.Schema, Seq: ev.Seq, Time: ev.Time, Kind: ev.Kind, Error: &msg})
	}
	if _, err := e.w.Write(line); err != nil {
		e.err = fmt.Errorf("report: writing event %d: %w", ev.Seq, err)
	}
}

// Err returns the first write error, or nil.
func (e *EventWriter) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// marshalEvent encodes ev as one line. A Row or Comparison holding a
// non-finite number is dropped and the reason put in Error.
func marshalEvent(ev rundoc.Event) ([]byte, error) {
	line, err := encodeLine(ev)
	if err == nil || (ev.Row == nil && ev.Comparison == nil) {
		return line, err
	}
	what := "row"
	if ev.Row == nil {
		what = "comparison"
	}
	msg := fmt.Sprintf("%s left out of the event: %v (%v)", what, rundoc.ErrNonFinite, err)
	if ev.Error != nil {
		msg = *ev.Error + "; " + msg
	}
	ev.Row, ev.Comparison, ev.Error = nil, nil, &msg
	return encodeLine(ev)
}

func encodeLine(ev rundoc.Event) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)               // errors and output hold <, > and &, as in WriteJSON
	if err := enc.Encode(ev); err != nil { // Encode ends the line
		return nil, err
	}
	return b.Bytes(), nil
}
