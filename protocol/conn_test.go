package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

func u64(v uint64) *uint64 { return &v }
func i64(v int64) *int64   { return &v }

// sampleMessages holds one fully populated message of every kind.
func sampleMessages() []Message {
	id := Identity{Package: "example.com/codec", Name: "BenchmarkEncode/size=1K"}
	return []Message{
		Hello{ProtocolVersion: Version, WorkerVersion: "v0.1.0", PID: 4242, GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2},
		Request{Mode: ModeBenchmark, Identity: id, Repetition: 3, Seed: 1 << 60, Config: RequestConfig{
			MinSampleNs: 5e6, Samples: 32, Iterations: 0, Run: "^TestX$", Bench: ".", After: "TestA",
			TestTimeoutNs: 1e9, Args: []string{"-flag", "ünïcode"}, Skip: []string{"TestDone", "TestCrashed"},
			Metrics: []string{"instructions", "syscalls:read"}, PerfIters: 1000, PerfBatch: 10, PerfScaled: true}},
		Ready{Identity: id},
		Progress{Phase: PhaseTiming, Done: 3, Total: 32},
		Result{Identity: id, Repetition: 3, Seed: 1 << 60, BytesPerOp: 1024,
			Samples: []Sample{
				{Iterations: 1000, ElapsedNs: 5_123_456, AllocBytes: u64(64000), Allocs: u64(1000),
					Extra: []Metric{{Unit: "widgets/op", Value: 2.5}, {Unit: "p99-ns", Value: -1e-300}}},
				{Iterations: 1000, ElapsedNs: 5_000_001},
			},
			Metrics:         []MetricCell{{Name: "instructions", Value: 1234.5, Estimated: true}},
			Absences:        []Absence{{Name: "cycles", Reason: "no cpu PMU under /sys/bus/event_source/devices"}},
			CountIterations: 5000, CountMethod: "difference of 2 runs"},
		Log{Text: "line one\nline two"},
		Skip{Reason: "needs network"},
		Failure{Class: FailurePanic, Message: "runtime error: index out of range [5] with length 3", Stack: "goroutine 1 [running]:\nmain.f()"},
		Done{},
		Listing{Identities: []Listed{{Name: "BenchmarkA", Kind: ListedBenchmark}, {Name: "TestB", Kind: ListedTest}, {Name: "BenchmarkW", Kind: ListedWorkload}}},
		TestEvent{Action: TestFail, Test: "TestB/sub", ElapsedNs: 12345, Output: "    b_test.go:12: boom\n"},
		Window{Name: "BenchmarkBuild/load", Reps: 2, WallNs: 9_000_000, Scope: "thread",
			OnCPUUserNs: i64(5_000_000), OnCPUKernelNs: i64(1_000_000), OffCPURunqueueNs: i64(100_000),
			OffCPUOtherNs: i64(2_900_000), OtherThreadsCPUNs: i64(300_000),
			Totals: []MetricCell{{Name: "tier0.read-bytes", Value: 1 << 20}},
			PSI:    &PSI{IOSomeNs: 10, IOFullNs: 5, MemSomeNs: 0, MemFullNs: 0, CPUSomeNs: 7},
			Regime: &Regime{Requested: "cold", Effective: "cold", ResidentBefore: 4096, ResidentAfter: 0, TotalBytes: 1 << 20},
			Note:   "disk: unattributed (no cgroup of its own)"},
	}
}

func TestRoundTripEveryKind(t *testing.T) {
	seen := map[Kind]bool{}
	for _, m := range sampleMessages() {
		t.Run(m.Kind().String(), func(t *testing.T) {
			var buf bytes.Buffer
			c := NewConn(&buf)
			require.NoError(t, c.Send(m))
			got, err := c.Receive()
			require.NoError(t, err)
			assert.Equal(t, m, got)
			_, err = c.Receive()
			assert.Equal(t, io.EOF, err, "stream must end cleanly between frames")
			seen[m.Kind()] = true
		})
	}
	for k := KindHello; k < kindEnd; k++ {
		assert.True(t, seen[k], "no round-trip case for %s", k)
	}
}

