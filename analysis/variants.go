package analysis

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// MaxVariants is the most variants --vs compares in one group: the
// schedule's rounds hold every variant once, and a round of more than
// sixteen processes spans so long that the host's drift reaches inside it.
const MaxVariants = 16

// VariantRounds is the default number of rounds (processes per variant)
// for n variants: the pairs --against runs by default (DefaultPairs, 6,
// whose order-statistic interval reaches 96.9%), rounded up to a whole
// number of blocks of n rounds so that every variant takes every position
// equally often.
func VariantRounds(n, pairs int) int {
	if n < 2 {
		return pairs
	}
	return (pairs + n - 1) / n * n
}

// VariantSchedule returns the order in which n variants' processes run:
// rounds rounds, each a permutation of 0..n-1 (the variants, reference
// first). Rounds come in blocks of n, the rows of a Williams square, every
// second block's rows reversed, so that
//
//   - within each whole block every variant takes every position once;
//   - of any two variants, each runs before the other in half the rounds
//     of a block (n even) or of two blocks (n odd; one block is one round
//     off, the least an odd count allows). A cyclic Latin square, balanced
//     for positions only, runs variant i+1 right after i in n−1 of n
//     rounds: position effects (a cold cache, drift within a round) then
//     move the median of the pair ratios (docs/design.md#comparison).
//
// The blocks' rounds are shuffled with seed, so the same seed gives the
// same schedule. For two variants that is interleaved pairs in balanced
// order, each first in half of them. A last, partial block (rounds not a
// multiple of n) is balanced as far as it goes. It panics if n is outside
// 2..MaxVariants or rounds is negative: callers check those first.
func VariantSchedule(n, rounds int, seed uint64) [][]int {
	if n < 2 || n > MaxVariants || rounds < 0 {
		panic(fmt.Sprintf("analysis.VariantSchedule(%d, %d): want 2..%d variants and rounds >= 0", n, rounds, MaxVariants))
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	// The Williams square's first row: 0, 1, n−1, 2, n−2, ...; row r adds
	// r to every entry, mod n.
	first := make([]int, 0, n)
	first = append(first, 0)
	for lo, hi := 1, n-1; len(first) < n; {
		first = append(first, lo)
		lo++
		if len(first) < n {
			first = append(first, hi)
			hi--
		}
	}
	out := make([][]int, 0, rounds)
	for b := 0; len(out) < rounds; b++ {
		block := make([][]int, n)
		for r := range block {
			block[r] = make([]int, n)
			for i, v := range first {
				block[r][i] = (v + r) % n
			}
			if b%2 == 1 {
				slices.Reverse(block[r])
			}
		}
		rng.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
		out = append(out, block[:min(n, rounds-len(out))]...)
	}
	return out
}

// VariantPlan is one group of benchmark leaves to measure as variants of
// each other (--vs=KEY): leaves whose names differ only in KEY's value.
type VariantPlan struct {
	// Group is the members' shared name with the key's element written
	// "KEY=*".
	Group string
	// Members are the key's values, the reference first, then the others
	// in the order given (a run's leaves are in source order); Names the
	// members' full leaf names, in the same order.
	Members []string
	Names   []string
}

// SkippedGroup is a group PlanVariants cannot compare: the group as found
// (its members in the order given) and why.
type SkippedGroup struct {
	VariantPlan
	Reason string
}

// String is the group's identity and the reason, as a note says them.
func (g SkippedGroup) String() string { return g.Group + ": " + g.Reason }

// ErrNoVariants: no name given has an element KEY=VALUE.
var ErrNoVariants = fmt.Errorf("no benchmark has the element")

// PlanVariants groups leaf names by key as --vs=KEY compares them. The
// reference of each group is its member whose value is reference, or,
// when reference is "", its first member. It returns the groups of two
// or more variants, and, each with why, the groups it cannot compare: one
// member only, no member valued reference, a value given twice (a "#01"
// duplicate). A group of more than MaxVariants is an error (refused, not
// cut), as is a key no name holds (ErrNoVariants).
func PlanVariants(names []string, key, reference string) (plans []VariantPlan, skipped []SkippedGroup, err error) {
	parsed := make([]Name, len(names))
	for i, n := range names {
		parsed[i] = ParseName(n)
	}
	groups := GroupBy(parsed, key)
	if len(groups) == 0 {
		return nil, nil, fmt.Errorf("%w %s=…", ErrNoVariants, key)
	}
	for _, g := range groups {
		p := VariantPlan{Group: g.Family}
		seen := map[string]bool{}
		ref := -1
		dup := ""
		for _, i := range g.Members {
			e := parsed[i].Elements[parsed[i].Index(key)]
			if seen[e.Value] || e.Dup != "" {
				dup = e.Value
			}
			seen[e.Value] = true
			if ref < 0 && (e.Value == reference || reference == "") {
				ref = len(p.Members)
			}
			p.Members = append(p.Members, e.Value)
			p.Names = append(p.Names, names[i])
		}
		switch {
		case len(p.Members) > MaxVariants:
			return nil, nil, fmt.Errorf("%s has %d variants of %s; --vs compares at most %d in a group (every round runs each once)", g.Family, len(p.Members), key, MaxVariants)
		case len(p.Members) == 1:
			skipped = append(skipped, SkippedGroup{p, fmt.Sprintf("one variant only (%s=%s), nothing to compare it with", key, p.Members[0])})
			continue
		case dup != "":
			skipped = append(skipped, SkippedGroup{p, fmt.Sprintf("%s=%s is given twice, so its variants cannot be told apart", key, dup)})
			continue
		case ref < 0:
			skipped = append(skipped, SkippedGroup{p, fmt.Sprintf("no variant %s=%s to compare the others with", key, reference)})
			continue
		}
		// The reference first, the others in the order given.
		p.Members = append([]string{p.Members[ref]}, append(p.Members[:ref:ref], p.Members[ref+1:]...)...)
		p.Names = append([]string{p.Names[ref]}, append(p.Names[:ref:ref], p.Names[ref+1:]...)...)
		plans = append(plans, p)
	}
	return plans, skipped, nil
}
