package msgpackcodec_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

func TestEveryKindHasCases(t *testing.T) {
	seen := map[protocol.Kind]int{}
	for _, c := range messageCases() {
		seen[c.msg.Kind()]++
	}
	for k := protocol.KindHello; k <= protocol.KindWindow; k++ {
		assert.NotZero(t, seen[k], "no case for %s", k)
	}
}

// TestEncodingsAreIdentical: StdCodec's frame is byte for byte the
// library's, for every case.
func TestEncodingsAreIdentical(t *testing.T) {
	for _, c := range messageCases() {
		t.Run(c.name, func(t *testing.T) {
			std, err := protocol.AppendFrame(nil, c.msg)
			require.NoError(t, err)
			lib, err := msgpackcodec.AppendFrame(nil, c.msg)
			require.NoError(t, err)
			require.Equal(t, lib, std)

			ref, err := libraryBody(c.msg)
			require.NoError(t, err)
			require.Equal(t, ref, std[5:], "body differs from the library's own encoder")

			body, err := protocol.StdCodec{}.AppendBody([]byte("prefix"), c.msg)
			require.NoError(t, err)
			require.Equal(t, append([]byte("prefix"), ref...), body, "AppendBody must append")
		})
	}
}

// TestCrossDecode: each codec decodes the other's frames to the original
// message (up to omitempty: an empty omitempty slice comes back nil).
func TestCrossDecode(t *testing.T) {
	for _, c := range messageCases() {
		t.Run(c.name, func(t *testing.T) {
			want := normalize(c.msg)
			std, err := protocol.AppendFrame(nil, c.msg)
			require.NoError(t, err)
			lib, err := msgpackcodec.AppendFrame(nil, c.msg)
			require.NoError(t, err)

			got, err := msgpackcodec.DecodePayload(payload(std))
			require.NoError(t, err, "library decoding protocol's frame")
			assert.Equal(t, want, got, "library decoding protocol's frame")

			got, err = protocol.DecodePayload(payload(lib))
			require.NoError(t, err, "protocol decoding the library's frame")
			assert.Equal(t, want, got, "protocol decoding the library's frame")

			got, err = protocol.DecodePayload(payload(std))
			require.NoError(t, err)
			assert.Equal(t, want, got, "protocol round trip")
		})
	}
}

// TestCrossConn streams every case from a Conn of one codec to a Conn of
// the other, in both directions, on one reused receive buffer.
func TestCrossConn(t *testing.T) {
	cases := messageCases()
	for _, dir := range []struct {
		name     string
		from, to func(io.ReadWriter) *protocol.Conn
	}{
		{"protocol to library", protocol.NewConn, msgpackcodec.NewConn},
		{"library to protocol", msgpackcodec.NewConn, protocol.NewConn},
	} {
		t.Run(dir.name, func(t *testing.T) {
			var buf bytes.Buffer
			from, to := dir.from(&buf), dir.to(&buf)
			for _, c := range cases {
				require.NoError(t, from.Send(c.msg), c.name)
			}
			for _, c := range cases {
				got, err := to.Receive()
				require.NoError(t, err, c.name)
				require.Equal(t, normalize(c.msg), got, c.name)
			}
			_, err := to.Receive()
			assert.Equal(t, io.EOF, err)
		})
	}
}

// TestPointerMessages: a pointer to a message is sent as the message by
// both codecs, and a nil one is refused.
func TestPointerMessages(t *testing.T) {
	m := protocol.Log{Text: "x"}
	want, err := protocol.AppendFrame(nil, m)
	require.NoError(t, err)
	for name, appendFrame := range map[string]func([]byte, protocol.Message) ([]byte, error){
		"protocol": protocol.AppendFrame, "library": msgpackcodec.AppendFrame,
	} {
		t.Run(name, func(t *testing.T) {
			got, err := appendFrame(nil, &m)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			_, err = appendFrame(nil, (*protocol.Log)(nil))
			assert.Error(t, err)
			_, err = appendFrame(nil, nil)
			assert.Error(t, err)
		})
	}
}
