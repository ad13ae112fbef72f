// Package demo is a small word-frequency library whose benchmarks show what
// benchsup measures: table-driven sub-benchmarks, b.Loop, setup excluded with
// b.ResetTimer, and a workload (one file load, cold then warm in the page
// cache) written with benchsup's measure API.
package demo

import (
	"os"
	"sort"
	"strings"
	"unicode"
)

// Count returns how often each lower-cased word occurs in text.
func Count(text string) map[string]int {
	counts := make(map[string]int)
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		counts[strings.ToLower(w)]++
	}
	return counts
}

// WordCount is one word and its count.
type WordCount struct {
	Word  string
	Count int
}

// TopN returns the n most frequent words, most frequent first; ties are
// broken alphabetically so the result is deterministic.
func TopN(counts map[string]int, n int) []WordCount {
	all := make([]WordCount, 0, len(counts))
	for w, c := range counts {
		all = append(all, WordCount{w, c})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Count != all[j].Count {
			return all[i].Count > all[j].Count
		}
		return all[i].Word < all[j].Word
	})
	if n < len(all) {
		all = all[:n]
	}
	return all
}

// CountFile counts the words of a file.
func CountFile(path string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Count(string(data)), nil
}
