package protocol

import (
	"bytes"
	"testing"
)

// BenchmarkResultRoundTrip encodes and decodes one Result frame carrying
// 10,000 raw samples; MB/s is frame bytes per second through both.
func BenchmarkResultRoundTrip(b *testing.B) {
	samples := make([]Sample, 10000)
	for i := range samples {
		samples[i] = Sample{Iterations: 1 << 20, ElapsedNs: 5_000_000 + int64(i)*37, AllocBytes: u64(uint64(i) * 64), Allocs: u64(uint64(i))}
	}
	m := Result{Identity: Identity{Package: "example.com/codec", Name: "BenchmarkEncode/size=1K"}, Samples: samples}
	frame, err := AppendFrame(nil, m)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	var buf bytes.Buffer
	c := NewConn(&buf)
	for b.Loop() {
		if err := c.Send(m); err != nil {
			b.Fatal(err)
		}
		got, err := c.Receive()
		if err != nil {
			b.Fatal(err)
		}
		if len(got.(Result).Samples) != len(samples) {
			b.Fatal("sample count changed")
		}
	}
}
