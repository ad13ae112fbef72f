//go:build linux

package sandbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/timingtest"
)

// TestTimingStartupDeadline is TestClasses' slow-hello under a startup
// deadline of 300 ms: the child, started and asleep well within it on a
// quiet host, is asked for its stacks then and ends within 5 s. On a
// loaded host a child has taken a second to start (docs/repository.md).
func TestTimingStartupDeadline(t *testing.T) {
	timingtest.Require(t)
	cfg := helper("slow-hello")
	cfg.StartupTimeout = 300 * time.Millisecond
	cfg.Grace = 200 * time.Millisecond
	o, msgs := run(t, cfg)
	require.Equal(t, ClassStartupTimeout, o.Class, "err: %v", o.Err)
	checkSlowHello(t, o, msgs, 300*time.Millisecond)
	require.Less(t, o.Elapsed, 5*time.Second)
}
