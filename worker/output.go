package worker

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// benchOutput is what one testing.RunBenchmarks call printed about the
// benchmarks under one top-level function, in -test.v=test2json form.
//
// In that form testing marks its own status lines (=== RUN, === NAME,
// --- FAIL, --- SKIP, --- BENCH) with a frame marker, so that they cannot
// be confused with what the code under test printed; its name line and
// its result line are not marked. A run's result is therefore the last
// unmarked line that ends with a result of the benchmark testing last
// started, before the marked line that follows every result (=== NAME):
// what the code printed before it (a line shaped like a result, or a
// partial line glued in front of it) does not count, and neither does
// anything before a --- FAIL or --- SKIP.
type benchOutput struct {
	top     string // the top-level function's name
	started []string
	results map[string][]protocol.Sample // in the order printed
	// onResult, if set, is called with each result's name as it is parsed.
	onResult func(name string)
	skipped  map[string]string
	failed   map[string]string
	// goexit counts the runs of a benchmark that testing printed with
	// 0 iterations: the function ended through runtime.Goexit without
	// failing or skipping, so testing recorded nothing.
	goexit  map[string]int
	pending strings.Builder // indented output since testing's last status line
	current string          // the benchmark testing started last (=== RUN)
	named   bool            // its unmarked name line was seen

	// cand is the latest unmarked line that parsed as a result of current
	// since testing's last status line, and held what was printed from it
	// on, not yet forwarded, so that the code's output keeps its order:
	// cand is forwarded too unless testing's next status line shows it was
	// the result. Past maxHeld bytes the lines after cand are forwarded
	// as they come (testing writes its status line right after a result,
	// so only the code can print that much there).
	cand     *protocol.Sample
	candCode string   // what the code printed on the candidate's line
	candDrop []string // the candidate's units beyond protocol.MaxExtraPerSample
	// dropped holds, by leaf, the units its results left out, beyond
	// protocol.MaxExtraPerSample; exactDropped those of exact.
	dropped      map[string][]string
	exactDropped []string
	head         bool // a line since testing's last status line held a head without values
	held         [][]byte
	heldBytes    int
	forward      io.Writer // where the code's output goes; nil drops it

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
	// stdoutClosed says the code under test closed os.Stdout.
	stdoutClosed bool
	// goexitTop says the wrapper saw the top-level function end through
	// runtime.Goexit (not FailNow or SkipNow).
	goexitTop bool
}

func newBenchOutput(top string) *benchOutput {
	return &benchOutput{
		top:     top,
		results: map[string][]protocol.Sample{},
		skipped: map[string]string{},
		failed:  map[string]string{},
		goexit:  map[string]int{},
	}
}

// under reports whether name is the top-level function or one of its
// sub-benchmarks.
func (o *benchOutput) under(name string) bool {
	return name == o.top || strings.HasPrefix(name, o.top+"/")
}

// canonical strips testing's "-P" suffix from a printed name when the bare
// name is one this run started and the suffixed one is not. P is an entry
// of testing's -test.cpu list, fixed when m.Run parsed it, so the worker
// does not predict it from GOMAXPROCS, which the code under test may have
// changed.
func (o *benchOutput) canonical(name string) string {
	bare, ok := cutProcs(name)
	if ok && slices.Contains(o.started, bare) && !slices.Contains(o.started, name) {
		return bare
	}
	return name
}

// cutProcs cuts a "-<digits>" suffix from name.
func cutProcs(name string) (string, bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return name, false
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name, false
		}
	}
	return name[:i], true
}

