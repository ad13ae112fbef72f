package supervisor

import (
	"context"
	"os/exec"
	"testing"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartWatched: Config.Watch sees each spawned child, and the function
// it returns runs once the child has been reaped, when its usage is no
// longer readable.
func TestStartWatched(t *testing.T) {
	path, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("no sleep here: %v", err)
	}
	var seen []*sandbox.Child
	var usageErr error
	ends := 0
	start := startWatched(func(c *sandbox.Child) func() {
		seen = append(seen, c)
		return func() {
			ends++
			_, usageErr = c.Usage()
		}
	})
	// sleep never says hello: the child ends at the startup deadline,
	// spawned all the same.
	cfg := sandbox.Config{Path: path, Args: []string{"0.05"}}
	out := start(context.Background(), cfg, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Package: "p", Name: "BenchmarkX"}}, nil)
	require.Len(t, seen, 1)
	assert.Equal(t, out.PID, seen[0].PID())
	assert.Equal(t, 1, ends)
	assert.ErrorIs(t, usageErr, sandbox.ErrUnavailable)

	seen = nil
	cfg.Path = "/nonexistent/benchsup-no-such-binary"
	start(context.Background(), cfg, protocol.Request{}, nil)
	assert.Empty(t, seen, "nothing spawned, nothing watched")
}
