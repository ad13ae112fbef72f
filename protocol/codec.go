package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Codec encodes and decodes a frame body: the one msgpack map that follows
// the kind byte. It is the only part of the wire a Codec owns. Framing, the
// structural walk, the published bounds and validation are this package's,
// applied identically whatever the Codec, by AppendFrameWith,
// DecodePayloadWith and Conn.
//
// Two implementations exist and are tested against each other: StdCodec
// (this package, standard library only, the default) and the codec of
// package protocol/msgpackcodec (github.com/vmihailenco/msgpack/v5).
type Codec interface {
	// AppendBody appends the msgpack encoding of m to dst and returns the
	// extended slice. m is a message value (Hello, not *Hello). AppendBody
	// does not check bounds: AppendFrameWith validates m before calling it
	// and bounds the frame after.
	AppendBody(dst []byte, m Message) ([]byte, error)
	// DecodeBody decodes body as a message of kind k and returns it as a
	// value (Hello, not *Hello). DecodePayloadWith calls it only for a
	// known kind and after walk has verified body's structure: exactly one
	// msgpack value, every declared length backed by bytes in body, at most
	// 16384 entries per container, nesting at most 8 deep, no extension
	// types; it validates the result afterwards. The returned message must
	// not refer to body, which the caller reuses. A refusal of one value
	// is a *DecodeError naming the value's field path and body offset,
	// which DecodePayloadWith reports in the *MalformedError.
	DecodeBody(k Kind, body []byte) (Message, error)
}

// StdCodec is this package's Codec: hand-written msgpack for each message
// type, no reflection, standard library only.
//
// Its encoding is byte-identical to github.com/vmihailenco/msgpack/v5
// (v5.4.1) encoding the message structs with UseCompactInts(true): fields
// in declaration order keyed by their msgpack tags, omitempty fields left
// out when nil, empty, zero or "", other nil slices as nil and empty ones
// as empty arrays, integers in the shortest form (non-negative values
// unsigned), float64 always as a float64, strings as fixstr/str8/str16/str32.
//
// Its decoder accepts every form that library accepts for the same Go types:
// map keys in any order (unknown ones skipped), any integer width and
// signedness for an integer field, float32, float64 or an integer for a
// float, str or bin for a string, nil for any field (the zero value; nil for
// a slice or pointer). It refuses three forms the library alone accepts,
//
//   - a known key that occurs twice in one map (the library lets the last
//     one win, merging maps);
//   - a struct encoded as an array instead of a map;
//   - an integer that does not fit the field's Go type (the library wraps a
//     negative value into a uint64 field, or a uint64 beyond math.MaxInt64
//     into an int, int64 or float64 field);
//
// and so does the supervisor's codec (package protocol/msgpackcodec), whose
// strict pass refuses them before the library decodes: the two accept the
// same bodies and refuse the rest with the same error. A refusal is a
// *DecodeError naming the value's field path and body offset (the value's
// first byte; a repeated key's own); DecodePayloadWith reports it in a
// *MalformedError as, for example, "malformed protocol:
// result.samples[0].extra[1].value: float: integer 9223372036854775808
// overflows int64 at payload offset 52".
//
// It never panics, even on a body walk has not checked, and allocates in
// proportion to the body: no slice longer than its field's bound or than the
// bytes that remain, no string longer than the bytes present.
type StdCodec struct{}

// errUnknownMessage is returned for a message type this package does not
// define (a nil Message, or a nil pointer to a message).
var errUnknownMessage = errors.New("protocol: not a message of this package")

// AppendFrame validates m, encodes it as one frame with StdCodec and appends
// the frame to dst.
func AppendFrame(dst []byte, m Message) ([]byte, error) {
	return AppendFrameWith(dst, m, StdCodec{})
}

// AppendFrameWith is AppendFrame with the body encoded by c. A message
// beyond a published bound is refused before c sees it, and a frame beyond
// MaxFrameSize is refused with ErrFrameTooLarge; on error dst is returned
// unchanged in length. A pointer to a message is sent as the message.
func AppendFrameWith(dst []byte, m Message, c Codec) ([]byte, error) {
	m, ok := messageValue(m)
	if !ok {
		return dst, errUnknownMessage
	}
	if err := m.validate(); err != nil {
		return dst, fmt.Errorf("protocol: %s message out of bounds: %w", m.Kind(), err)
	}
	start := len(dst)
	out := append(dst, 0, 0, 0, 0, byte(m.Kind()))
	out, err := c.AppendBody(out, m)
	if err != nil {
		return dst, fmt.Errorf("protocol: encode %s: %w", m.Kind(), err)
	}
	n := len(out) - start - headerSize
	if n > MaxFrameSize {
		return dst, fmt.Errorf("%w: %s message of %d bytes", ErrFrameTooLarge, m.Kind(), n)
	}
	binary.BigEndian.PutUint32(out[start:], uint32(n))
	return out, nil
}

// DecodePayload decodes one frame payload (the bytes after the length
// prefix) with StdCodec. Every failure wraps ErrMalformed.
func DecodePayload(payload []byte) (Message, error) {
	return DecodePayloadWith(payload, StdCodec{})
}