// feed consumes one piece of output as splitFramed cut it. A line of the
// code's that cannot be one of testing's (it does not hold the benchmark's
// name, and no result head came before it) is forwarded as it is, without
// a copy: a benchmark printing millions of lines costs the worker no
// allocation per line, and none shows in its allocation counts.
func (o *benchOutput) feed(raw []byte, parsed bool) {
	if !parsed {
		o.emit(raw)
		return
	}
	line := bytes.TrimSuffix(raw, newline)
	if len(line) > 0 && line[0] == frameMarker {
		o.status(string(line[1:]))
		return
	}
	switch {
	case !o.named && o.current != "" && string(line) == o.current:
		o.named = true // testing's name line after its === RUN
	case len(o.started) == 0 && isHeader(line):
		// testing's once-per-process header, printed before the first === RUN
	default:
		if o.current != "" && (o.head || bytes.Contains(line, []byte(o.current))) {
			sample, code, drop, ok, head := o.parseResult(string(line))
			o.head = o.head || head
			if ok {
				o.settle(false) // an earlier result-shaped line was the code's
				o.cand, o.candCode, o.candDrop = &sample, code, drop
				o.held, o.heldBytes = [][]byte{slices.Clone(raw)}, 0
				return
			}
		}
		if o.pending.Len() < protocol.MaxTextLen {
			if l, ok := loggedLine(line); ok {
				o.pending.Write(l)
				o.pending.WriteByte('\n')
			}
		}
		o.emit(raw)
	}
}

var newline = []byte("\n")

// feedAll feeds the whole of text, as captureOutput would.
func (o *benchOutput) feedAll(text string) {
	splitFramed(strings.NewReader(text), o.feed)
	o.settle(false)
}

// maxHeld bounds what is held after a candidate result.
const maxHeld = 64 << 10

// emit forwards what the code printed, after the held candidate if any.
func (o *benchOutput) emit(raw []byte) {
	if o.cand != nil && len(o.held) > 0 {
		if o.heldBytes+len(raw) <= maxHeld {
			o.held = append(o.held, slices.Clone(raw))
			o.heldBytes += len(raw)
			return
		}
		after := o.held[1:]
		o.held, o.heldBytes = o.held[:1], maxHeld+1 // hold no more
		for _, h := range after {
			o.write(h)
		}
	}
	o.write(raw)
}

func (o *benchOutput) write(raw []byte) {
	if o.forward != nil {
		o.forward.Write(raw)
	}
}

// settle ends the pending candidate: with result, testing's status line
// says it was the result of the run (its line is not forwarded); else it
// was the code's output and is forwarded.
func (o *benchOutput) settle(result bool) {
	held, cand, drop := o.held, o.cand, o.candDrop
	o.cand, o.candDrop, o.held, o.heldBytes = nil, nil, nil, 0
	if cand != nil && result {
		// What the code printed in front of the result on its line is
		// the code's.
		held = held[1:]
		if o.candCode != "" {
			o.emit([]byte(o.candCode))
		}
		switch name := o.current; {
		case cand.Iterations == 0:
			o.goexit[name]++
		default:
			o.results[name] = append(o.results[name], *cand)
			if len(drop) > 0 {
				if o.dropped == nil {
					o.dropped = map[string][]string{}
				}
				o.dropped[name] = append(o.dropped[name], drop...)
			}
			if o.onResult != nil {
				o.onResult(name)
			}
		}
	}
	for _, raw := range held {
		o.emit(raw)
	}
}

// status consumes one of testing's own status lines.
func (o *benchOutput) status(s string) {
	o.head = false
	switch {
	case strings.HasPrefix(s, "=== NAME"):
		o.settle(true)
	case strings.HasPrefix(s, "--- BENCH: "):
		o.settle(true)
		o.takePending()
	case strings.HasPrefix(s, "=== RUN   "):
		o.settle(false)
		name := strings.TrimPrefix(s, "=== RUN   ")
		if o.under(name) {
			o.started = append(o.started, name)
			o.current, o.named = name, false
		}
		o.takePending()
	case strings.HasPrefix(s, "--- FAIL: "):
		o.settle(false)
		o.failed[o.canonical(strings.TrimPrefix(s, "--- FAIL: "))] = o.takePending()
	case strings.HasPrefix(s, "--- SKIP: "):
		o.settle(false)
		o.skipped[o.canonical(strings.TrimPrefix(s, "--- SKIP: "))] = o.takePending()
	default:
		o.settle(false)
	}
}

// logPrefix finds a line testing prints for b.Log, b.Error, b.Fatal or
// b.Skip ("    file.go:12: text"), possibly after a partial line of the
// code's output.
var logPrefix = regexp.MustCompile(`    [^\s]+\.go:\d+: `)

