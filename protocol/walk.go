package protocol

import (
	"encoding/binary"
	"fmt"
)

const (
	// maxDepth bounds container nesting; the deepest message needs 4
	// (Result > samples > sample > extra > metric is map, array, map,
	// array, map: 5), so 8 leaves room without inviting deep recursion.
	maxDepth = 8
	// maxContainerLen bounds any one array or map; no message field holds
	// more than MaxSamplesPerFrame or MaxIdentitiesPerFrame entries.
	maxContainerLen = max(MaxSamplesPerFrame, MaxIdentitiesPerFrame)
)

// walk verifies that b holds exactly one msgpack value whose every declared
// length is backed by bytes in b, whose containers hold at most
// maxContainerLen entries and nest at most maxDepth deep, and which uses no
// extension types. It allocates nothing but a fixed-size stack. An error is
// a *DecodeError whose Offset is that of the value (or the trailing byte)
// at fault; it names no field, since the walk reads no schema.
func walk(b []byte) error {
	var stack [maxDepth + 1]int // entries still expected at each open level
	depth := 0
	stack[0] = 1
	pos := 0
	for {
		for depth >= 0 && stack[depth] == 0 {
			depth--
		}
		if depth < 0 {
			break
		}
		stack[depth]--
		start := pos
		if pos >= len(b) {
			return walkError(start, "value truncated")
		}
		code := b[pos]
		pos++
		var skip, entries int64 // int64: a 32-bit length must not wrap on a 32-bit platform
		isMap := false
		switch {
		case code <= 0x7f, code >= 0xe0, code == 0xc0, code == 0xc2, code == 0xc3:
			// fixint, nil, bool: the code is the value
		case code >= 0x80 && code <= 0x8f:
			entries, isMap = int64(code&0x0f), true
		case code >= 0x90 && code <= 0x9f:
			entries = int64(code & 0x0f)
		case code >= 0xa0 && code <= 0xbf:
			skip = int64(code & 0x1f)
		case code == 0xc4, code == 0xd9: // bin8, str8
			n, err := lenField(b, &pos, 1)
			if err != nil {
				return err
			}
			skip = n
		case code == 0xc5, code == 0xda: // bin16, str16
			n, err := lenField(b, &pos, 2)
			if err != nil {
				return err
			}
			skip = n
		case code == 0xc6, code == 0xdb: // bin32, str32
			n, err := lenField(b, &pos, 4)
			if err != nil {
				return err
			}
			skip = n
		case code == 0xca:
			skip = 4
		case code == 0xcb:
			skip = 8
		case code == 0xcc, code == 0xd0:
			skip = 1
		case code == 0xcd, code == 0xd1:
			skip = 2
		case code == 0xce, code == 0xd2:
			skip = 4
		case code == 0xcf, code == 0xd3:
			skip = 8
		case code == 0xdc:
			n, err := lenField(b, &pos, 2)
			if err != nil {
				return err
			}
			entries = n
		case code == 0xdd:
			n, err := lenField(b, &pos, 4)
			if err != nil {
				return err
			}
			entries = n
		case code == 0xde:
			n, err := lenField(b, &pos, 2)
			if err != nil {
				return err
			}
			entries, isMap = n, true
		case code == 0xdf:
			n, err := lenField(b, &pos, 4)
			if err != nil {
				return err
			}
			entries, isMap = n, true
		default: // 0xc1 (never used) and every extension type
			return walkError(start, "unsupported msgpack code 0x%02x", code)
		}
		if skip > int64(len(b)-pos) {
			return walkError(start, "declared %d bytes, only %d remain", skip, len(b)-pos)
		}
		pos += int(skip)
		if entries > 0 {
			if entries > maxContainerLen {
				return walkError(start, "container of %d entries exceeds bound %d", entries, maxContainerLen)
			}
			children := entries
			if isMap {
				children *= 2
			}
			if children > int64(len(b)-pos) {
				return walkError(start, "declared %d entries, only %d bytes remain", children, len(b)-pos)
			}
			if depth+1 > maxDepth {
				return walkError(start, "nesting deeper than %d", maxDepth)
			}
			depth++
			stack[depth] = int(children)
		}
	}
	if pos != len(b) {
		return walkError(pos, "%d trailing bytes", len(b)-pos)
	}
	return nil
}

func walkError(offset int, format string, args ...any) error {
	return &DecodeError{Offset: offset, Err: fmt.Errorf(format, args...)}
}

// lenField reads a big-endian length of width bytes at *pos, just after
// the value's code.
func lenField(b []byte, pos *int, width int) (int64, error) {
	if len(b)-*pos < width {
		return 0, walkError(*pos-1, "length field truncated") // *pos-1: the value's code
	}
	var n uint64
	switch width {
	case 1:
		n = uint64(b[*pos])
	case 2:
		n = uint64(binary.BigEndian.Uint16(b[*pos:]))
	case 4:
		n = uint64(binary.BigEndian.Uint32(b[*pos:]))
	}
	*pos += width
	return int64(n), nil
}
