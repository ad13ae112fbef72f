package protocol

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ErrNoEndpoint is returned by ChildEndpoint in a process that was not
// started by a benchsup supervisor.
var ErrNoEndpoint = errors.New("protocol: no endpoint (" + EnvFD + " is not set)")

// ChildEndpoint returns the protocol endpoint a supervisor passed to this
// process, as named by EnvFD. The caller owns the file.
func ChildEndpoint() (*os.File, error) {
	v, ok := os.LookupEnv(EnvFD)
	if !ok {
		return nil, ErrNoEndpoint
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("protocol: %s=%q is not a descriptor number above 2", EnvFD, v)
	}
	f := os.NewFile(uintptr(fd), "benchsup-protocol")
	if f == nil {
		return nil, fmt.Errorf("protocol: %s=%d is not an open descriptor", EnvFD, fd)
	}
	return f, nil
}
