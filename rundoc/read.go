package rundoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNotDocument says the input is JSON but not a benchsup run document.
var ErrNotDocument = errors.New("not a benchsup run document")

// ReadDocument decodes a run document as WriteJSON writes it (at most
// MaxDocumentSize bytes), refusing another schema version, unknown shapes,
// trailing data, a checksum that does not verify or is out of place, and a
// value outside its domain (see validateDocument); each refusal is one
// line naming what is wrong. A document with no checksum (an older one) is
// read, and Integrity says so: the caller says it.
//
// Decoding is strict (see readJSON): a member this version does not know,
// at any depth, is refused with its path, as is a top-level member given
// twice or null where the writer writes an array (columns, rows, windows,
// ...). A member this version knows and the document lacks reads as its
// zero value, so that a document written before the member existed reads.
// Memory is proportional to the document: the rows and the other arrays
// are decoded element by element, never buffered whole.
func ReadDocument(r io.Reader) (*Document, Integrity, error) {
	return readDocument(r, MaxDocumentSize)
}

func readDocument(r io.Reader, limit int64) (*Document, Integrity, error) {
	doc := new(Document)
	var checksum checksumMember
	integrity, err := readJSON(r, limit, documentMembers(doc, &checksum), &checksum)
	if err != nil {
		return nil, Integrity{}, wrapRead(ErrNotDocument, err)
	}
	if doc.Schema == 0 {
		return nil, Integrity{}, fmt.Errorf("%w: no schema field", ErrNotDocument)
	}
	if doc.Meta.Mode == "" {
		// Another JSON document of benchsup's with a schema field.
		return nil, Integrity{}, fmt.Errorf("%w: no meta.mode (a comparison document, from compare --json?)", ErrNotDocument)
	}
	if err := validateDocument(doc); err != nil {
		return nil, Integrity{}, err
	}
	return doc, integrity, nil
}

// documentMembers are the top-level members of a run document, in the
// order WriteJSON writes them, decoded into doc.
func documentMembers(doc *Document, checksum *checksumMember) []topMember {
	return []topMember{
		schemaMember(&doc.Schema, SchemaVersion, ErrNotDocument, "schema %d, this benchsup reads %d"),
		valueMember("meta", &doc.Meta),
		valueMember("interrupted", &doc.Interrupted),
		arrayMember("columns", &doc.Columns),
		arrayMember("rows", &doc.Rows),
		arrayMember("windows", &doc.Windows),
		arrayMember("windowSummaries", &doc.WindowSummaries),
		arrayMember("sweeps", &doc.Sweeps),
		arrayMember("recordings", &doc.Recordings),
		arrayMember("comparisons", &doc.Comparisons),
		checksumOf(checksum),
		// A comparison document's sides: said as what they are.
		otherKind("old", ErrNotDocument, "no meta.mode (a comparison document, from compare --json?)"),
		otherKind("new", ErrNotDocument, "no meta.mode (a comparison document, from compare --json?)"),
	}
}

// errTrailing is data after a document's closing brace.
var errTrailing = errors.New("data after the document")

// readJSON decodes one JSON object from r into members, reads r to its
// end through the checksum's hash, and verifies the checksum member,
// whose occurrences the decoding counted in member.
//
// Decoding is strict: the input is an object; each top-level member is
// one of members (matched as encoding/json matches a key to a field,
// without regard to case), given once (the checksum aside: its repeats
// are counted, and verify refuses them); an array member's value is an
// array, never null, decoded element by element so that the decoder
// buffers one element at a time; and every value within is decoded with
// unknown members refused. Each refusal names its path ("rows[3]").
func readJSON(r io.Reader, limit int64, members []topMember, member *checksumMember) (Integrity, error) {
	th := newTailHasher(r, limit)
	dec := json.NewDecoder(th)
	dec.DisallowUnknownFields()
	if err := decodeObject(dec, members); err != nil {
		return Integrity{}, err
	}
	trailing, err := th.drain(dec.Buffered())
	switch {
	case err != nil:
		return Integrity{}, err
	case trailing:
		return Integrity{}, errTrailing
	}
	return th.verify(*member)
}

// topMember is a top-level member a reader knows: its name as written,
// and how its value is decoded (the decoder placed at the value).
type topMember struct {
	name       string
	repeatable bool
	foreign    bool // another kind of document's member, refused
	decode     func(dec *json.Decoder) error
}

