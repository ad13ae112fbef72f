package worker

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sources"
)

// The fixtures' parents check, between their b.Run calls, what the
// sub-benchmark before left, as roaring64's BenchmarkIteratorAlloc does:
// run alone, every leaf but the first is never reached. Each leaf adds to
// iterCount (count_test.go) per iteration, a different amount, so that a
// counting pass shows whose iterations it counted.
func init() {
	RegisterBenchmark("BenchmarkFixtureSiblings", func(b *testing.B) {
		state := 0
		for i, leaf := range []struct {
			name string
			adds float64
		}{{"a", 100}, {"b b", 10}, {"c", 1}} {
			b.Run(leaf.name, func(b *testing.B) {
				for range b.N {
					iterCount += leaf.adds
				}
				state = i + 1
			})
			if state != i+1 {
				b.Fatalf("state %d after %s, want %d", state, leaf.name, i+1)
			}
		}
	})
	RegisterBenchmark("BenchmarkFixtureSiblingsFail", func(b *testing.B) {
		ready := false
		b.Run("a", func(b *testing.B) { ready = true })
		if !ready {
			b.Fatal("a did not run")
		}
		b.Run("broken", func(b *testing.B) { b.Fatal("broken either way") })
	})
	RegisterBenchmark("BenchmarkFixtureSiblingsNever", func(b *testing.B) {
		b.Run("a", func(b *testing.B) {})
		b.Fatal("the parent always fails here")
		b.Run("b", func(b *testing.B) {})
	})
}

// TestAfterSiblings: a leaf whose parent fails before reaching it when it
// runs alone is measured after the leaves testing runs before it, in the
// same process and at its N; its failure stands only when it fails that
// way too. The Log says so once, the Result counts the leaves.
func TestAfterSiblings(t *testing.T) {
	whole := "^BenchmarkFixtureSiblings$"
	for _, tc := range []struct {
		name, leaf, bench string
		after             int64  // Result.AfterSiblings; -1: no result
		fails             string // the failure's message, when it fails
		logs              []string
	}{
		{"the first leaf runs alone", "BenchmarkFixtureSiblings/a", whole, 0, "", nil},
		{"the second after the first", "BenchmarkFixtureSiblings/b_b", whole, 1, "", []string{siblingsNote(1)}},
		{"the third after both", "BenchmarkFixtureSiblings/c", whole, 2, "", []string{siblingsNote(2)}},
		{"without discovery's pattern, the whole function's order", "BenchmarkFixtureSiblings/c", "", 2, "", []string{siblingsNote(2)}},
		// The worker learns the order under the pattern discovery ran the
		// function with: under this one the parent fails after a, c never
		// runs, so there is nothing to run it after (discovery would not
		// have listed it) and its failure alone stands.
		{"discovery's pattern decides what runs before", "BenchmarkFixtureSiblings/c", "^BenchmarkFixtureSiblings$/^(a|c)$", -1,
			"state 0 after a, want 1", nil},
		{"a leaf that fails after its siblings too", "BenchmarkFixtureSiblingsFail/broken", "^BenchmarkFixtureSiblingsFail$", -1,
			"broken either way", []string{siblingsNote(1)}},
		{"a parent that never reaches the leaf", "BenchmarkFixtureSiblingsNever/b", "", -1,
			"the parent always fails here", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: tc.leaf},
				Config: protocol.RequestConfig{Iterations: 100, Samples: 3, Bench: tc.bench}})
			var logs []string
			for _, l := range only[protocol.Log](msgs) {
				logs = append(logs, l.Text)
			}
			assert.Equal(t, tc.logs, logs, "said once, whatever the runs")
			r, f := only[protocol.Result](msgs), only[protocol.Failure](msgs)
			if tc.after < 0 {
				require.Len(t, f, 1, "%v", msgs)
				assert.Empty(t, r)
				assert.Contains(t, f[0].Message, tc.fails)
				return
			}
			require.Empty(t, f, "%v", msgs)
			require.Len(t, r, 1)
			assert.Equal(t, tc.after, r[0].AfterSiblings)
			require.Len(t, r[0].Samples, 3, "the leaf's own results, not its siblings'")
			for _, s := range r[0].Samples {
				assert.Equal(t, int64(100), s.Iterations)
			}
		})
	}
}

