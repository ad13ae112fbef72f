package rundoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// ErrNonFinite is wrapped by the error a renderer returns when the Document
// holds a NaN or an infinity: such a value is not a measurement, and JSON
// cannot carry it. The error names the field.
var ErrNonFinite = errors.New("non-finite number")

// WriteJSON writes doc as one indented JSON document followed by a newline.
// The output is deterministic: fields in declaration order, map keys sorted,
// arrays in measurement order (never the table's order), so a document can
// be committed and diffed.
//
// Unavailable values are null, never 0. Rows, processes, samples, changed
// modules, columns, sources (and each source's absences, their metrics, and
// its degraded states) are always arrays, and a summary's metrics and
// counted values always objects, so that null keeps the single meaning "not
// available". A summary's counted object holds a key for every column: a
// column the summary has no value for is null. Windows are omitted when no
// workload ran, so a windowless document keeps its earlier bytes; otherwise
// each window's unavailable durations are null and its totals always an
// object, with psi and regime absent when there was no reading or no prep.
// A zero Schema is written as SchemaVersion; any other value than
// SchemaVersion is an error, since this package writes that shape only.
//
// The last member is "checksum": the SHA-256 of every byte before it (see
// checksum.go), which ReadDocument verifies.
//
// The document streams out part by part (the meta, then each row, window
// and comparison), so that it is never held whole a second time. Every
// value is checked before the first byte is written: a refused document
// (a non-finite number, another schema) writes nothing. A failure of w
// itself can leave part of a document written; a caller that must not
// replace a good file with half a document writes to a temporary file and
// renames it (as the command does).
func WriteJSON(w io.Writer, doc Document) error {
	switch doc.Schema {
	case 0:
		doc.Schema = SchemaVersion
	case SchemaVersion:
	default:
		return fmt.Errorf("report: document schema %d, but this package writes schema %d", doc.Schema, SchemaVersion)
	}
	if err := CheckFinite(doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	hw := newHashingWriter(w)
	s := &jsonStream{w: hw}
	writeDocument(s, doc)
	if s.err == nil {
		s.err = hw.finish()
	}
	if s.err != nil {
		return fmt.Errorf("report: writing JSON: %w", s.err)
	}
	return nil
}

// writeDocument streams doc's members in the order of Document's fields;
// the bytes are those of encoding the normalized document whole, up to the
// closing brace, which the checksum member precedes.
func writeDocument(s *jsonStream, doc Document) {
	o := s.object(0)
	o.member("schema", doc.Schema)
	o.member("meta", normalizeMeta(doc.Meta))
	if doc.Interrupted != nil {
		o.member("interrupted", doc.Interrupted)
	}
	o.member("columns", orEmpty(doc.Columns))
	o.key("rows")
	streamArray(s, 1, doc.Rows, func(r Row) { s.value(2, normalizeRow(r, doc.Columns)) })
	if len(doc.Windows) > 0 {
		// Absent, not empty: a windowless document keeps its shape.
		o.key("windows")
		streamArray(s, 1, doc.Windows, func(w Window) {
			w.Totals = orEmptyMap(w.Totals)
			s.value(2, w)
		})
	}
	if len(doc.WindowSummaries) > 0 {
		o.key("windowSummaries")
		streamArray(s, 1, doc.WindowSummaries, func(w WindowSummary) { s.value(2, w) })
	}
	if len(doc.Sweeps) > 0 {
		o.key("sweeps")
		streamArray(s, 1, doc.Sweeps, func(sw Sweep) { s.value(2, normalizeSweep(sw)) })
	}
	if len(doc.Recordings) > 0 {
		o.key("recordings")
		streamArray(s, 1, doc.Recordings, func(r Recording) { s.value(2, r) })
	}
	if len(doc.Comparisons) > 0 {
		o.key("comparisons")
		// As they are: a run document's comparisons keep their nulls.
		streamArray(s, 1, doc.Comparisons, func(c Comparison) { writeComparison(s, 2, c, nil) })
	}
}

// normalizeSweep returns a copy of sw whose points and models are empty
// rather than nil.
func normalizeSweep(sw Sweep) Sweep {
	sw.Points = orEmpty(sw.Points)
	sw.Models = orEmpty(sw.Models)
	return sw
}

// normalizeMeta returns a copy of m whose collections are empty rather
// than nil, leaving the caller's untouched.
func normalizeMeta(m Meta) Meta {
	m.Provenance.Builds = orEmpty(m.Provenance.Builds)
	m.Provenance.Workers = orEmpty(m.Provenance.Workers)
	m.Knobs.Metrics = orEmpty(m.Knobs.Metrics)
	sources := make([]SourceReport, len(m.Sources))
	for i, s := range m.Sources {
		absences := make([]SourceAbsence, len(s.Absences))
		for j, a := range s.Absences {
			a.Metrics = orEmpty(a.Metrics)
			absences[j] = a
		}
		s.Absences = absences
		s.Degraded = orEmpty(s.Degraded)
		sources[i] = s
	}
	m.Sources = sources
	return m
}

// normalizeRow returns a copy of r whose collections are empty rather than
// nil, with a counted key for every column, leaving the caller's row
// untouched.
func normalizeRow(r Row, columns []Column) Row {
	if r.Summary != nil {
		s := *r.Summary
		s.Metrics = orEmptyMap(s.Metrics)
		counted := make(map[string]*float64, len(s.Counted)+len(columns))
		for _, c := range columns {
			counted[c.Name] = nil
		}
		maps.Copy(counted, s.Counted)
		s.Counted = counted
		r.Summary = &s
	}
	procs := make([]ProcessResult, len(r.Processes))
	for j, p := range r.Processes {
		p.Samples = orEmpty(p.Samples)
		procs[j] = p
	}
	r.Processes = procs
	return r
}

func orEmptyMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}

