package report

import (
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

// htmlSweep is one sweep family's section: its log-log plot and what the
// fit concluded.
type htmlSweep struct {
	Identity string // "PKG FAMILY", " @build" for another build's
	Package  string
	Family   string
	Status   string
	Summary  string // the model or state, range, points, R², exponent
	Reason   string
	Omitted  []string
	SVG      template.HTML
	Curve    string // "selected", "best" (dashed) or "": the legend's line
	// Fits is the models table: per model its name, c, nominal
	// exponent, R², RMS and max log residual, and its part in the
	// selection ("" for none).
	Fits [][]string
}

// sweepIdentity names a sweep on the page and in its data-family hooks:
// "PKG FAMILY", with " @build" for another build's (--against).
func sweepIdentity(sw rundoc.Sweep) string {
	id := sw.Package + " " + sw.Family
	if sw.Build != "" {
		id += " @" + sw.Build
	}
	return id
}

// sweepsView lays out every sweep of the run, in the document's order.
func sweepsView(sweeps []rundoc.Sweep) []htmlSweep {
	var out []htmlSweep
	for i, sw := range sweeps {
		v := htmlSweep{Identity: sweepIdentity(sw), Package: sw.Package, Family: sw.Family, Status: string(sw.Status),
			Reason: sw.Reason}
		if sw.Build != "" {
			v.Family += " @" + sw.Build
		}
		v.Summary = sweepSummary(sw)
		for _, o := range sw.Omitted {
			v.Omitted = append(v.Omitted, o.Name+": "+o.Reason)
		}
		v.SVG, v.Curve = sweepSVG(sw, i)
		for _, f := range sw.Models {
			sel := ""
			switch {
			case f.Selected:
				sel = "selected"
			case sw.Best != nil && *sw.Best == f.Model:
				sel = "closest, not selected"
			case slices.Contains(sw.Candidates, f.Model):
				sel = "too close to the closest to call"
			}
			v.Fits = append(v.Fits, []string{f.Model.Text(), strconv.FormatFloat(f.Coefficient, 'g', 4, 64),
				strconv.FormatFloat(f.NominalExponent, 'f', -1, 64), formatR2(f.R2),
				strconv.FormatFloat(f.RMSLogResidual, 'f', 3, 64), strconv.FormatFloat(f.MaxLogResidual, 'f', 3, 64), sel})
		}
		out = append(out, v)
	}
	return out
}

// sweepSummary is a sweep's conclusion in one line of prose, after its
// status.
func sweepSummary(sw rundoc.Sweep) string {
	s := strings.TrimPrefix(sweepModelCell(sw), string(sw.Status)+": ")
	if r := sweepRangeText(sw); r != "" {
		s += " over " + r
	}
	s += " (" + strconv.Itoa(len(sw.Points)) + " " + plural(len(sw.Points), "point", "points") + ")"
	if f := sweepFit(sw); f != nil {
		which := "the selected model"
		if !f.Selected {
			which = "the closest model, " + f.Model.Text()
		}
		s += "; R² of " + which + " " + formatR2(f.R2)
	}
	if sw.ObservedExponent != nil {
		s += "; observed exponent " + formatExponent(sw.ObservedExponent, sw.ExponentStdError)
	}
	return s
}

// Sweep plot geometry, in viewBox units.
const (
	sweepWidth   = 960.0
	sweepHeight  = 300.0
	sweepLeft    = 96.0
	sweepRight   = 930.0
	sweepTop     = 12.0
	sweepBottom  = 250.0
	sweepTickGap = 44.0 // the least room between two value labels
)

// sweepPad widens a positive domain on a log axis by a little of its span
// (a factor of 2 when it is one value).
func sweepPad(lo, hi float64) (float64, float64) {
	f := 2.0
	if hi > lo {
		f = math.Max(math.Pow(hi/lo, 0.06), 1.15)
	}
	return lo / f, hi * f
}

// sweepSVG draws a sweep on log-log axes: each point its median ns/op
// with its interval, and the selected model's curve c·g(n) over the
// measured values, or the closest model's, dashed, when the fit selected
// none. It returns the plot and which curve it drew ("" for none). i
// numbers the plot's title and description ids.
func sweepSVG(sw rundoc.Sweep, i int) (template.HTML, string) {
	var pts []rundoc.SweepPoint
	for _, p := range sw.Points {
		if p.Value > 0 && isFinite(p.Value) && p.MedianNs > 0 && isFinite(p.MedianNs) {
			pts = append(pts, p)
		}
	}
	param := sw.Parameter
	if param == "" {
		param = "value"
	}
	id := "sweep" + strconv.Itoa(i)
	var b svgBuilder
	b.f(`<svg class="sweep" data-family="`, esc(sweepIdentity(sw)), `" data-status="`, esc(string(sw.Status)),
		`" data-points="`, strconv.Itoa(len(pts)), `" viewBox="0 0 `, px(sweepWidth), ` `, px(sweepHeight),
		`" role="img" aria-labelledby="`, id, `-title `, id, `-desc">`)
	b.f(`<title id="`, id, `-title">`, esc(sw.Family+": ns/op against "+param+", log-log"), `</title>`)
	b.f(`<desc id="`, id, `-desc">`, esc(string(sw.Status)+": "+sweepSummary(sw)+"; "+rundoc.ScalingCaveat), `</desc>`)
	if len(pts) == 0 {
		b.text(sweepLeft, sweepTop+20, "start", "failtext", "no point with a measured time")
		b.f(`</svg>`)
		return template.HTML(b.String()), ""
	}

	// The curve: the selected model's, else the closest one's, dashed.
	var fit *rundoc.ModelFit
	curve := ""
	if f := sweepFit(sw); f != nil {
		fit, curve = f, "best"
		if f.Selected {
			curve = "selected"
		}
	}
	xlo, xhi := pts[0].Value, pts[0].Value
	ylo, yhi := pts[0].MedianNs, pts[0].MedianNs
	grow := func(v float64) {
		if v > 0 && isFinite(v) {
			ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
		}
	}
	for _, p := range pts {
		xlo, xhi = math.Min(xlo, p.Value), math.Max(xhi, p.Value)
		grow(p.MedianNs)
		if iv := p.Interval; iv != nil {
			grow(iv.LowNs)
			grow(iv.HighNs)
		}
	}
	const steps = 96
	var curveAt []float64 // the curve at each step over [xlo, xhi] in log space
	if fit != nil {
		for k := 0; k <= steps; k++ {
			n := math.Exp(math.Log(xlo) + (math.Log(xhi)-math.Log(xlo))*float64(k)/steps)
			v := fit.Coefficient * analysis.ModelG(fit.Model, n)
			curveAt = append(curveAt, v)
			grow(v)
		}
	}
	lo, hi := sweepPad(xlo, xhi)
	xa := logAxis(lo, hi, sweepLeft, sweepRight)
	lo, hi = sweepPad(ylo, yhi)
	ya := logAxis(lo, hi, sweepBottom, sweepTop) // up is slower

	// The value axis: a tick at each point's value, as its name wrote it,
	// where its label has room.
	last := math.Inf(-1)
	for _, p := range pts {
		x := xa.pos(p.Value)
		if x-last < sweepTickGap {
			continue
		}
		last = x
		b.line(x, sweepTop, x, sweepBottom, "grid")
		b.line(x, sweepBottom, x, sweepBottom+4, "tick")
		label := sweepValueText(sw.Family, p.Name, p.ValueExact)
		// A long label near an edge is anchored inside the plot.
		half := float64(runeLen(label)) * 3.5
		anchor := "middle"
		switch {
		case x+half > sweepWidth:
			anchor = "end"
		case x-half < 0:
			anchor = "start"
		}
		b.text(x, sweepBottom+16, anchor, "ticklabel", label)
	}
	b.line(sweepLeft, sweepBottom, sweepRight, sweepBottom, "axis")
	b.text((sweepLeft+sweepRight)/2, sweepBottom+34, "middle", "axistitle", param+" (log axis)")
	// The time axis.
	for _, t := range ya.ticks() {
		y := ya.pos(t)
		b.line(sweepLeft, y, sweepRight, y, "grid")
		b.line(sweepLeft-4, y, sweepLeft, y, "tick")
		b.text(sweepLeft-7, y+4, "end", "ticklabel", formatDuration(t))
	}
	b.line(sweepLeft, sweepTop, sweepLeft, sweepBottom, "axis")
	mid := (sweepTop + sweepBottom) / 2
	b.f(`<text x="14" y="`, px(mid), `" text-anchor="middle" class="axistitle" transform="rotate(-90 14 `, px(mid), `)">ns/op (log axis)</text>`)

	if fit != nil {
		var d strings.Builder
		drawn := 0
		for k, v := range curveAt {
			if !(v > 0) || !isFinite(v) {
				continue
			}
			n := math.Exp(math.Log(xlo) + (math.Log(xhi)-math.Log(xlo))*float64(k)/steps)
			cmd := "L"
			if drawn == 0 {
				cmd = "M"
			}
			d.WriteString(cmd + px(xa.pos(n)) + " " + px(ya.pos(v)))
			drawn++
		}
		if drawn > 0 {
			what := "selected model"
			if curve == "best" {
				what = "closest model, not selected (" + string(sw.Status) + ")"
			}
			b.f(`<g class="model" data-model="`, esc(string(fit.Model)), `" data-curve="`, curve, `"><title>`,
				esc(what+": "+fit.Model.Text()+", "+strconv.FormatFloat(fit.Coefficient, 'g', 4, 64)+" ns × g(n); R² "+formatR2(fit.R2)), `</title>`)
			b.f(`<path class="curve `, curve, `" d="`, d.String(), `"/></g>`)
		} else {
			curve = ""
		}
	}
	for _, p := range pts {
		x, y := xa.pos(p.Value), ya.pos(p.MedianNs)
		title := p.Name + ": " + formatDuration(p.MedianNs) + "/op"
		b.f(`<g class="point" data-value="`, esc(p.ValueExact), `">`)
		if iv := p.Interval; iv != nil && iv.LowNs > 0 && iv.HighNs > 0 && isFinite(iv.LowNs) && isFinite(iv.HighNs) {
			title += "; " + trimPercent(100*iv.Confidence) + " interval " + formatDuration(iv.LowNs) + " … " + formatDuration(iv.HighNs)
			b.line(x, ya.pos(iv.LowNs), x, ya.pos(iv.HighNs), "ci")
			b.line(x-4, ya.pos(iv.LowNs), x+4, ya.pos(iv.LowNs), "ci")
			b.line(x-4, ya.pos(iv.HighNs), x+4, ya.pos(iv.HighNs), "ci")
		} else {
			title += "; no interval (one process)"
		}
		if tp := p.Throughput; tp != nil {
			title += "; " + formatNumber(tp.Median) + " " + tp.Unit
		}
		b.f(`<circle class="sweep-dot" cx="`, px(x), `" cy="`, px(y), `" r="4"><title>`, esc(title), `</title></circle></g>`)
	}
	b.f(`</svg>`)
	return template.HTML(b.String()), curve
}

// sweepChangeLines are a comparison's sweep lines for the page.
func sweepChangeLines(changes []rundoc.SweepChange) []string {
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		out = append(out, c.Package+" "+c.Family+": "+c.Text)
	}
	return slices.Clip(out)
}