// loggedLine returns what a line of b.Log output logged: the text after
// testing's four spaces of indentation (a continuation line keeps its own
// four).
func loggedLine(s []byte) ([]byte, bool) {
	if rest, ok := bytes.CutPrefix(s, []byte("    ")); ok {
		return rest, true
	}
	if !bytes.Contains(s, []byte(".go:")) {
		return nil, false // what logPrefix needs, found faster
	}
	if loc := logPrefix.FindIndex(s); loc != nil {
		return s[loc[0]+4:], true
	}
	return nil, false
}

// isHeader reports testing's once-per-process header lines.
func isHeader(s []byte) bool {
	for _, key := range []string{"goos: ", "goarch: ", "pkg: ", "cpu: "} {
		if bytes.HasPrefix(s, []byte(key)) {
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

// parseResult parses the end of s as a result line of the benchmark
// testing started last, such as
//
//	BenchmarkX/n=1-2   	  100	  2.600 ns/op	  12 B/op	  1 allocs/op	  3.5 widgets/op
//
// and returns what on the line the code printed instead. testing writes
// the name, padded with spaces, and a tab (the head) in one write, then
// the iterations and the tab-separated values in another; a name holds no
// tab or space (testing rewrites them). So the code's output may stand in
// front of the head and, from another goroutine, between the head and the
// iterations; if that output ended a line there, the values come on a
// later line (headless, accepted after a head). head reports that s holds
// a head without values. A result of 0 iterations is one of a run that
// ended through runtime.Goexit.
func (o *benchOutput) parseResult(s string) (sample protocol.Sample, code string, dropped []string, ok, head bool) {
	name := o.current
	if name == "" {
		return protocol.Sample{}, "", nil, false, false
	}
	// The result is at the end: try the name's occurrences from the last.
	// Only a value field (a unit spelled like the name) can hold an
	// occurrence after testing's head, so the head is among the first
	// maxHeadTries tried; trying every occurrence would cost time
	// quadratic in a line the code printed full of the name.
	for end, tries := len(s), 0; end > 0 && tries < maxHeadTries; tries++ {
		i := strings.LastIndex(s[:end], name)
		if i < 0 {
			break
		}
		end = i + len(name) - 1
		rest, ok := cutHead(s[i+len(name):])
		if !ok {
			continue
		}
		if sample, mid, dropped, ok := parseValues(rest); ok {
			return sample, s[:i] + mid, dropped, true, false
		}
		head = true
	}
	if o.head && !head {
		if sample, mid, dropped, ok := parseValues(s); ok {
			return sample, mid, dropped, true, false
		}
	}
	return protocol.Sample{}, "", nil, false, head
}

// maxHeadTries bounds the occurrences of a benchmark's name parseResult
// tries on one line: more than a result line has value fields (ns/op, MB/s,
// B/op, allocs/op and the extra metrics the worker keeps).
const maxHeadTries = protocol.MaxExtraPerSample + 5

// cutHead cuts what follows the name in testing's head: an optional "-P",
// padding and a tab.
func cutHead(rest string) (string, bool) {
	if strings.HasPrefix(rest, "-") {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 1 {
			return "", false
		}
		rest = rest[j:]
	}
	return strings.CutPrefix(strings.TrimLeft(rest, " "), "\t")
}

// isValue reports whether f is one "<number> <unit>" of a result line.
func isValue(f string) bool {
	parts := strings.Fields(f)
	if len(parts) != 2 {
		return false
	}
	_, err := strconv.ParseFloat(parts[0], 64)
	return err == nil
}

// parseValues parses the end of t as testing's iterations ("%8d") and
// values, and returns what stands in front of them, and the units beyond
// protocol.MaxExtraPerSample, left out (testing prints them sorted: the
// first ones are kept).
func parseValues(t string) (sample protocol.Sample, code string, dropped []string, ok bool) {
	fields := strings.Split(t, "\t")
	k := len(fields) - 1
	for k > 0 && isValue(fields[k]) {
		k--
	}
	if k == len(fields)-1 {
		return protocol.Sample{}, "", nil, false // testing prints ns/op at least
	}
	before := fields[k]
	j := len(before)
	for j > 0 && before[j-1] >= '0' && before[j-1] <= '9' {
		j--
	}
	n, err := strconv.ParseInt(before[j:], 10, 64)
	if err != nil {
		return protocol.Sample{}, "", nil, false
	}
	code = before[:j]
	for pad := 8 - (len(before) - j); pad > 0 && strings.HasSuffix(code, " "); pad-- {
		code = code[:len(code)-1] // testing's own padding
	}
	code = strings.Join(append(fields[:k:k], code), "\t")
	sample = protocol.Sample{Iterations: n}
	total := func(perOp float64) uint64 { return uint64(math.Round(perOp * float64(n))) }
	for _, f := range fields[k+1:] {
		parts := strings.Fields(f)
		v, _ := strconv.ParseFloat(parts[0], 64)
		finite := !math.IsNaN(v) && !math.IsInf(v, 0)
		// b.ReportMetric takes any unit without spaces: invalid UTF-8 or
		// one longer than the protocol carries is mended, kept apart from
		// other units, rather than costing the row its frame.
		switch unit := protocol.ShortName(strings.ToValidUTF8(parts[1], "\uFFFD")); {
		case unit == "ns/op" || unit == "B/op" || unit == "allocs/op":
			if !finite {
				continue // testing divides by 0 iterations
			}
			switch unit {
			case "ns/op":
				sample.ElapsedNs = int64(math.Round(v * float64(n)))
			case "B/op":
				b := total(v)
				sample.AllocBytes = &b
			default:
				a := total(v)
				sample.Allocs = &a
			}
		case len(sample.Extra) >= protocol.MaxExtraPerSample:
			dropped = append(dropped, unit)
		case !finite:
			sample.Extra = append(sample.Extra, unmeasuredMetric(unit, v))
		default:
			sample.Extra = append(sample.Extra, protocol.Metric{Unit: unit, Value: v})
		}
	}
	if (sample.AllocBytes == nil) != (sample.Allocs == nil) {
		sample.AllocBytes, sample.Allocs = nil, nil
	}
	return sample, code, dropped, true
}

// unmeasuredMetric is a b.ReportMetric value that is no number (NaN or an
// infinity): it travels with the reason instead of the value.
func unmeasuredMetric(unit string, v float64) protocol.Metric {
	return protocol.Metric{Unit: unit, Unmeasured: "the benchmark reported " + strconv.FormatFloat(v, 'g', -1, 64) + " (b.ReportMetric)"}
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

// maxLine bounds one captured line: of a longer line only the last maxLine
// bytes are parsed (the rest still reaches the real stdout). The end is
// what matters: a benchmark that prints a dot per iteration without a
// newline glues testing's result to the end of a very long line.
//
// It is twice protocol.MaxTextLen, so that testing's === RUN line for a
// name as long as a request can carry is read whole.
const maxLine = 2 * protocol.MaxTextLen

// frameMarker is the byte testing writes before each of its own lines under
// -test.v=test2json (^V), so that they can be told from what the code under
// test printed; cmd/test2json reads the stream the same way.
const frameMarker = 0x16

// drainWait and drainLimit bound how long the worker waits, after the code
// under test returned, for the end of its redirected stdout. A process the
// code started and left running may hold an inherited copy of the pipe's
// write end for ever; as os/exec's WaitDelay does, the worker then stops
// reading (docs/design.md#containment: the supervisor stops what the child
// left). The reader may still be handing on what was written before (its
// forwarding can wait on the real stdout's reader), so the worker stops
// after drainWait without progress, or after drainLimit in all (a holder
// that keeps writing).
const (
	drainWait  = 250 * time.Millisecond
	drainLimit = 2 * time.Second
)

// captureStdout runs f with os.Stdout redirected into a pipe and hands every
// line to line, in order, before it returns. A line ends at a newline, or
// just before a frame marker that does not start it (the code printed a
// partial line and testing then framed one of its own), or at the end of
// the output. raw is the line as written: testing's own lines start with
// the frame marker, and raw ends with the newline when there is one. A
// line for which line returns true is forwarded, as written, to the
// original stdout (which the supervisor captures, bounded), so that a
// failing child's output tail shows what the code under test printed.
//
// If the pipe is still held open drainWait after f returned (see
// captureOutput), what arrived by then was handed on and the rest is
// dropped.
func captureStdout(f func(), line func(raw []byte) (forward bool)) error {
	_, err := captureOutput(f, func(raw []byte, parsed bool, fwd io.Writer) {
		if !parsed || line(raw) {
			fwd.Write(raw)
		}
	})
	return err
}

// captured says how a capture ended.
type captured struct {
	// held says something (a process the code under test started, which
	// inherited the pipe as its stdout) still held the pipe open
	// drainWait after f returned.
	held bool
	// closed says the code under test closed os.Stdout, the pipe, so
	// testing could print nothing after that.
	closed bool
}

// captureOutput runs f with os.Stdout redirected into a pipe and hands each
// piece of what was written to handle, in order, as splitFramed cuts it,
// with the original stdout to forward to. It returns once the pipe's
// output ended, or drainWait after f returned if something still holds it
// open.
//
// What handle forwards is buffered and written to the original stdout
// whenever the reader has read all there is for now (capturePipe's idle):
// a flood of short lines reaches the supervisor in large writes, not a
// write per line.
func captureOutput(f func(), handle func(raw []byte, parsed bool, fwd io.Writer)) (c captured, err error) {
	r, w, err := newCapturePipe()
	if err != nil {
		return captured{}, err
	}
	orig := os.Stdout
	fwd := bufio.NewWriterSize(orig, forwardBuffer)
	r.idle = func() { fwd.Flush() }
	done := make(chan struct{})
	var progress atomic.Int64 // pieces handed on
	go func() {
		defer close(done)
		defer fwd.Flush()
		splitFramed(r, func(raw []byte, parsed bool) {
			handle(raw, parsed, fwd)
			progress.Add(1)
		})
	}()
	os.Stdout = w
	defer func() {
		os.Stdout = orig
		c.closed = errors.Is(w.Close(), os.ErrClosed)
		defer r.close() // once the reader returned
		t := time.NewTicker(drainWait)
		defer t.Stop()
		limit := time.Now().Add(drainLimit)
		for last := progress.Load(); ; {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if n := progress.Load(); n != last && time.Now().Before(limit) {
				last = n
				continue
			}
			// A later write by the holder fails with EPIPE once the
			// read end is closed.
			c.held = true
			r.stop()
			<-done
			return
		}
	}()
	f()
	return captured{}, nil
}

// forwardBuffer is the most forwarded output held before it is written.
const forwardBuffer = 64 << 10

// splitFramed reads r to its end and calls emit with each line as written
// (newline included when there is one); parsed is false for the part of a
// line before its last maxLine bytes, which is handed on first, in pieces.
func splitFramed(r io.Reader, emit func(raw []byte, parsed bool)) {
	br := bufio.NewReaderSize(r, maxLine)
	var buf []byte
	overlong := false // the current line passed maxLine: buf holds its tail
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

// appendLine adds p to the pending line; once the line passes maxLine its
// oldest bytes are handed on unparsed, so that buf keeps its last maxLine.
func appendLine(buf *[]byte, overlong *bool, p []byte, emit func([]byte, bool)) {
	if len(*buf)+len(p) <= maxLine {
		*buf = append(*buf, p...)
		return
	}
	*overlong = true
	if len(p) >= maxLine {
		if len(*buf) > 0 {
			emit(*buf, false)
		}
		if len(p) > maxLine {
			emit(p[:len(p)-maxLine], false)
		}
		*buf = append((*buf)[:0], p[len(p)-maxLine:]...)
		return
	}
	cut := len(*buf) + len(p) - maxLine
	emit((*buf)[:cut], false)
	n := copy(*buf, (*buf)[cut:])
	*buf = append((*buf)[:n], p...)
}

// flushLine emits the pending line, if any, and starts a new one.
func flushLine(buf *[]byte, overlong *bool, emit func([]byte, bool)) {
	if len(*buf) > 0 {
		emit(*buf, true)
	}
	*buf = (*buf)[:0]
	*overlong = false
}