func orEmpty[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}

// jsonStream writes a document in parts with the bytes json.Encoder would
// write for it whole (two-space indentation, HTML characters as they are),
// keeping the first error and writing nothing after it.
type jsonStream struct {
	w   io.Writer
	buf bytes.Buffer
	err error
}

func (s *jsonStream) raw(text string) {
	if s.err == nil {
		_, s.err = io.WriteString(s.w, text)
	}
}

func indent(depth int) string { return strings.Repeat("  ", depth) }

// value writes v, whose first line the caller has placed at depth.
func (s *jsonStream) value(depth int, v any) {
	if s.err != nil {
		return
	}
	s.buf.Reset()
	enc := json.NewEncoder(&s.buf)
	// Error messages and output tails hold <, > and &; escaping them
	// would only make the document harder to read.
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent(depth), "  ")
	if s.err = enc.Encode(v); s.err != nil {
		return
	}
	_, s.err = s.w.Write(bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")))
}

// jsonObject is an object being written member by member.
type jsonObject struct {
	s       *jsonStream
	depth   int
	members int
}

func (s *jsonStream) object(depth int) *jsonObject {
	s.raw("{")
	return &jsonObject{s: s, depth: depth}
}

// key starts a member; its value follows at depth+1.
func (o *jsonObject) key(name string) {
	sep := ",\n"
	if o.members == 0 {
		sep = "\n"
	}
	o.members++
	o.s.raw(sep + indent(o.depth+1) + strconv.Quote(name) + ": ")
}

func (o *jsonObject) member(name string, v any) {
	o.key(name)
	o.s.value(o.depth+1, v)
}

// close ends an object that has members.
func (o *jsonObject) close() { o.s.raw("\n" + indent(o.depth) + "}") }

// streamArray writes xs, whose opening bracket sits at depth, element by
// element.
func streamArray[T any](s *jsonStream, depth int, xs []T, elem func(T)) {
	if len(xs) == 0 {
		s.raw("[]")
		return
	}
	s.raw("[")
	for i, x := range xs {
		if i > 0 {
			s.raw(",")
		}
		s.raw("\n" + indent(depth+1))
		elem(x)
		if s.err != nil {
			return
		}
	}
	s.raw("\n" + indent(depth) + "]")
}

// CheckFinite returns an error wrapping ErrNonFinite that names the first
// NaN or infinity in v, in document order, by its path in the document
// (rows[0].summary.maxNs); a value that marshals itself is asked to, so
// that its own refusal comes before anything is written.
func CheckFinite(v any) error {
	return finiteValue("", reflect.ValueOf(v))
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

func finiteValue(path string, v reflect.Value) error {
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface && v.Type().Implements(marshalerType) {
		if _, err := v.Interface().(json.Marshaler).MarshalJSON(); err != nil {
			return err
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%w: %s is %v", ErrNonFinite, path, f)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return finiteValue(path, v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := finiteValue(idx(path, i), v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			if err := finiteValue(fmt.Sprintf("%s[%q]", path, k.String()), v.MapIndex(k)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch name {
			case "-":
				continue
			case "":
				name = f.Name
			}
			if path != "" {
				name = path + "." + name
			}
			if err := finiteValue(name, v.Field(i)); err != nil {
				return err
			}
		}
	}
	return nil
}
