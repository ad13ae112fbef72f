package supervisor

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

func TestOldFirst(t *testing.T) {
	for _, tc := range []struct {
		partners, r int
		want        []bool // by repetition 0..3
	}{
		{1, 0, []bool{true, false, true, false}},
		{2, 0, []bool{true, false, false, true}}, // orders r0 r1 wt, r1 wt r0, wt r0 r1
		{2, 1, []bool{true, true, false, true}},
	} {
		t.Run(fmt.Sprint(tc.partners, tc.r), func(t *testing.T) {
			for rep, want := range tc.want {
				if got := oldFirst(tc.partners, tc.r, rep); got != want {
					t.Errorf("oldFirst(%d, %d, %d) = %v, want %v", tc.partners, tc.r, rep, got, want)
				}
			}
		})
	}
}

func TestInterleaveGroups(t *testing.T) {
	a, b := &benchIdentity{name: "A"}, &benchIdentity{name: "B"}
	aOld, c := &benchIdentity{name: "A", variant: "HEAD~1"}, &benchIdentity{name: "C", variant: "HEAD~1"}
	a.partners, b.partners = []*benchIdentity{aOld}, []*benchIdentity{nil}
	var got []string
	for _, j := range interleave([]*benchIdentity{a, b, c}, 3) {
		got = append(got, fmt.Sprintf("%d:%s@%s", j.rep, j.id.name, j.id.variant))
	}
	assert.Equal(t, []string{
		"0:A@HEAD~1", "0:A@", "0:B@", "0:C@HEAD~1",
		"1:A@", "1:A@HEAD~1", "1:B@", "1:C@HEAD~1",
		"2:A@HEAD~1", "2:A@", "2:B@", "2:C@HEAD~1",
	}, got, "pairs in a balanced order, repetition-major; identities of one build alone")
}

// TestAgainst runs a scripted two-build run: the revision's build is 30%
// slower; both measure the working tree's calibrated N, in alternating
// order, and the comparison calls the working tree faster.
func TestAgainst(t *testing.T) {
	var mu sync.Mutex
	var order []string
	start := func(ctx context.Context, cfg sandbox.Config, req protocol.Request, observe func(protocol.Message)) sandbox.Outcome {
		old := cfg.Path == "/rev/p.test"
		var msgs []protocol.Message
		switch req.Mode {
		case protocol.ModeDiscover:
			n := int64(50)
			if old {
				n = 40
			}
			msgs = []protocol.Message{progress(protocol.PhaseDiscovery, 0, 1), leaves("BenchmarkX"),
				progress(protocol.PhaseCalibration, 0, 1), calibrated("BenchmarkX", n)}
		case protocol.ModeBenchmark:
			mu.Lock()
			order = append(order, fmt.Sprintf("%d:%v", req.Repetition, old))
			mu.Unlock()
			assert.Equal(t, int64(50), req.Config.Iterations, "both builds measure the working tree's N")
			ns := int64(100 + req.Repetition)
			if old {
				ns = 130 + int64(req.Repetition)
			}
			msgs = []protocol.Message{result(req, ns)}
		}
		for _, m := range msgs {
			observe(m)
		}
		return sandbox.Outcome{Class: sandbox.ClassSuccess, PID: 1, Hello: &protocol.Hello{ProtocolVersion: protocol.Version}}
	}
	cfg := Config{Mode: ModeBench, Against: []string{"HEAD~1"}}
	cfg.applyDefaults()
	s := &supervisor{cfg: cfg, tmp: t.TempDir(), start: start}
	oldPlan := fakePackage("example.com/p", []string{"BenchmarkX"}, nil)
	oldPlan.builds[0].binary = "/rev/p.test"
	oldPlan.builds[0].variant = "HEAD~1"
	rev := &revision{tree: &revisionTree{rev: "HEAD~1", commit: "0123456789abcdef0123"}, plans: []*pkgPlan{oldPlan}}
	rows, _, _ := s.benchmarks(context.Background(), []*pkgPlan{fakePackage("example.com/p", []string{"BenchmarkX"}, nil)}, []*revision{rev})

	require.Len(t, rows, 2)
	assert.Equal(t, "", rows[0].Build)
	assert.Equal(t, "HEAD~1", rows[1].Build)
	assert.Equal(t, []string{"0:true", "0:false", "1:false", "1:true", "2:true", "2:false",
		"3:false", "3:true", "4:true", "4:false", "5:false", "5:true"}, order, "six pairs, alternating which build runs first")

	cs := s.compareRevisions(rows, []*revision{rev}, rundoc.Fingerprint{})
	require.Len(t, cs, 1)
	c := cs[0]
	assert.True(t, c.Knobs.Paired)
	assert.Equal(t, "HEAD~1 (commit 0123456789ab)", c.Old.Label)
	require.NotEmpty(t, c.Rows)
	r := c.Rows[0]
	assert.Equal(t, rundoc.MetricTime, r.Metric)
	assert.Equal(t, rundoc.VerdictFaster, r.Verdict, "100 ns against 130 ns in every pair")
	require.NotNil(t, r.Ratio)
	assert.InDelta(t, 100.0/130, *r.Ratio, 0.01)
	require.NotNil(t, r.Confidence)
	assert.InDelta(t, 0.96875, *r.Confidence, 1e-9, "6 pairs: the exact confidence of their range")
	require.NotNil(t, r.OrderEffect)
}
