//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"github.com/benchsup/benchsup/protocol"
)

// errUnsupported is what every operation reports here: the containment,
// parent-death signal and pid-reuse-safe reaping this package promises are
// built on Linux interfaces.
var errUnsupported = &IOError{
	Op:  "start",
	Err: fmt.Errorf("fresh-process children need Linux, not %s: %w", runtime.GOOS, errors.ErrUnsupported),
}

// Child is one started child process. On this platform none can be started.
type Child struct{}

// Start validates cfg, then reports that fresh-process children need Linux:
// a *ConfigError, or an *IOError wrapping errors.ErrUnsupported.
func Start(cfg Config) (*Child, error) { return StartContext(context.Background(), cfg) }

// StartContext is Start with a context.
func StartContext(ctx context.Context, cfg Config) (*Child, error) {
	if _, err := cfg.resolve(os.Environ()); err != nil {
		return nil, err
	}
	return nil, errUnsupported
}

// PID returns 0.
func (c *Child) PID() int { return 0 }

// Hello reports that fresh-process children need Linux.
func (c *Child) Hello() (protocol.Hello, error) { return protocol.Hello{}, errUnsupported }

// Send reports that fresh-process children need Linux.
func (c *Child) Send(protocol.Request) error { return errUnsupported }

// Receive reports that fresh-process children need Linux.
func (c *Child) Receive() (protocol.Message, error) { return nil, errUnsupported }

// Wait returns a ClassParentIO Outcome saying that fresh-process children
// need Linux.
func (c *Child) Wait() Outcome {
	return Outcome{Class: ClassParentIO, Err: errUnsupported, ExitCode: -1}
}

func signalName(s syscall.Signal) string { return "signal " + strconv.Itoa(int(s)) }

// Usage reports ErrUnavailable: no child runs on this platform.
func (c *Child) Usage() (Usage, error) {
	return Usage{}, fmt.Errorf("%w: %w", ErrUnavailable, errUnsupported)
}
