package protocol

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrMalformed is wrapped by every error that means the peer sent bytes or a
// message sequence this protocol does not allow. The sandbox classifies such
// a child as "malformed protocol".
var ErrMalformed = errors.New("malformed protocol")

// MalformedError describes one malformed frame or out-of-order message.
// A refusal of one value of a frame is located: Field names the value and
// Offset says where it starts, so a corrupted frame reads as, for example,
// "malformed protocol: result.samples[0].extra[1].value: integer
// 9223372036854775808 overflows int64 at payload offset 41".
type MalformedError struct {
	Kind Kind // the offending frame's kind, or 0 when it was not read
	// Field is the refused value's path from the message kind, keys joined
	// by dots and array indexes in brackets ("result.samples[0].ns"), or
	// "" when the error names no value (a sequence error, or a structural
	// one the walk found before any field was known).
	Field string
	// Offset is the byte offset within the frame payload (the kind byte is
	// offset 0, the body starts at 1) of the refused value's first byte,
	// or 0 when the error is not located. The kind byte is never refused
	// as a located value, so 0 is free to mean "not located".
	Offset int
	Reason string // what was wrong, in a few words; "" when Err says it all
	Err    error  // the underlying decoding error, if any
}

func (e *MalformedError) Error() string { return ErrMalformed.Error() + ": " + e.Detail() }

// Detail is Error without its "malformed protocol: " prefix: the
// violation in its own words, for a sentence that already says what
// kind of error it is.
func (e *MalformedError) Detail() string {
	s := ""
	switch {
	case e.Field != "":
		s += e.Field + ": "
	case e.Kind != 0:
		s += e.Kind.String() + " frame: "
	}
	s += e.Reason
	if e.Err != nil {
		if e.Reason != "" {
			s += ": "
		}
		s += e.Err.Error()
	}
	if e.Offset > 0 {
		s += " at payload offset " + strconv.Itoa(e.Offset)
	}
	return s
}

// Unwrap returns the underlying error.
func (e *MalformedError) Unwrap() error { return e.Err }

// Is reports ErrMalformed as matching.
func (e *MalformedError) Is(target error) bool { return target == ErrMalformed }

func malformed(k Kind, err error, format string, args ...any) error {
	return &MalformedError{Kind: k, Reason: fmt.Sprintf(format, args...), Err: err}
}

// DecodeError is a Codec's refusal of one value of a frame body, located by
// its field path and its byte offset, so that both codecs (and the walk
// before them) say where a frame is malformed in the same terms.
// DecodePayloadWith turns it into a *MalformedError whose Field starts with
// the message kind and whose Offset counts from the payload, not the body.
type DecodeError struct {
	// Field is the refused value's path below the message: keys joined by
	// dots, array indexes in brackets ("samples[0].extra[1].value"); "" for
	// the message itself.
	Field string
	// Offset is the byte offset within the body of the refused value's
	// first byte; for a repeated key, or a key that is not a string, of
	// that key.
	Offset int
	Err    error // what is wrong with the value
}

func (e *DecodeError) Error() string {
	s := e.Err.Error() + " at body offset " + strconv.Itoa(e.Offset)
	if e.Field != "" {
		s = e.Field + ": " + s
	}
	return s
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrVersion is wrapped by a *VersionError.
var ErrVersion = errors.New("protocol version mismatch")

// VersionError refuses a peer that speaks another protocol version.
type VersionError struct {
	Supervisor int // the version this package speaks
	Worker     int // the version the child announced
	WorkerVer  string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("protocol version mismatch: supervisor speaks %d, worker %q speaks %d; "+
		"rebuild the test binary with the benchsup module that runs it", e.Supervisor, e.WorkerVer, e.Worker)
}

// Unwrap returns ErrVersion.
func (e *VersionError) Unwrap() error { return ErrVersion }
