package host

import (
	"errors"
	"fmt"
)

// ErrUnsafePath is wrapped by *UnsafePathError: benchsup found, in a
// directory other users can write (or at a directory it would use there),
// something it must not follow, truncate or write.
var ErrUnsafePath = errors.New("unsafe path")

// UnsafePathError names a refused path and what was found there.
type UnsafePathError struct {
	Path string
	// Found describes the entry: its kind, owner and mode, as "a symbolic
	// link (owner uid 65534, mode 0777)".
	Found string
	// Rule says what benchsup requires there instead.
	Rule string
}

func (e *UnsafePathError) Error() string {
	return fmt.Sprintf("%v %s: found %s; %s", ErrUnsafePath, e.Path, e.Found, e.Rule)
}

func (e *UnsafePathError) Unwrap() error { return ErrUnsafePath }
