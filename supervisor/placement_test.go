package supervisor

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// fakeHost is a host with the given online CPUs, affinity and cores (each
// a list of SMT siblings).
func fakeHost(online, allowed []int, cores ...[]int) placementHost {
	return placementHost{
		online:  func() ([]int, error) { return online, nil },
		allowed: func() ([]int, error) { return allowed, nil },
		siblings: func(cpu int) ([]int, error) {
			for _, core := range cores {
				for _, c := range core {
					if c == cpu {
						return core, nil
					}
				}
			}
			return []int{cpu}, nil
		},
		lookup: func(string) (string, bool) { return "", false },
	}
}

func TestCheckPlacement(t *testing.T) {
	twoCPUs := fakeHost([]int{0, 1}, []int{0, 1})
	smt := fakeHost([]int{0, 1, 2, 3}, []int{0, 1, 2, 3}, []int{0, 2}, []int{1, 3})
	unreadable := fakeHost([]int{0, 1}, []int{0, 1})
	unreadable.siblings = func(int) ([]int, error) { return nil, errors.New("no topology") }
	noOnline := fakeHost(nil, []int{0, 1})
	noOnline.online = func() ([]int, error) { return nil, errors.New("no /sys") }
	noAffinity := fakeHost([]int{0, 1}, nil)
	noAffinity.allowed = func() ([]int, error) { return nil, fmt.Errorf("placement: %w", errors.ErrUnsupported) }

	tests := []struct {
		name     string
		h        placementHost
		cpus     []int
		env      sandbox.EnvPolicy
		want     *rundoc.Placement
		warnings int
		refused  string // the refusal, "" when accepted
		is       error  // wrapped by the refusal besides ErrPlacement
	}{
		{name: "no placement", h: twoCPUs},
		{name: "one CPU", h: twoCPUs, cpus: []int{0},
			want: &rundoc.Placement{CPUs: "0", Note: "children's GOMAXPROCS follows the affinity: 1"}},
		{name: "unsorted and repeated", h: twoCPUs, cpus: []int{1, 0, 1},
			want: &rundoc.Placement{CPUs: "0-1", Note: "children's GOMAXPROCS follows the affinity: 2"}},
		{name: "offline", h: twoCPUs, cpus: []int{0, 7}, refused: "cpu 7 is not online here (online: 0-1)"},
		{name: "negative", h: twoCPUs, cpus: []int{-1}, refused: "cpu -1 is not a CPU number"},
		{name: "outside the affinity", h: fakeHost([]int{0, 1}, []int{0}), cpus: []int{1},
			refused: "cpu 1 is outside this process's allowed CPUs 0 (a cpuset or taskset)"},
		{name: "online unknown", h: noOnline, cpus: []int{5}, refused: "cpu 5 is outside this process's allowed CPUs 0-1 (a cpuset or taskset)"},
		{name: "online unknown, allowed", h: noOnline, cpus: []int{1},
			want: &rundoc.Placement{CPUs: "1", Note: "children's GOMAXPROCS follows the affinity: 1; online CPUs unknown: no /sys"}},
		{name: "no affinity here", h: noAffinity, cpus: []int{0},
			refused: "cannot pin children: this process's allowed CPUs cannot be read: placement: unsupported operation", is: errors.ErrUnsupported},
		{name: "siblings left out", h: smt, cpus: []int{0, 1},
			want:     &rundoc.Placement{CPUs: "0-1", UnreservedSiblings: "2-3", Note: "children's GOMAXPROCS follows the affinity: 2"},
			warnings: 1},
		{name: "whole cores", h: smt, cpus: []int{0, 2},
			want: &rundoc.Placement{CPUs: "0,2", Note: "children's GOMAXPROCS follows the affinity: 2"}},
		{name: "siblings unknown", h: unreadable, cpus: []int{0},
			want: &rundoc.Placement{CPUs: "0", Note: "children's GOMAXPROCS follows the affinity: 1; SMT siblings unknown: no topology"}},
		{name: "GOMAXPROCS set", h: twoCPUs, cpus: []int{0}, env: sandbox.EnvPolicy{Set: []string{"GOMAXPROCS=2", "GOMAXPROCS=4"}},
			want: &rundoc.Placement{CPUs: "0", Note: "children's GOMAXPROCS is GOMAXPROCS=4 from their environment, not the affinity's 1"}},
		{name: "GOMAXPROCS removed", h: twoCPUs, cpus: []int{0}, env: sandbox.EnvPolicy{Inherit: true, Remove: []string{"GOMAXPROCS"}},
			want: &rundoc.Placement{CPUs: "0", Note: "children's GOMAXPROCS follows the affinity: 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, warnings, err := tt.h.check(tt.cpus, tt.env)
			if tt.refused != "" {
				require.Error(t, err)
				assert.Equal(t, tt.refused, err.Error())
				assert.ErrorIs(t, err, ErrPlacement)
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
				}
				assert.Nil(t, p)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
			assert.Len(t, warnings, tt.warnings)
			for _, w := range warnings {
				assert.Contains(t, w, p.UnreservedSiblings, "a warning names the siblings")
			}
		})
	}
}

