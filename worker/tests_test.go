package worker

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

// feed hands data to st line by line as captureStdout does.
func feed(st *testStream, data []byte) {
	splitFramed(bytes.NewReader(data), func(raw []byte, parsed bool) {
		if parsed {
			st.line(raw)
		}
	})
}

// summary renders events as "action test" and output as "output test: text".
func summary(evs []protocol.TestEvent) []string {
	var out []string
	for _, e := range evs {
		if e.Action == protocol.TestOutput {
			out = append(out, "output "+e.Test+": "+strings.TrimSpace(e.Output))
			continue
		}
		out = append(out, string(e.Action)+" "+e.Test)
	}
	return out
}

// The captures under testdata/test2json are the stdout of real test
// binaries run with -test.v=test2json (the module of
// integration/testdata/test_attribution.txtar).
func TestTestStreamReadsTestingsFrames(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"mixed.stdout", []string{
			"run TestSeqLogs", "output TestSeqLogs: attr_test.go:11: seq logs here", "pass TestSeqLogs",
			"run TestParPanics", "pause TestParPanics",
			"run TestParSibling", "pause TestParSibling",
			"run TestSkipsWithReason", "output TestSkipsWithReason: attr_test.go:74: no network here", "skip TestSkipsWithReason",
			"run TestFailsInSubtest", "run TestFailsInSubtest/inner", "output TestFailsInSubtest/inner: attr_test.go:77: inner failure",
			"fail TestFailsInSubtest/inner", "fail TestFailsInSubtest",
			"run TestLast", "pass TestLast",
			"cont TestParSibling", "cont TestParPanics", "fail TestParPanics",
		}},
		{"TestGroup.stdout", []string{
			"run TestGroup", "run TestGroup/boom", "pause TestGroup/boom", "run TestGroup/calm", "pause TestGroup/calm",
			"cont TestGroup/boom", "cont TestGroup/calm", "fail TestGroup/boom", "fail TestGroup",
		}},
		{"TestSubExit0.stdout", []string{"run TestSubExit0", "run TestSubExit0/zero", "fail TestSubExit0/zero", "fail TestSubExit0"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "test2json", tt.file))
			require.NoError(t, err)
			var evs []protocol.TestEvent
			st := newTestStream(func(e protocol.TestEvent) { evs = append(evs, e) })
			feed(st, data)
			assert.Equal(t, tt.want, summary(evs))
			for _, e := range evs {
				assert.GreaterOrEqual(t, e.ElapsedNs, int64(0))
				assert.NotContains(t, e.Output, "\x16", "testing's frames are never output")
			}
		})
	}
}

func TestTestStreamAttributesOutput(t *testing.T) {
	const m = "\x16"
	in := m + "=== RUN   TestA\n" +
		"code prints\n" +
		m + "=== RUN   TestA/sub\n" +
		"    a_test.go:3: sub logs\n" +
		"partial line " + m + "=== NAME  TestA\n" + // the code left a line open; testing framed one of its own
		"    a_test.go:5: back in TestA\n" +
		m + "--- PASS: TestA/sub (0.00s)\n" +
		m + "=== NAME  \n" +
		"outside any test\n" +
		m + "=== ATTR  TestA key value\n" +
		m + "--- FAIL: TestA (0.01s)\n"
	var evs []protocol.TestEvent
	st := newTestStream(func(e protocol.TestEvent) { evs = append(evs, e) })
	feed(st, []byte(in))
	assert.Equal(t, []string{
		"run TestA", "output TestA: code prints",
		"run TestA/sub", "output TestA/sub: a_test.go:3: sub logs",
		"output TestA/sub: partial line",
		"output TestA: a_test.go:5: back in TestA",
		"pass TestA/sub",
		"output : outside any test",
		"fail TestA",
	}, summary(evs))
}

