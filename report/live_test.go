package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProgressDisabledWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false)
	p.Update("codec.BenchmarkEncode", 1, 3)
	p.Clear()
	assert.Zero(t, buf.Len())

	var nilProgress *Progress
	nilProgress.Update("x", 1, 1) // must not panic
	nilProgress.Clear()
}

func TestProgressRepaintsInPlace(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	clock := p.start
	p.now = func() time.Time { return clock }

	clock = clock.Add(1234 * time.Millisecond)
	p.Update("codec.BenchmarkEncode/size=1K", 2, 12)
	assert.Equal(t, syncBegin+eraseLine+"[2/12 1.2s] codec.BenchmarkEncode/size=1K"+syncEnd, buf.String())

	buf.Reset()
	p.Update("a\nb\tc", 3, 12)
	assert.NotContains(t, buf.String(), "\n", "an identity cannot break the line")

	buf.Reset()
	p.Clear()
	assert.Equal(t, eraseLine, buf.String())
	buf.Reset()
	p.Clear()
	assert.Zero(t, buf.Len(), "nothing to erase twice")
}

func TestProgressFitsTheLine(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	p.Update(strings.Repeat("x", 200), 1, 1)
	line := strings.TrimSuffix(strings.TrimPrefix(buf.String(), syncBegin+eraseLine), syncEnd)
	assert.Equal(t, defaultWidth-1, runeLen(line))
	assert.True(t, strings.HasSuffix(line, "…"))
}

func TestLiveEnabled(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })

	tests := []struct {
		name string
		env  map[string]string
		out  *os.File
	}{
		{"pipe", nil, w},
		{"nil", nil, nil},
		{"NO_COLOR set", map[string]string{"NO_COLOR": "1"}, w},
		{"TERM=dumb", map[string]string{"TERM": "dumb"}, w},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			assert.False(t, LiveEnabled(tt.out))
		})
	}
}

// paintedLine is the text of the last repaint in buf.
func paintedLine(buf *bytes.Buffer) string {
	s := buf.String()
	if i := strings.LastIndex(s, syncBegin+eraseLine); i >= 0 {
		s = s[i+len(syncBegin+eraseLine):]
	}
	return strings.TrimSuffix(s, syncEnd)
}

func TestProgressEstimatesTheTimeLeft(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	clock := p.start
	p.now = func() time.Time { return clock }

	clock = clock.Add(2 * time.Second) // the build
	p.Update("p.BenchmarkA", 1, 4)
	assert.Equal(t, "[1/4 2s] p.BenchmarkA", paintedLine(&buf), "nothing finished: no estimate")

	clock = clock.Add(10 * time.Second)
	p.Update("p.BenchmarkB", 2, 4)
	// One child in 10s; three to go, the current one just begun.
	assert.Equal(t, "[2/4 12s ~30s left] p.BenchmarkB", paintedLine(&buf))

	clock = clock.Add(4 * time.Second)
	p.SetUsage(nil) // a ticker's repaint
	assert.Equal(t, "[2/4 16s ~26s left] p.BenchmarkB", paintedLine(&buf))

	clock = clock.Add(30 * time.Second)
	p.SetUsage(nil)
	assert.Equal(t, "[2/4 46s ~20s left] p.BenchmarkB", paintedLine(&buf), "an overrun current child: still the mean for each after it")

	clock = clock.Add(6 * time.Second)
	p.Update("p.BenchmarkD", 4, 4)
	// Three children in 52s: 17.333s each; the last just begun.
	assert.Equal(t, "[4/4 52s ~17s left] p.BenchmarkD", paintedLine(&buf))
}

func TestProgressShowsUsage(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	clock := p.start
	p.now = func() time.Time { return clock }

	p.SetUsage(&LiveUsage{CPUPercent: 99})
	assert.Zero(t, buf.Len(), "nothing drawn yet: a usage alone paints nothing")

	p.Update("p.BenchmarkA", 1, 2)
	p.SetUsage(&LiveUsage{NoCPU: true, RSS: 12 << 20})
	assert.Equal(t, "[1/2 0s] p.BenchmarkA  cpu — rss 12.00MiB (+0B)", paintedLine(&buf))
	p.SetUsage(&LiveUsage{CPUPercent: 152, Cores: 1.52, RSS: 14 << 20, RSSGrowth: 2 << 20})
	assert.Equal(t, "[1/2 0s] p.BenchmarkA  cpu 152% (1.52 cores) rss 14.00MiB (+2.000MiB)", paintedLine(&buf))

	p.Update("p.BenchmarkB", 2, 2)
	assert.NotContains(t, paintedLine(&buf), "cpu", "the previous child's usage is dropped")

	p.SetUsage(&LiveUsage{CPUPercent: 100, Cores: 1, RSS: 1 << 20})
	p.Update(strings.Repeat("x", 200), 2, 2)
	p.SetUsage(&LiveUsage{CPUPercent: 100, Cores: 1, RSS: 1 << 20})
	line := paintedLine(&buf)
	assert.Equal(t, defaultWidth-1, runeLen(line))
	assert.True(t, strings.HasSuffix(line, "cpu 100% (1.00 cores) rss 1.000MiB (+0B)"), "the identity gives way, not the usage: %q", line)

	p.Clear()
	buf.Reset()
	p.SetUsage(&LiveUsage{})
	assert.Zero(t, buf.Len(), "a cleared line is not repainted by a tick")
}
