package msgpackcodec_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

// boundCase builds a message whose bounded quantity is n.
type boundCase struct {
	name string
	max  int
	at   func(n int) protocol.Message
}

func xs(n int) string { return strings.Repeat("x", n) }

func boundCases() []boundCase {
	id := func(n int) protocol.Identity { return protocol.Identity{Package: "p", Name: xs(n)} }
	req := func(c protocol.RequestConfig) protocol.Request {
		return protocol.Request{Mode: protocol.ModeBenchmark, Config: c}
	}
	result := func(r protocol.Result) protocol.Result {
		if r.Samples == nil {
			r.Samples = []protocol.Sample{{Iterations: 1}}
		}
		return r
	}
	window := func(w protocol.Window) protocol.Window { w.Reps, w.Scope = 1, "thread"; return w }
	strs := func(n int, s string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	samples := func(n int) []protocol.Sample {
		out := make([]protocol.Sample, n)
		for i := range out {
			out[i] = protocol.Sample{Iterations: 1, ElapsedNs: int64(i)}
		}
		return out
	}
	cells := func(n int) []protocol.MetricCell {
		out := make([]protocol.MetricCell, n)
		for i := range out {
			out[i] = protocol.MetricCell{Name: "m", Value: float64(i)}
		}
		return out
	}
	const name, text = protocol.MaxNameLen, protocol.MaxTextLen
	return []boundCase{
		// Names.
		{"hello.workerVersion", name, func(n int) protocol.Message { return protocol.Hello{WorkerVersion: xs(n)} }},
		{"hello.goVersion", name, func(n int) protocol.Message { return protocol.Hello{GoVersion: xs(n)} }},
		{"hello.goos", name, func(n int) protocol.Message { return protocol.Hello{GOOS: xs(n)} }},
		{"hello.goarch", name, func(n int) protocol.Message { return protocol.Hello{GOARCH: xs(n)} }},
		{"request.identity.package", name, func(n int) protocol.Message {
			return protocol.Request{Mode: protocol.ModeTest, Identity: protocol.Identity{Package: xs(n)}}
		}},
		{"request.identity.name", name, func(n int) protocol.Message { return protocol.Request{Mode: protocol.ModeTest, Identity: id(n)} }},
		{"request.config.run", name, func(n int) protocol.Message { return req(protocol.RequestConfig{Run: xs(n)}) }},
		{"request.config.bench", name, func(n int) protocol.Message { return req(protocol.RequestConfig{Bench: xs(n)}) }},
		{"request.config.after", name, func(n int) protocol.Message { return req(protocol.RequestConfig{After: xs(n)}) }},
		{"request.config.args[]", name, func(n int) protocol.Message { return req(protocol.RequestConfig{Args: []string{"a", xs(n)}}) }},
		{"request.config.skip[]", name, func(n int) protocol.Message { return req(protocol.RequestConfig{Skip: []string{xs(n)}}) }},
		{"request.config.metrics[]", name, func(n int) protocol.Message { return req(protocol.RequestConfig{Metrics: []string{xs(n)}}) }},
		{"ready.identity.name", name, func(n int) protocol.Message { return protocol.Ready{Identity: id(n)} }},
		{"result.identity.name", name, func(n int) protocol.Message { return result(protocol.Result{Identity: id(n)}) }},
		{"result.countMethod", name, func(n int) protocol.Message { return result(protocol.Result{CountMethod: xs(n)}) }},
		{"result.samples[].extra[].unit", name, func(n int) protocol.Message {
			return result(protocol.Result{Samples: []protocol.Sample{{Iterations: 1, Extra: []protocol.Metric{{Unit: xs(n)}}}}})
		}},
		{"result.extraDroppedUnits[]", name, func(n int) protocol.Message {
			return result(protocol.Result{ExtraDropped: 1, ExtraDroppedUnits: []string{xs(n)}})
		}},
		{"result.metrics[].name", name, func(n int) protocol.Message {
			return result(protocol.Result{Metrics: []protocol.MetricCell{{Name: xs(n)}}})
		}},
		{"result.absences[].name", name, func(n int) protocol.Message {
			return result(protocol.Result{Absences: []protocol.Absence{{Name: xs(n), Reason: "r"}}})
		}},
		{"listing.identities[].name", name, func(n int) protocol.Message {
			return protocol.Listing{Identities: []protocol.Listed{{Name: xs(n), Kind: protocol.ListedTest}}}
		}},
		{"testEvent.test", name, func(n int) protocol.Message { return protocol.TestEvent{Action: protocol.TestRun, Test: xs(n)} }},
		{"testEvent.imitatedBeside[]", name, func(n int) protocol.Message {
			return protocol.TestEvent{Action: protocol.TestPass, Imitated: true, ImitatedBeside: []string{xs(n)}}
		}},
		{"window.name", name, func(n int) protocol.Message { return window(protocol.Window{Name: xs(n)}) }},
		{"window.totals[].name", name, func(n int) protocol.Message {
			return window(protocol.Window{Totals: []protocol.MetricCell{{Name: xs(n)}}})
		}},
		{"window.regime.requested", name, func(n int) protocol.Message {
			return window(protocol.Window{Regime: &protocol.Regime{Requested: xs(n)}})
		}},
		{"window.regime.effective", name, func(n int) protocol.Message {
			return window(protocol.Window{Regime: &protocol.Regime{Effective: xs(n)}})
		}},
		// Text.
		{"log.text", text, func(n int) protocol.Message { return protocol.Log{Text: xs(n)} }},
		{"log.test", name, func(n int) protocol.Message { return protocol.Log{Test: xs(n), Limit: "RLIMIT_FSIZE"} }},
		{"skip.reason", text, func(n int) protocol.Message { return protocol.Skip{Reason: xs(n)} }},
		{"failure.message", text, func(n int) protocol.Message {
			return protocol.Failure{Class: protocol.FailurePanic, Message: xs(n)}
		}},
		{"failure.stack", text, func(n int) protocol.Message { return protocol.Failure{Class: protocol.FailurePanic, Stack: xs(n)} }},
		{"result.absences[].reason", text, func(n int) protocol.Message {
			return result(protocol.Result{Absences: []protocol.Absence{{Name: "a", Reason: xs(n)}}})
		}},
		{"testEvent.output", text, func(n int) protocol.Message {
			return protocol.TestEvent{Action: protocol.TestOutput, Output: xs(n)}
		}},
		{"window.note", text, func(n int) protocol.Message { return window(protocol.Window{Note: xs(n)}) }},
		{"window.regime.note", text, func(n int) protocol.Message {
			return window(protocol.Window{Regime: &protocol.Regime{Note: xs(n)}})
		}},
		// Counts.
		{"result.samples", protocol.MaxSamplesPerFrame, func(n int) protocol.Message { return protocol.Result{Samples: samples(n)} }},
		{"result.samples[].extra", protocol.MaxExtraPerSample, func(n int) protocol.Message {
			extra := make([]protocol.Metric, n)
			for i := range extra {
				extra[i] = protocol.Metric{Unit: "u", Value: float64(i)}
			}
			return protocol.Result{Samples: []protocol.Sample{{Iterations: 1, Extra: extra}}}
		}},
		{"result.extraDroppedUnits", protocol.MaxDroppedUnits, func(n int) protocol.Message {
			units := make([]string, n)
			for i := range units {
				units[i] = "u"
			}
			return result(protocol.Result{ExtraDropped: int64(n), ExtraDroppedUnits: units})
		}},
		{"result.metrics", protocol.MaxMetricCells, func(n int) protocol.Message { return result(protocol.Result{Metrics: cells(n)}) }},
		{"result.absences", protocol.MaxAbsences, func(n int) protocol.Message {
			abs := make([]protocol.Absence, n)
			for i := range abs {
				abs[i] = protocol.Absence{Name: "a", Reason: "r"}
			}
			return result(protocol.Result{Absences: abs})
		}},
		{"listing.identities", protocol.MaxIdentitiesPerFrame, func(n int) protocol.Message {
			ids := make([]protocol.Listed, n)
			for i := range ids {
				ids[i] = protocol.Listed{Name: "T", Kind: protocol.ListedTest}
			}
			return protocol.Listing{Identities: ids}
		}},
		{"testEvent.imitatedBeside", protocol.MaxImitatedBeside, func(n int) protocol.Message {
			return protocol.TestEvent{Action: protocol.TestPass, Imitated: true, ImitatedBeside: strs(n, "TestX")}
		}},
		{"request.config.args", protocol.MaxArgs, func(n int) protocol.Message { return req(protocol.RequestConfig{Args: strs(n, "-v")}) }},
		{"request.config.skip", protocol.MaxIdentitiesPerFrame, func(n int) protocol.Message {
			return req(protocol.RequestConfig{Skip: strs(n, "TestX")})
		}},
		{"request.config.metrics", protocol.MaxMetricCells, func(n int) protocol.Message {
			return req(protocol.RequestConfig{Metrics: strs(n, "cycles")})
		}},
		{"request.config.samples", protocol.MaxSamplesPerFrame, func(n int) protocol.Message { return req(protocol.RequestConfig{Samples: n}) }},
		{"window.totals", protocol.MaxTotalsPerWindow, func(n int) protocol.Message { return window(protocol.Window{Totals: cells(n)}) }},
		{"request.config.windowMetrics", protocol.MaxMetricCells, func(n int) protocol.Message {
			return req(protocol.RequestConfig{WindowMetrics: strs(n, "tier0")})
		}},
		{"listing.identities[].calibration", protocol.MaxCalibrationRuns, func(n int) protocol.Message {
			runs := make([]protocol.Sample, n)
			for i := range runs {
				runs[i] = protocol.Sample{Iterations: int64(i + 1), ElapsedNs: 10, Exact: true}
			}
			return protocol.Listing{Identities: []protocol.Listed{{Name: "B", Kind: protocol.ListedBenchmark, Iterations: 1, Calibration: runs}}}
		}},
	}
}

// bothBodies encodes m with each codec's AppendBody, which checks no
// bound, and requires the two to agree.
func bothBodies(t *testing.T, m protocol.Message) []byte {
	t.Helper()
	std, err := protocol.StdCodec{}.AppendBody(nil, m)
	require.NoError(t, err)
	lib, err := msgpackcodec.Codec{}.AppendBody(nil, m)
	require.NoError(t, err)
	require.Equal(t, lib, std, "codecs disagree on an out-of-bounds body")
	return std
}

// requireRejectedByBoth requires both decoders to refuse the payload as
// malformed.
func requireRejectedByBoth(t *testing.T, payload []byte) {
	t.Helper()
	for name, decode := range map[string]func([]byte) (protocol.Message, error){
		"protocol": protocol.DecodePayload, "library": msgpackcodec.DecodePayload,
	} {
		m, err := decode(payload)
		require.Error(t, err, "%s decoder accepted %v", name, m)
		assert.ErrorIs(t, err, protocol.ErrMalformed, name)
	}
}

// requireRoundTripsBoth requires m to encode identically with both codecs
// and each codec to decode the other's frame to m.
func requireRoundTripsBoth(t *testing.T, m protocol.Message) {
	t.Helper()
	std, err := protocol.AppendFrame(nil, m)
	require.NoError(t, err, "protocol encoder")
	lib, err := msgpackcodec.AppendFrame(nil, m)
	require.NoError(t, err, "library encoder")
	require.True(t, bytes.Equal(std, lib), "encodings differ")
	got, err := msgpackcodec.DecodePayload(payload(std))
	require.NoError(t, err, "library decoder")
	require.Equal(t, normalize(m), got, "library decoder")
	got, err = protocol.DecodePayload(payload(lib))
	require.NoError(t, err, "protocol decoder")
	require.Equal(t, normalize(m), got, "protocol decoder")
}

func TestBounds(t *testing.T) {
	for _, c := range boundCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Run("at the bound", func(t *testing.T) {
				requireRoundTripsBoth(t, c.at(c.max))
			})
			t.Run("one over", func(t *testing.T) {
				m := c.at(c.max + 1)
				_, err := protocol.AppendFrame(nil, m)
				assert.ErrorContains(t, err, "out of bounds", "protocol encoder")
				_, err = msgpackcodec.AppendFrame(nil, m)
				assert.ErrorContains(t, err, "out of bounds", "library encoder")
				requireRejectedByBoth(t, payload(rawFrame(m.Kind(), bothBodies(t, m))))
			})
		})
	}
}

