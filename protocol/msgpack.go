package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The msgpack primitives StdCodec is built from: the subset of the format
// the messages use (nil, bool, int, float, str, array, map), encoded exactly
// as github.com/vmihailenco/msgpack/v5 encodes it with UseCompactInts(true),
// and decoded in every form that library accepts for the same Go types.

// msgpack type codes.
const (
	mpPosFixintMax = 0x7f
	mpFixmap       = 0x80
	mpFixmapMax    = 0x8f
	mpFixarray     = 0x90
	mpFixarrayMax  = 0x9f
	mpFixstr       = 0xa0
	mpFixstrMax    = 0xbf
	mpNil          = 0xc0
	mpFalse        = 0xc2
	mpTrue         = 0xc3
	mpBin8         = 0xc4
	mpBin16        = 0xc5
	mpBin32        = 0xc6
	mpFloat32      = 0xca
	mpFloat64      = 0xcb
	mpUint8        = 0xcc
	mpUint16       = 0xcd
	mpUint32       = 0xce
	mpUint64       = 0xcf
	mpInt8         = 0xd0
	mpInt16        = 0xd1
	mpInt32        = 0xd2
	mpInt64        = 0xd3
	mpStr8         = 0xd9
	mpStr16        = 0xda
	mpStr32        = 0xdb
	mpArray16      = 0xdc
	mpArray32      = 0xdd
	mpMap16        = 0xde
	mpMap32        = 0xdf
	mpNegFixintMin = 0xe0
)

// ---- encoding ----

func appendNil(b []byte) []byte { return append(b, mpNil) }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, mpTrue)
	}
	return append(b, mpFalse)
}

// appendUint encodes n in the shortest unsigned form, as the library's
// EncodeUint does.
func appendUint(b []byte, n uint64) []byte {
	switch {
	case n <= mpPosFixintMax:
		return append(b, byte(n))
	case n <= math.MaxUint8:
		return append(b, mpUint8, byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, mpUint16), uint16(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, mpUint32), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, mpUint64), n)
}

// appendInt encodes n as the library's EncodeInt does: a non-negative value
// in the shortest unsigned form, a negative one in the shortest signed form.
func appendInt(b []byte, n int64) []byte {
	switch {
	case n >= 0:
		return appendUint(b, uint64(n))
	case n >= -32:
		return append(b, byte(n))
	case n >= math.MinInt8:
		return append(b, mpInt8, byte(n))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, mpInt16), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, mpInt32), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, mpInt64), uint64(n))
}

// appendFloat encodes v as a float64, always 9 bytes (the library encodes
// float64 so unless told to compact floats, which this protocol never is).
func appendFloat(b []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(append(b, mpFloat64), math.Float64bits(v))
}

// appendString encodes s as a str: fixstr, str8, str16 or str32 by length.
// Lengths beyond 4 GiB are not representable; every string of a valid
// message is far shorter.
func appendString(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n <= mpFixstrMax-mpFixstr:
		b = append(b, mpFixstr|byte(n))
	case n <= math.MaxUint8:
		b = append(b, mpStr8, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, mpStr16), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, mpStr32), uint32(n))
	}
	return append(b, s...)
}

func appendMapLen(b []byte, n int) []byte {
	switch {
	case n <= mpFixmapMax-mpFixmap:
		return append(b, mpFixmap|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, mpMap16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, mpMap32), uint32(n))
}

func appendArrayLen(b []byte, n int) []byte {
	switch {
	case n <= mpFixarrayMax-mpFixarray:
		return append(b, mpFixarray|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, mpArray16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, mpArray32), uint32(n))
}

// appendStrings encodes a []string as the library does: nil as nil, any
// other slice (empty included) as an array.
func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return appendNil(b)
	}
	b = appendArrayLen(b, len(ss))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

// ---- decoding ----

// decoder reads msgpack values from b. Every read is bounds-checked
// against b, so it never panics and never allocates more than the bytes
// present justify, whether or not walk has run first. Strings are copied
// out of b, which the caller may reuse.
type decoder struct {
	b    []byte
	pos  int
	slab []uint64 // spare values for u64Ptr
}

var errTruncated = errors.New("value truncated")

// remaining is the number of bytes not yet read.
func (d *decoder) remaining() int { return len(d.b) - d.pos }

