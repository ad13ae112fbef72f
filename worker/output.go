package worker

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// benchOutput is what one testing.RunBenchmarks call printed about the
// benchmarks under one top-level function, in -test.v form.
type benchOutput struct {
	top     string // the top-level function's name
	suffix  string // "-P" that testing appends to result names, "" when P == 1
	started []string
	results map[string][]protocol.Sample // in the order printed
	// onResult, if set, is called with each result's name as it is parsed.
	onResult func(name string)
	skipped  map[string]string
	failed   map[string]string
	pending  strings.Builder // indented output since the last name line
	current  string          // the benchmark whose name line came last
	// exact are the totals the wrapper read from B after each run of a
	// leaf top-level function, in run order, and bytesPerOp its
	// b.SetBytes value.
	exact      []protocol.Sample
	bytesPerOp int64
	outside    []time.Duration // per exact run: the call's time outside the timer
	// skippedRun says a leaf skipped itself in a run of n (testing then
	// prints a result line, not a skip), skipLog what it logged.
	skippedRun bool
	skipLog    string
}

func newBenchOutput(top string, procs int) *benchOutput {
	o := &benchOutput{
		top:     top,
		results: map[string][]protocol.Sample{},
		skipped: map[string]string{},
		failed:  map[string]string{},
	}
	if procs != 1 {
		o.suffix = "-" + strconv.Itoa(procs)
	}
	return o
}

// under reports whether name is the top-level function or one of its
// sub-benchmarks.
func (o *benchOutput) under(name string) bool {
	return name == o.top || strings.HasPrefix(name, o.top+"/")
}

// canonical strips testing's "-P" suffix from a printed name when the bare
// name is one this run started.
func (o *benchOutput) canonical(name string) string {
	if bare, ok := strings.CutSuffix(name, o.suffix); ok && o.suffix != "" {
		for _, s := range o.started {
			if s == bare {
				return bare
			}
		}
	}
	return name
}

// line consumes one line of output (without its newline) and reports
// whether it is worth forwarding: everything but testing's own framing (name
// lines, result lines, the goos/goarch/pkg/cpu header).
func (o *benchOutput) line(s string) (forward bool) {
	forward = true
	switch {
	case strings.HasPrefix(s, "    "):
		if o.pending.Len() < protocol.MaxTextLen {
			o.pending.WriteString(strings.TrimPrefix(s, "    "))
			o.pending.WriteByte('\n')
		}
	case strings.HasPrefix(s, "--- SKIP: "):
		o.skipped[o.canonical(strings.TrimPrefix(s, "--- SKIP: "))] = o.takePending()
	case strings.HasPrefix(s, "--- FAIL: "):
		o.failed[o.canonical(strings.TrimPrefix(s, "--- FAIL: "))] = o.takePending()
	case strings.HasPrefix(s, "--- BENCH: "):
		o.takePending()
	case isHeader(s):
		forward = false
	case !strings.Contains(s, "\t"):
		if o.under(s) {
			o.started = append(o.started, s)
			o.current = s
			o.takePending()
			forward = false
		}
	default:
		forward = !o.result(s)
	}
	return forward
}

// isHeader reports testing's once-per-process header lines.
func isHeader(s string) bool {
	for _, key := range []string{"goos: ", "goarch: ", "pkg: ", "cpu: "} {
		if strings.HasPrefix(s, key) {
			return true
		}
	}
	return false
}

func (o *benchOutput) takePending() string {
	s := strings.TrimRight(o.pending.String(), "\n")
	o.pending.Reset()
	return s
}

