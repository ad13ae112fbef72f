//go:build linux

package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/timingtest"
)

// TestUsageOfARunningChild reads a spinning child's usage until its CPU
// time has grown by 100 ms, never by much more than the wall time between
// the readings allows (one busy thread), its memory is that of a Go
// process, and each figure names its source. Once the child has exited,
// Usage is unavailable. How much of the wall time the child gets depends
// on the host's load: TestTimingUsageOfARunningChild checks that share.
func TestUsageOfARunningChild(t *testing.T) { usageOfARunningChild(t, false) }

// TestTimingUsageOfARunningChild is TestUsageOfARunningChild on a quiet host
// (docs/repository.md): over 500 ms the spinning child's CPU time grows by
// more than a tenth of the wall time.
func TestTimingUsageOfARunningChild(t *testing.T) {
	timingtest.Require(t)
	usageOfARunningChild(t, true)
}

// usageOfARunningChild reads a spinning child's usage twice: 500 ms apart
// when quiet, else once it has used 100 ms of CPU more (a minute at most).
func usageOfARunningChild(t *testing.T, quiet bool) {
	cases := []struct {
		name     string
		noCgroup bool
		noLimits bool // no memory cgroup either: /proc alone
	}{
		{"as the host allows", false, false},
		{"without a cgroup", true, false},
		{"without any cgroup", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noCgroup {
				withCgroupSupport(t, cgroupSupport{note: "disabled by the test"})
			}
			if tc.noLimits {
				withLimitProbe(t, limitProbe{LimitSupport: LimitSupport{MemoryNote: "disabled by the test", PidsNote: "disabled by the test"}})
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := StartContext(ctx, helper("spin"))
			require.NoError(t, err)
			_, err = c.Hello()
			require.NoError(t, err)
			require.NoError(t, c.Send(testRequest))

			first, err := c.Usage()
			require.NoError(t, err)
			var second Usage
			if quiet {
				time.Sleep(500 * time.Millisecond)
				second, err = c.Usage()
				require.NoError(t, err)
			} else {
				for giveUp := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
					second, err = c.Usage()
					require.NoError(t, err)
					if second.CPU-first.CPU >= 100*time.Millisecond || time.Now().After(giveUp) {
						break
					}
				}
			}

			wantCPU := UsageCgroup
			if c.base.Cgroup == "" {
				wantCPU = UsageProcessGroup
			}
			assert.Equal(t, wantCPU, second.CPUSource, second.CPUNote)
			assert.Contains(t, []string{UsageCgroup, UsageCgroupV1, UsageRootProcess}, second.MemorySource)
			if c.base.Cgroup == "" && c.memV1 == "" {
				assert.Equal(t, UsageRootProcess, second.MemorySource)
				assert.Contains(t, second.MemoryNote, "no cgroup of its own")
			}
			if tc.noCgroup && tc.noLimits {
				assert.Equal(t, UsageProcessGroup, second.CPUSource)
				assert.Equal(t, UsageRootProcess, second.MemorySource)
			}
			if second.MemorySource == UsageRootProcess {
				assert.NotEmpty(t, second.MemoryNote, "why the cgroup's figure was not used")
			}
			t.Logf("cpu from %s, memory from %s (%s)", second.CPUSource, second.MemorySource, second.MemoryNote)
			wall := second.At.Sub(first.At)
			cpu := second.CPU - first.CPU
			// One spinning thread on a shared 2-core host: some of the
			// wall time, never much more than all of it (ticks: 10ms).
			if quiet {
				assert.Greater(t, cpu, wall/10, "cpu %v over %v", cpu, wall)
			} else {
				assert.GreaterOrEqual(t, cpu, 100*time.Millisecond, "cpu %v over %v", cpu, wall)
			}
			assert.Less(t, cpu, 2*wall+20*time.Millisecond, "cpu %v over %v", cpu, wall)
			assert.Greater(t, second.Memory, int64(1<<20), "a Go process holds more than 1 MiB")
			assert.Less(t, second.Memory, int64(1<<30))

			cancel()
			c.Wait()
			_, err = c.Usage()
			assert.ErrorIs(t, err, ErrUnavailable)
			assert.ErrorContains(t, err, "exited")
		})
	}
}