func (d *decoder) readCode() (byte, error) {
	if d.pos >= len(d.b) {
		return 0, errTruncated
	}
	c := d.b[d.pos]
	d.pos++
	return c, nil
}

// next returns the next width bytes.
func (d *decoder) next(width int) ([]byte, error) {
	if width > d.remaining() {
		return nil, errTruncated
	}
	p := d.b[d.pos : d.pos+width]
	d.pos += width
	return p, nil
}

// length reads a big-endian length field of width 1, 2 or 4 bytes and
// requires that at least per*length bytes follow it, so that the length is
// safe to allocate for and to convert to int on any platform.
func (d *decoder) length(width, per int) (int, error) {
	p, err := d.next(width)
	if err != nil {
		return 0, err
	}
	var n uint64
	switch width {
	case 1:
		n = uint64(p[0])
	case 2:
		n = uint64(binary.BigEndian.Uint16(p))
	default:
		n = uint64(binary.BigEndian.Uint32(p))
	}
	if n*uint64(per) > uint64(d.remaining()) {
		return 0, fmt.Errorf("declared length %d exceeds the %d bytes that remain", n, d.remaining())
	}
	return int(n), nil
}

// takeNil consumes a nil if one comes next.
func (d *decoder) takeNil() bool {
	if d.pos < len(d.b) && d.b[d.pos] == mpNil {
		d.pos++
		return true
	}
	return false
}

// typeError reports a value of the wrong type. The value's offset is added
// by whoever locates the error (object, array, DecodeBody).
func (d *decoder) typeError(want string, c byte) error {
	return fmt.Errorf("%s expected, found code 0x%02x", want, c)
}

// located returns err, met while decoding the value that starts at body
// offset start and is named by seg (a key, or "[i]" for an array entry),
// as a *DecodeError: one a deeper value located already keeps its offset
// and gains seg as the first element of its path; any other is located at
// start. seg "" names the message itself.
func located(err error, seg string, start int) error {
	de, ok := err.(*DecodeError)
	if !ok {
		return &DecodeError{Field: seg, Offset: start, Err: err}
	}
	switch {
	case seg == "":
	case de.Field == "":
		de.Field = seg
	case de.Field[0] == '[':
		de.Field = seg + de.Field
	default:
		de.Field = seg + "." + de.Field
	}
	return de
}

// index is the path element of array entry i.
func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

// bytesLen reads the header of a str or bin (the library accepts either
// where a string is expected) and returns its length; nil is length 0.
func (d *decoder) bytesLen(want string) (int, error) {
	c, err := d.readCode()
	if err != nil {
		return 0, err
	}
	switch {
	case c >= mpFixstr && c <= mpFixstrMax:
		n := int(c - mpFixstr)
		if n > d.remaining() {
			return 0, errTruncated
		}
		return n, nil
	case c == mpNil:
		return 0, nil
	case c == mpStr8, c == mpBin8:
		return d.length(1, 1)
	case c == mpStr16, c == mpBin16:
		return d.length(2, 1)
	case c == mpStr32, c == mpBin32:
		return d.length(4, 1)
	}
	return 0, d.typeError(want, c)
}

// rawString returns the bytes of the next string without copying them.
func (d *decoder) rawString() ([]byte, error) {
	n, err := d.bytesLen("string")
	if err != nil {
		return nil, err
	}
	return d.next(n)
}

// str decodes a string (nil is "") into *dst.
func (d *decoder) str(dst *string) error {
	p, err := d.rawString()
	if err != nil {
		return err
	}
	*dst = string(p)
	return nil
}

// strs decodes a []string of at most max entries: nil stays nil, an empty
// array is an empty slice.
func (d *decoder) strs(dst *[]string, max int) error {
	n, isNil, err := d.arrayLen(max)
	if err != nil || isNil {
		return err
	}
	ss := make([]string, n)
	for i := range ss {
		start := d.pos
		if err := d.str(&ss[i]); err != nil {
			return located(err, index(i), start)
		}
	}
	*dst = ss
	return nil
}

func (d *decoder) boolean(dst *bool) error {
	c, err := d.readCode()
	if err != nil {
		return err
	}
	switch c {
	case mpNil, mpFalse:
		*dst = false
	case mpTrue:
		*dst = true
	default:
		return d.typeError("bool", c)
	}
	return nil
}

