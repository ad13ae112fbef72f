package msgpackcodec_test

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

// decodeBoth decodes one payload with each codec.
func decodeBoth(payload []byte) (std, lib protocol.Message, stdErr, libErr error) {
	std, stdErr = protocol.DecodePayload(payload)
	lib, libErr = msgpackcodec.DecodePayload(payload)
	return
}

// bodyCase is a hand-built frame body.
type bodyCase struct {
	name string
	kind protocol.Kind
	body []byte
	want protocol.Message // the decoded message
}

// nonCanonicalCases are encodings neither encoder produces, but which the
// library accepts for these types.
func nonCanonicalCases() []bodyCase {
	progress := func(done []byte) []byte {
		return cat(fixmap(2), fstr("phase"), fstr("timing"), fstr("done"), done)
	}
	timing5 := protocol.Progress{Phase: protocol.PhaseTiming, Done: 5}
	hello := func(key string, v []byte) []byte { return cat(fixmap(1), fstr(key), v) }
	seed := func(v []byte) []byte { return cat(fixmap(2), fstr("mode"), fstr("test"), fstr("seed"), v) }
	metric := func(v []byte) []byte {
		return cat(fixmap(2), fstr("samples"), fixarr(1), fixmap(1), fstr("n"), fixint(1),
			fstr("metrics"), fixarr(1), fixmap(2), fstr("name"), fstr("m"), fstr("value"), v)
	}
	metricResult := func(v float64) protocol.Result {
		return protocol.Result{Samples: []protocol.Sample{{Iterations: 1}}, Metrics: []protocol.MetricCell{{Name: "m", Value: v}}}
	}
	long := strings.Repeat("é", 100)

	tests := []struct {
		name string
		kind protocol.Kind
		body []byte
		want protocol.Message
	}{
		// Integer forms for an int64 field.
		{"int64 as positive fixint", protocol.KindProgress, progress(fixint(5)), timing5},
		{"int64 as uint8", protocol.KindProgress, progress(u8(5)), timing5},
		{"int64 as uint16", protocol.KindProgress, progress(u16(5)), timing5},
		{"int64 as uint32", protocol.KindProgress, progress(u32(5)), timing5},
		{"int64 as uint64", protocol.KindProgress, progress(u64b(5)), timing5},
		{"int64 as int8", protocol.KindProgress, progress(i8(5)), timing5},
		{"int64 as int16", protocol.KindProgress, progress(i16(5)), timing5},
		{"int64 as int32", protocol.KindProgress, progress(i32(5)), timing5},
		{"int64 as int64", protocol.KindProgress, progress(i64b(5)), timing5},
		{"int64 max as uint64", protocol.KindProgress, progress(u64b(math.MaxInt64)), protocol.Progress{Phase: protocol.PhaseTiming, Done: math.MaxInt64}},
		{"int64 nil is zero", protocol.KindProgress, progress(mpNil), protocol.Progress{Phase: protocol.PhaseTiming}},
		// Negative values for an int field, in every signed form.
		{"int negative fixint", protocol.KindHello, hello("protocolVersion", fixint(-5)), protocol.Hello{ProtocolVersion: -5}},
		{"int negative int8", protocol.KindHello, hello("protocolVersion", i8(-5)), protocol.Hello{ProtocolVersion: -5}},
		{"int negative int16", protocol.KindHello, hello("protocolVersion", i16(-300)), protocol.Hello{ProtocolVersion: -300}},
		{"int negative int32", protocol.KindHello, hello("protocolVersion", i32(-70000)), protocol.Hello{ProtocolVersion: -70000}},
		{"int as int64", protocol.KindHello, hello("protocolVersion", i64b(math.MinInt32)), protocol.Hello{ProtocolVersion: math.MinInt32}},
		{"int as uint16", protocol.KindHello, hello("pid", u16(4242)), protocol.Hello{PID: 4242}},
		// A uint64 field in signed forms.
		{"uint64 as int8", protocol.KindRequest, seed(i8(7)), protocol.Request{Mode: protocol.ModeTest, Seed: 7}},
		{"uint64 as int64", protocol.KindRequest, seed(i64b(math.MaxInt64)), protocol.Request{Mode: protocol.ModeTest, Seed: math.MaxInt64}},
		{"uint64 max", protocol.KindRequest, seed(u64b(math.MaxUint64)), protocol.Request{Mode: protocol.ModeTest, Seed: math.MaxUint64}},
		{"uint64 as uint32", protocol.KindRequest, seed(u32(1 << 31)), protocol.Request{Mode: protocol.ModeTest, Seed: 1 << 31}},
		// Float fields.
		{"float as float32", protocol.KindResult, metric(f32(2.5)), metricResult(2.5)},
		{"float as positive int", protocol.KindResult, metric(fixint(3)), metricResult(3)},
		{"float as negative int", protocol.KindResult, metric(i16(-300)), metricResult(-300)},
		{"float as uint64", protocol.KindResult, metric(u64b(1 << 62)), metricResult(1 << 62)},
		{"float nil is zero", protocol.KindResult, metric(mpNil), metricResult(0)},
		{"float as float64", protocol.KindResult, metric(f64(-0.125)), metricResult(-0.125)},
		// String forms.
		{"str8 for a short string", protocol.KindLog, cat(fixmap(1), fstr("text"), str8("hi")), protocol.Log{Text: "hi"}},
		{"str16 for a short string", protocol.KindLog, cat(fixmap(1), fstr("text"), str16("hi")), protocol.Log{Text: "hi"}},
		{"str32 for a short string", protocol.KindLog, cat(fixmap(1), fstr("text"), str32(long)), protocol.Log{Text: long}},
		{"bin8 for a string", protocol.KindLog, cat(fixmap(1), fstr("text"), bin8("hi")), protocol.Log{Text: "hi"}},
		{"bin16 for a string", protocol.KindLog, cat(fixmap(1), fstr("text"), bin16("hi")), protocol.Log{Text: "hi"}},
		{"bin32 for a string", protocol.KindLog, cat(fixmap(1), fstr("text"), bin32("hi")), protocol.Log{Text: "hi"}},
		{"nil string", protocol.KindLog, cat(fixmap(1), fstr("text"), mpNil), protocol.Log{}},
		{"str8 key", protocol.KindLog, cat(fixmap(1), str8("text"), fstr("hi")), protocol.Log{Text: "hi"}},
		{"bin key", protocol.KindLog, cat(fixmap(1), bin8("text"), fstr("hi")), protocol.Log{Text: "hi"}},
		{"typed string as str8", protocol.KindFailure, cat(fixmap(1), fstr("class"), str8("fatal")), protocol.Failure{Class: protocol.FailureFatal}},
		// Container forms.
		{"map16 message", protocol.KindLog, cat(map16(1), fstr("text"), fstr("hi")), protocol.Log{Text: "hi"}},
		{"map32 message", protocol.KindLog, cat(map32(1), fstr("text"), fstr("hi")), protocol.Log{Text: "hi"}},
		{"map16 nested", protocol.KindReady, cat(fixmap(1), fstr("identity"), map16(1), fstr("name"), fstr("B")), protocol.Ready{Identity: protocol.Identity{Name: "B"}}},
		{"empty map message", protocol.KindHello, fixmap(0), protocol.Hello{}},
		{"nil message", protocol.KindLog, mpNil, protocol.Log{}},
		{"nil done", protocol.KindDone, mpNil, protocol.Done{}},
		{"nil struct field", protocol.KindRequest, cat(fixmap(3), fstr("mode"), fstr("test"), fstr("identity"), mpNil, fstr("config"), mpNil),
			protocol.Request{Mode: protocol.ModeTest}},
		{"array16 of strings", protocol.KindRequest, cat(fixmap(2), fstr("mode"), fstr("test"), fstr("config"), fixmap(1), fstr("args"), arr16(2), fstr("a"), str8("b")),
			protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Args: []string{"a", "b"}}}},
		{"array32 of structs", protocol.KindListing, cat(fixmap(1), fstr("identities"), arr32(1), fixmap(2), fstr("name"), fstr("T"), fstr("kind"), fstr("test")),
			protocol.Listing{Identities: []protocol.Listed{{Name: "T", Kind: protocol.ListedTest}}}},
		{"nil string in a slice", protocol.KindRequest, cat(fixmap(2), fstr("mode"), fstr("test"), fstr("config"), fixmap(1), fstr("skip"), fixarr(2), mpNil, fstr("x")),
			protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Skip: []string{"", "x"}}}},
		{"nil struct in a slice", protocol.KindResult, cat(fixmap(2), fstr("samples"), fixarr(1), fixmap(1), fstr("n"), fixint(1), fstr("metrics"), fixarr(1), mpNil),
			protocol.Result{Samples: []protocol.Sample{{Iterations: 1}}, Metrics: []protocol.MetricCell{{}}}},
		{"explicit nil slice", protocol.KindListing, cat(fixmap(1), fstr("identities"), mpNil), protocol.Listing{}},
		{"empty array is an empty slice", protocol.KindListing, cat(fixmap(1), fstr("identities"), fixarr(0)), protocol.Listing{Identities: []protocol.Listed{}}},
		{"empty omitempty slice", protocol.KindWindow, cat(fixmap(3), fstr("reps"), fixint(1), fstr("scope"), fstr("thread"), fstr("totals"), fixarr(0)),
			protocol.Window{Reps: 1, Scope: "thread", Totals: []protocol.MetricCell{}}},
		// Optional fields explicitly nil, and present but empty.
		{"explicit nil pointers", protocol.KindWindow, cat(fixmap(6), fstr("reps"), fixint(1), fstr("scope"), fstr("thread"),
			fstr("onCpuUserNs"), mpNil, fstr("psi"), mpNil, fstr("regime"), mpNil, fstr("note"), mpNil),
			protocol.Window{Reps: 1, Scope: "thread"}},
		{"empty map pointer", protocol.KindWindow, cat(fixmap(3), fstr("reps"), fixint(1), fstr("scope"), fstr("thread"), fstr("psi"), fixmap(0)),
			protocol.Window{Reps: 1, Scope: "thread", PSI: &protocol.PSI{}}},
		{"nil alloc pointers", protocol.KindResult, cat(fixmap(1), fstr("samples"), fixarr(1), fixmap(3), fstr("n"), fixint(1), fstr("allocs"), mpNil, fstr("allocBytes"), mpNil),
			protocol.Result{Samples: []protocol.Sample{{Iterations: 1}}}},
		{"bool nil is false", protocol.KindRequest, cat(fixmap(2), fstr("mode"), fstr("test"), fstr("config"), fixmap(1), fstr("perfScaled"), mpNil),
			protocol.Request{Mode: protocol.ModeTest}},
		// Keys out of order.
		{"keys reversed", protocol.KindProgress, cat(fixmap(3), fstr("total"), fixint(9), fstr("done"), fixint(5), fstr("phase"), fstr("timing")),
			protocol.Progress{Phase: protocol.PhaseTiming, Done: 5, Total: 9}},
		{"window keys shuffled", protocol.KindWindow, cat(fixmap(5), fstr("note"), fstr("n"), fstr("regime"), fixmap(1), fstr("totalBytes"), fixint(3),
			fstr("scope"), fstr("process"), fstr("offCpuDiskNs"), fixint(2), fstr("reps"), fixint(1)),
			protocol.Window{Reps: 1, Scope: "process", OffCPUDiskNs: i64(2), Regime: &protocol.Regime{TotalBytes: 3}, Note: "n"}},
		// Unknown keys, with values of every type, are ignored.
		{"unknown keys", protocol.KindLog, cat(map16(12),
			fstr("future"), fixarr(2), fixint(1), fixint(2),
			fstr("text"), fstr("hi"),
			fstr("nested"), fixmap(1), fstr("a"), fixarr(1), fixmap(1), fstr("b"), fixarr(1), fixmap(0),
			fstr("big"), u64b(math.MaxUint64),
			fstr("neg"), i64b(math.MinInt64),
			fstr("f"), f64(math.NaN()),
			fstr("g"), f32(1),
			fstr("bin"), bin16("xyz"),
			fstr("b"), mpTrue,
			str8(strings.Repeat("k", 40)), mpFalse,
			mpNil, mpNil,
			fstr(""), str16(long)),
			protocol.Log{Text: "hi"}},
		{"unknown keys in nested structs", protocol.KindResult, cat(fixmap(2),
			fstr("identity"), fixmap(2), fstr("x"), fixint(1), fstr("name"), fstr("B"),
			fstr("samples"), fixarr(1), fixmap(2), fstr("n"), fixint(1), fstr("extraV2"), fixarr(1), fixmap(1), fstr("unit"), fstr("u")),
			protocol.Result{Identity: protocol.Identity{Name: "B"}, Samples: []protocol.Sample{{Iterations: 1}}}},
		{"unknown keys in done", protocol.KindDone, cat(fixmap(2), fstr("reason"), fstr("x"), fstr("at"), fixint(3)), protocol.Done{}},
		{"repeated unknown key", protocol.KindLog, cat(fixmap(3), fstr("z"), fixint(1), fstr("z"), fixint(2), fstr("text"), fstr("t")), protocol.Log{Text: "t"}},
	}
	out := make([]bodyCase, len(tests))
	for i, c := range tests {
		out[i] = bodyCase{name: c.name, kind: c.kind, body: c.body, want: c.want}
	}
	return out
}

