package msgpackcodec_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

// boundRefusal reports whether protocol's error is StdCodec refusing an
// array longer than its field's bound while decoding (it allocates no more
// than the bound); msgpackcodec leaves bounds to the validation after the
// library decoded, so it refuses the same frame, but may first meet another
// fault inside the array, or name the bound in validation's words.
func boundRefusal(err error) bool {
	return strings.Contains(err.Error(), " entries exceeds bound ")
}

// crossCheck requires m, decoded by one codec, to encode to the same bytes
// with both codecs and each to decode that frame back to m.
func crossCheck(t *testing.T, who string, m protocol.Message) {
	t.Helper()
	std, stdErr := protocol.AppendFrame(nil, m)
	lib, libErr := msgpackcodec.AppendFrame(nil, m)
	if errors.Is(stdErr, protocol.ErrFrameTooLarge) && errors.Is(libErr, protocol.ErrFrameTooLarge) {
		return // canonical form larger than the input: nothing to compare
	}
	if stdErr != nil || libErr != nil {
		t.Fatalf("%s decoded %#v, which does not re-encode: protocol %v, library %v", who, m, stdErr, libErr)
	}
	if !bytes.Equal(std, lib) {
		t.Fatalf("%s decoded %#v; encodings differ:\nprotocol %x\nlibrary  %x", who, m, std, lib)
	}
	want := normalize(m)
	for name, decode := range map[string]func([]byte) (protocol.Message, error){
		"protocol": protocol.DecodePayload, "library": msgpackcodec.DecodePayload,
	} {
		got, err := decode(payload(std))
		if err != nil {
			t.Fatalf("%s decoded %#v; re-encoded, %s rejects it: %v", who, m, name, err)
		}
		if !equal(want, got) {
			t.Fatalf("%s decoded %#v; re-encoded, %s decodes %#v", who, m, name, got)
		}
	}
}

// equal compares messages deeply, and by their canonical encodings so that
// -0 and +0 differ (bit patterns must survive).
func equal(a, b protocol.Message) bool {
	return reflect.DeepEqual(a, b) && bytesOf(a) == bytesOf(b)
}

// bytesOf is the canonical encoding of m, or "" if it has none.
func bytesOf(m protocol.Message) string {
	b, err := protocol.StdCodec{}.AppendBody(nil, m)
	if err != nil {
		return ""
	}
	return string(b)
}

// FuzzCrossDecode feeds one arbitrary frame payload to both decoders.
//   - Neither may panic; every error wraps ErrMalformed.
//   - Both accept, decoding the same message, or both refuse.
//   - Both refuse with the same error (the same field, payload offset and
//     words), except where protocol refuses an array beyond its field's
//     bound (boundRefusal).
//   - Whatever either accepts, both encoders must encode to the same bytes,
//     which both decoders must decode back to it.
//   - StdCodec.DecodeBody, called without the walk, must not panic either,
//     and must agree with DecodePayload where that succeeded.
//
// The seed corpus lives in testdata/fuzz/FuzzCrossDecode (see
// TestSeedCorpus).
func FuzzCrossDecode(f *testing.F) {
	for _, c := range messageCases() {
		if frame, err := protocol.AppendFrame(nil, c.msg); err == nil && len(frame) <= 4096 {
			f.Add(payload(frame))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		std, stdErr := protocol.DecodePayload(data)
		lib, libErr := msgpackcodec.DecodePayload(data)
		for name, err := range map[string]error{"protocol": stdErr, "library": libErr} {
			if err != nil && !errors.Is(err, protocol.ErrMalformed) {
				t.Fatalf("%s: error does not wrap ErrMalformed: %v", name, err)
			}
		}
		if len(data) > 0 {
			// The std decoder on a body nobody walked.
			direct, err := protocol.StdCodec{}.DecodeBody(protocol.Kind(data[0]), data[1:])
			if stdErr == nil && (err != nil || !equal(std, direct)) {
				t.Fatalf("DecodeBody without walk: %#v, %v; DecodePayload: %#v", direct, err, std)
			}
		}
		switch {
		case stdErr == nil && libErr == nil:
			if !equal(std, lib) {
				t.Fatalf("decoders disagree:\nprotocol %#v\nlibrary  %#v", std, lib)
			}
		case stdErr == nil:
			t.Fatalf("protocol accepts %#v, library refuses: %v", std, libErr)
		case libErr == nil:
			t.Fatalf("library accepts %#v, protocol refuses: %v", lib, stdErr)
		case stdErr.Error() != libErr.Error() && !boundRefusal(stdErr):
			t.Fatalf("decoders refuse differently:\nprotocol %v\nlibrary  %v", stdErr, libErr)
		}
		if stdErr == nil {
			crossCheck(t, "protocol", std)
		}
		if libErr == nil {
			crossCheck(t, "library", lib)
		}
	})
}