// The run's CPUs, which the interference watch, the preflight and the
// claim cover: the placement, else the affinity when it leaves out an
// online CPU (taskset, a cpuset), else every CPU (nil).
func TestWatchedCPUs(t *testing.T) {
	failing := func() ([]int, error) { return nil, errors.New("unreadable") }
	noAllowed := fakeHost([]int{0, 1, 2, 3}, nil)
	noAllowed.allowed = failing
	noOnline := fakeHost(nil, []int{1})
	noOnline.online = failing
	tests := []struct {
		name   string
		host   placementHost
		placed []int
		want   []int
	}{
		{"unconfined, unplaced", fakeHost([]int{0, 1, 2, 3}, []int{0, 1, 2, 3}), nil, nil},
		{"placed", fakeHost([]int{0, 1, 2, 3}, []int{0, 1, 2, 3}), []int{3, 1, 3}, []int{1, 3}},
		{"placed within a confinement", fakeHost([]int{0, 1, 2, 3}, []int{1, 2}), []int{2}, []int{2}},
		{"taskset", fakeHost([]int{0, 1, 2, 3}, []int{1, 2}), nil, []int{1, 2}},
		{"affinity beyond the online CPUs", fakeHost([]int{0, 1}, []int{0, 1, 2, 3}), nil, nil},
		{"affinity unreadable", noAllowed, nil, nil},
		{"online unreadable", noOnline, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.host.watchedCPUs(tt.placed))
		})
	}
}

func TestGOMAXPROCSInherited(t *testing.T) {
	env := map[string]string{"GOMAXPROCS": "3"}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	for _, tt := range []struct {
		env  sandbox.EnvPolicy
		want string
	}{
		{sandbox.EnvPolicy{}, ""}, // strict: not passed
		{sandbox.EnvPolicy{Inherit: true}, "3"},
		{sandbox.EnvPolicy{Keep: []string{"GOMAXPROCS"}}, "3"},
		{sandbox.EnvPolicy{Keep: []string{"GOMAXPROCS"}, Remove: []string{"GOMAXPROCS"}}, ""},
		{sandbox.EnvPolicy{Remove: []string{"GOMAXPROCS"}, Set: []string{"GOMAXPROCS=1"}}, "1"},
	} {
		got, _ := gomaxprocsEnv(tt.env, lookup)
		assert.Equal(t, tt.want, got, "%+v", tt.env)
	}
}

// The check runs before anything is built.
func TestPlacementRefusedBeforeRun(t *testing.T) {
	allowed, err := sandbox.AllowedCPUs()
	if err != nil {
		t.Skip(err)
	}
	// An empty directory: without the check, the run would fail on its
	// packages instead.
	_, err = Run(t.Context(), Config{Dir: t.TempDir(), Mode: ModeBench, CPUs: []int{allowed[len(allowed)-1] + 1000}})
	assert.ErrorIs(t, err, ErrPlacement)
	var pe *PlacementError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, []int{allowed[len(allowed)-1] + 1000}, pe.CPUs)
}