// TestNonCanonicalEncodings: non-canonical encodings decode to the same
// message in both codecs.
func TestNonCanonicalEncodings(t *testing.T) {
	for _, tt := range nonCanonicalCases() {
		t.Run(tt.name, func(t *testing.T) {
			std, lib, stdErr, libErr := decodeBoth(payload(rawFrame(tt.kind, tt.body)))
			require.NoError(t, libErr, "library")
			require.NoError(t, stdErr, "protocol")
			assert.Equal(t, tt.want, lib, "library")
			assert.Equal(t, tt.want, std, "protocol")
		})
	}
}

// wrongTypeCases hold a value of the wrong type for its field.
func wrongTypeCases() []bodyCase {
	log := func(v []byte) []byte { return cat(fixmap(1), fstr("text"), v) }
	pid := func(v []byte) []byte { return cat(fixmap(1), fstr("pid"), v) }
	tests := []struct {
		name string
		kind protocol.Kind
		body []byte
	}{
		{"int for a string", protocol.KindLog, log(fixint(1))},
		{"bool for a string", protocol.KindLog, log(mpTrue)},
		{"map for a string", protocol.KindLog, log(fixmap(0))},
		{"array for a string", protocol.KindLog, log(fixarr(0))},
		{"float for a string", protocol.KindLog, log(f64(1))},
		{"string for an int", protocol.KindHello, pid(fstr("1"))},
		{"float for an int", protocol.KindHello, pid(f64(1))},
		{"float32 for an int", protocol.KindHello, pid(f32(1))},
		{"bool for an int", protocol.KindHello, pid(mpFalse)},
		{"map for an int", protocol.KindHello, pid(fixmap(0))},
		{"string for a float", protocol.KindResult, cat(fixmap(1), fstr("metrics"), fixarr(1), fixmap(1), fstr("value"), fstr("1"))},
		{"bool for a float", protocol.KindResult, cat(fixmap(1), fstr("metrics"), fixarr(1), fixmap(1), fstr("value"), mpTrue)},
		{"int for a bool", protocol.KindRequest, cat(fixmap(2), fstr("mode"), fstr("test"), fstr("config"), fixmap(1), fstr("perfScaled"), fixint(1))},
		{"string for a bool", protocol.KindRequest, cat(fixmap(2), fstr("mode"), fstr("test"), fstr("config"), fixmap(1), fstr("perfScaled"), fstr("true"))},
		{"string for a slice", protocol.KindListing, cat(fixmap(1), fstr("identities"), fstr("x"))},
		{"map for a slice", protocol.KindListing, cat(fixmap(1), fstr("identities"), fixmap(0))},
		{"int for a slice element", protocol.KindRequest, cat(fixmap(2), fstr("mode"), fstr("test"), fstr("config"), fixmap(1), fstr("args"), fixarr(1), fixint(1))},
		{"string for a struct", protocol.KindReady, cat(fixmap(1), fstr("identity"), fstr("x"))},
		{"int for a struct", protocol.KindReady, cat(fixmap(1), fstr("identity"), fixint(0))},
		{"string for a pointer", protocol.KindWindow, cat(fixmap(3), fstr("reps"), fixint(1), fstr("scope"), fstr("thread"), fstr("psi"), fstr("x"))},
		{"string for an int pointer", protocol.KindResult, cat(fixmap(1), fstr("samples"), fixarr(1), fixmap(3), fstr("n"), fixint(1), fstr("allocs"), fstr("1"), fstr("allocBytes"), fixint(1))},
		{"string message", protocol.KindLog, fstr("text")},
		{"int message", protocol.KindDone, fixint(0)},
		{"int key", protocol.KindLog, cat(fixmap(1), fixint(1), fstr("x"))},
		{"map key", protocol.KindDone, cat(fixmap(1), fixmap(0), fstr("x"))},
		{"true message", protocol.KindDone, mpTrue},
	}
	out := make([]bodyCase, len(tests))
	for i, c := range tests {
		out[i] = bodyCase{name: c.name, kind: c.kind, body: c.body}
	}
	return out
}

