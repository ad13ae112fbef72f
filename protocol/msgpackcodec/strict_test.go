package msgpackcodec

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

func TestEveryKindHasASchema(t *testing.T) {
	for k := protocol.KindHello; k <= protocol.KindWindow; k++ {
		n := schemas[k]
		require.NotNil(t, n, "kind %s", k)
		assert.Equal(t, shapeStruct, n.shape, "kind %s", k)
	}
	assert.Nil(t, schemas[0])
	assert.Error(t, checkBody(0, []byte{0x80}))
}

// TestSchemaFollowsTags: keys are the tags' names, the field name without
// one, and a "-" field has no key; a pointer is its element.
func TestSchemaFollowsTags(t *testing.T) {
	type inner struct {
		X int64 `msgpack:"x"`
	}
	type tagged struct {
		A      string  `msgpack:"a,omitempty"`
		Plain  bool    // no tag: keyed by its name
		Hidden int     `msgpack:"-"`
		P      *inner  `msgpack:"p"`
		S      []inner `msgpack:"s"`
		//lint:ignore U1000 an unexported field is what the schema must leave out
		hidden int
	}
	n := schemaOf(reflect.TypeOf(tagged{}), map[reflect.Type]*node{})
	var keys []string
	for _, f := range n.fields {
		keys = append(keys, f.key)
	}
	assert.Equal(t, []string{"a", "Plain", "p", "s"}, keys)
	assert.Equal(t, shapeStruct, n.fields[2].node.shape)
	assert.Same(t, n.fields[2].node, n.fields[3].node.elem, "one node per type")
}

// TestSchemaRefusesWhatItCannotDescribe: a type the pass has no rule for
// panics when the schema is built (at package init for the messages), so a
// new message field of such a type cannot slip past the pass unchecked.
func TestSchemaRefusesWhatItCannotDescribe(t *testing.T) {
	//lint:ignore U1000 an embedded field is what the schema must refuse
	type embedded struct{ inner struct{} }
	type withEmbedded struct {
		//lint:ignore U1000 an embedded field is what the schema must refuse
		embedded
	}
	for name, v := range map[string]any{
		"bytes":    []byte(nil),
		"float32":  float32(0),
		"map":      map[string]int(nil),
		"embedded": withEmbedded{},
		"any":      []any(nil),
	} {
		t.Run(name, func(t *testing.T) {
			assert.Panics(t, func() { schemaOf(reflect.TypeOf(v), map[reflect.Type]*node{}) })
		})
	}
}

// TestNarrowIntegers: an integer type narrower than 64 bits (no message
// has one today) is range-checked at its own width.
func TestNarrowIntegers(t *testing.T) {
	type narrow struct {
		I int8   `msgpack:"i"`
		U uint16 `msgpack:"u"`
	}
	n := schemaOf(reflect.TypeOf(narrow{}), map[reflect.Type]*node{})
	tests := []struct {
		name string
		body []byte
		err  string // "" for accepted
	}{
		{"int8 max", []byte{0x81, 0xa1, 'i', 0x7f}, ""},
		{"int8 min", []byte{0x81, 0xa1, 'i', 0xd0, 0x80}, ""},
		{"int8 over", []byte{0x81, 0xa1, 'i', 0xcc, 0x80}, "i: integer 128 overflows int8 at body offset 3"},
		{"int8 under", []byte{0x81, 0xa1, 'i', 0xd1, 0xff, 0x7f}, "i: integer -129 overflows int8 at body offset 3"},
		{"uint16 max", []byte{0x81, 0xa1, 'u', 0xcd, 0xff, 0xff}, ""},
		{"uint16 over", []byte{0x81, 0xa1, 'u', 0xce, 0x00, 0x01, 0x00, 0x00}, "u: integer 65536 overflows uint16 at body offset 3"},
		{"uint16 negative", []byte{0x81, 0xa1, 'u', 0xff}, "u: integer -1 is negative, want uint16 at body offset 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checker{b: tt.body}
			err := c.value(n)
			if err != nil {
				err = locate(err, "", 0)
			}
			if tt.err == "" {
				assert.NoError(t, err)
				assert.Equal(t, len(tt.body), c.pos, "consumed")
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.err, err.Error())
		})
	}
}

// TestCheckBodyNeverPanics: the pass reads bodies the walk has not
// checked (DecodeBody may be called directly) without panicking: every
// prefix of a valid body is refused or accepted, never a crash.
func TestCheckBodyNeverPanics(t *testing.T) {
	frame, err := protocol.AppendFrame(nil, protocol.Result{
		Samples: []protocol.Sample{{Iterations: 1, ElapsedNs: 2, Extra: []protocol.Metric{{Unit: "u", Value: 1}}}},
		Metrics: []protocol.MetricCell{{Name: "m", Value: 2}},
	})
	require.NoError(t, err)
	body := frame[5:]
	require.NoError(t, checkBody(protocol.KindResult, body))
	for i := range len(body) {
		assert.Error(t, checkBody(protocol.KindResult, body[:i]), "prefix of %d bytes", i)
	}
}

// BenchmarkStrictPass is the pass alone on BenchmarkCodecs's frame (one
// Result of 10,000 samples): its share of decode/msgpack is what strictness
// costs the supervisor.
func BenchmarkStrictPass(b *testing.B) {
	samples := make([]protocol.Sample, 10000)
	for i := range samples {
		a, n := uint64(i)*64, uint64(i)
		samples[i] = protocol.Sample{Iterations: 1 << 20, ElapsedNs: 5_000_000 + int64(i)*37, AllocBytes: &a, Allocs: &n}
	}
	frame, err := protocol.AppendFrame(nil, protocol.Result{Identity: protocol.Identity{Package: "example.com/codec", Name: "BenchmarkEncode/size=1K"}, Samples: samples})
	if err != nil {
		b.Fatal(err)
	}
	body := frame[5:]
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if err := checkBody(protocol.KindResult, body); err != nil {
			b.Fatal(err)
		}
	}
}