func TestTestStreamBoundsOutputPerTopLevelTest(t *testing.T) {
	var b strings.Builder
	b.WriteString("\x16=== RUN   TestLoud\n")
	line := strings.Repeat("x", 999) + "\n"
	lines := 0
	for b.Len() < 3*maxTestOutput {
		b.WriteString(line)
		lines++
	}
	b.WriteString("\x16=== RUN   TestLoud/sub\n" + line + "\x16--- PASS: TestLoud/sub (0.00s)\n")
	lines++
	b.WriteString("\x16--- PASS: TestLoud (0.00s)\n\x16=== RUN   TestQuiet\nquiet\n\x16--- PASS: TestQuiet (0.00s)\n")
	sent := map[string]int{}
	var notes []string
	st := newTestStream(func(e protocol.TestEvent) {
		if e.Action != protocol.TestOutput {
			return
		}
		if strings.HasPrefix(e.Output, "[") {
			notes = append(notes, e.Test+" "+e.Output)
			return
		}
		sent[topName(e.Test)] += len(e.Output)
	})
	feed(st, []byte(b.String()))
	assert.Equal(t, maxTestOutput, sent["TestLoud"], "a test and its subtests share one bound")
	assert.Equal(t, len("quiet\n"), sent["TestQuiet"], "the next test has its own")
	require.Len(t, notes, 1)
	omitted := 0
	_, err := fmt.Sscanf(notes[0], "TestLoud [%d more bytes of output omitted]", &omitted)
	require.NoError(t, err, notes[0])
	assert.Equal(t, lines*len(line), sent["TestLoud"]+omitted, "every byte is sent or counted")
}

func TestTestStreamSync(t *testing.T) {
	// A sync returns only once the reader handled everything written
	// before it.
	var got []string
	st := newTestStream(func(e protocol.TestEvent) { got = append(got, summary([]protocol.TestEvent{e})...) })
	var seen []string
	err := captureStdout(func() {
		st.mu.Lock()
		st.pipe = os.Stdout
		st.mu.Unlock()
		fmt.Fprintf(os.Stdout, "%c=== RUN   TestS\nbefore the sync\n", frameMarker)
		start := time.Now()
		st.sync()
		assert.Less(t, time.Since(start), syncTimeout, "the reader answered")
		seen = append(seen, got...)
	}, st.line)
	st.close()
	require.NoError(t, err)
	assert.Equal(t, []string{"run TestS", "output TestS: before the sync"}, seen)
	st.sync() // after close: returns at once
}

func init() {
	RegisterTest("TestStreamSeq", func(t *testing.T) { time.Sleep(30 * time.Millisecond) })
	RegisterTest("TestStreamPar", func(t *testing.T) {
		t.Parallel()
		t.Run("sub", func(t *testing.T) { t.Log("sub logs") })
	})
}

func TestServeTestsPausedParallel(t *testing.T) {
	// Run in this process like a child's: the worker reports testing's
	// own pause and continue, and times a test only while it runs.
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeTest, Config: protocol.RequestConfig{Run: "^TestStream"}})
	var got []string
	var par protocol.TestEvent
	for _, e := range only[protocol.TestEvent](msgs) {
		if e.Action == protocol.TestPass && e.Test == "TestStreamPar" {
			par = e
		}
		got = append(got, summary([]protocol.TestEvent{e})...)
	}
	for i, g := range got {
		got[i] = strings.Join(strings.Fields(g), " ")
	}
	assert.Equal(t, []string{
		"run TestStreamSeq", "pass TestStreamSeq",
		"run TestStreamPar", "pause TestStreamPar",
		"cont TestStreamPar", "run TestStreamPar/sub", "output TestStreamPar/sub: tests_test.go:175: sub logs", "pass TestStreamPar/sub", "pass TestStreamPar",
	}, fixLine(got))
	assert.Less(t, par.ElapsedNs, int64(30*time.Millisecond), "the 30 ms TestStreamPar waited paused behind TestStreamSeq is not its time")
}

// fixLine replaces the line number of the fixture's log line.
func fixLine(s []string) []string {
	for i, v := range s {
		if j := strings.Index(v, "tests_test.go:"); j >= 0 {
			k := strings.Index(v[j:], ": ")
			s[i] = v[:j] + "tests_test.go:175" + v[j+k:]
		}
	}
	return s
}

// TestCaptureToFile: what is written reaches the file at once (a process
// that dies before the reader read it leaves it there for the supervisor),
// the reader follows the file as it grows, with or without a kick, and
// hands on every line, framed or not, in order, before the capture returns.
func TestCaptureToFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.stdout")
	kick := make(chan struct{}, 1)
	var mu sync.Mutex
	var got []string
	seen := func(want string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(got, want)
	}
	err := captureToFile(path, kick, nil, func() {
		fmt.Println("printed")
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "printed\n", string(b), "in the file as soon as written")
		fmt.Printf("%c=== RUN   TestX\n", frameMarker)
		kick <- struct{}{}
		// No kick: the reader polls.
		fmt.Print("partial ")
		fmt.Println("line")
		deadline := time.Now().Add(5 * time.Second)
		for !seen("partial line") && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		assert.True(t, seen("partial line"), "the reader follows the file without a kick")
		fmt.Print("last, without a newline")
	}, func(raw []byte) bool {
		mu.Lock()
		defer mu.Unlock()
		s, framed := cutFrame(raw)
		if framed {
			s = "framed: " + s
		}
		got = append(got, s)
		return false
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"printed", "framed: === RUN   TestX", "partial line", "last, without a newline"}, got)
}