// DecodePayloadWith is DecodePayload with the body decoded by c: it checks
// the payload's size and kind, walks the body, has c decode it and
// validates the result against every bound. Every failure wraps
// ErrMalformed and is a *MalformedError; one the walk or c located carries
// its payload offset, and c's its field. The message does not refer to
// payload.
func DecodePayloadWith(payload []byte, c Codec) (Message, error) {
	if len(payload) == 0 {
		return nil, malformed(0, nil, "empty frame")
	}
	if len(payload) > MaxFrameSize {
		return nil, malformed(0, nil, "frame of %d bytes exceeds bound %d", len(payload), MaxFrameSize)
	}
	k := Kind(payload[0])
	if k == 0 || k >= kindEnd {
		return nil, malformed(0, nil, "unknown message kind %d", payload[0])
	}
	body := payload[1:]
	// A decoder may pre-allocate whatever length a header declares (the
	// library's does), so the structure is verified first: after walk
	// succeeds every declared length is backed by bytes in this frame.
	if err := walk(body); err != nil {
		e := &MalformedError{Kind: k, Reason: "invalid msgpack", Err: err}
		// The walk knows where, not which field: it reads no schema.
		if de, ok := err.(*DecodeError); ok {
			e.Offset, e.Err = de.Offset+1, de.Err
		}
		return nil, e
	}
	m, err := c.DecodeBody(k, body)
	if err != nil {
		return nil, decodeFailure(k, err)
	}
	v, ok := messageValue(m)
	if !ok || v.Kind() != k {
		return nil, malformed(k, nil, "codec returned %T for a %s frame", m, k)
	}
	m = v
	if err := m.validate(); err != nil {
		return nil, malformed(k, err, "out of bounds")
	}
	return m, nil
}

// asDecodeError is errors.As for *DecodeError. It walks the chain itself:
// errors.As reflects, which makes code live in a user's test binary that
// go test's does not reach, and moves the runtime's code after it
// (docs/design.md#injection).
func asDecodeError(err error) (*DecodeError, bool) {
	for err != nil {
		if de, ok := err.(*DecodeError); ok {
			return de, true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if de, ok := asDecodeError(e); ok {
					return de, true
				}
			}
			return nil, false
		default:
			return nil, false
		}
	}
	return nil, false
}

// decodeFailure turns a codec's error into a *MalformedError, lifting a
// *DecodeError's field and offset into it: the field gains the message kind
// as its root and the offset counts from the payload (one more than from the
// body).
func decodeFailure(k Kind, err error) error {
	de, ok := asDecodeError(err)
	if !ok {
		return malformed(k, err, "cannot decode")
	}
	field := k.String()
	if de.Field != "" {
		field += "." + de.Field
	}
	return &MalformedError{Kind: k, Field: field, Offset: de.Offset + 1, Err: de.Err}
}

// AppendBody implements Codec.
func (StdCodec) AppendBody(dst []byte, m Message) ([]byte, error) {
	switch m := m.(type) {
	case Hello:
		return appendHello(dst, &m), nil
	case Request:
		return appendRequest(dst, &m), nil
	case Ready:
		return appendReady(dst, &m), nil
	case Progress:
		return appendProgress(dst, &m), nil
	case Result:
		return appendResult(dst, &m), nil
	case Log:
		return appendLog(dst, &m), nil
	case Skip:
		return appendSkip(dst, &m), nil
	case Failure:
		return appendFailure(dst, &m), nil
	case Done:
		return appendDone(dst), nil
	case Listing:
		return appendListing(dst, &m), nil
	case TestEvent:
		return appendTestEvent(dst, &m), nil
	case Window:
		return appendWindow(dst, &m), nil
	}
	return dst, errUnknownMessage
}

// DecodeBody implements Codec. It requires that body holds exactly one
// value.
func (StdCodec) DecodeBody(k Kind, body []byte) (Message, error) {
	d := &decoder{b: body}
	var m Message
	var err error
	switch k {
	case KindHello:
		var v Hello
		err = d.hello(&v)
		m = v
	case KindRequest:
		var v Request
		err = d.request(&v)
		m = v
	case KindReady:
		var v Ready
		err = d.ready(&v)
		m = v
	case KindProgress:
		var v Progress
		err = d.progress(&v)
		m = v
	case KindResult:
		var v Result
		err = d.result(&v)
		m = v
	case KindLog:
		var v Log
		err = d.log(&v)
		m = v
	case KindSkip:
		var v Skip
		err = d.skipMessage(&v)
		m = v
	case KindFailure:
		var v Failure
		err = d.failure(&v)
		m = v
	case KindDone:
		err = d.object(nil, nil)
		m = Done{}
	case KindListing:
		var v Listing
		err = d.listing(&v)
		m = v
	case KindTestEvent:
		var v TestEvent
		err = d.testEvent(&v)
		m = v
	case KindWindow:
		var v Window
		err = d.window(&v)
		m = v
	default:
		return nil, fmt.Errorf("unknown message kind %d", uint8(k))
	}
	if err != nil {
		// An error no entry located is the message's own (not a map).
		return nil, located(err, "", 0)
	}
	if d.remaining() != 0 {
		return nil, &DecodeError{Offset: d.pos, Err: fmt.Errorf("%d trailing bytes", d.remaining())}
	}
	return m, nil
}
