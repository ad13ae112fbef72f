//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
)

// AllowedCPUs reports that placement needs Linux: an *AffinityError
// wrapping errors.ErrUnsupported. Darwin's affinity API is an advisory tag
// that names no CPU (and Apple Silicon rejects it), Windows' is not wired
// here, and a placement that is not strict would be recorded as one.
func AllowedCPUs() ([]int, error) {
	return nil, &AffinityError{
		Reason: fmt.Sprintf("strict CPU affinity is implemented on Linux only (this is %s)", runtime.GOOS),
		Err:    errors.ErrUnsupported,
	}
}
