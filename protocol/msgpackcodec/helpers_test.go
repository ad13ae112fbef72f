package msgpackcodec_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/benchsup/benchsup/protocol"
)

func itoa(v int64) string   { return strconv.FormatInt(v, 10) }
func utoa(v uint64) string  { return strconv.FormatUint(v, 10) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// libraryBody encodes m the way the protocol did before StdCodec existed,
// straight through the library (not through Codec), as the reference for
// byte identity.
func libraryBody(m protocol.Message) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	err := enc.Encode(m)
	return buf.Bytes(), err
}

// Hand-built msgpack, for encodings no encoder here produces.

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func fixmap(n int) []byte { return []byte{0x80 | byte(n)} }
func map16(n int) []byte  { return binary.BigEndian.AppendUint16([]byte{0xde}, uint16(n)) }
func map32(n int) []byte  { return binary.BigEndian.AppendUint32([]byte{0xdf}, uint32(n)) }
func fixarr(n int) []byte { return []byte{0x90 | byte(n)} }
func arr16(n int) []byte  { return binary.BigEndian.AppendUint16([]byte{0xdc}, uint16(n)) }
func arr32(n int) []byte  { return binary.BigEndian.AppendUint32([]byte{0xdd}, uint32(n)) }

func fstr(s string) []byte { return append([]byte{0xa0 | byte(len(s))}, s...) }
func str8(s string) []byte { return append([]byte{0xd9, byte(len(s))}, s...) }
func str16(s string) []byte {
	return append(binary.BigEndian.AppendUint16([]byte{0xda}, uint16(len(s))), s...)
}
func str32(s string) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{0xdb}, uint32(len(s))), s...)
}
func bin8(s string) []byte { return append([]byte{0xc4, byte(len(s))}, s...) }
func bin16(s string) []byte {
	return append(binary.BigEndian.AppendUint16([]byte{0xc5}, uint16(len(s))), s...)
}
func bin32(s string) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{0xc6}, uint32(len(s))), s...)
}

var (
	mpNil   = []byte{0xc0}
	mpTrue  = []byte{0xc3}
	mpFalse = []byte{0xc2}
)

func u8(v uint8) []byte   { return []byte{0xcc, v} }
func u16(v uint16) []byte { return binary.BigEndian.AppendUint16([]byte{0xcd}, v) }
func u32(v uint32) []byte { return binary.BigEndian.AppendUint32([]byte{0xce}, v) }
func u64b(v uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{0xcf}, v)
}
func i8(v int8) []byte   { return []byte{0xd0, byte(v)} }
func i16(v int16) []byte { return binary.BigEndian.AppendUint16([]byte{0xd1}, uint16(v)) }
func i32(v int32) []byte { return binary.BigEndian.AppendUint32([]byte{0xd2}, uint32(v)) }
func i64b(v int64) []byte {
	return binary.BigEndian.AppendUint64([]byte{0xd3}, uint64(v))
}
func fixint(v int8) []byte { return []byte{byte(v)} } // -32..127
func f32(v float32) []byte {
	return binary.BigEndian.AppendUint32([]byte{0xca}, math.Float32bits(v))
}
func f64(v float64) []byte {
	return binary.BigEndian.AppendUint64([]byte{0xcb}, math.Float64bits(v))
}
