package supervisor

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/analysis"
)

// Shard selects one part of a run's benchmark functions (--shard=K/N), so
// that N runners each measure a part and `benchsup merge` joins their
// documents. The unit is a top-level benchmark function of a package: its
// sub-benchmarks share its discovery and calibration, which a split would
// repeat on every runner that got one of them.
//
// Without durations a function goes to the part its identity hashes to:
// adding or removing a function never moves another. With durations (a
// previous run's, by BenchKey), the known functions are dealt out longest
// first to the part with the least time so far, so the parts take about
// the same time; a function the previous run did not have goes by its
// hash, so it too moves nothing. Every runner computes the same parts from
// the same inputs, so no runner needs to know another's.
//
// The zero Shard is the whole run.
type Shard struct {
	Index int // K, from 1
	Count int // N; 0 or 1: no sharding
	// deal is the part of each function with a duration (see Balance);
	// nil: parts by hash alone.
	deal map[string]int
}

// ParseShard reads "K/N" with 1 <= K <= N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(strings.TrimSpace(k))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("want K/N with 1 <= K <= N (the part of N to run), got %q", s)
	}
	return Shard{Index: ki, Count: ni}, nil
}

// Active reports whether the shard selects a part rather than the whole.
func (s Shard) Active() bool { return s.Count > 1 }

// String is "K/N", or "" for the whole run.
func (s Shard) String() string {
	if !s.Active() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Method says how the parts were drawn: "hash" or "balanced".
func (s Shard) Method() string {
	if len(s.deal) > 0 {
		return "balanced"
	}
	return "hash"
}

// Owns reports whether the function fn of package pkg is in this part.
func (s Shard) Owns(pkg, fn string) bool {
	if !s.Active() {
		return true
	}
	return s.partOf(analysis.BenchKey(pkg, fn)) == s.Index
}

// partOf is the part (from 1) that key goes to.
func (s Shard) partOf(key string) int {
	if p, ok := s.deal[key]; ok {
		return p
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%uint64(s.Count)) + 1
}

// Balance returns s with its parts balanced by durations: the time each
// function took in a previous run (nanoseconds, by BenchKey). The
// functions are dealt out longest first, each to the part with the least
// time so far (the lowest part on a tie); ties of duration go in key
// order, so the deal depends on nothing but its inputs.
func (s Shard) Balance(durations map[string]int64) Shard {
	if !s.Active() || len(durations) == 0 {
		return s
	}
	keys := make([]string, 0, len(durations))
	for k := range durations {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(durations[b], durations[a]), strings.Compare(a, b))
	})
	load := make([]int64, s.Count)
	s.deal = make(map[string]int, len(keys))
	for _, k := range keys {
		least := 0
		for i := range load {
			if load[i] < load[least] {
				least = i
			}
		}
		load[least] += max(durations[k], 0)
		s.deal[k] = least + 1
	}
	return s
}
