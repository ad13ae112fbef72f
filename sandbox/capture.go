package sandbox

import "sync"

// tailBuffer keeps the last limit bytes written to it and counts them all.
// Its buffer grows with the output up to limit and then wraps, so memory is
// bounded by the limit and by what was actually written.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte // len(buf) <= limit; a ring once len(buf) == limit
	next  int    // write position in the ring
	total int64
}

func newTailBuffer(limit int) *tailBuffer { return &tailBuffer{limit: limit} }

// Write never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
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
		if cap(t.buf)-len(t.buf) < k {
			// Grow by doubling, but never past the limit.
			grown := make([]byte, len(t.buf), min(t.limit, max(2*cap(t.buf), len(t.buf)+k, 512)))
			copy(grown, t.buf)
			t.buf = grown
		}
		t.buf = append(t.buf, p[:k]...)
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
	t.mu.Lock()
	defer t.mu.Unlock()
	tail := make([]byte, 0, len(t.buf))
	tail = append(tail, t.buf[t.next:]...)
	tail = append(tail, t.buf[:t.next]...)
	return Capture{Tail: tail, Total: t.total, Omitted: t.total - int64(len(tail))}
}
