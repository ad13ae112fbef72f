package report

import (
	"html/template"
	"slices"
	"strconv"

	"github.com/benchsup/benchsup/rundoc"
)

// htmlRecording is one recorded identity on the page: its line of the
// table and the ECDF of its retained spans.
type htmlRecording struct {
	Identity, Source, Summary string
	SVG                       template.HTML
}

// The ECDF plot's geometry.
const (
	ecdfWidth, ecdfHeight = 960.0, 240.0
	ecdfLeft, ecdfRight   = 64.0, 940.0
	ecdfTop, ecdfBottom   = 12.0, 196.0
)

func recordingsView(recs []rundoc.Recording) []htmlRecording {
	out := make([]htmlRecording, 0, len(recs))
	for i, r := range recs {
		o := r.Outcomes
		sum := strconv.FormatInt(r.Observations, 10) + " spans (" + strconv.FormatInt(o.Failure, 10) + " failure, " +
			strconv.FormatInt(o.Timeout, 10) + " timeout, " + strconv.FormatInt(o.Canceled, 10) + " canceled, " +
			strconv.FormatInt(o.Unfinished, 10) + " unfinished)"
		if s := r.Summary; s != nil {
			sum += "; median " + formatDuration(s.MedianNs) + ", p95 " + formatDuration(s.P95Ns) + ", p99 " +
				formatDuration(s.P99Ns) + ", max " + formatDuration(float64(s.MaxNs))
			if r.Omitted > 0 {
				sum += "; percentiles of the " + strconv.FormatInt(r.Retained, 10) + " retained spans (" + r.Retention.Policy + ")"
			}
		}
		out = append(out, htmlRecording{Identity: r.Identity, Source: r.Source, Summary: sum, SVG: ecdfSVG(r, i)})
	}
	return out
}

// ecdfSVG draws the empirical distribution of a recording's retained
// spans: for each duration, the share of spans at or below it. A step
// per distinct duration, so nothing is smoothed or binned.
func ecdfSVG(r rundoc.Recording, i int) template.HTML {
	id := "ecdf" + strconv.Itoa(i)
	var b svgBuilder
	b.f(`<svg class="ecdf" data-identity="`, esc(r.Identity), `" data-spans="`, strconv.Itoa(len(r.Spans)),
		`" viewBox="0 0 `, px(ecdfWidth), ` `, px(ecdfHeight), `" role="img" aria-labelledby="`, id, `-title">`)
	b.f(`<title id="`, id, `-title">`, esc(r.Identity+": share of spans at or below each duration"), `</title>`)
	ds := r.SpanDurations()
	if len(ds) == 0 {
		b.text(ecdfLeft, ecdfTop+20, "start", "failtext", "no spans kept: record with --spans to see their distribution")
		b.f(`</svg>`)
		return template.HTML(b.String())
	}
	slices.Sort(ds)
	xa := newAxis(ds[0], ds[len(ds)-1], ecdfLeft, ecdfRight, true)
	ya := axis{lo: 0, hi: 1, x0: ecdfBottom, x1: ecdfTop}
	for _, f := range []float64{0, 0.5, 0.95, 1} {
		y := ya.pos(f)
		b.line(ecdfLeft, y, ecdfRight, y, "grid")
		b.text(ecdfLeft-6, y+4, "end", "ticklabel", strconv.FormatFloat(100*f, 'f', -1, 64)+"%")
	}
	b.drawAxis(xa, ecdfTop, ecdfBottom, formatDuration, "span duration")
	b.f(`<path class="model" data-curve="ecdf" fill="none" stroke="#2b6cb0" stroke-width="1.5" d="M`, px(xa.pos(ds[0])), ` `, px(ya.pos(0)))
	n := float64(len(ds))
	for k := 0; k < len(ds); k++ {
		if k+1 < len(ds) && ds[k+1] == ds[k] {
			continue // one step per distinct duration
		}
		x := xa.pos(ds[k])
		b.f(` H`, px(x), ` V`, px(ya.pos(float64(k+1)/n)))
	}
	b.f(`"/></svg>`)
	return template.HTML(b.String())
}
