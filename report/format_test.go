package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
)

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		ns   float64
		want string
	}{
		{0, "0ns"},
		{0.3125, "0.3125ns"},
		{1, "1.000ns"},
		{12.3456, "12.35ns"},
		{999.4, "999.4ns"},
		{999.96, "1.000µs"}, // rounding carries into the next unit
		{1234, "1.234µs"},
		{12346, "12.35µs"},
		{123456, "123.5µs"},
		{1.5e6, "1.500ms"},
		{1.5e9, "1.500s"},
		{12345.6e9, "12346s"}, // every whole second, not 12350s
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, formatDuration(tt.ns))
		})
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{48, "48"},
		{65536, "65536"},
		{0.5, "0.5"},
		{12.3456, "12.35"},
		{821.625, "821.6"},
		{1234.7, "1235"},
		{0.00012345, "0.0001234"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, formatNumber(tt.v))
		})
	}
}

// TestFormatAlloc: B/op and allocs/op as go test prints them (the whole
// part of total/N, testing.BenchmarkResult.MemString), with what that
// hides below 1 shown, and a trace marked as one.
func TestFormatAlloc(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{0.000005665, "<0.01"}, // one setup allocation over 176,000 iterations: go test says 0
		{0.0001511, "<0.01"},
		{0.0099, "<0.01"},
		{0.01, "0.01"},
		{0.25, "0.25"},
		{0.5, "0.5"}, // every other iteration allocates: go test says 0, which hides it
		{0.999, "0.99"},
		{1, "1"},
		{1.9, "1"}, // go test's integer division
		{2.0000031, "2"},
		{48, "48"},
		{65536.7, "65536"},
		{1e12 + 0.5, "1000000000000"},
		{-1, "-1"}, // not a count: as measured
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, formatAlloc(tt.v))
			assert.Equal(t, tt.want, formatMetric("B/op", tt.v))
			assert.Equal(t, tt.want, formatMetric("allocs/op", tt.v))
		})
	}
	// Other units keep formatNumber's four significant digits.
	assert.Equal(t, "0.0001511", formatMetric("hits/op", 0.0001511))
	assert.Equal(t, "1.9", formatMetric("MB/s", 1.9))
}

func TestFormatDeviation(t *testing.T) {
	tests := []struct {
		name        string
		dev, median float64
		want        string
	}{
		{"zero", 0, 100, "±0.0%"},
		{"small", 0.8, 100, "±0.8%"},
		{"large", 12, 100, "±12%"},
		{"boundary rounds up to whole percents", 9.96, 100, "±10%"},
		{"zero median falls back to a duration", 12, 0, "±12.00ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, formatDeviation(tt.dev, tt.median))
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"µµµµµµµµµµµ", 10, "µµµµµµµµµ…"}, // runes, not bytes
		{"cut at a space here", 8, "cut at…"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := truncate(tt.in, tt.n)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, runeLen(got), tt.n)
		})
	}
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "a b", oneLine("a\tb\nsecond line"))
	assert.Equal(t, `\x1b[31mred`, oneLine("\x1b[31mred"), "ESC is shown as its escape, so the terminal is not driven")
	assert.Equal(t, `\x00x\a`, oneLine("\x00x\x07"))
}

func TestPointOffset(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"1.234µs", 1},
		{"123.4ns", 3},
		{"12346s", 5},
		{"65536", 5},
		{"0", 1},
		{"-1.5", 2},
		{dash, 1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, pointOffset(tt.in))
		})
	}
}

func TestShortenName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"BenchmarkA", 10, "BenchmarkA"},
		{"BenchmarkAB", 10, "Benchm…kAB"},
		{"ééééééééééé", 4, "éé…é"},
	} {
		got := shortenName(tc.in, tc.n)
		assert.Equal(t, tc.want, got)
		assert.LessOrEqual(t, len([]rune(got)), max(tc.n, len([]rune(tc.in))))
	}
}

// A column's values are each written in the unit that keeps it readable,
// whatever the others' (25.40ms above 1.897µs, never 25400µs): the
// duration and byte formats adapt per value.
func TestPerValueUnits(t *testing.T) {
	tests := []struct {
		name   string
		format string
		vals   []float64
		want   []string
	}{
		{"ms above µs", rundoc.FormatDuration, []float64{25_400_000, 1_897}, []string{"25.40ms", "1.897µs"}},
		{"µs, ms and ns", rundoc.FormatDuration, []float64{12_560, 847_200, 28_600_000, 0.3127}, []string{"12.56µs", "847.2µs", "28.60ms", "0.3127ns"}},
		{"zero", rundoc.FormatDuration, []float64{0, 2000}, []string{"0ns", "2.000µs"}},
		{"bytes", rundoc.FormatBytes, []float64{512, 4608, 65536}, []string{"512B", "4.500KiB", "64.00KiB"}},
		{"counts", rundoc.FormatCount, []float64{3, 1234}, []string{"3", "1.234k"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range tt.vals {
				got = append(got, formatCounted(v, tt.format))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
