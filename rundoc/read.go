package rundoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNotDocument says the input is JSON but not a benchsup run document.
var ErrNotDocument = errors.New("not a benchsup run document")

// documentFile is a run document as read: its checksum member is counted,
// not kept.
type documentFile struct {
	Document
	Checksum checksumMember `json:"checksum"`
}

// ReadDocument decodes a run document as WriteJSON writes it (at most
// MaxDocumentSize bytes), refusing another schema version, unknown shapes,
// trailing data, a checksum that does not verify or is out of place, and a
// value outside its domain (see validateDocument); each refusal is one
// line naming what is wrong. A document with no checksum (an older one) is
// read, and Integrity says so: the caller says it. Members this version
// does not know are ignored, so that a document of a later benchsup with
// the same schema version still reads.
func ReadDocument(r io.Reader) (*Document, Integrity, error) {
	return readDocument(r, MaxDocumentSize)
}

func readDocument(r io.Reader, limit int64) (*Document, Integrity, error) {
	var f documentFile
	integrity, err := readJSON(r, limit, &f, &f.Checksum)
	if err != nil {
		return nil, Integrity{}, wrapRead(ErrNotDocument, err)
	}
	doc := &f.Document
	if doc.Schema != SchemaVersion {
		if doc.Schema == 0 {
			return nil, Integrity{}, fmt.Errorf("%w: no schema field", ErrNotDocument)
		}
		return nil, Integrity{}, fmt.Errorf("%w: schema %d, this benchsup reads %d", ErrNotDocument, doc.Schema, SchemaVersion)
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

// errTrailing is data after a document's closing brace.
var errTrailing = errors.New("data after the document")

// readJSON decodes one JSON value from r into v, reads r to its end
// through the checksum's hash, and verifies the checksum member, whose
// occurrences v's decoding counted in member.
func readJSON(r io.Reader, limit int64, v any, member *checksumMember) (Integrity, error) {
	th := newTailHasher(r, limit)
	dec := json.NewDecoder(th)
	if err := dec.Decode(v); err != nil {
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

// wrapRead puts a reading error in its words: a checksum or size refusal
// as it is, anything else as not a document (what).
func wrapRead(what, err error) error {
	switch {
	case errors.Is(err, ErrChecksum), errors.Is(err, ErrTooLarge):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: the document ends early (cut short?)", what)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: empty input", what)
	}
	return fmt.Errorf("%w: %v", what, err)
}
