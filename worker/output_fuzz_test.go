package worker

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/benchsup/benchsup/protocol"
)

// maxSeed bounds a recorded output used as a seed.
const maxSeed = 4 << 10

// addRecorded seeds f with every recorded output under dir whose name ends
// in suffix: testing's real framed output, captured from real runs.
func addRecorded(f *testing.F, dir, suffix string) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*"+suffix))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no recorded output under testdata/%s: %v", dir, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		// The fuzzer mutates and minimizes an input whole: a large one
		// would spend the run on itself. Its head still seeds the
		// shapes it holds.
		f.Add(strings.TrimSuffix(filepath.Base(p), suffix), string(data[:min(len(data), maxSeed)]))
	}
}

// parseChunked is parseText with the output read through r's shape, as a
// pipe hands it over in pieces.
func parseChunked(top string, r io.Reader) (*benchOutput, string) {
	o := newBenchOutput(top)
	var fwd bytes.Buffer
	o.forward = &fwd
	splitFramed(r, o.feed)
	o.settle(false)
	return o, fwd.String()
}

// FuzzBenchOutput feeds arbitrary text, as the code under test may print
// anything (testing's frame marker included), through the parser of
// testing's benchmark output. It must never panic; how the pipe cuts the
// text must not change what is parsed or forwarded; it forwards no byte
// that was not printed; and every result it accepts is one the worker may
// send: a sample the protocol validates, under a name it started.
func FuzzBenchOutput(f *testing.F) {
	addRecorded(f, "bench", ".out")
	f.Add("BenchmarkX", m+"=== RUN   BenchmarkX\nBenchmarkX\n-1\t-5 ns/op\n"+m+"=== NAME\n")
	f.Add("BenchmarkX", m+"=== RUN   BenchmarkX\nBenchmarkX-2 \t 100\t NaN ns/op\t 1 B/op\n"+m+"--- BENCH: BenchmarkX\n")
	f.Fuzz(func(t *testing.T, top, text string) {
		o, fwd := parseChunked(top, strings.NewReader(text))
		for _, shape := range []struct {
			name string
			r    io.Reader
		}{
			{"one byte at a time", iotest.OneByteReader(strings.NewReader(text))},
			{"half reads", iotest.HalfReader(strings.NewReader(text))},
		} {
			o2, fwd2 := parseChunked(top, shape.r)
			if fwd2 != fwd {
				t.Fatalf("%s: forwarded %q, in one read %q", shape.name, fwd2, fwd)
			}
			if !sameResults(o.results, o2.results) {
				t.Fatalf("%s: results %v, in one read %v", shape.name, o2.results, o.results)
			}
		}
		if len(fwd) > len(text) {
			t.Fatalf("forwarded %d bytes of %d printed", len(fwd), len(text))
		}
		for name, samples := range o.results {
			if !o.under(name) {
				t.Errorf("result for %q, not under %q", name, top)
			}
			for _, s := range samples {
				msg := protocol.Result{Identity: protocol.Identity{Package: "p", Name: "BenchmarkX"}, Samples: []protocol.Sample{s}}
				if _, err := protocol.AppendFrame(nil, msg); err != nil {
					t.Errorf("result %q: the parser accepted %+v, which the protocol refuses: %v", name, s, err)
				}
			}
		}
	})
}

func sameResults(a, b map[string][]protocol.Sample) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || len(va) != len(vb) {
			return false
		}
		for i := range va {
			if !sameSample(va[i], vb[i]) {
				return false
			}
		}
	}
	return true
}

func sameSample(a, b protocol.Sample) bool {
	eq := func(x, y *uint64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	if a.Iterations != b.Iterations || a.ElapsedNs != b.ElapsedNs || !eq(a.AllocBytes, b.AllocBytes) ||
		!eq(a.Allocs, b.Allocs) || len(a.Extra) != len(b.Extra) {
		return false
	}
	for i := range a.Extra {
		x, y := a.Extra[i], b.Extra[i]
		// NaN never equals itself; the parser turns it into a reason.
		if x.Unit != y.Unit || x.Unmeasured != y.Unmeasured || (x.Value != y.Value && x.Value == x.Value) {
			return false
		}
	}
	return true
}

// FuzzTestStream feeds arbitrary text through test mode's reader of
// testing's framed verbose output, line by line as captureStdout hands it
// over. It must never panic, and every event it emits must be one the
// protocol accepts: a test's own output cannot make the worker send a frame
// the supervisor refuses.
func FuzzTestStream(f *testing.F) {
	addRecorded(f, "test2json", ".stdout")
	f.Add("", m+"=== RUN   TestA\n"+m+"=== PAUSE TestA\n"+m+"=== CONT  TestA\n"+m+"--- PASS: TestA (0.00s)\n")
	f.Add("", m+"=== RUN   \xff\xfe\n\xff output\n"+m+"--- FAIL: \xff\xfe (0.00s)\n")
	f.Fuzz(func(t *testing.T, _, text string) {
		for _, batch := range []bool{false, true} {
			st := newTestStream(func(ev protocol.TestEvent) {
				if _, err := protocol.AppendFrame(nil, ev); err != nil {
					t.Fatalf("batch %v: the worker would send %+v, which the protocol refuses: %v", batch, ev, err)
				}
			})
			st.batch = batch
			// As captureToFile hands lines over: the unparsed head of an
			// overlong line goes straight to stdout, never into an event.
			splitFramed(strings.NewReader(text), func(raw []byte, parsed bool) {
				if parsed {
					st.line(raw)
				}
			})
			st.close()
		}
	})
}
