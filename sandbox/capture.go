package sandbox

// The buffers behind Capture and Stacks. Both are bounded by their limit and
// by what was actually written, count every byte, and are not safe for
// concurrent use: a stream (stream_linux.go) serializes every write and read
// under its own lock.

// tailBuffer keeps the last limit bytes written to it and counts them all.
// Its buffer grows with the output up to limit and then wraps.
type tailBuffer struct {
	limit int    // at least 1
	buf   []byte // len(buf) <= limit; a ring once len(buf) == limit
	next  int    // write position in the ring
	total int64  // bytes written in all
}

func newTailBuffer(limit int) *tailBuffer { return &tailBuffer{limit: limit} }

// Write never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.total += int64(n)
	if n >= t.limit {
		// Only the end of p survives: restart the ring with it.
		if cap(t.buf) < t.limit {
			t.buf = make([]byte, 0, t.limit)
		}
		t.buf = append(t.buf[:0], p[n-t.limit:]...)
		t.next = 0
		return n, nil
	}
	if room := t.limit - len(t.buf); room > 0 {
		// Still growing: append what fits, wrap the rest.
		k := min(room, len(p))
		t.buf = appendBounded(t.buf, p[:k], t.limit)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(t.buf[t.next:], p)
		p = p[k:]
		t.next = (t.next + k) % t.limit
	}
	return n, nil
}

// Capture returns a copy of the tail with the exact counts.
func (t *tailBuffer) Capture() Capture {
	tail := make([]byte, 0, len(t.buf))
	tail = append(tail, t.buf[t.next:]...)
	tail = append(tail, t.buf[:t.next]...)
	return Capture{Tail: tail, Total: t.total, Omitted: t.total - int64(len(tail))}
}

// headBuffer keeps the first limit bytes of a stream from a mark on, and
// counts every byte from the mark on. The mark is a stream offset: bytes
// before it, though read after the mark was set (they were still in the
// pipe), are not the head's.
type headBuffer struct {
	limit int    // at least 1
	from  int64  // the stream offset of the mark
	buf   []byte // len(buf) <= limit
	total int64  // bytes at or after from, in all
}

func newHeadBuffer(limit int, from int64) *headBuffer {
	return &headBuffer{limit: limit, from: from}
}

// writeAt takes p, the bytes of the stream from offset off on, and keeps
// what lies at or after the mark and fits.
func (h *headBuffer) writeAt(off int64, p []byte) {
	if skip := h.from - off; skip > 0 {
		if skip >= int64(len(p)) {
			return
		}
		p = p[skip:]
	}
	h.total += int64(len(p))
	if room := h.limit - len(h.buf); room > 0 {
		h.buf = appendBounded(h.buf, p[:min(room, len(p))], h.limit)
	}
}

// stacks returns a copy of the head with the exact counts.
func (h *headBuffer) stacks() Stacks {
	head := make([]byte, len(h.buf))
	copy(head, h.buf)
	return Stacks{Requested: true, Head: head, Total: h.total, Omitted: h.total - int64(len(head))}
}

// appendBounded appends p to buf, growing it by doubling but never past
// limit; len(buf)+len(p) must not exceed limit.
func appendBounded(buf, p []byte, limit int) []byte {
	if cap(buf)-len(buf) < len(p) {
		grown := make([]byte, len(buf), min(limit, max(2*cap(buf), len(buf)+len(p), 512)))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, p...)
}
