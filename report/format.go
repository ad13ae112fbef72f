package report

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchsup/benchsup/rundoc"
)

// dash is what every renderer prints for a value that is not available
// (docs/design.md#rules-every-number-obeys, rule 1: never 0).
const dash = "—"

// durationUnits are the adaptive units of formatDuration, largest first.
var durationUnits = []struct {
	scale float64
	name  string
}{
	{1e9, "s"},
	{1e6, "ms"},
	{1e3, "µs"},
	{1, "ns"},
}

// formatDuration formats a duration given in nanoseconds in the largest unit
// that keeps the value at or above 1, with at least four significant digits,
// like go test's ns/op: 1.234µs, 12.35µs, 123.5µs, 0.3125ns.
func formatDuration(ns float64) string {
	if ns == 0 {
		return "0ns"
	}
	// Round to four significant digits before choosing the unit, so that
	// 999.96ns becomes 1.000µs rather than 1000.0ns.
	r := roundSignificant(ns, 4)
	u := durationUnits[len(durationUnits)-1]
	for _, c := range durationUnits {
		if math.Abs(r) >= c.scale {
			u = c
			break
		}
	}
	v := r / u.scale
	if math.Abs(v) >= 1000 {
		// Only seconds get here: print every whole second rather than
		// rounding 12345s to 12350s.
		return strconv.FormatFloat(ns/u.scale, 'f', 0, 64) + u.name
	}
	return strconv.FormatFloat(v, 'f', decimalsFor(v, 4), 64) + u.name
}

// formatNumber formats a metric value: integral values as integers (B/op and
// allocs/op usually are), others to four significant digits without
// trailing zeros, never in exponent form.
func formatNumber(v float64) string {
	if v == math.Trunc(v) || math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(roundSignificant(v, 4), 'f', -1, 64)
}

// formatMetric formats a value of a per-op metric: B/op and allocs/op as
// go test users read them (formatAlloc), any other unit by formatNumber.
func formatMetric(unit string, v float64) string {
	if unit == rundoc.MetricBytes || unit == rundoc.MetricAllocs {
		return formatAlloc(v)
	}
	return formatNumber(v)
}

