package msgpackcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/protocol"
)

// The strict pass: before the library decodes a body, check it against a
// schema derived by reflection from the message type and its msgpack tags,
// and refuse what protocol.StdCodec refuses where the library would accept
// (see the package doc). The library stays the decoder of values; this pass
// only refuses, locating each refusal in StdCodec's terms (a
// *protocol.DecodeError with the same field path, offset and words), so
// that the two codecs agree on every input. It reads the schema from the Go
// types, not from StdCodec's hand-written key tables, so a table that drifts
// from the tags still shows up as a disagreement.

// shape is what a schema node expects.
type shape uint8

const (
	shapeStruct shape = iota // a map (or nil); keys are the msgpack tags
	shapeSlice               // an array (or nil)
	shapeString              // str or bin (or nil)
	shapeBool                // true or false (or nil)
	shapeInt                 // any integer form within the field's signed type (or nil)
	shapeUint                // any non-negative integer within the field's unsigned type (or nil)
	shapeFloat               // float64, float32, or an integer within int64 (or nil)
)

// node is the schema of one Go type. A pointer is its element's node: nil
// is accepted for every shape, as both codecs accept it.
type node struct {
	shape  shape
	goType string  // the Go kind's name for an integer ("int", "uint64"), used in refusals
	bits   int     // an integer's width
	fields []field // a struct's fields with a msgpack key, in declaration order
	elem   *node   // a slice's element
}

type field struct {
	key  string
	node *node
}

// schemas holds each message kind's schema, built once from the message
// types; a type this pass cannot describe panics at package init, which
// every test of this package would report.
var schemas = func() [256]*node {
	var out [256]*node
	memo := map[reflect.Type]*node{}
	for _, m := range []protocol.Message{
		protocol.Hello{}, protocol.Request{}, protocol.Ready{}, protocol.Progress{}, protocol.Result{}, protocol.Log{},
		protocol.Skip{}, protocol.Failure{}, protocol.Done{}, protocol.Listing{}, protocol.TestEvent{}, protocol.Window{},
	} {
		out[m.Kind()] = schemaOf(reflect.TypeOf(m), memo)
	}
	return out
}()

// schemaOf describes t as the library decodes it: a struct's exported
// fields keyed by their msgpack tag's name (the field name when the tag
// has none, skipped for "-").
func schemaOf(t reflect.Type, memo map[reflect.Type]*node) *node {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n, ok := memo[t]; ok {
		return n
	}
	n := &node{}
	memo[t] = n
	switch t.Kind() {
	case reflect.Struct:
		n.shape = shapeStruct
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				panic(fmt.Sprintf("msgpackcodec: embedded field %s.%s: the strict pass does not describe it", t, f.Name))
			}
			if !f.IsExported() {
				continue
			}
			key, _, _ := strings.Cut(f.Tag.Get("msgpack"), ",")
			if key == "-" {
				continue
			}
			if key == "" {
				key = f.Name
			}
			n.fields = append(n.fields, field{key, schemaOf(f.Type, memo)})
		}
		if len(n.fields) > 64 {
			panic(fmt.Sprintf("msgpackcodec: %s has more than 64 fields", t))
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			panic(fmt.Sprintf("msgpackcodec: %s: the strict pass does not describe byte slices", t))
		}
		n.shape, n.elem = shapeSlice, schemaOf(t.Elem(), memo)
	case reflect.String:
		n.shape = shapeString
	case reflect.Bool:
		n.shape = shapeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.shape, n.bits, n.goType = shapeInt, t.Bits(), t.Kind().String()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.shape, n.bits, n.goType = shapeUint, t.Bits(), t.Kind().String()
	case reflect.Float64:
		n.shape = shapeFloat
	default:
		panic(fmt.Sprintf("msgpackcodec: %s: the strict pass does not describe this type", t))
	}
	return n
}

// checkBody checks body against the schema of message kind k: nil, or a
// *protocol.DecodeError locating the first value StdCodec would refuse.
// It never panics and allocates nothing unless it refuses, whether or not
// the structural walk ran first.
func checkBody(k protocol.Kind, body []byte) error {
	n := schemas[k]
	if n == nil {
		return fmt.Errorf("unknown message kind %d", uint8(k))
	}
	c := checker{b: body}
	if err := c.value(n); err != nil {
		return locate(err, "", 0)
	}
	if c.pos != len(body) {
		return &protocol.DecodeError{Offset: c.pos, Err: fmt.Errorf("%d trailing bytes", len(body)-c.pos)}
	}
	return nil
}

