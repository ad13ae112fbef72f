package report

// The HTML report's plots are drawn by this small hand-written SVG layer
// rather than by gonum.org/v1/plot. Strip plots, a forest plot and stacked
// bars need only rects, lines, circles, paths, text and a linear or log
// axis with nice ticks; writing them here costs no dependency, gives full
// control of the class and data-* attributes the tests and the browser
// test read, keeps the output tiny and leaves every label as real,
// selectable, accessible text. gonum's SVG backend is a canvas API: it has
// no strip plot by process and embeds its fonts.
//
// Every string that reaches the markup goes through esc; every number is
// formatted with strconv, so the same input gives the same bytes.

import (
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// esc escapes text for an element's content or a quoted attribute.
func esc(s string) string { return template.HTMLEscapeString(s) }

// px formats an SVG coordinate to one decimal.
func px(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// svgBuilder accumulates SVG markup.
type svgBuilder struct{ strings.Builder }

func (b *svgBuilder) f(parts ...string) {
	for _, p := range parts {
		b.WriteString(p)
	}
}

// text writes a <text> element; anchor is "start", "middle" or "end".
func (b *svgBuilder) text(x, y float64, anchor, class, s string) {
	b.f(`<text x="`, px(x), `" y="`, px(y), `" text-anchor="`, anchor, `"`)
	if class != "" {
		b.f(` class="`, class, `"`)
	}
	b.f(`>`, esc(s), `</text>`)
}

// label writes text cut to max runes, with the whole text in a <title>
// when it was cut, so a long name never overflows its column.
func (b *svgBuilder) label(x, y float64, anchor, class, s string, maxRunes int) {
	short := cutRunes(s, maxRunes)
	if short == s {
		b.text(x, y, anchor, class, s)
		return
	}
	b.f(`<g><title>`, esc(s), `</title>`)
	b.text(x, y, anchor, class, short)
	b.f(`</g>`)
}

func (b *svgBuilder) line(x1, y1, x2, y2 float64, class string) {
	b.f(`<line x1="`, px(x1), `" y1="`, px(y1), `" x2="`, px(x2), `" y2="`, px(y2), `" class="`, class, `"/>`)
}

func (b *svgBuilder) rect(x, y, w, h float64, class, title string) {
	b.f(`<rect x="`, px(x), `" y="`, px(y), `" width="`, px(math.Max(w, 0)), `" height="`, px(h), `" class="`, class, `"`)
	if title == "" {
		b.f(`/>`)
		return
	}
	b.f(`><title>`, esc(title), `</title></rect>`)
}

// cutRunes shortens s to n runes, ending in an ellipsis, keeping the tail
// (the leaf of a benchmark name says most).
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

// axis maps a data domain onto a pixel range, linearly or logarithmically.
type axis struct {
	lo, hi float64
	x0, x1 float64
	log    bool
}

// newAxis returns an axis over [lo, hi] padded a little, logarithmic when
// allowed, lo is positive and hi/lo exceeds 10 (a linear axis would crush
// the small values into a pixel).
func newAxis(lo, hi, x0, x1 float64, allowLog bool) axis {
	a := axis{x0: x0, x1: x1}
	if allowLog && lo > 0 && hi/lo > 10 {
		a.log = true
		a.lo, a.hi = lo/1.15, hi*1.15
		return a
	}
	if hi == lo {
		d := math.Abs(lo) * 0.05
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	pad := (hi - lo) * 0.06
	a.lo, a.hi = lo-pad, hi+pad
	if lo >= 0 && a.lo < 0 {
		a.lo = 0 // never a negative duration on the axis
	}
	return a
}

// logAxis is an axis that is always logarithmic (ratios), over a positive
// domain.
func logAxis(lo, hi, x0, x1 float64) axis {
	return axis{lo: lo, hi: hi, x0: x0, x1: x1, log: true}
}

func (a axis) pos(v float64) float64 {
	if a.log {
		return a.x0 + (math.Log(v)-math.Log(a.lo))/(math.Log(a.hi)-math.Log(a.lo))*(a.x1-a.x0)
	}
	return a.x0 + (v-a.lo)/(a.hi-a.lo)*(a.x1-a.x0)
}

// ticks returns nice tick values inside the domain: 1-2-5 per decade on a
// log axis spanning a decade or more, else a linear 1-2-5 step (about six
// ticks).
func (a axis) ticks() []float64 {
	var out []float64
	if a.log && a.hi/a.lo >= 10 {
		steps := []float64{1, 2, 5}
		if a.hi/a.lo > 1e3 {
			steps = []float64{1}
		}
		for e := math.Floor(math.Log10(a.lo)); e <= math.Ceil(math.Log10(a.hi)); e++ {
			for _, m := range steps {
				v := roundSignificant(m*math.Pow(10, e), 6)
				if v >= a.lo && v <= a.hi {
					out = append(out, v)
				}
			}
		}
		return out
	}
	step := niceStep((a.hi - a.lo) / 6)
	if a.log {
		// A log axis over less than a decade: linear ticks, which read
		// better than one decade mark.
		step = niceStep((a.hi - a.lo) / 5)
	}
	for v := math.Ceil(a.lo/step) * step; v <= a.hi+step*1e-9; v += step {
		out = append(out, roundSignificant(v, 6))
	}
	return out
}

// niceStep rounds a raw step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || !isFinite(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// drawAxis draws the axis line at y with its ticks, tick labels, grid
// lines up to top, and a title under it.
func (b *svgBuilder) drawAxis(a axis, top, y float64, format func(float64) string, title string) {
	for _, t := range a.ticks() {
		x := a.pos(t)
		b.line(x, top, x, y, "grid")
		b.line(x, y, x, y+4, "tick")
		b.text(x, y+16, "middle", "ticklabel", format(t))
	}
	b.line(a.x0, y, a.x1, y, "axis")
	b.text((a.x0+a.x1)/2, y+32, "middle", "axistitle", title)
}

// ratioLabel formats a ratio tick: 0.95×, 1×, 2×.
func ratioLabel(v float64) string {
	return strconv.FormatFloat(roundSignificant(v, 3), 'f', -1, 64) + "×"
}

// marker draws a verdict's marker centred at (x, y): the shape and fill
// carry the verdict, so it reads in grayscale too.
func (b *svgBuilder) marker(verdict rundoc.Verdict, x, y float64) {
	cls := `class="mk mk-` + verdictClass(verdict) + `"`
	switch verdictShape(verdict) {
	case "down":
		b.f(`<path `, cls, ` d="M`, px(x-6), ` `, px(y-5), `L`, px(x+6), ` `, px(y-5), `L`, px(x), ` `, px(y+6), `Z"/>`)
	case "up":
		b.f(`<path `, cls, ` d="M`, px(x-6), ` `, px(y+5), `L`, px(x+6), ` `, px(y+5), `L`, px(x), ` `, px(y-6), `Z"/>`)
	case "diamond":
		b.f(`<path `, cls, ` d="M`, px(x), ` `, px(y-6), `L`, px(x+6), ` `, px(y), `L`, px(x), ` `, px(y+6), `L`, px(x-6), ` `, px(y), `Z"/>`)
	case "circle":
		b.f(`<circle `, cls, ` cx="`, px(x), `" cy="`, px(y), `" r="5"/>`)
	default:
		b.cross(x, y, 5, "mk mk-"+verdictClass(verdict))
	}
}

func (b *svgBuilder) cross(x, y, r float64, class string) {
	b.f(`<path class="`, class, `" d="M`, px(x-r), ` `, px(y-r), `L`, px(x+r), ` `, px(y+r), `M`, px(x-r), ` `, px(y+r), `L`, px(x+r), ` `, px(y-r), `"/>`)
}

// verdictShape is the marker shape of a verdict: down for better-or-less,
// up for worse-or-more, a hollow circle for no difference, a hollow
// diamond for undecided, a cross for no ratio.
func verdictShape(v rundoc.Verdict) string {
	switch v {
	case rundoc.VerdictFaster, rundoc.VerdictDecreased:
		return "down"
	case rundoc.VerdictSlower, rundoc.VerdictIncreased:
		return "up"
	case rundoc.VerdictEquivalent, rundoc.VerdictSame, rundoc.VerdictWithinNoise:
		return "circle"
	case rundoc.VerdictInconclusive:
		return "diamond"
	}
	return "cross"
}

// verdictClass is the CSS class suffix of a verdict's color. Increased
// and decreased are neutral: whether more is better depends on the metric
// (more MB/s is, more B/op is not), so only faster and slower are colored
// good and bad.
func verdictClass(v rundoc.Verdict) string {
	switch v {
	case rundoc.VerdictIncreased:
		return "inc"
	case rundoc.VerdictDecreased:
		return "dec"
	}
	switch verdictShape(v) {
	case "down":
		return "down"
	case "up":
		return "up"
	case "circle":
		return "same"
	case "diamond":
		return "unsure"
	}
	return "none"
}