// fuzzMessage builds a message of kind k from fuzzed field values; flags
// pick nil, empty or filled slices and pointers and the enumerations.
func fuzzMessage(k uint8, flags uint32, s1, s2 string, a, b int64, u uint64, x float64) protocol.Message {
	bit := func(i int) bool { return flags&(1<<i) != 0 }
	pick := func(i int, opts ...string) string { return opts[(flags>>i)%uint32(len(opts))] }
	strs := func(i int) []string {
		switch (flags >> i) & 3 {
		case 0:
			return nil
		case 1:
			return []string{}
		case 2:
			return []string{s1}
		}
		return []string{s1, s2, ""}
	}
	ptr := func(i int, v int64) *int64 {
		if bit(i) {
			return &v
		}
		return nil
	}
	id := protocol.Identity{Package: s1, Name: s2}
	cells := func(i int) []protocol.MetricCell {
		switch (flags >> i) & 3 {
		case 0:
			return nil
		case 1:
			return []protocol.MetricCell{}
		}
		return []protocol.MetricCell{{Name: s1, Value: x, Estimated: bit(i + 2)}, {Name: s2, Value: float64(a)}}
	}
	switch k % 12 {
	case 0:
		return protocol.Hello{ProtocolVersion: int(a), WorkerVersion: s1, PID: int(b), GoVersion: s2, GOOS: s1, GOARCH: s2, GOMAXPROCS: int(u), Again: int(flags >> 28)}
	case 1:
		return protocol.Request{Mode: protocol.Mode(pick(0, "discover", "benchmark", "workload", "test", s1)), Identity: id,
			Repetition: int(b), Seed: u, Config: protocol.RequestConfig{
				MinSampleNs: a, Samples: int(b), Iterations: a, Run: s1, Bench: s2, After: s1, Skip: strs(3),
				TestTimeoutNs: b, Args: strs(5), Metrics: strs(7), PerfIters: a, PerfBatch: b, PerfScaled: bit(9)}}
	case 2:
		return protocol.Ready{Identity: id}
	case 3:
		return protocol.Progress{Phase: protocol.Phase(pick(0, "discovery", "calibration", "timing", "counting", "window", s1)), Done: a, Total: b}
	case 4:
		var samples []protocol.Sample
		if bit(0) {
			samples = []protocol.Sample{}
		}
		for i := 0; i < int(flags>>1)%4; i++ {
			s := protocol.Sample{Iterations: a, ElapsedNs: b}
			if bit(3 + i) {
				v, w := u, u>>1
				s.AllocBytes, s.Allocs = &v, &w
			}
			switch (flags >> (6 + 2*i)) & 3 {
			case 1:
				s.Extra = []protocol.Metric{}
			case 2:
				s.Extra = []protocol.Metric{{Unit: s1, Value: x}}
			case 3:
				s.Extra = []protocol.Metric{{Unit: s2, Value: -x}, {Unit: "u", Value: float64(b)}}
			}
			samples = append(samples, s)
		}
		var absences []protocol.Absence
		if bit(14) {
			absences = []protocol.Absence{{Name: s1, Reason: s2}}
		}
		return protocol.Result{Identity: id, Repetition: int(a), Seed: u, BytesPerOp: b, Samples: samples,
			Metrics: cells(15), Absences: absences, CountIterations: a, CountMethod: s2, AfterSiblings: b,
			ExtraDropped: a, ExtraDroppedUnits: strs(18)}
	case 5:
		return protocol.Log{Text: s1 + s2}
	case 6:
		return protocol.Skip{Reason: s1}
	case 7:
		return protocol.Failure{Class: protocol.FailureClass(pick(0, "panic", "fatal", "error", s1)), Message: s1, Stack: s2}
	case 8:
		return protocol.Done{}
	case 9:
		if !bit(0) {
			return protocol.Listing{}
		}
		ids := []protocol.Listed{}
		for i := 0; i < int(flags>>1)%4; i++ {
			ids = append(ids, protocol.Listed{Name: s1, Kind: protocol.ListedKind(pick(3+2*i, "benchmark", "workload", "test", s2)), AfterSiblings: a >> i})
		}
		return protocol.Listing{Identities: ids}
	case 10:
		return protocol.TestEvent{Action: protocol.TestAction(pick(0, "run", "pass", "fail", "skip", "output", "pause", "cont", s1)), Test: s1, ElapsedNs: a, Output: s2,
			Lost: bit(1), Imitated: bit(2)}
	}
	w := protocol.Window{Name: s1, Reps: int(a), WallNs: b, Scope: pick(0, "thread", "process", "wall-only", s2),
		OnCPUUserNs: ptr(2, a), OnCPUKernelNs: ptr(3, b), OffCPURunqueueNs: ptr(4, int64(u)), OffCPUDiskNs: ptr(5, a^b),
		OffCPUOtherNs: ptr(6, a>>1), OtherThreadsCPUNs: ptr(7, b>>1), Totals: cells(8)}
	if bit(11) {
		w.Note = s2
	}
	if bit(12) {
		w.PSI = &protocol.PSI{IOSomeNs: a, IOFullNs: b, MemSomeNs: int64(u >> 1), MemFullNs: a >> 2, CPUSomeNs: b >> 2}
	}
	if bit(13) {
		w.Regime = &protocol.Regime{Requested: s1, Effective: s2, ResidentBefore: a, ResidentAfter: b, TotalBytes: int64(u >> 2)}
		if bit(14) {
			w.Regime.Note = s1
		}
	}
	return w
}

