//go:build linux

package sources

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// perfErrnoEnv, set to an errno number (1 for EPERM, 13 for EACCES, 38 for
// ENOSYS), makes every real perf_event_open of the test binary fail with it:
// the whole suite then runs as it would on a host without perf_event_open
// (a seccomp filter, perf_event_paranoid 3), where it must pass or skip.
const perfErrnoEnv = "BENCHSUP_SOURCES_TEST_PERF_ERRNO"

func TestMain(m *testing.M) {
	if v := os.Getenv(perfErrnoEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s=%q: not an errno number\n", perfErrnoEnv, v)
			os.Exit(2)
		}
		sys.perfOpen = func(*perfEventAttr, int, int, int, int) (int, error) { return -1, unix.Errno(n) }
	}
	os.Exit(m.Run())
}
