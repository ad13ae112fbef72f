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