// TestTestStreamBatchesOutput: with batching, a test's consecutive lines
// are one event, sent before the next frame, before another test's
// output, at maxBatch, when the reader is idle, and at close; the text and
// its attribution are the same as without.
func TestTestStreamBatchesOutput(t *testing.T) {
	const m = "\x16"
	in := m + "=== RUN   TestA\n" + "one\n" + "two\n" +
		m + "=== RUN   TestA/sub\n" + "    a_test.go:3: sub logs\n" + "    a_test.go:4: again\n" +
		m + "=== NAME  TestA\n" + "three\n"
	var evs []protocol.TestEvent
	st := newTestStream(func(e protocol.TestEvent) { evs = append(evs, e) })
	st.batch = true
	feed(st, []byte(in))
	assert.Equal(t, []string{"run TestA", "output TestA: one\ntwo", "run TestA/sub",
		"output TestA/sub: a_test.go:3: sub logs\n    a_test.go:4: again"}, summary(evs),
		"held until the next frame, or idle, or close")
	st.flush() // the reader is idle
	feed(st, []byte("four\n"))
	st.close()
	assert.Equal(t, []string{"run TestA", "output TestA: one\ntwo", "run TestA/sub",
		"output TestA/sub: a_test.go:3: sub logs\n    a_test.go:4: again",
		"output TestA: three", "output TestA: four"}, summary(evs))

	evs = nil
	st = newTestStream(func(e protocol.TestEvent) { evs = append(evs, e) })
	st.batch = true
	line := strings.Repeat("x", 999) + "\n"
	feed(st, []byte(m+"=== RUN   TestBig\n"+strings.Repeat(line, 40)))
	st.close()
	total := 0
	for _, e := range evs[1:] {
		assert.LessOrEqual(t, len(e.Output), maxBatch)
		total += len(e.Output)
	}
	assert.Equal(t, 40*1000, total)
	assert.Greater(t, len(evs), 2, "split at maxBatch")
}

// cutFrame returns one line as the capture hands it over without its
// newline and without testing's frame marker, and whether it had the
// marker.
func cutFrame(raw []byte) (s string, framed bool) {
	s = strings.TrimSuffix(string(raw), "\n")
	if len(s) > 0 && s[0] == frameMarker {
		return s[1:], true
	}
	return s, false
}

// A stream that knows the binary's tests takes frames as testing's only
// for a test the wrapper is running, and top-level results only from the
// wrapper (finish): imitations are output, charged to the test printing.
func TestTestStreamJudgesFrames(t *testing.T) {
	const m = "\x16"
	tests := []struct {
		name  string
		lines string // printed while TestA runs, after testing's own RUN frame
		want  []string
		imit  bool
	}{
		{"testing's own subtest", m + "=== RUN   TestA/sub\n" + m + "--- PASS: TestA/sub (0.00s)\n",
			[]string{"run TestA", "run TestA/sub", "pass TestA/sub", "pass TestA"}, false},
		{"a test that does not exist", m + "=== RUN   TestGhost\n" + m + "--- PASS: TestGhost (0.00s)\n",
			[]string{"run TestA", "output TestA: === RUN   TestGhost", "output TestA: --- PASS: TestGhost (0.00s)", "pass TestA"}, true},
		{"the end of a sibling that ended", m + "--- PASS: TestB (0.00s)\n",
			[]string{"run TestA", "output TestA: --- PASS: TestB (0.00s)", "pass TestA"}, true},
		{"a subtest of a test not running", m + "=== RUN   TestB/late\n",
			[]string{"run TestA", "output TestA: === RUN   TestB/late", "pass TestA"}, true},
		{"its own end, early", m + "--- FAIL: TestA (0.00s)\n",
			[]string{"run TestA", "output TestA: --- FAIL: TestA (0.00s)", "pass TestA"}, true},
		{"a failed subtest under a passing test", m + "=== RUN   TestA/x\n" + m + "--- FAIL: TestA/x (0.00s)\n",
			[]string{"run TestA", "run TestA/x", "fail TestA/x", "pass TestA"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var evs []protocol.TestEvent
			st := newTestStream(func(e protocol.TestEvent) { evs = append(evs, e) })
			st.known = map[string]bool{"TestA": true, "TestB": true}
			st.started["TestB"], st.ending["TestB"] = true, false // TestB ran and ended before
			feed(st, []byte(m+"=== RUN   TestA\n"))
			st.begin("TestA", nil)
			feed(st, []byte(tt.lines))
			st.finish(&fakeTB{name: "TestA"})
			feed(st, []byte(m+"--- PASS: TestA (0.00s)\n"))
			assert.Equal(t, tt.want, summary(evs))
			end := evs[len(evs)-1]
			assert.Equal(t, tt.imit, end.Imitated)
			assert.False(t, end.Lost)
		})
	}
}

