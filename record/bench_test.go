package record

import (
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkBeginFinish is the boundary path's cost: one Begin and one
// Finish, retained in a reservoir of 10,000 (the zero Config: after the
// first 10,000 spans most are counted, not stored) or the latest 10,000
// (every span stored). Compare it with
// BenchmarkTimeNowTwice in the same run: the ratio, not the time, is what
// carries from one machine to another.
func BenchmarkBeginFinish(b *testing.B) {
	for _, p := range []Policy{Reservoir, LatestN} {
		rings := []string{"off", "on"}
		if sharedRegion() != nil {
			rings = append(rings, "supervised")
		}
		for _, ring := range rings {
			// ring=on publishes every span to a shared region in this
			// process's memory, as under benchsup (docs/design.md#recording);
			// ring=supervised (only under benchsup) to the region benchsup
			// gave the process, which it drains meanwhile; off is a
			// recorder alone, whatever the environment says.
			newRec := func(b *testing.B) *Recorder {
				rec := New(Config{Retention: Retention{Policy: p}})
				switch ring {
				case "off":
					rec.sh = nil
				case "on":
					rec.sh = testRegion(b)
				}
				return rec
			}
			b.Run("policy="+string(p)+"/ring="+ring+"/single", func(b *testing.B) {
				rec := newRec(b)
				id := rec.Register("x")
				rec.Start()
				defer rec.Stop()
				b.ReportAllocs()
				for b.Loop() {
					s := id.Begin()
					s.Finish(Success)
				}
			})
			b.Run("policy="+string(p)+"/ring="+ring+"/parallel", func(b *testing.B) {
				rec := newRec(b)
				id := rec.Register("x")
				rec.Start()
				defer rec.Stop()
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						s := id.Begin()
						s.Finish(Success)
					}
				})
			})
		}
	}
}

var sinkTime time.Time

// BenchmarkTimeNowTwice is the floor a span's two clock reads set: what
// an ad-hoc timer around the same work costs.
func BenchmarkTimeNowTwice(b *testing.B) {
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			sinkTime = time.Now()
			sinkTime = time.Now()
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			ns := 0 // kept live, so the reads are not dead code
			for pb.Next() {
				ns += time.Now().Nanosecond()
				ns += time.Now().Nanosecond()
			}
			sinkInt.Add(int64(ns))
		})
	})
}

var sinkDuration time.Duration

// sinkInt takes what the parallel loops computed, once per goroutine.
var sinkInt atomic.Int64

// BenchmarkTimeSinceTwice is two monotonic clock reads, as Begin and
// Finish make them (time.Since of a monotonic base reads one clock;
// time.Now reads the wall clock too).
func BenchmarkTimeSinceTwice(b *testing.B) {
	base := time.Now()
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			sinkDuration = time.Since(base)
			sinkDuration = time.Since(base)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			var d time.Duration // kept live, so the reads are not dead code
			for pb.Next() {
				d += time.Since(base)
				d += time.Since(base)
			}
			sinkInt.Add(int64(d))
		})
	})
}
