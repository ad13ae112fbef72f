package worker

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

// floodLines is how many lines BenchmarkCaptureFlood's code prints.
const floodLines = 200_000

func printFlood() {
	for i := range floodLines {
		fmt.Println(i)
	}
}

// BenchmarkCaptureFlood prints a flood of short lines, one write each,
// as go test's binary prints it (direct: into /dev/null; file: into a
// regular file, as go test hands a redirected stdout to the binary) and
// through the worker's captures, /dev/null behind them: bench, the pipe
// and the benchmark reader; test, the file and the test stream.
func BenchmarkCaptureFlood(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	orig := os.Stdout
	os.Stdout = null
	defer func() { os.Stdout = orig }()
	b.Run("direct", func(b *testing.B) {
		for range b.N {
			printFlood()
		}
	})
	b.Run("file", func(b *testing.B) {
		f, err := os.Create(filepath.Join(b.TempDir(), "out"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		os.Stdout = f
		defer func() { os.Stdout = null }()
		for range b.N {
			printFlood()
		}
	})
	b.Run("bench", func(b *testing.B) {
		for range b.N {
			out := newBenchOutput("BenchmarkFlood")
			out.feedAll(m + "=== RUN   BenchmarkFlood\nBenchmarkFlood\n")
			_, err := captureOutput(printFlood, func(raw []byte, parsed bool, fwd io.Writer) {
				out.forward = fwd
				out.feed(raw, parsed)
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("test", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "out")
		for range b.N {
			st := newTestStream(func(protocol.TestEvent) {})
			st.batch = true
			err := captureToFile(path, st.kick, st.flush, func() {
				fmt.Printf("%c=== RUN   TestFlood\n", frameMarker)
				printFlood()
			}, st.line)
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestFeedCopiesNoPlainLine: a line of the code's that cannot be one of
// testing's is forwarded without an allocation, so a flood of them adds
// nothing to the benchmark's allocation counts.
func TestFeedCopiesNoPlainLine(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"a number", "1234567\n"},
		{"a path with a colon", "see a/b.go:12 for why\n"},
		{"a partial line", "no newline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newBenchOutput("BenchmarkFlood")
			o.feedAll(m + "=== RUN   BenchmarkFlood\nBenchmarkFlood\n")
			var fwd bytes.Buffer
			fwd.Grow(1 << 20)
			o.forward = &fwd
			raw := []byte(tc.line)
			allocs := testing.AllocsPerRun(1000, func() { o.feed(raw, true) })
			assert.Zero(t, allocs)
			assert.True(t, strings.HasPrefix(fwd.String(), tc.line+tc.line), "forwarded as written")
		})
	}
}

// TestTestStreamCountsPastTheBoundWithoutCopies: once a top-level test's
// output reached its bound, a line costs the stream no allocation, and
// every byte is counted (mended, as sent, for invalid UTF-8).
func TestTestStreamCountsPastTheBoundWithoutCopies(t *testing.T) {
	var note protocol.TestEvent
	st := newTestStream(func(e protocol.TestEvent) {
		if e.Action == protocol.TestOutput && e.OmittedBytes > 0 {
			note = e
		}
	})
	st.batch = true
	feed(st, []byte(m+"=== RUN   TestLoud\n"+strings.Repeat(strings.Repeat("x", 99)+"\n", maxTestOutput/100+1)))
	before := st.tops["TestLoud"].omitted
	raw := []byte("1234567\n")
	allocs := testing.AllocsPerRun(1000, func() { st.line(raw) })
	assert.Zero(t, allocs)
	st.line([]byte("\xff\n")) // sent, it would be U+FFFD: 3 bytes and the newline
	omitted := st.tops["TestLoud"].omitted
	assert.Equal(t, 1001*len(raw)+4, omitted-before, "AllocsPerRun's warm-up run, its 1000 and the mended line")
	feed(st, []byte(m+"--- PASS: TestLoud (0.00s)\n"))
	assert.Equal(t, int64(omitted), note.OmittedBytes, "the note carries the count")
	assert.Equal(t, fmt.Sprintf("[%d more bytes of output omitted]\n", omitted), note.Output)
}

// TestTestStreamBoundLeavesNoGap: the line that reaches the bound is cut
// at a character's boundary, which may leave a few bytes of room; no later
// line is sent into them, so the output sent is a head of what was
// printed.
func TestTestStreamBoundLeavesNoGap(t *testing.T) {
	var sent strings.Builder
	st := newTestStream(func(e protocol.TestEvent) {
		if e.Action == protocol.TestOutput && e.OmittedBytes == 0 {
			sent.WriteString(e.Output)
		}
	})
	var printed strings.Builder
	printed.WriteString("a\n") // shifts the two-byte characters off the bound
	for printed.Len() < maxTestOutput {
		printed.WriteString(strings.Repeat("é", 500) + "\n")
	}
	printed.WriteString("later\n")
	feed(st, []byte(m+"=== RUN   TestWide\n"+printed.String()+m+"--- PASS: TestWide (0.00s)\n"))
	require.Less(t, sent.Len(), maxTestOutput, "the bound fell inside a character")
	assert.True(t, strings.HasPrefix(printed.String(), sent.String()), "what was sent is a head of the output")
}

// TestCaptureOutputFlood: every byte of a flood is handed on and forwarded
// in order; what is forwarded reaches the real stdout while the capture
// goes on (when the reader has read all there is), not only at its end;
// testing's lines after the flood are still seen as its own.
func TestCaptureOutputFlood(t *testing.T) {
	const lines = 100_000
	path := filepath.Join(t.TempDir(), "stdout")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	orig := os.Stdout
	os.Stdout = f
	defer func() { os.Stdout = orig }()
	var handed, framed int
	next := 0
	inOrder := true
	c, err := captureOutput(func() {
		for i := range lines {
			fmt.Println(i)
		}
		fmt.Printf("%c=== NAME  \n", frameMarker)
		fmt.Println("quiet, then")
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			if bytes.HasSuffix(b, []byte("quiet, then\n")) || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, bytes.HasSuffix(b, []byte("quiet, then\n")), "forwarded while the capture goes on")
	}, func(raw []byte, parsed bool, fwd io.Writer) {
		handed += len(raw)
		if raw[0] == frameMarker {
			framed++
			return
		}
		if next < lines && string(raw) != strconv.Itoa(next)+"\n" {
			inOrder = false
		}
		next++
		fwd.Write(raw)
	})
	require.NoError(t, err)
	assert.False(t, c.held)
	assert.True(t, inOrder)
	assert.Equal(t, 1, framed)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var want strings.Builder
	for i := range lines {
		fmt.Fprintln(&want, i)
	}
	want.WriteString("quiet, then\n")
	assert.Equal(t, want.String(), string(b), "forwarded whole, in order")
	assert.Equal(t, want.Len()+len(m+"=== NAME  \n"), handed)
}