func TestReceiveSequenceReusesBuffer(t *testing.T) {
	var buf bytes.Buffer
	c := NewConn(&buf)
	msgs := sampleMessages()
	for _, m := range msgs {
		require.NoError(t, c.Send(m))
	}
	for _, want := range msgs {
		got, err := c.Receive()
		require.NoError(t, err)
		assert.Equal(t, want, got, "a later frame must not overwrite an earlier message's strings")
	}
}

// frame builds a frame from a kind byte and a raw body, bypassing validation.
func frame(k Kind, body []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)+1))
	out = append(out, byte(k))
	return append(out, body...)
}

func mustMsgpack(t *testing.T, v any) []byte {
	t.Helper()
	b, err := msgpack.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestMalformedFrames(t *testing.T) {
	good := mustMsgpack(t, Log{Text: "x"})
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"zero length", []byte{0, 0, 0, 0}, "frame length 0"},
		{"oversize length", binary.BigEndian.AppendUint32(nil, MaxFrameSize+1), "outside 1.."},
		{"huge length", []byte{0xff, 0xff, 0xff, 0xff}, "outside 1.."},
		{"header truncated", []byte{0, 0}, "inside a frame header"},
		{"body truncated", append(binary.BigEndian.AppendUint32(nil, 10), byte(KindLog), 0x81), "inside a frame"},
		{"unknown kind", frame(Kind(200), good), "unknown message kind 200"},
		{"kind zero", frame(0, good), "unknown message kind 0"},
		{"trailing bytes", frame(KindLog, append(append([]byte{}, good...), 0xc0)), "1 trailing bytes at payload offset 9"},
		{"array claims 2^32-1 entries", frame(KindListing, []byte{0x81, 0xaa, 'i', 'd', 'e', 'n', 't', 'i', 't', 'i', 'e', 's', 0xdd, 0xff, 0xff, 0xff, 0xff}), "exceeds bound"},
		{"array claims more than present", frame(KindListing, []byte{0x81, 0xaa, 'i', 'd', 'e', 'n', 't', 'i', 't', 'i', 'e', 's', 0xdc, 0x01, 0x00, 0xc0}), "only 1 bytes remain"},
		{"string claims more than present", frame(KindLog, []byte{0x81, 0xa4, 't', 'e', 'x', 't', 0xdb, 0x7f, 0xff, 0xff, 0xff}), "declared 2147483647 bytes, only 0 remain at payload offset 7"},
		{"nesting too deep", frame(KindLog, bytes.Repeat([]byte{0x91}, 100)), "nesting deeper"},
		{"extension type", frame(KindLog, []byte{0xd4, 0x01, 0x00}), "unsupported msgpack code"},
		{"never-used code", frame(KindLog, []byte{0xc1}), "unsupported msgpack code 0xc1"},
		{"wrong field type", frame(KindHello, mustMsgpack(t, map[string]any{"pid": "not a number"})), "hello.pid: integer expected, found code 0xac at payload offset 6"},
		{"top level not a map", frame(KindLog, mustMsgpack(t, "text")), "log: map expected, found code 0xa4 at payload offset 1"},
		{"negative pid", frame(KindHello, mustMsgpack(t, map[string]any{"pid": -1})), "negative"},
		{"invalid utf-8", frame(KindLog, mustMsgpack(t, map[string]any{"text": "\xff\xfe"})), "UTF-8"},
		{"text over bound", frame(KindLog, mustMsgpack(t, map[string]any{"text": strings.Repeat("a", MaxTextLen+1)})), "exceeds bound"},
		{"unknown phase", frame(KindProgress, mustMsgpack(t, map[string]any{"phase": "warp"})), "unknown \"warp\""},
		{"done beyond total", frame(KindProgress, mustMsgpack(t, map[string]any{"phase": "timing", "done": 5, "total": 4})), "exceeds total"},
		{"zero-iteration sample", frame(KindResult, mustMsgpack(t, map[string]any{"samples": []any{map[string]any{"n": 0, "ns": 1}}})), "want at least 1"},
		{"half-reported allocs", frame(KindResult, mustMsgpack(t, map[string]any{"samples": []any{map[string]any{"n": 1, "ns": 1, "allocs": 3}}})), "together"},
		{"NaN metric", frame(KindResult, mustMsgpack(t, map[string]any{"metrics": []any{map[string]any{"name": "x", "value": math.NaN()}}})), "finite"},
		{"absence without reason", frame(KindResult, mustMsgpack(t, map[string]any{"absences": []any{map[string]any{"name": "cycles"}}})), "no reason"},
		{"unknown failure class", frame(KindFailure, mustMsgpack(t, map[string]any{"class": "oops"})), "unknown"},
		{"unknown test action", frame(KindTestEvent, mustMsgpack(t, map[string]any{"action": "explode"})), "unknown"},
		{"empty listed name", frame(KindListing, mustMsgpack(t, map[string]any{"identities": []any{map[string]any{"kind": "test"}}})), "empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewConn(bytes.NewBuffer(tt.input)).Receive()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed)
			var me *MalformedError
			require.ErrorAs(t, err, &me)
			assert.Contains(t, err.Error(), tt.want)
			truncated := strings.HasSuffix(tt.name, "truncated")
			assert.Equal(t, truncated, errors.Is(err, io.ErrUnexpectedEOF), "only a cut-off stream is an unexpected EOF")
		})
	}
}

