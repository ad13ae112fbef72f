package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNotDocument says the input is JSON but not a benchsup run document.
var ErrNotDocument = errors.New("not a benchsup run document")

// ReadDocument decodes a run document as WriteJSON writes it, refusing
// another schema version, unknown shapes and trailing data.
func ReadDocument(r io.Reader) (*Document, error) {
	dec := json.NewDecoder(r)
	var doc Document
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotDocument, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the document", ErrNotDocument)
	}
	if doc.Schema != SchemaVersion {
		if doc.Schema == 0 {
			return nil, fmt.Errorf("%w: no schema field", ErrNotDocument)
		}
		return nil, fmt.Errorf("%w: schema %d, this benchsup reads %d", ErrNotDocument, doc.Schema, SchemaVersion)
	}
	if doc.Meta.Mode == "" {
		// Another JSON document of benchsup's with a schema field.
		return nil, fmt.Errorf("%w: no meta.mode (a comparison document, from compare --json?)", ErrNotDocument)
	}
	return &doc, nil
}
