package report

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// A document handed in (compare, report, --baseline) and the code under
// test (its names, errors and output) are untrusted text: printed as they
// are, an ESC[2J clears the user's terminal, an OSC 8 sequence plants a
// link, a carriage return or a bidi override (U+202E) makes a line read
// as something else. Every text renderer therefore sees the document
// through escaped: each string of it with every rune that is not
// printable (strconv.IsPrint: C0 and C1 controls, DEL, the bidi
// overrides and isolates U+202A-U+202E and U+2066-U+2069, other format
// characters, line and paragraph separators) and every byte that is not
// UTF-8 written as its Go escape (\x1b, \u202e, \xff), as testing
// rewrites a test's name. Tabs and line breaks stay only in the text
// fields laid out over several lines (a row's error and output, skip
// reasons, notes): everywhere else (names, labels, units, keys) they are
// escaped too, so that a name stays on its line. A document none of whose
// strings needs escaping is not copied. The JSON renderers (WriteJSON,
// the event stream, -json) escape control characters themselves and
// keep names exact, and do not use it.

// escapeText returns s with every rune that is not printable, and every
// byte that is not UTF-8, written as its Go escape; with lines, tabs and
// line feeds are kept as they are.
func escapeText(s string, lines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || lines && (c == '\n' || c == '\t') {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s // the common case: nothing to escape, nothing allocated
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case lines && (r == '\n' || r == '\t'), strconv.IsPrint(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// linesFields are the JSON names of the string fields (and lists of
// strings) whose text is laid out over several lines: their tabs and line
// breaks are kept.
var linesFields = map[string]bool{"error": true, "skipped": true, "output": true, "note": true, "notes": true}

// escaped returns v with every string in it escaped by escapeText (map
// keys too), copying only what changes: v itself when nothing needs
// escaping. Unexported fields are copied as they are.
func escaped[T any](v T) T { return escapedAs(v, false) }

// escapedData is escaped for the data formats (CSV, the benchmark
// format), which keep every field's tabs and line feeds: CSV quotes them,
// and the benchmark format refuses a name or a value that spans lines.
func escapedData[T any](v T) T { return escapedAs(v, true) }

func escapedAs[T any](v T, allLines bool) T {
	rv := reflect.ValueOf(&v).Elem()
	if out, changed := (escaper{allLines}).value(rv, allLines); changed {
		return out.Interface().(T)
	}
	return v
}

// escaper escapes the strings of a value; allLines keeps the tabs and
// line feeds of every field, not only of linesFields.
type escaper struct{ allLines bool }

// value returns an escaped copy of v and true, or v and false when
// nothing in it needs escaping.
func (e escaper) value(v reflect.Value, lines bool) (reflect.Value, bool) {
	if !holdsText(v.Type()) {
		return v, false
	}
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		esc := escapeText(s, lines)
		if esc == s {
			return v, false
		}
		out := reflect.New(v.Type()).Elem()
		out.SetString(esc)
		return out, true
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		elem, changed := e.value(v.Elem(), lines)
		if !changed {
			return v, false
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(elem)
		return out, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		elem, changed := e.value(v.Elem(), lines)
		if !changed {
			return v, false
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(elem)
		return out, true
	case reflect.Struct:
		var out reflect.Value
		for _, f := range textFieldsOf(v.Type()) {
			fv, changed := e.value(v.Field(f.index), e.allLines || f.lines)
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
			}
			out.Field(f.index).Set(fv)
		}
		if !out.IsValid() {
			return v, false
		}
		return out, true
	case reflect.Slice, reflect.Array:
		var out reflect.Value
		for i := range v.Len() {
			ev, changed := e.value(v.Index(i), lines)
			if !changed {
				continue
			}
			if !out.IsValid() {
				if v.Kind() == reflect.Slice {
					out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
					reflect.Copy(out, v)
				} else {
					out = reflect.New(v.Type()).Elem()
					out.Set(v)
				}
			}
			out.Index(i).Set(ev)
		}
		if !out.IsValid() {
			return v, false
		}
		return out, true
	case reflect.Map:
		if v.IsNil() || !e.mapNeedsEscape(v) {
			return v, false
		}
		changed := false
		type entry struct{ k, v reflect.Value }
		entries := make([]entry, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			k, kc := e.value(it.Key(), e.allLines)
			ev, ec := e.value(it.Value(), lines)
			changed = changed || kc || ec
			entries = append(entries, entry{k, ev})
		}
		if !changed {
			return v, false
		}
		// Two keys that escape alike (an ESC and the four characters
		// \x1b) would become one entry; a real document has neither.
		out := reflect.MakeMapWithSize(v.Type(), len(entries))
		for _, en := range entries {
			out.SetMapIndex(en.k, en.v)
		}
		return out, true
	}
	return v, false
}

// mapNeedsEscape is a fast look at the maps of numbers keyed by name
// that every sample and summary holds: false when no key needs escaping,
// true when one might (or the map is of another type), for value's walk.
func (e escaper) mapNeedsEscape(v reflect.Value) bool {
	clean := func(k string) bool { return escapeText(k, e.allLines) == k }
	switch m := v.Interface().(type) {
	case map[string]float64:
		for k := range m {
			if !clean(k) {
				return true
			}
		}
		return false
	case map[string]*float64:
		for k := range m {
			if !clean(k) {
				return true
			}
		}
		return false
	}
	return true
}

// fieldName is a field's JSON name, or its Go name lowercased.
func fieldName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
		return name
	}
	return strings.ToLower(f.Name)
}

// textField is an exported field of a struct that can hold a string.
type textField struct {
	index int
	lines bool // its text is laid out over lines (linesFields)
}

// textFields caches textFieldsOf.
var textFields sync.Map // reflect.Type → []textField

// textFieldsOf lists the fields of the struct type t that can hold a
// string: the only ones value walks.
func textFieldsOf(t reflect.Type) []textField {
	if v, ok := textFields.Load(t); ok {
		return v.([]textField)
	}
	var out []textField
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && holdsText(f.Type) {
			out = append(out, textField{i, linesFields[fieldName(f)]})
		}
	}
	textFields.Store(t, out)
	return out
}

// textTypes caches holdsText.
var textTypes sync.Map // reflect.Type → bool

// holdsText reports whether a value of type t can hold a string in an
// exported field, an element or a key: the samples and other numbers of a
// document, most of its bulk, are not walked.
func holdsText(t reflect.Type) bool {
	if v, ok := textTypes.Load(t); ok {
		return v.(bool)
	}
	textTypes.Store(t, true) // a type that contains itself: assume it may
	has := false
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		has = true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		has = holdsText(t.Elem())
	case reflect.Map:
		has = holdsText(t.Key()) || holdsText(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsText(f.Type) {
				has = true
				break
			}
		}
	}
	textTypes.Store(t, has)
	return has
}
