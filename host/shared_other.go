//go:build !linux

package host

import (
	"os"
	"path/filepath"
)

// ResolveShared returns path made absolute: off Linux, benchsup does not
// check the owners of links and files in shared directories yet.
func ResolveShared(path string) (string, error) { return filepath.Abs(path) }

// CheckOpened checks nothing off Linux (see ResolveShared).
func CheckOpened(f *os.File, path string) error { return nil }

// CheckSharedPath checks nothing off Linux (see ResolveShared).
func CheckSharedPath(path string) error { return nil }
