package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdCodecUnwalkedPrefixes: StdCodec.DecodeBody on a body walk never
// checked, cut anywhere, fails cleanly; the whole body decodes.
func TestStdCodecUnwalkedPrefixes(t *testing.T) {
	for _, m := range sampleMessages() {
		t.Run(m.Kind().String(), func(t *testing.T) {
			body, err := StdCodec{}.AppendBody(nil, m)
			require.NoError(t, err)
			for n := range len(body) {
				_, err := StdCodec{}.DecodeBody(m.Kind(), body[:n])
				assert.Error(t, err, "prefix of %d bytes", n)
			}
			got, err := StdCodec{}.DecodeBody(m.Kind(), body)
			require.NoError(t, err)
			assert.Equal(t, m, got)
		})
	}
}

// TestStdCodecHugeDeclaredLengths: lengths a body declares but does not
// back are refused before anything is allocated for them, also without
// walk, and also where a 32-bit int would wrap.
func TestStdCodecHugeDeclaredLengths(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		body []byte
	}{
		{"str32", KindLog, []byte{0x81, 0xa4, 't', 'e', 'x', 't', 0xdb, 0xff, 0xff, 0xff, 0xff}},
		{"bin32", KindLog, []byte{0x81, 0xa4, 't', 'e', 'x', 't', 0xc6, 0x80, 0x00, 0x00, 0x00}},
		{"array32", KindListing, []byte{0x81, 0xaa, 'i', 'd', 'e', 'n', 't', 'i', 't', 'i', 'e', 's', 0xdd, 0x00, 0x00, 0x01, 0x00}},
		{"map32 message", KindDone, []byte{0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0}},
		{"map32 skipped", KindDone, []byte{0x81, 0xa1, 'x', 0xdf, 0x80, 0x00, 0x00, 0x00}},
		{"array32 skipped", KindDone, []byte{0x81, 0xa1, 'x', 0xdd, 0xff, 0xff, 0xff, 0xff}},
		{"fixarray skipped", KindDone, []byte{0x81, 0xa1, 'x', 0x9f, 0xc0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := StdCodec{}.DecodeBody(tt.kind, tt.body)
			assert.Error(t, err)
			_, err = DecodePayload(append([]byte{byte(tt.kind)}, tt.body...))
			assert.ErrorIs(t, err, ErrMalformed)
		})
	}
}
