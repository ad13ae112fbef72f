package msgpackcodec_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

// benchResult is protocol's BenchmarkResultRoundTrip message: one Result
// frame carrying 10,000 raw samples.
func benchResult() protocol.Result {
	samples := make([]protocol.Sample, 10000)
	for i := range samples {
		samples[i] = protocol.Sample{Iterations: 1 << 20, ElapsedNs: 5_000_000 + int64(i)*37, AllocBytes: u64(uint64(i) * 64), Allocs: u64(uint64(i))}
	}
	return protocol.Result{Identity: protocol.Identity{Package: "example.com/codec", Name: "BenchmarkEncode/size=1K"}, Samples: samples}
}

// BenchmarkCodecs compares the two codecs side by side on the large Result
// frame: encoding, decoding, and a Conn round trip (both); MB/s is frame
// bytes per second.
func BenchmarkCodecs(b *testing.B) {
	m := benchResult()
	frame, err := protocol.AppendFrame(nil, m)
	if err != nil {
		b.Fatal(err)
	}
	codecs := []struct {
		name        string
		appendFrame func([]byte, protocol.Message) ([]byte, error)
		decode      func([]byte) (protocol.Message, error)
		newConn     func(io.ReadWriter) *protocol.Conn
	}{
		{"protocol", protocol.AppendFrame, protocol.DecodePayload, protocol.NewConn},
		{"msgpack", msgpackcodec.AppendFrame, msgpackcodec.DecodePayload, msgpackcodec.NewConn},
	}
	for _, c := range codecs {
		b.Run("encode/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			buf := make([]byte, 0, len(frame))
			for b.Loop() {
				var err error
				if buf, err = c.appendFrame(buf[:0], m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, c := range codecs {
		b.Run("decode/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				got, err := c.decode(frame[4:])
				if err != nil {
					b.Fatal(err)
				}
				if len(got.(protocol.Result).Samples) != len(m.Samples) {
					b.Fatal("sample count changed")
				}
			}
		})
	}
	for _, c := range codecs {
		b.Run("roundtrip/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			var buf bytes.Buffer
			conn := c.newConn(&buf)
			for b.Loop() {
				if err := conn.Send(m); err != nil {
					b.Fatal(err)
				}
				got, err := conn.Receive()
				if err != nil {
					b.Fatal(err)
				}
				if len(got.(protocol.Result).Samples) != len(m.Samples) {
					b.Fatal("sample count changed")
				}
			}
		})
	}
}