// result parses a result line such as
//
//	BenchmarkX/n=1-2   	  100	  2.600 ns/op	  12 B/op	  1 allocs/op	  3.5 widgets/op
//
// and reports whether it was one.
func (o *benchOutput) result(s string) bool {
	fields := strings.Split(s, "\t")
	if len(fields) < 2 {
		return false
	}
	name := o.canonical(strings.TrimSpace(fields[0]))
	if !o.under(name) {
		return false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(fields[1]), 10, 64)
	if err != nil || n <= 0 {
		return false
	}
	sample := protocol.Sample{Iterations: n}
	total := func(perOp float64) uint64 { return uint64(math.Round(perOp * float64(n))) }
	for _, f := range fields[2:] {
		parts := strings.Fields(f)
		if len(parts) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(parts[0], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		switch unit := parts[1]; unit {
		case "ns/op":
			sample.ElapsedNs = int64(math.Round(v * float64(n)))
		case "B/op":
			b := total(v)
			sample.AllocBytes = &b
		case "allocs/op":
			a := total(v)
			sample.Allocs = &a
		default:
			if len(sample.Extra) < protocol.MaxExtraPerSample {
				sample.Extra = append(sample.Extra, protocol.Metric{Unit: unit, Value: v})
			}
		}
	}
	if (sample.AllocBytes == nil) != (sample.Allocs == nil) {
		sample.AllocBytes, sample.Allocs = nil, nil
	}
	o.results[name] = append(o.results[name], sample)
	if o.onResult != nil {
		o.onResult(name)
	}
	return true
}

// leaves returns the started names that have no started sub-benchmark: the
// identities that can each be measured on their own.
func (o *benchOutput) leaves() []string {
	var out []string
	for i, s := range o.started {
		parent := false
		for _, t := range o.started[i+1:] {
			if strings.HasPrefix(t, s+"/") {
				parent = true
				break
			}
		}
		if !parent && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// maxLine bounds one captured line; the rest of a longer line is dropped
// from parsing (it still reaches the real stdout).
const maxLine = 64 << 10

// frameMarker is the byte testing writes before each of its own lines under
// -test.v=test2json (^V), so that they can be told from what the code under
// test printed; cmd/test2json reads the stream the same way.
const frameMarker = 0x16

// captureStdout runs f with os.Stdout redirected into a pipe and hands every
// line to line, in order, before it returns. A line ends at a newline, or
// just before a frame marker that does not start it (the code printed a
// partial line and testing then framed one of its own), or at the end of
// the output. framed reports that the line is testing's own (the marker is
// stripped); s never holds the newline. A line for which line returns true
// is forwarded, as written, to the original stdout (which the supervisor
// captures, bounded), so that a failing child's output tail shows what the
// code under test printed.
func captureStdout(f func(), line func(s string, framed bool) (forward bool)) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	orig := os.Stdout
	done := make(chan struct{})
	go func() {
		defer close(done)
		splitFramed(r, func(raw []byte, parsed bool) {
			if !parsed {
				orig.Write(raw)
				return
			}
			s := strings.TrimSuffix(string(raw), "\n")
			framed := len(s) > 0 && s[0] == frameMarker
			if framed {
				s = s[1:]
			}
			if line(s, framed) {
				orig.Write(raw)
			}
		})
	}()
	os.Stdout = w
	defer func() {
		os.Stdout = orig
		w.Close()
		<-done
		r.Close()
	}()
	f()
	return nil
}

// splitFramed reads r to its end and calls emit with each line as written
// (newline included when there is one); parsed is false for the part of a
// line beyond maxLine, which is handed on in pieces.
func splitFramed(r io.Reader, emit func(raw []byte, parsed bool)) {
	br := bufio.NewReaderSize(r, maxLine)
	var buf []byte
	overlong := false // the current line passed maxLine: the rest is not parsed
	for {
		chunk, err := br.ReadSlice('\n')
		for len(chunk) > 0 {
			// A marker that does not start the pending line starts a new one.
			from := 0
			if len(buf) == 0 && !overlong && chunk[0] == frameMarker {
				from = 1
			}
			if j := bytes.IndexByte(chunk[from:], frameMarker); j >= 0 {
				appendLine(&buf, &overlong, chunk[:from+j], emit)
				flushLine(&buf, &overlong, emit)
				chunk = chunk[from+j:]
				continue
			}
			appendLine(&buf, &overlong, chunk, emit)
			if chunk[len(chunk)-1] == '\n' {
				flushLine(&buf, &overlong, emit)
			}
			chunk = nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			flushLine(&buf, &overlong, emit)
			return
		}
	}
}

// appendLine adds p to the pending line, or hands it on unparsed once the
// line passed maxLine.
func appendLine(buf *[]byte, overlong *bool, p []byte, emit func([]byte, bool)) {
	if *overlong {
		emit(p, false)
		return
	}
	if room := maxLine - len(*buf); len(p) > room {
		*buf = append(*buf, p[:room]...)
		emit(*buf, true)
		*buf = (*buf)[:0]
		*overlong = true
		emit(p[room:], false)
		return
	}
	*buf = append(*buf, p...)
}

// flushLine emits the pending line, if any, and starts a new one.
func flushLine(buf *[]byte, overlong *bool, emit func([]byte, bool)) {
	if len(*buf) > 0 {
		emit(*buf, true)
	}
	*buf = (*buf)[:0]
	*overlong = false
}
