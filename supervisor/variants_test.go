package supervisor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// variantScript plays a package whose functions have these leaves: each
// leaf is calibrated to n[leaf] (50 if absent) and measures ns[leaf] ns
// per iteration (100 if absent). It records the benchmark requests in
// the order they started.
type variantScript struct {
	t      *testing.T
	funcs  []string
	leaves map[string][]string // function -> its leaves, in source order
	n      map[string]int64
	ns     map[string]int64
	mu     sync.Mutex
	ran    []protocol.Request
}

func (v *variantScript) play(req protocol.Request) ([]protocol.Message, sandbox.Class) {
	if req.Mode != protocol.ModeDiscover {
		v.mu.Lock()
		v.ran = append(v.ran, req)
		v.mu.Unlock()
		return []protocol.Message{result(req, cmpOr(v.ns[req.Identity.Name], 100))}, sandbox.ClassSuccess
	}
	i, fn := function(v.t, v.funcs, req)
	ls := v.leaves[fn]
	msgs := []protocol.Message{progress(protocol.PhaseDiscovery, int64(i), int64(len(v.funcs))), leaves(ls...)}
	for k, l := range ls {
		msgs = append(msgs, progress(protocol.PhaseCalibration, int64(k), int64(len(ls))), calibrated(l, cmpOr(v.n[l], 50)))
	}
	return msgs, sandbox.ClassSuccess
}

func cmpOr(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

// hashScript is BenchmarkHash with three implementations (fnv the
// reference, xxh 20% faster, crc twice as slow), each calibrated to its
// own N, and BenchmarkOther, in no group.
func hashScript(t *testing.T) *variantScript {
	return &variantScript{t: t, funcs: []string{"BenchmarkHash", "BenchmarkOther"},
		leaves: map[string][]string{
			"BenchmarkHash":  {"BenchmarkHash/impl=fnv", "BenchmarkHash/impl=xxh", "BenchmarkHash/impl=crc"},
			"BenchmarkOther": {"BenchmarkOther"},
		},
		n:  map[string]int64{"BenchmarkHash/impl=fnv": 50, "BenchmarkHash/impl=xxh": 60, "BenchmarkHash/impl=crc": 25},
		ns: map[string]int64{"BenchmarkHash/impl=fnv": 100, "BenchmarkHash/impl=xxh": 80, "BenchmarkHash/impl=crc": 200},
	}
}

func TestVariantsRunInRounds(t *testing.T) {
	v := hashScript(t)
	sc := &scripted{play: v.play}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Vs: "impl"}, sc)
	rows, _, err := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", v.funcs, nil)}, nil)
	require.NoError(t, err)
	require.Len(t, s.variants, 1)
	g := s.variants[0]
	assert.Equal(t, "BenchmarkHash/impl=*", g.plan.Group)
	assert.Equal(t, []string{"fnv", "xxh", "crc"}, g.plan.Members, "the first in source order is the reference")
	rounds := analysis.VariantRounds(3, DefaultPairs)
	require.Len(t, g.schedule, rounds, "6 pairs' worth of rounds: two blocks of three")

	// The group's processes, in the order they ran: round after round,
	// each round every member once, in the schedule's order.
	var hash []string
	other := 0
	for _, r := range v.ran {
		if r.Identity.Name == "BenchmarkOther" {
			other++
			continue
		}
		hash = append(hash, fmt.Sprintf("%d:%s", r.Repetition, strings.TrimPrefix(r.Identity.Name, "BenchmarkHash/impl=")))
	}
	var want []string
	for k, round := range g.schedule {
		for _, m := range round {
			want = append(want, fmt.Sprintf("%d:%s", k, g.plan.Members[m]))
		}
	}
	assert.Equal(t, want, hash)
	assert.Equal(t, DefaultRepetitions, other, "a leaf in no group runs as usual")
	// Rounds are back to back: no other process between a round's members.
	for k := 0; k+2 < len(v.ran); k++ {
		if v.ran[k].Identity.Name == "BenchmarkOther" {
			continue
		}
		pos := slices.IndexFunc(g.schedule[v.ran[k].Repetition], func(m int) bool { return "BenchmarkHash/impl="+g.plan.Members[m] == v.ran[k].Identity.Name })
		if pos == 0 {
			for j := 1; j < 3; j++ {
				assert.NotEqual(t, "BenchmarkOther", v.ran[k+j].Identity.Name, "round %d split", v.ran[k].Repetition)
			}
		}
	}

	got := rowsByName(rows)
	for name, n := range map[string]int64{"BenchmarkHash/impl=fnv": 50, "BenchmarkHash/impl=xxh": 60, "BenchmarkHash/impl=crc": 25} {
		r := got[name]
		require.Len(t, r.Processes, rounds, name)
		for k, p := range r.Processes {
			assert.Equal(t, k, p.Index, "%s: process k ran in round k", name)
			assert.Equal(t, n, p.Samples[0].Iterations, "%s: own N by default", name)
		}
	}

	cs, err := s.compareVariants(rows, s.variants)
	require.NoError(t, err)
	require.Len(t, cs, 2, "one comparison per contender")
	for i, want := range []struct {
		label   string
		verdict rundoc.Verdict
	}{{"impl=xxh", rundoc.VerdictFaster}, {"impl=crc", rundoc.VerdictSlower}} {
		c := cs[i]
		assert.Equal(t, "impl=fnv", c.Old.Label)
		assert.Equal(t, want.label, c.New.Label)
		require.NotNil(t, c.Variants)
		assert.Equal(t, VsOwn, c.Variants.Iterations)
		require.Len(t, c.Variants.Groups, 1)
		assert.Equal(t, g.schedule, c.Variants.Groups[0].Schedule, "the schedule that ran is the one recorded")
		require.NotEmpty(t, c.Rows)
		assert.Equal(t, "BenchmarkHash/impl=*", c.Rows[0].Name)
		assert.Equal(t, rundoc.MetricTime, c.Rows[0].Metric)
		assert.Equal(t, want.verdict, c.Rows[0].Verdict, want.label)
	}
}