// FuzzCrossEncode builds messages of every kind from fuzzed values and
// requires both encoders to agree: the same bytes for a valid message,
// which each decoder decodes back to it; a refusal from both for an
// invalid one, whose unchecked bodies (Codec.AppendBody) are still
// identical and which both decoders reject.
//
// The seed corpus lives in testdata/fuzz/FuzzCrossEncode (see
// TestSeedCorpus).
func FuzzCrossEncode(f *testing.F) {
	f.Fuzz(func(t *testing.T, k uint8, flags uint32, s1, s2 string, a, b int64, u uint64, x float64) {
		m := fuzzMessage(k, flags, s1, s2, a, b, u, x)
		std, stdErr := protocol.AppendFrame(nil, m)
		lib, libErr := msgpackcodec.AppendFrame(nil, m)
		if (stdErr == nil) != (libErr == nil) {
			t.Fatalf("encoders disagree on %#v: protocol %v, library %v", m, stdErr, libErr)
		}
		if stdErr == nil {
			if !bytes.Equal(std, lib) {
				t.Fatalf("encodings of %#v differ:\nprotocol %x\nlibrary  %x", m, std, lib)
			}
			crossCheck(t, "fuzzMessage", m)
			return
		}
		stdBody, err1 := protocol.StdCodec{}.AppendBody(nil, m)
		libBody, err2 := msgpackcodec.Codec{}.AppendBody(nil, m)
		if err1 != nil || err2 != nil || !bytes.Equal(stdBody, libBody) {
			t.Fatalf("unchecked bodies of %#v differ: protocol %x (%v), library %x (%v)", m, stdBody, err1, libBody, err2)
		}
		if len(stdBody)+1 > protocol.MaxFrameSize {
			return
		}
		frame := append([]byte{byte(m.Kind())}, stdBody...)
		for name, decode := range map[string]func([]byte) (protocol.Message, error){
			"protocol": protocol.DecodePayload, "library": msgpackcodec.DecodePayload,
		} {
			if got, err := decode(frame); err == nil {
				t.Fatalf("encoders refuse %#v (%v), yet %s decodes its body to %#v", m, stdErr, name, got)
			}
		}
	})
}

var updateCorpus = flag.Bool("update", false, "rewrite testdata/fuzz from the test cases")

