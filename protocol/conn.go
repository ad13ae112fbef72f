package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// headerSize is the width of the frame length prefix.
const headerSize = 4

// ErrFrameTooLarge is returned by Send and AppendFrame for a message whose
// encoding exceeds MaxFrameSize; the sender must split it (several Listing
// frames, fewer samples).
var ErrFrameTooLarge = errors.New("protocol: frame exceeds MaxFrameSize")

// AppendFrame validates m, encodes it as one frame and appends the frame to
// dst.
func AppendFrame(dst []byte, m Message) ([]byte, error) {
	if err := m.validate(); err != nil {
		return dst, fmt.Errorf("protocol: %s message out of bounds: %w", m.Kind(), err)
	}
	buf := bytes.NewBuffer(dst)
	start := buf.Len()
	buf.Write([]byte{0, 0, 0, 0, byte(m.Kind())})
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(m); err != nil {
		return dst, fmt.Errorf("protocol: encode %s: %w", m.Kind(), err)
	}
	out := buf.Bytes()
	n := len(out) - start - headerSize
	if n > MaxFrameSize {
		return dst, fmt.Errorf("%w: %s message of %d bytes", ErrFrameTooLarge, m.Kind(), n)
	}
	binary.BigEndian.PutUint32(out[start:], uint32(n))
	return out, nil
}

// DecodePayload decodes one frame payload (the bytes after the length
// prefix). Every failure wraps ErrMalformed.
func DecodePayload(payload []byte) (Message, error) {
	if len(payload) == 0 {
		return nil, malformed(0, nil, "empty frame")
	}
	if len(payload) > MaxFrameSize {
		return nil, malformed(0, nil, "frame of %d bytes exceeds bound %d", len(payload), MaxFrameSize)
	}
	k := Kind(payload[0])
	m := newMessage(k)
	if m == nil {
		return nil, malformed(0, nil, "unknown message kind %d", payload[0])
	}
	body := payload[1:]
	// The reflective decoder pre-allocates whatever length a header
	// declares, so the structure is verified first: after walk succeeds
	// every declared length is backed by bytes present in this frame.
	if err := walk(body); err != nil {
		return nil, malformed(k, err, "invalid msgpack")
	}
	r := bytes.NewReader(body)
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(r)
	if err := dec.Decode(m); err != nil {
		return nil, malformed(k, err, "cannot decode")
	}
	if r.Len() != 0 {
		return nil, malformed(k, nil, "%d trailing bytes", r.Len())
	}
	if err := m.validate(); err != nil {
		return nil, malformed(k, err, "out of bounds")
	}
	return reflect.ValueOf(m).Elem().Interface().(Message), nil
}

// Conn reads and writes frames on one endpoint. Receive returns message
// values (Hello, not *Hello).
type Conn struct {
	r    io.Reader
	rbuf []byte // reused frame buffer, never larger than MaxFrameSize

	wmu  sync.Mutex
	w    io.Writer
	wbuf []byte
}

// NewConn returns a Conn reading from and writing to rw.
func NewConn(rw io.ReadWriter) *Conn {
	return &Conn{r: rw, w: rw}
}

// Send writes m as one frame. It is safe for concurrent use.
func (c *Conn) Send(m Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var err error
	c.wbuf, err = AppendFrame(c.wbuf[:0], m)
	if err != nil {
		return err
	}
	if _, err := c.w.Write(c.wbuf); err != nil {
		return fmt.Errorf("protocol: send %s: %w", m.Kind(), err)
	}
	return nil
}

// Receive reads the next frame. It returns io.EOF when the stream ends
// cleanly between frames, an error wrapping ErrMalformed for any malformed
// frame (also wrapping io.ErrUnexpectedEOF when the stream ended inside a
// frame, as when the peer died while writing), and the reader's error
// otherwise.
func (c *Conn) Receive() (Message, error) {
	var hdr [headerSize]byte
	if n, err := io.ReadFull(c.r, hdr[:]); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			return nil, malformed(0, io.ErrUnexpectedEOF, "stream ended inside a frame header (%d of %d bytes)", n, headerSize)
		}
		return nil, err
	}
	size := binary.BigEndian.Uint32(hdr[:])
	if size == 0 || size > MaxFrameSize {
		return nil, malformed(0, nil, "frame length %d outside 1..%d", size, MaxFrameSize)
	}
	if cap(c.rbuf) < int(size) {
		c.rbuf = make([]byte, size)
	}
	payload := c.rbuf[:size]
	if n, err := io.ReadFull(c.r, payload); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, malformed(0, io.ErrUnexpectedEOF, "stream ended inside a frame (%d of %d bytes)", n, size)
		}
		return nil, err
	}
	return DecodePayload(payload)
}
