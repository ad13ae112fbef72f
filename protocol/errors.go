package protocol

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error that means the peer sent bytes or a
// message sequence this protocol does not allow. The sandbox classifies such
// a child as "malformed protocol".
var ErrMalformed = errors.New("malformed protocol")

// MalformedError describes one malformed frame or out-of-order message.
type MalformedError struct {
	Kind   Kind   // the offending frame's kind, or 0 when it was not read
	Reason string // what was wrong, in a few words
	Err    error  // the underlying decoding error, if any
}

func (e *MalformedError) Error() string {
	s := "malformed protocol: "
	if e.Kind != 0 {
		s += e.Kind.String() + " frame: "
	}
	s += e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
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
