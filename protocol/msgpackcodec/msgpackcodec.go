// Package msgpackcodec is the supervisor's protocol codec: frame bodies
// encoded and decoded by github.com/vmihailenco/msgpack/v5, the reflective
// library the protocol's wire format was first written with.
//
// Package protocol encodes and decodes with its own hand-written codec
// (protocol.StdCodec) because it is linked into users' test binaries and
// must depend on the standard library only. The supervisor, which is not,
// decodes what children send with this package instead: an independent
// implementation of the same wire format, so that a bug in either codec
// shows up as a disagreement (the tests and fuzz targets of this package
// check the two against each other byte for byte) rather than passing
// silently through both ends of one implementation.
//
// # Contract
//
// Codec implements protocol.Codec and nothing more: it encodes a message
// value with UseCompactInts(true) and decodes a body with the library,
// after a strict pass (strict.go) has refused what protocol.StdCodec
// refuses and the library alone would accept: a known key repeated in one
// map (the library lets the last one win, merging maps), a struct encoded
// as an array, an integer that does not fit its field's Go type (the
// library wraps it; for a float64 field, an integer must fit int64). The
// pass checks the body against a schema read by reflection from the message
// types and their msgpack tags, and reports a refusal as a
// *protocol.DecodeError in StdCodec's terms (field path, body offset, the
// same words), so both codecs accept the same bodies, decode them to the
// same messages, and refuse the rest with the same error. Unknown keys are
// skipped, as both codecs skip them, for forward compatibility. Everything
// else is package protocol's and is shared with StdCodec: framing, the
// structural walk that runs before the library sees a body (so the library
// never pre-allocates for a length the frame does not back), the published
// bounds and validation. AppendFrame, DecodePayload and NewConn are
// protocol.AppendFrameWith, protocol.DecodePayloadWith and
// protocol.NewConnWith with this Codec.
//
// # What it deliberately does not do
//
// It does not define messages, bounds or framing. Its strict pass only
// refuses: the values come from the library, so the library's reading of
// the wire stays independent of StdCodec's. It checks no bound (an array
// longer than its field allows is refused by validation after decoding,
// where StdCodec refuses it while decoding). It is not meant for the child
// side of the exchange.
package msgpackcodec

import (
	"bytes"
	"fmt"
	"io"

	"github.com/benchsup/benchsup/protocol"
	"github.com/vmihailenco/msgpack/v5"
)

// Codec is the protocol.Codec backed by github.com/vmihailenco/msgpack/v5.
type Codec struct{}

var _ protocol.Codec = Codec{}

// NewConn returns a protocol.Conn reading from and writing to rw, with
// frame bodies encoded and decoded by Codec.
func NewConn(rw io.ReadWriter) *protocol.Conn {
	return protocol.NewConnWith(rw, Codec{})
}

// AppendFrame validates m, encodes it as one frame with Codec and appends
// the frame to dst, as protocol.AppendFrame does with protocol.StdCodec.
func AppendFrame(dst []byte, m protocol.Message) ([]byte, error) {
	return protocol.AppendFrameWith(dst, m, Codec{})
}

// DecodePayload decodes one frame payload (the bytes after the length
// prefix) with Codec. Every failure wraps protocol.ErrMalformed.
func DecodePayload(payload []byte) (protocol.Message, error) {
	return protocol.DecodePayloadWith(payload, Codec{})
}

// AppendBody implements protocol.Codec: the library's encoding of m with
// UseCompactInts(true).
func (Codec) AppendBody(dst []byte, m protocol.Message) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(m); err != nil {
		return dst, err
	}
	return buf.Bytes(), nil
}

// DecodeBody implements protocol.Codec: the strict pass checks body, then
// the library decodes it into a new message of kind k. A refusal of the
// pass is a *protocol.DecodeError. protocol.DecodePayloadWith calls it only
// after its structural walk accepted body; called directly on an unchecked
// body, the pass never panics, but the library may allocate what a header
// declares.
func (Codec) DecodeBody(k protocol.Kind, body []byte) (protocol.Message, error) {
	if err := checkBody(k, body); err != nil {
		return nil, err
	}
	switch k {
	case protocol.KindHello:
		return decode[protocol.Hello](body)
	case protocol.KindRequest:
		return decode[protocol.Request](body)
	case protocol.KindReady:
		return decode[protocol.Ready](body)
	case protocol.KindProgress:
		return decode[protocol.Progress](body)
	case protocol.KindResult:
		return decode[protocol.Result](body)
	case protocol.KindLog:
		return decode[protocol.Log](body)
	case protocol.KindSkip:
		return decode[protocol.Skip](body)
	case protocol.KindFailure:
		return decode[protocol.Failure](body)
	case protocol.KindDone:
		return decode[protocol.Done](body)
	case protocol.KindListing:
		return decode[protocol.Listing](body)
	case protocol.KindTestEvent:
		return decode[protocol.TestEvent](body)
	case protocol.KindWindow:
		return decode[protocol.Window](body)
	}
	return nil, fmt.Errorf("unknown message kind %d", uint8(k))
}

func decode[M protocol.Message](body []byte) (protocol.Message, error) {
	var m M
	r := bytes.NewReader(body)
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(r)
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%d trailing bytes", r.Len())
	}
	return m, nil
}
