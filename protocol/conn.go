package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// headerSize is the width of the frame length prefix.
const headerSize = 4

// ErrFrameTooLarge is returned by Send and AppendFrame for a message whose
// encoding exceeds MaxFrameSize; the sender must split it (several Listing
// frames, fewer samples).
var ErrFrameTooLarge = errors.New("protocol: frame exceeds MaxFrameSize")

// Conn reads and writes frames on one endpoint. Receive returns message
// values (Hello, not *Hello).
type Conn struct {
	codec Codec

	r    io.Reader
	rbuf []byte // reused frame buffer, never larger than MaxFrameSize

	wmu  sync.Mutex
	w    io.Writer
	wbuf []byte
}

// NewConn returns a Conn reading from and writing to rw, with frame bodies
// encoded and decoded by StdCodec.
func NewConn(rw io.ReadWriter) *Conn {
	return NewConnWith(rw, StdCodec{})
}

// NewConnWith returns a Conn reading from and writing to rw, with frame
// bodies encoded and decoded by c. Framing, bounds and validation are the
// same whatever c.
func NewConnWith(rw io.ReadWriter, c Codec) *Conn {
	return &Conn{codec: c, r: rw, w: rw}
}

// Send writes m as one frame. It is safe for concurrent use.
func (c *Conn) Send(m Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var err error
	c.wbuf, err = AppendFrameWith(c.wbuf[:0], m, c.codec)
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
	return DecodePayloadWith(payload, c.codec)
}