func TestVariantsSharedIterations(t *testing.T) {
	v := hashScript(t)
	sc := &scripted{play: v.play}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Vs: "impl", VsReference: "xxh", VsIterations: VsShared, Repetitions: 4}, sc)
	rows, _, err := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", v.funcs, nil)}, nil)
	require.NoError(t, err)
	require.Len(t, s.variants, 1)
	assert.Equal(t, []string{"xxh", "fnv", "crc"}, s.variants[0].plan.Members, "--vs=impl:xxh names the reference")
	assert.Len(t, s.variants[0].schedule, 4, "--repetitions gives the rounds")
	for _, r := range rows {
		if !strings.HasPrefix(r.Name, "BenchmarkHash/") {
			continue
		}
		require.Len(t, r.Processes, 4, r.Name)
		for _, p := range r.Processes {
			assert.Equal(t, int64(60), p.Samples[0].Iterations, "%s runs the reference's N", r.Name)
		}
	}
}

func TestVariantsPlanning(t *testing.T) {
	many := make([]string, analysis.MaxVariants+1)
	for i := range many {
		many[i] = fmt.Sprintf("BenchmarkWide/impl=v%d", i)
	}
	tests := []struct {
		name   string
		leaves map[string][]string
		err    string // the run's error, or ""
		groups []string
		note   map[string]string // leaf -> a note its row must have
	}{
		{"a key no leaf has", map[string][]string{"BenchmarkHash": {"BenchmarkHash/algo=fnv", "BenchmarkHash/algo=xxh"}},
			"--vs=impl: no benchmark has the element impl=…", nil, nil},
		{"a group over sixteen", map[string][]string{"BenchmarkHash": many},
			"--vs compares at most 16", nil, nil},
		{"a group of one is reported, the others run",
			map[string][]string{"BenchmarkHash": {"BenchmarkHash/impl=fnv/n=8", "BenchmarkHash/impl=xxh/n=8", "BenchmarkHash/impl=fnv/n=64"}},
			"", []string{"BenchmarkHash/impl=*/n=8"},
			map[string]string{"BenchmarkHash/impl=fnv/n=64": "--vs=impl: BenchmarkHash/impl=*/n=64: one variant only (impl=fnv), nothing to compare it with"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var funcs []string
			for fn := range tt.leaves {
				funcs = append(funcs, fn)
			}
			v := &variantScript{t: t, funcs: funcs, leaves: tt.leaves}
			s := scriptedSupervisor(t, Config{Mode: ModeBench, Vs: "impl", Repetitions: 2}, &scripted{play: v.play})
			rows, _, err := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", funcs, nil)}, nil)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				assert.Empty(t, v.ran, "nothing is measured")
				return
			}
			require.NoError(t, err)
			var groups []string
			for _, g := range s.variants {
				groups = append(groups, g.plan.Group)
			}
			assert.Equal(t, tt.groups, groups)
			got := rowsByName(rows)
			for leaf, note := range tt.note {
				assert.Contains(t, got[leaf].Notes, note)
				assert.Len(t, got[leaf].Processes, 2, "a leaf in no group still runs")
			}
		})
	}
}

func TestVariantsDefaults(t *testing.T) {
	var c Config
	c.Vs = "impl"
	c.applyDefaults()
	assert.Equal(t, VsOwn, c.VsIterations, "own N by default")
	assert.True(t, c.defaultRounds, "each group's own default rounds")
	c = Config{Vs: "impl", Repetitions: 4}
	c.applyDefaults()
	assert.False(t, c.defaultRounds, "--repetitions given: the rounds")
}

// TestVariantsReferenceFailed: a reference that fails in calibration is
// its row's failure; the other members still run every round, and the
// comparison says the reference failed rather than dropping the group.
func TestVariantsReferenceFailed(t *testing.T) {
	v := hashScript(t)
	play := v.play
	v.n["BenchmarkHash/impl=fnv"] = -1 // marks the failure below
	sc := &scripted{play: func(req protocol.Request) ([]protocol.Message, sandbox.Class) {
		msgs, class := play(req)
		for i, m := range msgs {
			if l, ok := m.(protocol.Listing); ok && len(l.Identities) == 1 && l.Identities[0].Iterations == -1 {
				msgs[i] = protocol.Listing{Identities: []protocol.Listed{{Name: l.Identities[0].Name, Kind: protocol.ListedBenchmark, Problem: "boom"}}}
			}
		}
		return msgs, class
	}}
	s := scriptedSupervisor(t, Config{Mode: ModeBench, Vs: "impl", Repetitions: 3}, sc)
	rows, _, err := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", v.funcs, nil)}, nil)
	require.NoError(t, err)
	got := rowsByName(rows)
	assert.Equal(t, rundoc.Outcome("benchmark-failure"), got["BenchmarkHash/impl=fnv"].Outcome)
	assert.Len(t, got["BenchmarkHash/impl=xxh"].Processes, 3, "the others run every round")
	assert.Len(t, got["BenchmarkHash/impl=crc"].Processes, 3)
	cs, err := s.compareVariants(rows, s.variants)
	require.NoError(t, err)
	require.Len(t, cs, 2)
	for _, c := range cs {
		require.NotEmpty(t, c.Rows)
		assert.Equal(t, rundoc.VerdictFailed, c.Rows[0].Verdict, c.New.Label)
	}
}