// With top-level tests running in parallel, stdout cannot tell which one
// printed a forged frame: each running one carries it, naming the others,
// and one paused in t.Parallel does not. A subtest's FAIL under a test
// that has not failed is forged (testing fails the parent first).
func TestTestStreamImitationInParallel(t *testing.T) {
	const m = "\x16"
	failedA := false
	var evs []protocol.TestEvent
	st := newTestStream(func(e protocol.TestEvent) { evs = append(evs, e) })
	st.known = map[string]bool{"TestA": true, "TestB": true, "TestC": true, "TestD": true}
	for _, name := range []string{"TestA", "TestB", "TestC"} {
		feed(st, []byte(m+"=== RUN   "+name+"\n"))
		failed := func() bool { return false }
		if name == "TestA" {
			failed = func() bool { return failedA }
		}
		st.begin(name, failed)
	}
	feed(st, []byte(m+"=== PAUSE TestC\n"))
	feed(st, []byte(m+"=== RUN   TestA/sub\n"+m+"--- FAIL: TestA/sub (0.00s)\n")) // forged: TestA has not failed
	failedA = true
	feed(st, []byte(m+"=== RUN   TestA/real\n"+m+"--- FAIL: TestA/real (0.00s)\n"))
	ends := map[string]protocol.TestEvent{}
	for _, tb := range []*fakeTB{{name: "TestA", failed: true}, {name: "TestB"}, {name: "TestC"}} {
		st.finish(tb)
		ends[tb.name] = evs[len(evs)-1]
	}
	assert.Contains(t, summary(evs), "output TestA/sub: --- FAIL: TestA/sub (0.00s)", "taken as output")
	assert.NotContains(t, summary(evs), "fail TestA/sub")
	assert.Contains(t, summary(evs), "fail TestA/real", "testing's own")
	assert.True(t, ends["TestA"].Imitated)
	assert.Equal(t, []string{"TestB"}, ends["TestA"].ImitatedBeside)
	assert.True(t, ends["TestB"].Imitated)
	assert.Equal(t, []string{"TestA"}, ends["TestB"].ImitatedBeside)
	assert.False(t, ends["TestC"].Imitated, "paused in t.Parallel, it printed nothing")

	feed(st, []byte(m+"--- FAIL: TestA (0.00s)\n"+m+"--- PASS: TestB (0.00s)\n"+m+"--- PASS: TestC (0.00s)\n"))

	// Alone, the forger is named without others.
	evs = nil
	feed(st, []byte(m+"=== RUN   TestD\n"))
	st.begin("TestD", func() bool { return false })
	feed(st, []byte(m+"--- PASS: TestA (0.00s)\n"))
	st.finish(&fakeTB{name: "TestD"})
	end := evs[len(evs)-1]
	assert.True(t, end.Imitated)
	assert.Empty(t, end.ImitatedBeside)
}

// A capture the code closed is lost at the next sync, at once, and every
// later end says so.
func TestTestStreamLostCapture(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "capture"))
	require.NoError(t, err)
	var evs []protocol.TestEvent
	st := newTestStream(func(e protocol.TestEvent) { evs = append(evs, e) })
	st.known = map[string]bool{"TestA": true}
	st.pipe = f
	st.pipeInfo, err = f.Stat()
	require.NoError(t, err)
	require.True(t, st.intactLocked())
	f.Close() // os.Stdout.Close() in the code under test
	start := time.Now()
	st.sync()
	assert.Less(t, time.Since(start), syncTimeout/2, "no wait for a reader that cannot see the mark")
	st.begin("TestA", nil)
	st.finish(&fakeTB{name: "TestA", failed: true})
	require.NotEmpty(t, evs)
	end := evs[len(evs)-1]
	assert.Equal(t, protocol.TestFail, end.Action, "the result is the wrapper's")
	assert.True(t, end.Lost)
}

// fakeTB is the testing.TB finish reads.
type fakeTB struct {
	testing.TB
	name            string
	failed, skipped bool
}

func (f *fakeTB) Name() string   { return f.name }
func (f *fakeTB) Failed() bool   { return f.failed }
func (f *fakeTB) Skipped() bool  { return f.skipped }
func (f *fakeTB) Cleanup(func()) {}
