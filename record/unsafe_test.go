package record

import "unsafe"

// unsafeBytes views words as bytes: 8-byte aligned memory for a region.
func unsafeBytes(words []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
}