// decodeObject decodes the object dec holds into members.
func decodeObject(dec *json.Decoder, members []topMember) error {
	tok, err := dec.Token()
	if err != nil {
		return err // io.EOF: empty input
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("%s, where a document is a JSON object", describeToken(tok))
	}
	seen := make([]bool, len(members))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return cutShort(err)
		}
		key, _ := tok.(string) // a key: the decoder refuses anything else here
		i := -1
		for j, m := range members {
			if strings.EqualFold(m.name, key) {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			return fmt.Errorf("unknown member %q (a document of a later benchsup, or edited?)", key)
		case seen[i] && !members[i].repeatable:
			return fmt.Errorf("member %q given twice", members[i].name)
		}
		seen[i] = true
		if err := members[i].decode(dec); err != nil {
			return cutShort(err)
		}
	}
	_, err = dec.Token() // the closing brace
	return cutShort(err)
}

// cutShort turns the end of the input inside the object into
// io.ErrUnexpectedEOF: the document was cut, not empty.
func cutShort(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// valueMember decodes the member name into dst whole.
func valueMember[T any](name string, dst *T) topMember {
	return topMember{name: name, decode: func(dec *json.Decoder) error { return decodeAt(dec, name, dst) }}
}

// arrayMember decodes the array member name into dst element by element;
// null, or anything but an array, is refused.
func arrayMember[T any](name string, dst *[]T) topMember {
	return topMember{name: name, decode: func(dec *json.Decoder) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok != json.Delim('[') {
			return fmt.Errorf("%s: %s, where benchsup writes an array", name, describeToken(tok))
		}
		*dst = []T{} // [] is an empty list, as encoding/json decodes it
		for i := 0; dec.More(); i++ {
			var e T
			if err := decodeAt(dec, fmt.Sprintf("%s[%d]", name, i), &e); err != nil {
				return err
			}
			*dst = append(*dst, e)
		}
		_, err = dec.Token() // the closing bracket
		return err
	}}
}

// schemaMember decodes the schema version into dst, refusing at once
// (before members of another version's shape are met) any but want; 0 is
// left for the reader to call missing.
func schemaMember(dst *int, want int, what error, format string) topMember {
	return topMember{name: "schema", decode: func(dec *json.Decoder) error {
		if err := decodeAt(dec, "schema", dst); err != nil {
			return err
		}
		if *dst != want && *dst != 0 {
			return fmt.Errorf("%w: "+format, what, *dst, want)
		}
		return nil
	}}
}

// checksumOf counts the checksum members into c.
func checksumOf(c *checksumMember) topMember {
	return topMember{name: "checksum", repeatable: true, decode: func(dec *json.Decoder) error { return dec.Decode(c) }}
}

// otherKind refuses a member of another kind of document with what it is.
func otherKind(name string, what error, problem string) topMember {
	return topMember{name: name, foreign: true, decode: func(*json.Decoder) error { return fmt.Errorf("%w: %s", what, problem) }}
}

// decodeAt decodes the next value of dec into dst, naming path in an
// error: an unknown member as one, a value of the wrong type with the
// field within path it is for.
func decodeAt(dec *json.Decoder, path string, dst any) error {
	err := dec.Decode(dst)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	switch {
	case err == io.EOF, errors.Is(err, io.ErrUnexpectedEOF):
		return err
	case errors.As(err, &te):
		at := path
		if te.Field != "" {
			at += "." + te.Field
		}
		return fmt.Errorf("%s: a JSON %s, where benchsup writes %s", at, te.Value, te.Type)
	}
	// DisallowUnknownFields' error has no type of its own.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("%s: unknown member %s (a document of a later benchsup, or edited?)", path, name)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// describeToken names a JSON token in an error.
func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// wrapRead puts a reading error in its words: a checksum or size refusal,
// or one already of what kind, as it is; anything else as not a document
// (what).
func wrapRead(what, err error) error {
	switch {
	case errors.Is(err, ErrChecksum), errors.Is(err, ErrTooLarge), errors.Is(err, what):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: the document ends early (cut short?)", what)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: empty input", what)
	}
	return fmt.Errorf("%w: %v", what, err)
}