// listingOfSize returns a Listing, within every field bound, whose frame
// payload is exactly size bytes.
func listingOfSize(t *testing.T, size int) protocol.Listing {
	t.Helper()
	ids := make([]protocol.Listed, protocol.MaxIdentitiesPerFrame)
	for i := range ids {
		ids[i] = protocol.Listed{Name: xs(200), Kind: protocol.ListedTest}
	}
	m := protocol.Listing{Identities: ids}
	body, err := protocol.StdCodec{}.AppendBody(nil, m)
	require.NoError(t, err)
	// Names of 32..255 bytes all take a 2-byte str8 header, so a byte more
	// or less in a name is a byte more or less in the frame.
	diff := size - (1 + len(body))
	for i := 0; diff != 0; i = (i + 1) % len(ids) {
		step := 1
		if diff < 0 {
			step = -1
		}
		n := len(ids[i].Name) + step
		require.True(t, n >= 32 && n <= 255, "cannot reach %d bytes", size)
		ids[i].Name = xs(n)
		diff -= step
	}
	return m
}

func TestFrameSizeBound(t *testing.T) {
	t.Run("at the bound", func(t *testing.T) {
		m := listingOfSize(t, protocol.MaxFrameSize)
		frame, err := protocol.AppendFrame(nil, m)
		require.NoError(t, err)
		require.Len(t, frame, 4+protocol.MaxFrameSize)
		requireRoundTripsBoth(t, m)
		for _, dir := range []struct {
			name     string
			from, to func(io.ReadWriter) *protocol.Conn
		}{
			{"protocol to library", protocol.NewConn, msgpackcodec.NewConn},
			{"library to protocol", msgpackcodec.NewConn, protocol.NewConn},
		} {
			var buf bytes.Buffer
			require.NoError(t, dir.from(&buf).Send(m), dir.name)
			got, err := dir.to(&buf).Receive()
			require.NoError(t, err, dir.name)
			require.Equal(t, m, got, dir.name)
		}
	})
	t.Run("one over", func(t *testing.T) {
		m := listingOfSize(t, protocol.MaxFrameSize+1)
		_, err := protocol.AppendFrame(nil, m)
		assert.ErrorIs(t, err, protocol.ErrFrameTooLarge, "protocol encoder")
		_, err = msgpackcodec.AppendFrame(nil, m)
		assert.ErrorIs(t, err, protocol.ErrFrameTooLarge, "library encoder")
		var buf bytes.Buffer
		assert.Error(t, protocol.NewConn(&buf).Send(m))
		assert.Error(t, msgpackcodec.NewConn(&buf).Send(m))
		assert.Zero(t, buf.Len(), "nothing may reach the wire")

		frame := rawFrame(m.Kind(), bothBodies(t, m))
		require.Len(t, frame, 4+protocol.MaxFrameSize+1)
		requireRejectedByBoth(t, payload(frame))
		for name, conn := range map[string]*protocol.Conn{
			"protocol": protocol.NewConn(bytes.NewBuffer(frame)), "library": msgpackcodec.NewConn(bytes.NewBuffer(frame)),
		} {
			_, err := conn.Receive()
			assert.ErrorIs(t, err, protocol.ErrMalformed, name)
		}
	})
}