// integer decodes any msgpack integer form, or nil as 0. A negative value
// comes back as neg with its two's complement in u; otherwise u is the
// value itself, possibly beyond math.MaxInt64.
func (d *decoder) integer() (u uint64, neg bool, err error) {
	c, err := d.readCode()
	if err != nil {
		return 0, false, err
	}
	switch {
	case c <= mpPosFixintMax:
		return uint64(c), false, nil
	case c >= mpNegFixintMin:
		return uint64(int64(int8(c))), true, nil
	case c == mpNil:
		return 0, false, nil
	}
	var width int
	switch c {
	case mpUint8, mpInt8:
		width = 1
	case mpUint16, mpInt16:
		width = 2
	case mpUint32, mpInt32:
		width = 4
	case mpUint64, mpInt64:
		width = 8
	default:
		return 0, false, d.typeError("integer", c)
	}
	p, err := d.next(width)
	if err != nil {
		return 0, false, err
	}
	var s int64
	switch c {
	case mpUint8:
		return uint64(p[0]), false, nil
	case mpUint16:
		return uint64(binary.BigEndian.Uint16(p)), false, nil
	case mpUint32:
		return uint64(binary.BigEndian.Uint32(p)), false, nil
	case mpUint64:
		return binary.BigEndian.Uint64(p), false, nil
	case mpInt8:
		s = int64(int8(p[0]))
	case mpInt16:
		s = int64(int16(binary.BigEndian.Uint16(p)))
	case mpInt32:
		s = int64(int32(binary.BigEndian.Uint32(p)))
	default:
		s = int64(binary.BigEndian.Uint64(p))
	}
	return uint64(s), s < 0, nil
}

// int64Value decodes an integer that must fit an int64. The library would
// wrap a uint64 beyond math.MaxInt64 into a negative value; this decoder
// refuses it.
func (d *decoder) int64Value() (int64, error) {
	u, neg, err := d.integer()
	if err != nil {
		return 0, err
	}
	if !neg && u > math.MaxInt64 {
		return 0, fmt.Errorf("integer %d overflows int64", u)
	}
	return int64(u), nil
}