// locate returns err, met within the value that starts at body offset
// start and is named by seg (a key, "[i]" for an array entry, "" for the
// message), as a *protocol.DecodeError: one a deeper value located already
// keeps its offset and gains seg as its path's first element.
func locate(err error, seg string, start int) error {
	de, ok := err.(*protocol.DecodeError)
	if !ok {
		return &protocol.DecodeError{Field: seg, Offset: start, Err: err}
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

var (
	errTruncated    = errors.New("value truncated")
	errDuplicateKey = errors.New("duplicate key")
)

// checker reads msgpack from b; every read is bounds-checked.
type checker struct {
	b   []byte
	pos int
}

// value checks the value at c.pos against n and moves past it.
func (c *checker) value(n *node) error {
	if c.pos >= len(c.b) {
		return errTruncated
	}
	code := c.b[c.pos]
	if code == 0xc0 { // nil: the zero value (a nil slice or pointer) for every shape
		c.pos++
		return nil
	}
	switch n.shape {
	case shapeStruct:
		return c.object(n)
	case shapeSlice:
		return c.array(n.elem)
	case shapeString:
		_, err := c.bytes("string")
		return err
	case shapeBool:
		c.pos++
		if code != 0xc2 && code != 0xc3 {
			return typeError("bool", code)
		}
		return nil
	case shapeInt:
		u, neg, err := c.integer()
		if err != nil {
			return err
		}
		if !neg && u > math.MaxInt64 {
			return fmt.Errorf("integer %d overflows int64", u)
		}
		if v := int64(u); n.bits < 64 && v != v<<(64-n.bits)>>(64-n.bits) {
			return fmt.Errorf("integer %d overflows %s", v, n.goType)
		}
		return nil
	case shapeUint:
		u, neg, err := c.integer()
		if err != nil {
			return err
		}
		if neg {
			return fmt.Errorf("integer %d is negative, want %s", int64(u), n.goType)
		}
		if n.bits < 64 && u>>n.bits != 0 {
			return fmt.Errorf("integer %d overflows %s", u, n.goType)
		}
		return nil
	}
	// shapeFloat
	switch code {
	case 0xcb:
		return c.skipBytes(1 + 8)
	case 0xca:
		return c.skipBytes(1 + 4)
	}
	u, neg, err := c.integer()
	if err == nil && !neg && u > math.MaxInt64 {
		err = fmt.Errorf("integer %d overflows int64", u)
	}
	if err != nil {
		return fmt.Errorf("float: %w", err)
	}
	return nil
}

// object checks a map against a struct's fields: a known key at most once,
// each value against its field; unknown keys are skipped with their values.
func (c *checker) object(n *node) error {
	entries, err := c.header("map", 0x80, 0x8f, 0xde, 0xdf, 2)
	if err != nil {
		return err
	}
	var seen uint64 // schemaOf admits at most 64 fields
	next := 0       // encoders write fields in order: try the one after the last first
	for range entries {
		keyStart := c.pos
		key, err := c.bytes("string")
		if err != nil {
			return &protocol.DecodeError{Offset: keyStart, Err: fmt.Errorf("key: %w", err)}
		}
		i := next
		if i >= len(n.fields) || n.fields[i].key != string(key) {
			i = 0
			for i < len(n.fields) && n.fields[i].key != string(key) {
				i++
			}
		}
		next = i + 1
		start := c.pos
		if i == len(n.fields) {
			if err := c.skip(); err != nil {
				return locate(err, truncate(string(key)), start)
			}
			continue
		}
		f := &n.fields[i]
		if seen&(1<<i) != 0 {
			return &protocol.DecodeError{Field: f.key, Offset: keyStart, Err: errDuplicateKey}
		}
		seen |= 1 << i
		if err := c.value(f.node); err != nil {
			return locate(err, f.key, start)
		}
	}
	return nil
}

// array checks each entry of an array against elem.
func (c *checker) array(elem *node) error {
	entries, err := c.header("array", 0x90, 0x9f, 0xdc, 0xdd, 1)
	if err != nil {
		return err
	}
	for i := range entries {
		start := c.pos
		if err := c.value(elem); err != nil {
			return locate(err, "["+strconv.Itoa(i)+"]", start)
		}
	}
	return nil
}

// header reads a container header: a fix form between fixLo and fixHi, or
// a 16- or 32-bit form, whose entries each take at least per bytes.
func (c *checker) header(want string, fixLo, fixHi, code16, code32 byte, per int) (int, error) {
	code := c.b[c.pos]
	c.pos++
	var n int
	var err error
	switch {
	case code >= fixLo && code <= fixHi:
		n = int(code - fixLo)
	case code == code16:
		n, err = c.length(2)
	case code == code32:
		n, err = c.length(4)
	default:
		return 0, typeError(want, code)
	}
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(per) > uint64(len(c.b)-c.pos) {
		return 0, errTruncated
	}
	return n, nil
}

// bytes reads a str or bin (either is accepted where a string is expected)
// or nil, and returns its contents without copying them.
func (c *checker) bytes(want string) ([]byte, error) {
	if c.pos >= len(c.b) {
		return nil, errTruncated
	}
	code := c.b[c.pos]
	c.pos++
	var n int
	var err error
	switch {
	case code >= 0xa0 && code <= 0xbf:
		n = int(code - 0xa0)
	case code == 0xc0:
		return nil, nil
	case code == 0xd9, code == 0xc4:
		n, err = c.length(1)
	case code == 0xda, code == 0xc5:
		n, err = c.length(2)
	case code == 0xdb, code == 0xc6:
		n, err = c.length(4)
	default:
		return nil, typeError(want, code)
	}
	if err != nil {
		return nil, err
	}
	return c.take(n)
}

// length reads a big-endian length field of width 1, 2 or 4 bytes.
func (c *checker) length(width int) (int, error) {
	p, err := c.take(width)
	if err != nil {
		return 0, err
	}
	switch width {
	case 1:
		return int(p[0]), nil
	case 2:
		return int(binary.BigEndian.Uint16(p)), nil
	}
	return int(binary.BigEndian.Uint32(p)), nil
}

// integer reads any integer form: a negative value comes back as neg with
// its two's complement in u; otherwise u is the value itself.
func (c *checker) integer() (u uint64, neg bool, err error) {
	code := c.b[c.pos]
	c.pos++
	switch {
	case code <= 0x7f:
		return uint64(code), false, nil
	case code >= 0xe0:
		return uint64(int64(int8(code))), true, nil
	}
	var width int
	switch code {
	case 0xcc, 0xd0:
		width = 1
	case 0xcd, 0xd1:
		width = 2
	case 0xce, 0xd2:
		width = 4
	case 0xcf, 0xd3:
		width = 8
	default:
		return 0, false, typeError("integer", code)
	}
	p, err := c.take(width)
	if err != nil {
		return 0, false, err
	}
	var s int64
	switch code {
	case 0xcc:
		return uint64(p[0]), false, nil
	case 0xcd:
		return uint64(binary.BigEndian.Uint16(p)), false, nil
	case 0xce:
		return uint64(binary.BigEndian.Uint32(p)), false, nil
	case 0xcf:
		return binary.BigEndian.Uint64(p), false, nil
	case 0xd0:
		s = int64(int8(p[0]))
	case 0xd1:
		s = int64(int16(binary.BigEndian.Uint16(p)))
	case 0xd2:
		s = int64(int32(binary.BigEndian.Uint32(p)))
	default:
		s = int64(binary.BigEndian.Uint64(p))
	}
	return uint64(s), s < 0, nil
}

// take returns the next n bytes, without copying them, and moves past
// them.
func (c *checker) take(n int) ([]byte, error) {
	if n > len(c.b)-c.pos {
		return nil, errTruncated
	}
	p := c.b[c.pos : c.pos+n]
	c.pos += n
	return p, nil
}

// skipBytes moves past n bytes.
func (c *checker) skipBytes(n int) error {
	_, err := c.take(n)
	return err
}

// skip moves past one value of any type the protocol admits (no extension
// types), iteratively, so nesting costs no stack.
func (c *checker) skip() error {
	for pending := 1; pending > 0; pending-- {
		if c.pos >= len(c.b) {
			return errTruncated
		}
		code := c.b[c.pos]
		c.pos++
		var n, entries int
		var err error
		switch {
		case code <= 0x7f, code >= 0xe0, code == 0xc0, code == 0xc2, code == 0xc3:
		case code >= 0x80 && code <= 0x8f:
			entries = 2 * int(code-0x80)
		case code >= 0x90 && code <= 0x9f:
			entries = int(code - 0x90)
		case code >= 0xa0 && code <= 0xbf:
			n = int(code - 0xa0)
		case code == 0xd9, code == 0xc4:
			n, err = c.length(1)
		case code == 0xda, code == 0xc5:
			n, err = c.length(2)
		case code == 0xdb, code == 0xc6:
			n, err = c.length(4)
		case code == 0xcc, code == 0xd0:
			n = 1
		case code == 0xcd, code == 0xd1:
			n = 2
		case code == 0xce, code == 0xd2, code == 0xca:
			n = 4
		case code == 0xcf, code == 0xd3, code == 0xcb:
			n = 8
		case code == 0xdc:
			entries, err = c.length(2)
		case code == 0xdd:
			entries, err = c.length(4)
		case code == 0xde:
			entries, err = c.length(2)
			entries *= 2
		case code == 0xdf:
			entries, err = c.length(4)
			entries *= 2
		default:
			return fmt.Errorf("unsupported msgpack code 0x%02x", code)
		}
		if err != nil {
			return err
		}
		if err := c.skipBytes(n); err != nil {
			return err
		}
		// Every pending value needs at least one byte, so pending never
		// exceeds the bytes that remain.
		if entries > len(c.b)-c.pos-(pending-1) {
			return errTruncated
		}
		pending += entries
	}
	return nil
}

func typeError(want string, code byte) error {
	return fmt.Errorf("%s expected, found code 0x%02x", want, code)
}

// truncate shortens an unknown key for a field path, as StdCodec does.
func truncate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