func TestUnknownFieldsAreIgnored(t *testing.T) {
	body := mustMsgpack(t, map[string]any{"text": "hi", "addedInAFutureMinorRevision": []int{1, 2}})
	m, err := NewConn(bytes.NewBuffer(frame(KindLog, body))).Receive()
	require.NoError(t, err)
	assert.Equal(t, Log{Text: "hi"}, m)
}

func TestSendRefusesOutOfBounds(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want error
	}{
		{"too many samples", Result{Samples: make([]Sample, MaxSamplesPerFrame+1)}, nil},
		{"long name", Ready{Identity: Identity{Name: strings.Repeat("n", MaxNameLen+1)}}, nil},
		{"bad mode", Request{Mode: "bogus"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := NewConn(&buf).Send(tt.msg)
			require.Error(t, err)
			assert.Zero(t, buf.Len(), "nothing may reach the wire")
		})
	}
}

func TestFrameTooLarge(t *testing.T) {
	// Within every field bound, yet over the frame bound: many long names.
	ids := make([]Listed, MaxIdentitiesPerFrame)
	name := strings.Repeat("x", 1024)
	for i := range ids {
		ids[i] = Listed{Name: name, Kind: ListedTest}
	}
	_, err := AppendFrame(nil, Listing{Identities: ids})
	assert.ErrorIs(t, err, ErrFrameTooLarge)
}

func TestTruncateText(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc"},
		{"aé", 2, "a"}, // never split the two-byte é
		{"\xffok", 10, "\uFFFDok"},
		{"", 0, ""},
	}
	for _, tt := range tests {
		got := TruncateText(tt.in, tt.max)
		assert.Equal(t, tt.want, got, "TruncateText(%q, %d)", tt.in, tt.max)
		assert.LessOrEqual(t, len(got), max(tt.max, len(tt.want)))
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
func (errWriter) Read([]byte) (int, error)  { return 0, errors.New("broken pipe") }

func TestTransportErrorsAreNotMalformed(t *testing.T) {
	c := NewConn(errWriter{})
	err := c.Send(Done{})
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrMalformed)
	_, err = c.Receive()
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrMalformed)
}