func (d *decoder) i64(dst *int64) error {
	v, err := d.int64Value()
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// int decodes an integer that must fit an int (32 bits on some platforms).
func (d *decoder) int(dst *int) error {
	v, err := d.int64Value()
	if err != nil {
		return err
	}
	if int64(int(v)) != v {
		return fmt.Errorf("integer %d overflows int", v)
	}
	*dst = int(v)
	return nil
}

// u64 decodes a non-negative integer. The library would wrap a negative
// value into a large unsigned one; this decoder refuses it.
func (d *decoder) u64(dst *uint64) error {
	u, neg, err := d.integer()
	if err != nil {
		return err
	}
	if neg {
		return fmt.Errorf("integer %d is negative, want uint64", int64(u))
	}
	*dst = u
	return nil
}

// float decodes a float64, a float32 (widened), or an integer within int64
// (converted), or nil as 0: the forms the library accepts for a float64.
func (d *decoder) float(dst *float64) error {
	if d.pos < len(d.b) {
		switch d.b[d.pos] {
		case mpFloat64:
			d.pos++
			p, err := d.next(8)
			if err != nil {
				return err
			}
			*dst = math.Float64frombits(binary.BigEndian.Uint64(p))
			return nil
		case mpFloat32:
			d.pos++
			p, err := d.next(4)
			if err != nil {
				return err
			}
			*dst = float64(math.Float32frombits(binary.BigEndian.Uint32(p)))
			return nil
		}
	}
	v, err := d.int64Value()
	if err != nil {
		return fmt.Errorf("float: %w", err)
	}
	*dst = float64(v)
	return nil
}

// arrayLen reads an array header (or nil) of at most max entries.
func (d *decoder) arrayLen(max int) (n int, isNil bool, err error) {
	c, err := d.readCode()
	if err != nil {
		return 0, false, err
	}
	switch {
	case c >= mpFixarray && c <= mpFixarrayMax:
		n = int(c - mpFixarray)
		if n > d.remaining() {
			return 0, false, errTruncated
		}
	case c == mpNil:
		return 0, true, nil
	case c == mpArray16:
		n, err = d.length(2, 1)
	case c == mpArray32:
		n, err = d.length(4, 1)
	default:
		return 0, false, d.typeError("array", c)
	}
	if err != nil {
		return 0, false, err
	}
	if n > max {
		return 0, false, fmt.Errorf("%d entries exceeds bound %d", n, max)
	}
	return n, false, nil
}

// mapLen reads a map header (or nil). Structs are maps: an array-encoded
// struct, which the library can also read, is not this protocol's format.
func (d *decoder) mapLen() (n int, isNil bool, err error) {
	c, err := d.readCode()
	if err != nil {
		return 0, false, err
	}
	switch {
	case c >= mpFixmap && c <= mpFixmapMax:
		n = int(c - mpFixmap)
		if 2*n > d.remaining() {
			return 0, false, errTruncated
		}
		return n, false, nil
	case c == mpNil:
		return 0, true, nil
	case c == mpMap16:
		n, err = d.length(2, 2)
	case c == mpMap32:
		n, err = d.length(4, 2)
	default:
		return 0, false, d.typeError("map", c)
	}
	return n, false, err
}

// object decodes a map onto a struct whose msgpack keys are keys, in field
// order: for each entry with a known key it calls field with that key's
// index, which decodes the value; entries with unknown keys are skipped.
// A known key that occurs twice is refused (the library would let the last
// one win, or merge two maps). Nil leaves the struct zero. An error within
// an entry is located (see located) at the entry's key: at the key itself
// for a key that is not a string or is repeated, else at its value.
func (d *decoder) object(keys []string, field func(i int) error) error {
	n, _, err := d.mapLen()
	if err != nil {
		return err
	}
	var seen uint32 // no message struct has more than 32 fields
	for j := 0; j < n; j++ {
		keyStart := d.pos
		k, err := d.rawString()
		if err != nil {
			return &DecodeError{Offset: keyStart, Err: fmt.Errorf("key: %w", err)}
		}
		i := 0
		for i < len(keys) && keys[i] != string(k) {
			i++
		}
		start := d.pos
		if i == len(keys) {
			if err := d.skip(); err != nil {
				return located(err, truncate(string(k)), start)
			}
			continue
		}
		if seen&(1<<i) != 0 {
			return &DecodeError{Field: keys[i], Offset: keyStart, Err: errDuplicateKey}
		}
		seen |= 1 << i
		if err := field(i); err != nil {
			return located(err, keys[i], start)
		}
	}
	return nil
}

var errDuplicateKey = errors.New("duplicate key")

// skip consumes one value of any type this protocol admits (no extension
// types), iteratively, so nesting costs no stack.
func (d *decoder) skip() error {
	for pending := 1; pending > 0; pending-- {
		c, err := d.readCode()
		if err != nil {
			return err
		}
		var skip, entries int
		switch {
		case c <= mpPosFixintMax, c >= mpNegFixintMin, c == mpNil, c == mpFalse, c == mpTrue:
		case c >= mpFixmap && c <= mpFixmapMax:
			entries = 2 * int(c-mpFixmap)
		case c >= mpFixarray && c <= mpFixarrayMax:
			entries = int(c - mpFixarray)
		case c >= mpFixstr && c <= mpFixstrMax:
			skip = int(c - mpFixstr)
		case c == mpStr8, c == mpBin8:
			skip, err = d.length(1, 1)
		case c == mpStr16, c == mpBin16:
			skip, err = d.length(2, 1)
		case c == mpStr32, c == mpBin32:
			skip, err = d.length(4, 1)
		case c == mpUint8, c == mpInt8:
			skip = 1
		case c == mpUint16, c == mpInt16:
			skip = 2
		case c == mpUint32, c == mpInt32, c == mpFloat32:
			skip = 4
		case c == mpUint64, c == mpInt64, c == mpFloat64:
			skip = 8
		case c == mpArray16:
			entries, err = d.length(2, 1)
		case c == mpArray32:
			entries, err = d.length(4, 1)
		case c == mpMap16:
			entries, err = d.length(2, 2)
			entries *= 2
		case c == mpMap32:
			entries, err = d.length(4, 2)
			entries *= 2
		default:
			return fmt.Errorf("unsupported msgpack code 0x%02x", c)
		}
		if err != nil {
			return err
		}
		if _, err := d.next(skip); err != nil {
			return err
		}
		// Every pending value needs at least one byte, so pending never
		// exceeds the bytes that remain.
		if entries > d.remaining()-(pending-1) {
			return errTruncated
		}
		pending += entries
	}
	return nil
}
