//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
)

// A Reaper is a running reaper process. On this platform none is started:
// no child is either.
type Reaper struct{}

// StartReaper reports that there is nothing to reap here: fresh-process
// children need Linux.
func StartReaper(args ...string) (*Reaper, error) {
	return nil, &IOError{Op: "start reaper", Err: fmt.Errorf("fresh-process children need Linux, not %s: %w", runtime.GOOS, errors.ErrUnsupported)}
}

// Err returns nil.
func (r *Reaper) Err() error { return nil }

// Close returns nil.
func (r *Reaper) Close() error { return nil }

// RemoveOnDeath does nothing here: there is no reaper.
func RemoveOnDeath(path string) (forget func()) { return func() {} }

// ReaperMain reads in to its end and returns 0: nothing is ever registered.
func ReaperMain(in io.Reader) int {
	_, _ = io.Copy(io.Discard, in)
	return 0
}

// RemoveStale returns nothing: without /proc's start times no owner can be
// judged dead, and no run here leaves cgroups.
func RemoveStale() (removed, failed []string) { return nil, nil }

// MkdirTemp creates a run's scratch directory under os.TempDir.
func MkdirTemp() (string, error) { return os.MkdirTemp("", "benchsup-") }
