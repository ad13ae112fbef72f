package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/benchsup/benchsup/internal/stats"
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
// A zero
// Schema is written as SchemaVersion; any other value than SchemaVersion is
// an error, since this package writes that shape only.
func WriteJSON(w io.Writer, doc Document) error {
	switch doc.Schema {
	case 0:
		doc.Schema = SchemaVersion
	case SchemaVersion:
	default:
		return fmt.Errorf("report: document schema %d, but this package writes schema %d", doc.Schema, SchemaVersion)
	}
	if err := checkFinite(doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	enc := json.NewEncoder(w)
	// Error messages and output tails hold <, > and &; escaping them
	// would only make the document harder to read.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	// Encode marshals the whole value before writing, so a failure never
	// leaves half a document behind.
	if err := enc.Encode(normalize(doc)); err != nil {
		return fmt.Errorf("report: writing JSON: %w", err)
	}
	return nil
}

// normalize returns a copy of doc whose collections are empty rather than
// nil, leaving the caller's Document untouched.
func normalize(doc Document) Document {
	doc.Meta.Provenance.Builds = orEmpty(doc.Meta.Provenance.Builds)
	doc.Meta.Provenance.Workers = orEmpty(doc.Meta.Provenance.Workers)
	doc.Meta.Knobs.Metrics = orEmpty(doc.Meta.Knobs.Metrics)
	doc.Columns = orEmpty(doc.Columns)
	sources := make([]SourceReport, len(doc.Meta.Sources))
	for i, s := range doc.Meta.Sources {
		absences := make([]SourceAbsence, len(s.Absences))
		for j, a := range s.Absences {
			a.Metrics = orEmpty(a.Metrics)
			absences[j] = a
		}
		s.Absences = absences
		s.Degraded = orEmpty(s.Degraded)
		sources[i] = s
	}
	doc.Meta.Sources = sources
	rows := make([]Row, len(doc.Rows))
	for i, r := range doc.Rows {
		if r.Summary != nil {
			s := *r.Summary
			s.Metrics = orEmptyMap(s.Metrics)
			counted := make(map[string]*float64, len(s.Counted)+len(doc.Columns))
			for _, c := range doc.Columns {
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
		rows[i] = r
	}
	doc.Rows = rows
	if len(doc.Windows) > 0 {
		windows := make([]Window, len(doc.Windows))
		for i, w := range doc.Windows {
			w.Totals = orEmptyMap(w.Totals)
			windows[i] = w
		}
		doc.Windows = windows
	} else {
		// Absent, not empty: a windowless document keeps its shape.
		doc.Windows = nil
	}
	return doc
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

// checkFinite returns an error wrapping ErrNonFinite that names the first
// NaN or infinity in doc, in document order.
func checkFinite(doc Document) error {
	for i, r := range doc.Rows {
		row := "rows[" + strconv.Itoa(i) + "]"
		if s := r.Summary; s != nil {
			fields := []struct {
				name string
				v    *float64
			}{
				{"medianNs", &s.MedianNs},
				{"withinMadNs", s.WithinMADNs},
				{"minNs", &s.MinNs},
				{"maxNs", &s.MaxNs},
			}
			if iv := s.Interval; iv != nil {
				fields = append(fields, struct {
					name string
					v    *float64
				}{"interval.lowNs", &iv.LowNs}, struct {
					name string
					v    *float64
				}{"interval.highNs", &iv.HighNs})
			}
			for _, f := range fields {
				if err := finite(row+".summary."+f.name, f.v); err != nil {
					return err
				}
			}
			for _, u := range slices.Sorted(maps.Keys(s.Metrics)) {
				if err := finite(fmt.Sprintf("%s.summary.metrics[%q]", row, u), s.Metrics[u]); err != nil {
					return err
				}
			}
			for _, m := range slices.Sorted(maps.Keys(s.Counted)) {
				if err := finite(fmt.Sprintf("%s.summary.counted[%q]", row, m), s.Counted[m]); err != nil {
					return err
				}
			}
		}
		for j, p := range r.Processes {
			proc := row + ".processes[" + strconv.Itoa(j) + "]"
			if st := p.NsPerOp; st != nil {
				if err := finiteStats(proc+".nsPerOp", *st); err != nil {
					return err
				}
			}
			for _, m := range slices.Sorted(maps.Keys(p.Counted)) {
				v := p.Counted[m]
				if err := finite(fmt.Sprintf("%s.counted[%q]", proc, m), &v); err != nil {
					return err
				}
			}
			for k, s := range p.Samples {
				for _, u := range slices.Sorted(maps.Keys(s.Extra)) {
					v := s.Extra[u]
					if err := finite(fmt.Sprintf("%s.samples[%d].extra[%q]", proc, k, u), &v); err != nil {
						return err
					}
				}
			}
		}
	}
	for i, w := range doc.Windows {
		for _, k := range slices.Sorted(maps.Keys(w.Totals)) {
			v := w.Totals[k]
			if err := finite(fmt.Sprintf("windows[%d].totals[%q]", i, k), &v); err != nil {
				return err
			}
		}
	}
	return nil
}

func finiteStats(path string, s stats.Stats) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"median", s.Median}, {"mad", s.MAD}, {"min", s.Min}, {"max", s.Max}} {
		if err := finite(path+"."+f.name, &f.v); err != nil {
			return err
		}
	}
	return nil
}

// finite checks one value; nil (not available) is fine.
func finite(path string, v *float64) error {
	if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
		return fmt.Errorf("%w: %s is %v", ErrNonFinite, path, *v)
	}
	return nil
}