// TestDiscoveryCalibratesAfterSiblings: calibration in discovery runs a
// leaf after its siblings in the order the listing run saw, and lists how
// many; a leaf that fails that way too is listed with its problem.
func TestDiscoveryCalibratesAfterSiblings(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover,
		Config: protocol.RequestConfig{Bench: "^BenchmarkFixtureSiblings(Fail)?$", MinSampleNs: int64(time.Millisecond)}})
	listed := map[string]protocol.Listed{}
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			if id.Iterations > 0 || id.Problem != "" {
				listed[id.Name] = id
			}
		}
	}
	for name, after := range map[string]int64{"BenchmarkFixtureSiblings/a": 0, "BenchmarkFixtureSiblings/b_b": 1, "BenchmarkFixtureSiblings/c": 2, "BenchmarkFixtureSiblingsFail/a": 0} {
		l, ok := listed[name]
		require.True(t, ok, name)
		assert.Empty(t, l.Problem, name)
		assert.Positive(t, l.Iterations, name)
		assert.Equal(t, after, l.AfterSiblings, name)
	}
	broken := listed["BenchmarkFixtureSiblingsFail/broken"]
	assert.Contains(t, broken.Problem, "broken either way")
	assert.Equal(t, int64(1), broken.AfterSiblings)
	var logs []string
	for _, l := range only[protocol.Log](msgs) {
		logs = append(logs, l.Text)
	}
	assert.Equal(t, []string{siblingsNote(1), siblingsNote(2), siblingsNote(1)}, logs, "once per leaf")
}

// TestCountingAfterSiblings: a counting run of a leaf after its siblings
// brackets their iterations too; the difference of each pair less the
// same difference of the siblings run without it counts exactly the
// leaf's k iterations (c adds 1 per iteration, b 10, a 100).
func TestCountingAfterSiblings(t *testing.T) {
	openCounters = func([]string, sources.Options) ([]sources.Counter, []sources.Absence) {
		return []sources.Counter{&iterCounter{}}, nil
	}
	defer func() { openCounters = sources.Open }()
	for _, tc := range []struct {
		leaf  string
		adds  float64
		after int
	}{{"BenchmarkFixtureSiblings/a", 100, 0}, {"BenchmarkFixtureSiblings/b_b", 10, 1}, {"BenchmarkFixtureSiblings/c", 1, 2}} {
		for _, k := range []int64{1, 3, 0} {
			t.Run(fmt.Sprintf("%s k=%d", tc.leaf, k), func(t *testing.T) {
				msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: tc.leaf},
					Config: protocol.RequestConfig{Iterations: 1000, Samples: 1, PerfIters: k, Metrics: []string{"minflt"}}})
				r := only[protocol.Result](msgs)
				require.Len(t, r, 1, "%v", msgs)
				if k == 0 {
					// A few microseconds timed: no pass fits in a quarter
					// of it, and the reason counts the siblings' runs.
					// Which reason depends on the host's speed that
					// moment: the iterations alone (theirs included), or
					// a run's cost beyond them; both name the siblings.
					require.Len(t, r[0].Absences, 1)
					why := r[0].Absences[0].Reason
					if strings.Contains(why, "pairs of runs at ") {
						assert.Regexp(t, `^not counted by default: \d+ pairs of runs at 2 and 3 iterations`, why)
						if tc.after > 0 {
							assert.Contains(t, why, "4 pairs of runs at 2 and 3 iterations (each with "+theLeaves(tc.after)+" run before it)")
						}
						return
					}
					assert.Contains(t, why, "not counted by default: a run of this benchmark costs ")
					if tc.after > 0 {
						assert.Contains(t, why, ", "+theLeaves(tc.after)+" run before it), so 4 pairs of runs")
					}
					return
				}
				assert.Equal(t, []protocol.MetricCell{{Name: "minflt", Value: tc.adds}}, r[0].Metrics)
				assert.Empty(t, r[0].Absences)
				assert.Equal(t, k, r[0].CountIterations)
				if tc.after == 0 {
					assert.NotContains(t, r[0].CountMethod, "leaves run before it")
					return
				}
				assert.True(t, strings.HasSuffix(r[0].CountMethod, ", each less the same difference of runs of "+theLeaves(tc.after)+" run before it, without it"),
					r[0].CountMethod)
			})
		}
	}
}
