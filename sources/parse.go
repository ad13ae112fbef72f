package sources

import (
	"bytes"
	"fmt"
	"strconv"
)

// The parsers of what the sources read from the kernel: pure functions, so
// that they are tested on recorded contents on any host.

// procIOFields are the /proc/self/io fields tier0 reports, by metric, in
// catalog order.
var procIOFields = [...]struct{ key, metric string }{
	{"rchar", "rchar"},
	{"wchar", "wchar"},
	{"syscr", "syscr"},
	{"syscw", "syscw"},
	{"read_bytes", "read-bytes"},
	{"write_bytes", "write-bytes"},
}

// ioSnapshot is one reading of /proc/self/io: each procIOFields value and
// whether the file had it.
type ioSnapshot struct {
	v    [len(procIOFields)]uint64
	have [len(procIOFields)]bool
}

// parseProcIO parses /proc/<pid>/io ("rchar: 6976\n..."). Unknown fields are
// skipped, so newer kernels parse; a known field with a malformed value is an
// error. It does not allocate: tier0 calls it between its snapshots' reads.
func parseProcIO(b []byte, s *ioSnapshot) error {
	*s = ioSnapshot{}
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			continue
		}
		key, val := line[:colon], bytes.TrimSpace(line[colon+1:])
		for i, f := range procIOFields {
			if string(key) != f.key { // no allocation: compiler-optimized comparison
				continue
			}
			n, ok := parseUint(val)
			if !ok {
				return fmt.Errorf("/proc/self/io: field %s: malformed value %q", f.key, val)
			}
			s.v[i], s.have[i] = n, true
		}
	}
	return nil
}

// parseUint parses a non-empty decimal uint64 without allocating.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (^uint64(0)-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// parseTracepointID parses a tracefs events/<system>/<event>/id file.
func parseTracepointID(b []byte) (uint64, error) {
	s := string(bytes.TrimSpace(b))
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("malformed tracepoint id %q", s)
	}
	return id, nil
}