// TestWrongTypes: a value of the wrong type for its field is malformed in
// both decoders, which name the same field and offset in the same words.
func TestWrongTypes(t *testing.T) {
	for _, tt := range wrongTypeCases() {
		t.Run(tt.name, func(t *testing.T) {
			p := payload(rawFrame(tt.kind, tt.body))
			requireRejectedByBoth(t, p)
			_, _, stdErr, libErr := decodeBoth(p)
			var me *protocol.MalformedError
			require.ErrorAs(t, stdErr, &me)
			assert.NotEmpty(t, me.Field, "not located: %v", stdErr)
			assert.Positive(t, me.Offset, "not located: %v", stdErr)
			assert.Equal(t, stdErr.Error(), libErr.Error())
		})
	}
}

var minInt64 int64 = math.MinInt64

// refusedCase is a body StdCodec refuses although the library, left to
// itself, would decode it: the refusal both codecs must give, located.
type refusedCase struct {
	name    string
	kind    protocol.Kind
	body    []byte
	library protocol.Message // what the library alone makes of body
	field   string           // MalformedError.Field
	offset  int              // MalformedError.Offset, from the payload (the kind byte is 0)
	err     string           // the whole error
}

// refusedCases are the forms StdCodec refuses where the library accepts (see
// protocol.StdCodec): a repeated known key, a struct encoded as an array, an
// integer that does not fit its field. Offsets are counted by hand from the
// bodies.
func refusedCases() []refusedCase {
	return []refusedCase{
		{"repeated key", protocol.KindLog, cat(fixmap(2), fstr("text"), fstr("a"), fstr("text"), fstr("b")),
			protocol.Log{Text: "b"}, "log.text", 9, "duplicate key"},
		{"repeated struct key merges in the library", protocol.KindReady,
			cat(fixmap(2), fstr("identity"), fixmap(1), fstr("package"), fstr("p"), fstr("identity"), fixmap(1), fstr("name"), fstr("n")),
			protocol.Ready{Identity: protocol.Identity{Package: "p", Name: "n"}}, "ready.identity", 22, "duplicate key"},
		{"repeated key in an array entry", protocol.KindListing,
			cat(fixmap(1), fstr("identities"), fixarr(2), fixmap(1), fstr("name"), fstr("A"),
				fixmap(2), fstr("kind"), fstr("test"), fstr("kind"), fstr("benchmark")),
			protocol.Listing{Identities: []protocol.Listed{{Name: "A"}, {Kind: protocol.ListedBenchmark}}},
			"listing.identities[1].kind", 33, "duplicate key"},
		{"repeated pointer key merges in the library", protocol.KindWindow,
			cat(fixmap(4), fstr("reps"), fixint(1), fstr("scope"), fstr("thread"),
				fstr("psi"), fixmap(1), fstr("ioSomeNs"), fixint(1), fstr("psi"), fixmap(1), fstr("cpuSomeNs"), fixint(2)),
			protocol.Window{Reps: 1, Scope: "thread", PSI: &protocol.PSI{IOSomeNs: 1, CPUSomeNs: 2}}, "window.psi", 36, "duplicate key"},
		{"struct as array", protocol.KindReady, cat(fixmap(1), fstr("identity"), fixarr(2), fstr("p"), fstr("n")),
			protocol.Ready{Identity: protocol.Identity{Package: "p", Name: "n"}}, "ready.identity", 11, "map expected, found code 0x92"},
		{"message as empty array", protocol.KindDone, fixarr(0), protocol.Done{}, "done", 1, "map expected, found code 0x90"},
		{"array entry as array", protocol.KindResult,
			cat(fixmap(1), fstr("samples"), fixarr(1), fixarr(7), fixint(1), fixint(5), mpNil, mpNil, mpNil, mpFalse, mpNil),
			protocol.Result{Samples: []protocol.Sample{{Iterations: 1, ElapsedNs: 5}}}, "result.samples[0]", 11, "map expected, found code 0x97"},
		{"negative uint64 wraps in the library", protocol.KindRequest, cat(fixmap(2), fstr("mode"), fstr("test"), fstr("seed"), fixint(-1)),
			protocol.Request{Mode: protocol.ModeTest, Seed: math.MaxUint64}, "request.seed", 17, "integer -1 is negative, want uint64"},
		{"negative uint64 pointer wraps in the library", protocol.KindResult,
			cat(fixmap(1), fstr("samples"), fixarr(1), fixmap(2), fstr("n"), fixint(1), fstr("allocs"), i8(-2)),
			protocol.Result{Samples: []protocol.Sample{{Iterations: 1, Allocs: u64(math.MaxUint64 - 1)}}},
			"result.samples[0].allocs", 22, "integer -2 is negative, want uint64"},
		{"uint64 beyond int64 wraps in the library", protocol.KindHello, cat(fixmap(1), fstr("protocolVersion"), u64b(1<<63)),
			protocol.Hello{ProtocolVersion: int(minInt64)}, "hello.protocolVersion", 18, "integer 9223372036854775808 overflows int64"},
		{"uint64 beyond int64 in an int slice wraps in the library", protocol.KindRequest,
			cat(fixmap(2), fstr("mode"), fstr("test"), fstr("config"), fixmap(1), fstr("interference"), fixmap(1), fstr("cpus"), fixarr(2), fixint(0), u64b(1<<63)),
			protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Interference: &protocol.Interference{CPUs: []int{0, int(minInt64)}}}},
			"request.config.interference.cpus[1]", 41, "integer 9223372036854775808 overflows int64"},
		{"uint64 beyond int64 for a float wraps in the library", protocol.KindResult,
			cat(fixmap(2), fstr("samples"), fixarr(1), fixmap(1), fstr("n"), fixint(1), fstr("metrics"), fixarr(1), fixmap(1), fstr("value"), u64b(1<<63)),
			protocol.Result{Samples: []protocol.Sample{{Iterations: 1}}, Metrics: []protocol.MetricCell{{Value: -(1 << 63)}}},
			"result.metrics[0].value", 31, "float: integer 9223372036854775808 overflows int64"},
		{"uint64 beyond int64 for a nested float", protocol.KindResult,
			cat(fixmap(1), fstr("samples"), fixarr(1), fixmap(2), fstr("n"), fixint(1), fstr("extra"), fixarr(2),
				fixmap(2), fstr("unit"), fstr("u"), fstr("value"), f64(1), fixmap(1), fstr("value"), u64b(1<<63)),
			protocol.Result{Samples: []protocol.Sample{{Iterations: 1, Extra: []protocol.Metric{{Unit: "u", Value: 1}, {Value: -(1 << 63)}}}}},
			"result.samples[0].extra[1].value", 52, "float: integer 9223372036854775808 overflows int64"},
	}
}

