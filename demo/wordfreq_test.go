package demo

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

var vocabulary = strings.Fields(`the quick brown fox jumps over a lazy dog while
benchmarks measure time memory and allocations in fresh processes so that one
crash never hides another result`)

// corpus returns a deterministic text of about size bytes.
func corpus(size int) string {
	r := rand.New(rand.NewSource(1))
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(vocabulary[r.Intn(len(vocabulary))])
		b.WriteByte(' ')
	}
	return b.String()
}

func TestCount(t *testing.T) {
	got := Count("The the THE, fox!")
	if got["the"] != 3 || got["fox"] != 1 || len(got) != 2 {
		t.Fatalf("Count = %v", got)
	}
}

func TestTopN(t *testing.T) {
	got := TopN(map[string]int{"a": 1, "b": 3, "c": 3}, 2)
	want := []WordCount{{"b", 3}, {"c", 3}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("TopN = %v, want %v", got, want)
	}
}

// BenchmarkCount is table-driven: each input size is its own sub-benchmark,
// and benchsup measures each in its own processes.
func BenchmarkCount(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10} {
		text := corpus(size)
		b.Run(fmt.Sprintf("size=%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Count(text)
			}
		})
	}
}

// BenchmarkTopN uses b.Loop, which keeps its setup out of the timing by
// construction.
func BenchmarkTopN(b *testing.B) {
	counts := Count(corpus(256 << 10))
	for b.Loop() {
		TopN(counts, 10)
	}
}

// BenchmarkCountLarge builds a 1 MiB input first and excludes that from the
// measurement with ResetTimer.
func BenchmarkCountLarge(b *testing.B) {
	text := corpus(1 << 20)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Count(text)
	}
}
