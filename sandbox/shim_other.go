//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// ShimMain runs benchsup's shim (see ShimArg). The shim needs Linux's child
// subreaper; elsewhere it refuses and returns a non-zero status.
func ShimMain(args []string) int {
	fmt.Fprintln(os.Stderr, "benchsup shim: not supported on this system")
	return 127
}
