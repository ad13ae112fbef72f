package analysis_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
)

func TestVariantSchedule(t *testing.T) {
	for _, tc := range []struct{ n, rounds int }{{2, 6}, {3, 6}, {4, 8}, {5, 10}, {6, 6}, {7, 14}, {16, 16}, {3, 7}, {2, 0}} {
		s := analysis.VariantSchedule(tc.n, tc.rounds, 42)
		require.Len(t, s, tc.rounds, "n=%d", tc.n)
		// Every round runs every variant once.
		for r, round := range s {
			sorted := slices.Sorted(slices.Values(round))
			for i, v := range sorted {
				require.Equal(t, i, v, "n=%d round %d %v is not a permutation", tc.n, r, round)
			}
		}
		// Within every whole block of n rounds, every variant takes every
		// position once.
		for b := 0; b+tc.n <= tc.rounds; b += tc.n {
			seen := map[[2]int]int{}
			for _, round := range s[b : b+tc.n] {
				for pos, v := range round {
					seen[[2]int{v, pos}]++
				}
			}
			assert.Len(t, seen, tc.n*tc.n, "n=%d block %d: a variant missed a position", tc.n, b/tc.n)
		}
		// Of any two variants, each runs first in half the rounds of a
		// block (n even) or of two blocks (n odd), one round off in a
		// single block of odd n.
		for b := 0; b+tc.n <= tc.rounds; b += tc.n {
			span, slack := tc.n, tc.n%2
			if tc.n%2 == 1 && b+2*tc.n <= tc.rounds && (b/tc.n)%2 == 0 {
				span, slack = 2*tc.n, 0
			}
			for i := range tc.n {
				for j := i + 1; j < tc.n; j++ {
					before := 0
					for _, round := range s[b : b+span] {
						if slices.Index(round, i) < slices.Index(round, j) {
							before++
						}
					}
					assert.LessOrEqual(t, abs(2*before-span), slack, "n=%d rounds %d..%d: %d runs before %d in %d of %d", tc.n, b, b+span, i, j, before, span)
				}
			}
		}
		assert.Equal(t, s, analysis.VariantSchedule(tc.n, tc.rounds, 42), "deterministic for a seed")
	}
	two := analysis.VariantSchedule(2, 6, 1)
	first := 0
	for _, round := range two {
		if round[0] == 0 {
			first++
		}
	}
	assert.Equal(t, 3, first, "two variants: the reference first in half the pairs")
	var differ bool
	for seed := uint64(0); seed < 8 && !differ; seed++ {
		differ = !slices.EqualFunc(analysis.VariantSchedule(4, 8, seed), analysis.VariantSchedule(4, 8, seed+1), slices.Equal)
	}
	assert.True(t, differ, "the seed shuffles the rounds")
	assert.Panics(t, func() { analysis.VariantSchedule(1, 6, 0) })
	assert.Panics(t, func() { analysis.VariantSchedule(analysis.MaxVariants+1, 6, 0) })
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestVariantRounds(t *testing.T) {
	for _, tc := range []struct{ n, pairs, want int }{{2, 6, 6}, {3, 6, 6}, {4, 6, 8}, {5, 6, 10}, {16, 6, 16}, {2, 7, 8}} {
		assert.Equal(t, tc.want, analysis.VariantRounds(tc.n, tc.pairs), "n=%d pairs=%d", tc.n, tc.pairs)
	}
}

func TestPlanVariants(t *testing.T) {
	names := []string{
		"BenchmarkHash/impl=fnv/n=8", "BenchmarkHash/impl=xxh/n=8", "BenchmarkHash/impl=crc/n=8",
		"BenchmarkHash/impl=fnv/n=64", "BenchmarkHash/impl=xxh/n=64",
		"BenchmarkSort/algo=pdq", // no impl: in no group
		"BenchmarkLone/impl=only",
		"BenchmarkDup/impl=a", "BenchmarkDup/impl=a#01",
	}
	plans, skipped, err := analysis.PlanVariants(names, "impl", "")
	require.NoError(t, err)
	require.Len(t, plans, 2)
	assert.Equal(t, analysis.VariantPlan{Group: "BenchmarkHash/impl=*/n=8", Members: []string{"fnv", "xxh", "crc"},
		Names: []string{"BenchmarkHash/impl=fnv/n=8", "BenchmarkHash/impl=xxh/n=8", "BenchmarkHash/impl=crc/n=8"}}, plans[0])
	assert.Equal(t, []string{"fnv", "xxh"}, plans[1].Members)
	assert.Equal(t, []string{
		"BenchmarkLone/impl=*: one variant only (impl=only), nothing to compare it with",
		"BenchmarkDup/impl=*: impl=a is given twice, so its variants cannot be told apart",
	}, skippedText(skipped))

	plans, skipped, err = analysis.PlanVariants(names, "impl", "crc")
	require.NoError(t, err)
	require.Len(t, plans, 1, "only n=8 has crc")
	assert.Equal(t, []string{"crc", "fnv", "xxh"}, plans[0].Members, "the named reference first, the others in source order")
	assert.Contains(t, skippedText(skipped), "BenchmarkHash/impl=*/n=64: no variant impl=crc to compare the others with")

	_, _, err = analysis.PlanVariants(names, "codec", "")
	assert.ErrorIs(t, err, analysis.ErrNoVariants)

	var many []string
	for i := range analysis.MaxVariants + 1 {
		many = append(many, fmt.Sprintf("BenchmarkX/v=%d", i))
	}
	_, _, err = analysis.PlanVariants(many, "v", "")
	assert.ErrorContains(t, err, "BenchmarkX/v=* has 17 variants of v; --vs compares at most 16")
}

func skippedText(gs []analysis.SkippedGroup) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.String())
	}
	return out
}