// TestInvalidValues: values no bound allows (non-finite floats, negative
// counts, unknown enumerations, invalid UTF-8, inconsistent fields) are
// refused by both encoders and rejected by both decoders.
func TestInvalidValues(t *testing.T) {
	one := []protocol.Sample{{Iterations: 1}}
	w := func(f func(*protocol.Window)) protocol.Window {
		v := protocol.Window{Reps: 1, Scope: "thread"}
		f(&v)
		return v
	}
	tests := []struct {
		name string
		msg  protocol.Message
	}{
		{"NaN extra value", protocol.Result{Samples: []protocol.Sample{{Iterations: 1, Extra: []protocol.Metric{{Unit: "u", Value: math.NaN()}}}}}},
		{"+Inf extra value", protocol.Result{Samples: []protocol.Sample{{Iterations: 1, Extra: []protocol.Metric{{Unit: "u", Value: math.Inf(1)}}}}}},
		{"NaN metric cell", protocol.Result{Samples: one, Metrics: []protocol.MetricCell{{Name: "m", Value: math.NaN()}}}},
		{"-Inf metric cell", protocol.Result{Samples: one, Metrics: []protocol.MetricCell{{Name: "m", Value: math.Inf(-1)}}}},
		{"+Inf window total", w(func(v *protocol.Window) { v.Totals = []protocol.MetricCell{{Name: "t", Value: math.Inf(1)}} })},
		{"NaN window total", w(func(v *protocol.Window) { v.Totals = []protocol.MetricCell{{Name: "t", Value: math.NaN()}} })},
		{"negative pid", protocol.Hello{PID: -1}},
		{"negative gomaxprocs", protocol.Hello{GOMAXPROCS: math.MinInt}},
		{"negative again", protocol.Hello{Again: -1}},
		{"negative repetition", protocol.Request{Mode: protocol.ModeTest, Repetition: -1}},
		{"negative minSampleNs", protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{MinSampleNs: -1}}},
		{"negative done", protocol.Progress{Phase: protocol.PhaseTiming, Done: -1}},
		{"done beyond total", protocol.Progress{Phase: protocol.PhaseTiming, Done: 2, Total: 1}},
		{"zero iterations", protocol.Result{Samples: []protocol.Sample{{Iterations: 0}}}},
		{"negative elapsed", protocol.Result{Samples: []protocol.Sample{{Iterations: 1, ElapsedNs: -1}}}},
		{"half-reported allocs", protocol.Result{Samples: []protocol.Sample{{Iterations: 1, Allocs: u64(1)}}}},
		{"empty extra unit", protocol.Result{Samples: []protocol.Sample{{Iterations: 1, Extra: []protocol.Metric{{Value: 1}}}}}},
		{"absence without reason", protocol.Result{Samples: one, Absences: []protocol.Absence{{Name: "a"}}}},
		{"negative afterSiblings", protocol.Result{Samples: one, AfterSiblings: -1}},
		{"negative extraDropped", protocol.Result{Samples: one, ExtraDropped: -1}},
		{"more dropped units named than dropped", protocol.Result{Samples: one, ExtraDropped: 1, ExtraDroppedUnits: []string{"a", "b"}}},
		{"empty dropped unit", protocol.Result{Samples: one, ExtraDropped: 1, ExtraDroppedUnits: []string{""}}},
		{"invalid UTF-8 dropped unit", protocol.Result{Samples: one, ExtraDropped: 1, ExtraDroppedUnits: []string{"\xff"}}},
		{"negative listed afterSiblings", protocol.Listing{Identities: []protocol.Listed{{Name: "X", Kind: protocol.ListedBenchmark, AfterSiblings: -1}}}},
		{"unknown mode", protocol.Request{Mode: "warp"}},
		{"unknown phase", protocol.Progress{Phase: "warp"}},
		{"unknown failure class", protocol.Failure{Class: "oops"}},
		{"unknown listed kind", protocol.Listing{Identities: []protocol.Listed{{Name: "X", Kind: "fuzz"}}}},
		{"empty listed name", protocol.Listing{Identities: []protocol.Listed{{Kind: protocol.ListedTest}}}},
		{"unknown test action", protocol.TestEvent{Action: "explode"}},
		{"invalid UTF-8", protocol.Log{Text: "\xff\xfe"}},
		{"log test without a limit", protocol.Log{Text: "x", Test: "TestX"}},
		{"log restored without a limit", protocol.Log{Text: "x", Restored: true}},
		{"invalid UTF-8 limit", protocol.Log{Limit: "\xff"}},
		{"invalid UTF-8 name", protocol.Ready{Identity: protocol.Identity{Name: "a\xc3"}}},
		{"zero reps", protocol.Window{Scope: "thread"}},
		{"unknown scope", protocol.Window{Reps: 1, Scope: "galaxy"}},
		{"negative window duration", w(func(v *protocol.Window) { v.OffCPUDiskNs = i64(-1) })},
		{"negative psi", w(func(v *protocol.Window) { v.PSI = &protocol.PSI{MemFullNs: -1} })},
		{"negative regime bytes", w(func(v *protocol.Window) { v.Regime = &protocol.Regime{TotalBytes: -1} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := protocol.AppendFrame(nil, tt.msg)
			assert.Error(t, err, "protocol encoder")
			_, err = msgpackcodec.AppendFrame(nil, tt.msg)
			assert.Error(t, err, "library encoder")
			requireRejectedByBoth(t, payload(rawFrame(tt.msg.Kind(), bothBodies(t, tt.msg))))
		})
	}
}

// TestFrameLengthPrefix: the length prefix both encoders write is the
// payload's length.
func TestFrameLengthPrefix(t *testing.T) {
	for _, c := range messageCases() {
		frame, err := msgpackcodec.AppendFrame([]byte("xyz"), c.msg)
		require.NoError(t, err)
		assert.Equal(t, uint32(len(frame)-7), binary.BigEndian.Uint32(frame[3:]), c.name)
	}
}
