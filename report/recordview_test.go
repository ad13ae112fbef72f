package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/stretchr/testify/assert"
)

func TestRollingWindow(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name        string
		k           int
		add         []time.Duration
		median, p95 time.Duration
		n           int
	}{
		{"empty", 5, nil, 0, 0, 0},
		{"one", 5, []time.Duration{7 * ms}, 7 * ms, 7 * ms, 1},
		// Type 7: h = (n-1)p; numpy.percentile([1,2,3,4], [50, 95]) = 2.5, 3.85.
		{"four", 5, []time.Duration{4 * ms, 1 * ms, 3 * ms, 2 * ms}, 2500 * time.Microsecond, 3850 * time.Microsecond, 4},
		// Full: the oldest two (10, 20) are dropped; 30..70 remain.
		{"wraps", 5, []time.Duration{10 * ms, 20 * ms, 70 * ms, 30 * ms, 60 * ms, 40 * ms, 50 * ms}, 50 * ms, 68 * ms, 5},
		{"k below one is one", 0, []time.Duration{1, 2, 3}, 3, 3, 1},
		{"rounds to the nanosecond", 3, []time.Duration{1, 2, 4}, 2, 4, 3}, // p95: 2+0.9*2 = 3.8 → 4
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewRollingWindow(tt.k)
			for _, d := range tt.add {
				w.Add(d)
			}
			median, p95, n := w.Quantiles()
			assert.Equal(t, tt.median, median, "median")
			assert.Equal(t, tt.p95, p95, "p95")
			assert.Equal(t, tt.n, n)
			assert.Equal(t, tt.n, w.Len())
		})
	}
}

func TestRollingWindowAllocatesNothing(t *testing.T) {
	w := NewRollingWindow(1000)
	var d time.Duration
	assert.Zero(t, testing.AllocsPerRun(100, func() { d += 7; w.Add(d % 1000) }), "Add")
	assert.Zero(t, testing.AllocsPerRun(10, func() { w.Quantiles() }), "Quantiles")
}

func TestUsageText(t *testing.T) {
	tests := []struct {
		name string
		u    *LiveUsage
		want string
	}{
		{"nil", nil, "cpu — rss —"},
		{"measured", &LiveUsage{CPUPercent: 152.4, Cores: 1.524, RSS: 48 << 20, RSSGrowth: 2 << 20}, "cpu 152% (1.52 cores) rss 48.00MiB (+2.000MiB)"},
		{"zero is a measurement", &LiveUsage{}, "cpu 0% (0.00 cores) rss 0B (+0B)"},
		{"shrinking", &LiveUsage{CPUPercent: 3, Cores: 0.03, RSS: 10 << 20, RSSGrowth: -(1 << 20)}, "cpu 3% (0.03 cores) rss 10.00MiB (−1.000MiB)"},
		{"one reading", &LiveUsage{NoCPU: true, RSS: 1 << 30}, "cpu — rss 1.000GiB (+0B)"},
		{"labeled", &LiveUsage{NoRSS: true, CPUPercent: 99, Cores: 0.99, Label: "cpu: process group"}, "cpu 99% (0.99 cores) rss — [cpu: process group]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, usageText(tt.u))
		})
	}
}

// recordViewCases are the recordings the golden file shows, with the
// width and height they are drawn in.
var recordViewCases = []struct {
	name          string
	width, height int
	r             LiveRecording
}{
	{"running", 100, 24, LiveRecording{
		Elapsed: 3*time.Hour + 25*time.Minute + 7*time.Second + 900*time.Millisecond,
		Usage:   &LiveUsage{CPUPercent: 152, Cores: 1.52, RSS: 48 << 20, RSSGrowth: 3 << 20},
		Identities: []LiveIdentity{
			{Name: "request", Completed: 123456, Active: 12, Errors: 3, Median: 1234567, P95: 9876543, Window: 1000},
			{Name: "db.query", Completed: 42, Active: 1, Median: 250 * time.Microsecond, P95: 2 * time.Millisecond, Window: 42},
			{Name: "cache.refresh", Active: 1},
		},
	}},
	{"no usage yet", 100, 24, LiveRecording{
		Elapsed:     time.Second,
		UsageReason: "the first reading is taken after a second",
		Identities:  []LiveIdentity{{Name: "request"}},
	}},
	{"one reading, root only", 100, 24, LiveRecording{
		Elapsed: 2 * time.Second,
		Usage:   &LiveUsage{NoCPU: true, RSS: 5 << 20, Label: "rss: root process only"},
	}},
	{"narrow", 50, 24, LiveRecording{
		Elapsed: time.Minute,
		Usage:   &LiveUsage{CPUPercent: 99, Cores: 0.99, RSS: 12 << 20, RSSGrowth: 1 << 20},
		Identities: []LiveIdentity{
			{Name: "a.very.long.identity.name.that.goes.on.and.on.and.on", Completed: 1, Median: 1, P95: 1, Window: 1},
		},
	}},
	{"short terminal", 100, 4, LiveRecording{
		Elapsed: time.Minute,
		Usage:   &LiveUsage{CPUPercent: 99, Cores: 0.99, RSS: 12 << 20},
		Identities: []LiveIdentity{
			{Name: "one"}, {Name: "two"}, {Name: "three"}, {Name: "four"}, {Name: "five"},
		},
	}},
}

func TestRecordViewGolden(t *testing.T) {
	var out bytes.Buffer
	for _, c := range recordViewCases {
		fmt.Fprintf(&out, "== %s (%dx%d)\n", c.name, c.width, c.height)
		for _, line := range recordLines(c.r, c.width-1, c.height-1) {
			assert.LessOrEqual(t, runeLen(line), c.width-1, "%s: %q", c.name, line)
			out.WriteString(line + "\n")
		}
	}
	rundoctest.Golden(t, "recordview.golden", out.Bytes())
}

func TestRecordViewRepaintsInPlace(t *testing.T) {
	var buf bytes.Buffer
	v := NewRecordView(&buf, true)
	r := recordViewCases[0].r
	v.Update(r)
	first := buf.String()
	assert.True(t, strings.HasPrefix(first, syncBegin+"\r"+eraseDown), "the first paint moves nowhere: %q", first)
	assert.Equal(t, 4, strings.Count(first, "\r\n"), "five lines (a header, a column header, three identities), four breaks")
	assert.True(t, strings.HasSuffix(first, syncEnd))

	buf.Reset()
	r.Identities = r.Identities[:1]
	v.Update(r)
	assert.True(t, strings.HasPrefix(buf.String(), syncBegin+"\r\x1b[4A"+eraseDown), "back up to the first of five lines: %q", buf.String())

	buf.Reset()
	v.Clear()
	assert.Equal(t, "\r\x1b[2A"+eraseDown, buf.String(), "three lines to erase")
	buf.Reset()
	v.Clear()
	assert.Zero(t, buf.Len(), "nothing to erase twice")

	r.Identities = []LiveIdentity{{Name: "a\nb\x1b[2Jc"}}
	v.Update(r)
	assert.Equal(t, 2, strings.Count(buf.String(), "\r\n"), "a name cannot break a line")
	assert.NotContains(t, buf.String(), "\x1b[2J", "nor drive the terminal")
}

func TestRecordViewDisabledWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	v := NewRecordView(&buf, false)
	v.Update(recordViewCases[0].r)
	v.Clear()
	assert.Zero(t, buf.Len())

	var nilView *RecordView
	nilView.Update(LiveRecording{}) // must not panic
	nilView.Clear()
}
