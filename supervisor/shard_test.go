package supervisor

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		bad  bool
	}{
		{in: "1/1", want: Shard{Index: 1, Count: 1}},
		{in: "2/3", want: Shard{Index: 2, Count: 3}},
		{in: " 3 / 3 ", want: Shard{Index: 3, Count: 3}},
		{in: "0/3", bad: true},
		{in: "4/3", bad: true},
		{in: "3", bad: true},
		{in: "a/b", bad: true},
		{in: "1/0", bad: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseShard(tc.in)
			if tc.bad {
				assert.ErrorContains(t, err, "K/N")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// parts returns which part of n owns each of keys.
func parts(t *testing.T, s Shard, n int, keys []string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, k := range keys {
		owners := 0
		for i := 1; i <= n; i++ {
			s.Index, s.Count = i, n
			if s.Owns("pkg", k) {
				owners++
				got[k] = i
			}
		}
		require.Equal(t, 1, owners, "%s must be in exactly one part", k)
	}
	return got
}

func TestShardPartition(t *testing.T) {
	var keys []string
	for i := range 200 {
		keys = append(keys, fmt.Sprintf("BenchmarkF%03d", i))
	}
	for _, n := range []int{2, 3, 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			before := parts(t, Shard{}, n, keys)
			sizes := make([]int, n+1)
			for _, p := range before {
				sizes[p]++
			}
			for p := 1; p <= n; p++ {
				assert.Greater(t, sizes[p], 200/n/2, "part %d is far too small: %v", p, sizes)
			}
			// Adding a function moves no other.
			after := parts(t, Shard{}, n, append(keys, "BenchmarkNew"))
			for _, k := range keys {
				assert.Equal(t, before[k], after[k], k)
			}
		})
	}
	assert.True(t, Shard{}.Owns("pkg", "BenchmarkX"), "the zero shard is the whole run")
	assert.True(t, Shard{Index: 1, Count: 1}.Owns("pkg", "BenchmarkX"))
}

func TestShardBalance(t *testing.T) {
	durations := map[string]int64{}
	var keys []string
	for i, d := range []int64{90, 80, 70, 40, 30, 20, 10, 10, 5, 5} {
		k := fmt.Sprintf("BenchmarkB%d", i)
		keys = append(keys, k)
		durations[analysis.BenchKey("pkg", k)] = d
	}
	s := Shard{Count: 3}.Balance(durations)
	assert.Equal(t, "balanced", s.Method())
	got := parts(t, s, 3, keys)
	load := make([]int64, 4)
	for k, p := range got {
		load[p] += durations[analysis.BenchKey("pkg", k)]
	}
	// Longest first to the least loaded part: 90 | 80+10+5 | 70+40... the
	// exact deal is fixed by the inputs; the loads are within the longest
	// function of each other.
	for p := 1; p <= 3; p++ {
		for q := 1; q <= 3; q++ {
			assert.LessOrEqual(t, load[p]-load[q], int64(90), "loads %v", load[1:])
		}
	}
	assert.Equal(t, got, parts(t, Shard{Count: 3}.Balance(durations), 3, keys), "the deal depends only on its inputs")
	// A function the previous run did not have goes by its hash and moves
	// nothing.
	withNew := parts(t, s, 3, append(keys, "BenchmarkNew"))
	for _, k := range keys {
		assert.Equal(t, got[k], withNew[k], k)
	}
	assert.Equal(t, "hash", Shard{Count: 3}.Method())
}