// formatAlloc formats B/op or allocs/op with go test's resolution, and
// marks what that resolution hides. go test prints the whole part of
// total/N (testing.BenchmarkResult.MemString: an integer division), so a
// benchmark that allocates once in setup shows "0 allocs/op" there while
// its exact value is 1/N; here a value of 1 or more prints as go test
// prints it (1.9 is 1), one in (0, 1) that go test would print as 0 keeps
// two decimals, truncated as go test truncates (0.5: every other iteration
// allocates), and one under 0.01 is "<0.01" (a trace, under one allocation
// per hundred iterations, not a real per-op allocation). The JSON document
// keeps the exact value.
func formatAlloc(v float64) string {
	switch {
	case v == 0:
		return "0"
	case !(v > 0) || math.IsInf(v, 0):
		return formatNumber(v) // not a count: as measured
	case v < 0.01:
		return "<0.01"
	case v < 1:
		return strconv.FormatFloat(math.Floor(100*v)/100, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Trunc(v), 'f', 0, 64)
}

// estimated is the prefix of a multiplex-scaled estimate (spec §6.3).
const estimated = "≈"

// countUnits are the adaptive suffixes of formatCount, largest first.
var countUnits = []struct {
	scale float64
	name  string
}{
	{1e12, "T"},
	{1e9, "G"},
	{1e6, "M"},
	{1e3, "k"},
}

// byteUnits are the adaptive units of formatBytes, largest first.
var byteUnits = []struct {
	scale float64
	name  string
}{
	{1 << 40, "TiB"},
	{1 << 30, "GiB"},
	{1 << 20, "MiB"},
	{1 << 10, "KiB"},
}

// formatCounted formats a counted value by its column's format; an
// unknown format prints as a plain number.
func formatCounted(v float64, format string) string {
	switch format {
	case rundoc.FormatCount:
		return formatCount(v)
	case rundoc.FormatRatio:
		return formatRatio(v)
	case rundoc.FormatBytes:
		return formatBytes(v)
	case rundoc.FormatDuration:
		return formatDuration(v)
	default:
		return formatNumber(v)
	}
}

// formatCount formats a count per iteration: below 1000 as formatNumber
// does (233, 0.5, 12.35), from 1000 up with a k, M, G or T suffix and four
// significant digits (3.520k, 12.35M).
func formatCount(v float64) string {
	r := roundSignificant(v, 4)
	for _, u := range countUnits {
		if math.Abs(r) >= u.scale {
			x := r / u.scale
			if math.Abs(x) >= 1000 {
				// Only T gets here.
				return strconv.FormatFloat(v/u.scale, 'f', 0, 64) + u.name
			}
			return strconv.FormatFloat(x, 'f', decimalsFor(x, 4), 64) + u.name
		}
	}
	return formatNumber(v)
}

// formatRatio formats a dimensionless ratio such as ipc: two decimals, three
// below 1 (2.41, 0.875).
func formatRatio(v float64) string {
	if math.Abs(v) < 1 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// formatBytes formats a size in bytes: below 1 KiB as a number of bytes
// (512B, 12.5B), above in the largest binary unit that keeps the value at or
// above 1, with four significant digits (64.00KiB, 1.500MiB).
func formatBytes(v float64) string {
	for _, u := range byteUnits {
		if math.Abs(v) >= u.scale {
			x := roundSignificant(v/u.scale, 4)
			return strconv.FormatFloat(x, 'f', decimalsFor(x, 4), 64) + u.name
		}
	}
	return formatNumber(v) + "B"
}

// formatPercent formats a fraction as a signed-deviation percentage: one
// decimal below 10%, whole percents above (±0.8%, ±12%).
func formatPercent(frac float64) string {
	p := 100 * frac
	if p < 9.95 {
		return "±" + strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return "±" + strconv.FormatFloat(p, 'f', 0, 64) + "%"
}

// formatInterval formats an interval around a median as the signed
// distances of its ends from the median, relative to it (−1.2% +3.4%), or
// as absolute durations when the median is zero.
func formatInterval(lowNs, highNs, medianNs float64) string {
	if medianNs == 0 {
		return formatDuration(lowNs) + "…" + formatDuration(highNs)
	}
	signed := func(frac float64) string {
		p := 100 * frac
		digits := 1
		if math.Abs(p) >= 9.95 {
			digits = 0
		}
		s := strconv.FormatFloat(math.Abs(p), 'f', digits, 64) + "%"
		if p < 0 {
			return "−" + s
		}
		return "+" + s
	}
	m := math.Abs(medianNs)
	return signed((lowNs-medianNs)/m) + " " + signed((highNs-medianNs)/m)
}

// formatDeviation formats a deviation relative to the median it belongs to,
// or, when the median is zero and a ratio is undefined, as an absolute
// duration.
func formatDeviation(devNs, medianNs float64) string {
	if medianNs == 0 {
		return "±" + formatDuration(devNs)
	}
	return formatPercent(devNs / math.Abs(medianNs))
}

// decimalsFor returns how many digits after the point give v (non-zero)
// sig significant digits.
func decimalsFor(v float64, sig int) int {
	d := sig - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	return max(d, 0)
}

// roundSignificant rounds v to sig significant digits.
func roundSignificant(v float64, sig int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', sig-1, 64), 64)
	if err != nil {
		return v // cannot happen: FormatFloat's output always parses
	}
	return r
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// oneLine makes s safe to print inside a table cell: its first line, tabs
// as spaces and every other rune that is not printable as its Go escape
// (escapeText), so a child's output can neither break the column geometry
// nor drive the terminal.
func oneLine(s string) string {
	return escapeText(strings.ReplaceAll(firstLine(s), "\t", " "), false)
}

// truncate shortens s to at most n runes, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return strings.TrimRightFunc(string(runes[:n-1]), unicode.IsSpace) + "…"
}

// nameWidth caps a row's name in a table, in runes. A longer name is cut
// in its middle (shortenName), so that its function and its last element
// stay visible and no column is padded to the width of one long name; the
// JSON document keeps the whole name.
const nameWidth = 80

// shortenName returns s when it has at most n runes, and otherwise its
// first and last runes around an ellipsis, n runes in all.
func shortenName(s string, n int) string {
	if n <= 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	tail := (n - 1) / 3
	head := n - 1 - tail
	return string(runes[:head]) + "…" + string(runes[len(runes)-tail:])
}

// lines splits text into lines without the final empty line a trailing
// newline would produce.
func lines(text string) []string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