// libraryAlone decodes body into a value of want's type straight through
// the library, without the strict pass.
func libraryAlone(want protocol.Message, body []byte) (protocol.Message, error) {
	v := reflect.New(reflect.TypeOf(want))
	err := msgpack.Unmarshal(body, v.Interface())
	return v.Elem().Interface().(protocol.Message), err
}

// TestBothRefuse: what StdCodec refuses and the library alone would accept,
// both codecs refuse with ErrMalformed and the same error, naming the field
// and the payload offset. The library's own reading is pinned too: it is why
// msgpackcodec's strict pass exists, and if a library upgrade changes it,
// the pass and StdCodec's doc need revisiting.
func TestBothRefuse(t *testing.T) {
	for _, tt := range refusedCases() {
		t.Run(tt.name, func(t *testing.T) {
			lib, err := libraryAlone(tt.library, tt.body)
			require.NoError(t, err, "the library alone")
			assert.Equal(t, tt.library, lib, "the library alone")

			std, lib, stdErr, libErr := decodeBoth(payload(rawFrame(tt.kind, tt.body)))
			want := "malformed protocol: " + tt.field + ": " + tt.err + " at payload offset " + strconv.Itoa(tt.offset)
			for name, err := range map[string]error{"protocol": stdErr, "library": libErr} {
				require.Error(t, err, "%s accepted: protocol %#v, library %#v", name, std, lib)
				assert.ErrorIs(t, err, protocol.ErrMalformed, name)
				var me *protocol.MalformedError
				require.ErrorAs(t, err, &me, name)
				assert.Equal(t, tt.kind, me.Kind, name)
				assert.Equal(t, tt.field, me.Field, name)
				assert.Equal(t, tt.offset, me.Offset, name)
				assert.Equal(t, want, err.Error(), name)
			}
		})
	}
}
