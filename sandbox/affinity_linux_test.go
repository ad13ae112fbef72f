//go:build linux

package sandbox

import (
	"bufio"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// catStatus is a Config whose child prints its /proc/self/status: the
// kernel's account of the affinity it was given.
func catStatus(t *testing.T, cpus []int) Config {
	t.Helper()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skipf("no cat to print a child's status: %v", err)
	}
	return Config{Path: cat, Args: []string{"/proc/self/status"}, CPUs: cpus, StartupTimeout: 10 * time.Second, TotalTimeout: 20 * time.Second}
}

// childCPUs starts cfg's child and returns the Cpus_allowed_list it
// printed.
func childCPUs(t *testing.T, cfg Config) string {
	t.Helper()
	c, err := Start(cfg)
	require.NoError(t, err)
	o := c.Wait()
	require.Zero(t, o.ExitCode, "class %v, err %v, stderr %q", o.Class, o.Err, o.Stderr.Tail)
	sc := bufio.NewScanner(strings.NewReader(string(o.Stdout.Tail)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no Cpus_allowed_list in the child's status:\n%s", o.Stdout.Tail)
	return ""
}

func TestAffinityPinsChild(t *testing.T) {
	allowed, err := AllowedCPUs()
	require.NoError(t, err)
	require.NotEmpty(t, allowed)
	before := openFDs(t)

	cases := [][]int{allowed}
	for _, c := range allowed {
		cases = append(cases, []int{c})
	}
	for _, cpus := range cases {
		t.Run(formatCPUs(cpus), func(t *testing.T) {
			assert.Equal(t, formatCPUs(cpus), childCPUs(t, catStatus(t, cpus)))
		})
	}
	// The spawning thread got its own mask back: an unpinned child, and
	// this process, still have every allowed CPU.
	assert.Equal(t, formatCPUs(allowed), childCPUs(t, catStatus(t, nil)), "an unpinned child after pinned ones")
	after, err := AllowedCPUs()
	require.NoError(t, err)
	assert.Equal(t, allowed, after)
	checkFDs(t, before)
}

func TestAffinityRefusedBeforeSpawn(t *testing.T) {
	allowed, err := AllowedCPUs()
	require.NoError(t, err)
	outside := maxAffinityCPU - 1
	if slices.Contains(allowed, outside) {
		t.Skipf("CPU %d is allowed here: no CPU to be refused", outside)
	}
	before := openFDs(t)
	for _, tt := range []struct {
		name string
		cpus []int
	}{
		{"narrowed", []int{allowed[0], outside}}, // the kernel drops the one it cannot use
		{"refused", []int{outside}},              // EINVAL: nothing usable
	} {
		t.Run(tt.name, func(t *testing.T) {
			spawns := spawnAttempts.Load()
			_, err := Start(catStatus(t, tt.cpus))
			var ae *AffinityError
			require.ErrorAs(t, err, &ae)
			assert.ErrorIs(t, err, ErrAffinity)
			assert.Equal(t, tt.cpus, ae.CPUs)
			assert.Contains(t, err.Error(), formatCPUs(tt.cpus))
			t.Log(err)
			assert.Equal(t, spawns, spawnAttempts.Load(), "spawned although the placement was refused")

			o := Run(catStatus(t, tt.cpus), testRequest, nil)
			assert.Equal(t, ClassParentIO, o.Class)
			assert.ErrorIs(t, o.Err, ErrAffinity)
		})
	}
	assert.Equal(t, formatCPUs(allowed), childCPUs(t, catStatus(t, nil)), "an unpinned child after refusals")
	checkFDs(t, before)
}

func TestAffinityVerifiedAfterSpawn(t *testing.T) {
	allowed, err := AllowedCPUs()
	require.NoError(t, err)
	// The kernel honors the thread's mask here; a cpuset cgroup narrower
	// than the list is what this stands for.
	var child int
	childAffinity = func(pid int, set *unix.CPUSet) error {
		child = pid
		set.Zero()
		set.Set(allowed[0] + 1)
		return nil
	}
	defer func() { childAffinity = unix.SchedGetaffinity }()
	before := openFDs(t)

	_, err = Start(catStatus(t, allowed[:1]))
	var ae *AffinityError
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Reason, "runs on "+strconv.Itoa(allowed[0]+1))
	require.NotZero(t, child)
	_, _, exists := procStat(child)
	assert.False(t, exists, "the unplaced child %d was not reaped", child)
	checkFDs(t, before)

	childAffinity = func(int, *unix.CPUSet) error { return unix.ESRCH }
	_, err = Start(catStatus(t, allowed[:1]))
	assert.ErrorIs(t, err, unix.ESRCH)
	assert.ErrorIs(t, err, ErrAffinity)
}

func TestInvalidCPUs(t *testing.T) {
	for _, tt := range []struct {
		cpus  []int
		field string
	}{
		{[]int{0, -1}, "CPUs[1]"},
		{[]int{maxAffinityCPU}, "CPUs[0]"},
	} {
		t.Run(tt.field, func(t *testing.T) {
			cfg := helper("ok")
			cfg.CPUs = tt.cpus
			spawns := spawnAttempts.Load()
			o := Run(cfg, testRequest, nil)
			assert.Equal(t, ClassInvalidConfig, o.Class)
			var ce *ConfigError
			require.ErrorAs(t, o.Err, &ce)
			assert.Equal(t, tt.field, ce.Field)
			assert.Equal(t, spawns, spawnAttempts.Load())
		})
	}
}

// A restore that fails leaves the spawner thread pinned: the next spawn
// restores it first, and is refused while it cannot.
func TestAffinityRestoreOwed(t *testing.T) {
	allowed, err := AllowedCPUs()
	require.NoError(t, err)
	if len(allowed) < 2 {
		t.Skip("one allowed CPU: a pinned and an unpinned child look alike")
	}
	pinned := cpuSetOf(allowed[:1])
	failRestore := func(always bool) func(int, *unix.CPUSet) error {
		failed := false
		return func(tid int, set *unix.CPUSet) error {
			if *set != *pinned && (always || !failed) {
				failed = true
				return unix.EPERM
			}
			return unix.SchedSetaffinity(tid, set)
		}
	}
	defer func() { setThreadAffinity = unix.SchedSetaffinity }()

	// Once: the pinned child is fine, the next (unpinned) one gets every
	// allowed CPU, restored before its fork.
	setThreadAffinity = failRestore(false)
	assert.Equal(t, formatCPUs(allowed[:1]), childCPUs(t, catStatus(t, allowed[:1])))
	assert.Equal(t, formatCPUs(allowed), childCPUs(t, catStatus(t, nil)))

	// Always: the next spawn is refused rather than inheriting the last
	// placement, until the restore succeeds.
	setThreadAffinity = failRestore(true)
	assert.Equal(t, formatCPUs(allowed[:1]), childCPUs(t, catStatus(t, allowed[:1])))
	spawns := spawnAttempts.Load()
	_, err = Start(catStatus(t, nil))
	var ae *AffinityError
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Reason, "earlier child's placement")
	assert.ErrorIs(t, err, unix.EPERM)
	assert.Equal(t, spawns, spawnAttempts.Load())
	setThreadAffinity = unix.SchedSetaffinity
	assert.Equal(t, formatCPUs(allowed), childCPUs(t, catStatus(t, nil)))
}