// seedCorpus returns the checked-in seeds: for FuzzCrossDecode one valid
// payload of every kind and every hand-built body of the tests; for
// FuzzCrossEncode a valid and a mostly invalid message of every kind.
func seedCorpus() map[string]string {
	files := map[string]string{}
	add := func(target, name string, values ...any) {
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		for _, v := range values {
			switch v := v.(type) {
			case []byte:
				fmt.Fprintf(&b, "[]byte(%q)\n", v)
			case string:
				fmt.Fprintf(&b, "string(%q)\n", v)
			case uint8:
				fmt.Fprintf(&b, "byte(%q)\n", v)
			case uint32:
				fmt.Fprintf(&b, "uint32(%d)\n", v)
			case int64:
				fmt.Fprintf(&b, "int64(%d)\n", v)
			case uint64:
				fmt.Fprintf(&b, "uint64(%d)\n", v)
			case float64:
				fmt.Fprintf(&b, "float64(%v)\n", v)
			}
		}
		name = strings.NewReplacer(" ", "-", "/", "-").Replace(name)
		files[filepath.Join(target, name)] = b.String()
	}
	for _, m := range []protocol.Message{
		protocol.Hello{ProtocolVersion: protocol.Version, WorkerVersion: "v0.1.0", PID: 4242, GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2},
		protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Package: "p", Name: "BenchmarkX"}, Seed: math.MaxUint64,
			Config: protocol.RequestConfig{Samples: 3, Args: []string{"-v"}, Skip: []string{}, Metrics: []string{"cycles"}, PerfScaled: true}},
		protocol.Ready{Identity: protocol.Identity{Package: "p", Name: "BenchmarkX"}},
		protocol.Progress{Phase: protocol.PhaseTiming, Done: 3, Total: 300},
		protocol.Result{Seed: 1 << 60, Samples: []protocol.Sample{{Iterations: 1000, ElapsedNs: 5e6, AllocBytes: u64(64), Allocs: u64(1),
			Extra: []protocol.Metric{{Unit: "x/op", Value: 2.5}}}, {Iterations: 1, ElapsedNs: 1 << 40}},
			Metrics: []protocol.MetricCell{{Name: "instructions", Value: -1e-300, Estimated: true}}, Absences: []protocol.Absence{{Name: "a", Reason: "r"}}, AfterSiblings: 3,
			ExtraDropped: 2, ExtraDroppedUnits: []string{"p99.9-ns", "p99.99-ns"}},
		protocol.Log{Text: "ünïcode"},
		protocol.Skip{Reason: "needs network"},
		protocol.Failure{Class: protocol.FailurePanic, Message: "boom", Stack: "goroutine 1"},
		protocol.Done{},
		protocol.Listing{Identities: []protocol.Listed{{Name: "BenchmarkA", Kind: protocol.ListedBenchmark}, {Name: "TestB", Kind: protocol.ListedTest}, {Name: "BenchmarkC/d", Kind: protocol.ListedBenchmark, AfterSiblings: 1}}},
		protocol.TestEvent{Action: protocol.TestOutput, Test: "TestB", ElapsedNs: 300, Output: "ok\n"},
		protocol.TestEvent{Action: protocol.TestFail, Test: "TestB", ElapsedNs: 300, Lost: true, Imitated: true},
		protocol.TestEvent{Action: protocol.TestPass, Test: "TestC", Imitated: true, ImitatedBeside: []string{"TestB"}},
		protocol.Hello{ProtocolVersion: protocol.Version, PID: 4242, GOMAXPROCS: 2, Again: 2},
		protocol.Window{Name: "W", Reps: 2, WallNs: 1e9, Scope: "thread", OnCPUUserNs: i64(5), OffCPUDiskNs: i64(0),
			Totals: []protocol.MetricCell{{Name: "t", Value: 1}}, PSI: &protocol.PSI{CPUSomeNs: 7}, Regime: &protocol.Regime{Requested: "cold", Note: "n"}, Note: "note"},
	} {
		frame, err := protocol.AppendFrame(nil, m)
		if err != nil {
			panic(err)
		}
		name := "valid-" + m.Kind().String()
		if _, dup := files[filepath.Join("FuzzCrossDecode", name)]; dup {
			name += "-fields" // a second of a kind: its optional fields set
		}
		add("FuzzCrossDecode", name, payload(frame))
	}
	for prefix, cases := range map[string][]bodyCase{"noncanonical-": nonCanonicalCases(), "wrongtype-": wrongTypeCases()} {
		for _, c := range cases {
			add("FuzzCrossDecode", prefix+c.name, payload(rawFrame(c.kind, c.body)))
		}
	}
	for _, c := range refusedCases() {
		add("FuzzCrossDecode", "refused-"+c.name, payload(rawFrame(c.kind, c.body)))
	}
	for k := uint8(0); k < 12; k++ {
		add("FuzzCrossEncode", fmt.Sprintf("kind%02d-valid", k), k, uint32(0b1010_1010_1010_1011), "example.com/p", "BenchmarkX/n=1", int64(1000), int64(300), uint64(1<<40), 2.5)
		add("FuzzCrossEncode", fmt.Sprintf("kind%02d-edges", k), k, uint32(math.MaxUint32), "ünï\xff", "", int64(math.MinInt64), int64(-1), uint64(math.MaxUint64), math.Inf(1))
	}
	return files
}

// TestSeedCorpus keeps the checked-in seed corpus in step with the test
// cases; go test -run TestSeedCorpus -update rewrites it. Files the fuzzer
// added (crashers found and fixed) are left alone.
func TestSeedCorpus(t *testing.T) {
	for name, content := range seedCorpus() {
		path := filepath.Join("testdata", "fuzz", name)
		if *updateCorpus {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("seed corpus: %v (run go test ./protocol/msgpackcodec -run TestSeedCorpus -update)", err)
		}
		if string(got) != content {
			t.Errorf("seed %s is stale (run go test ./protocol/msgpackcodec -run TestSeedCorpus -update)", name)
		}
	}
}
