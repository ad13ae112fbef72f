package report

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// renderHTML renders r and fails the test on an error.
func renderHTML(t *testing.T, r HTMLReport) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, r))
	return buf.String()
}

var (
	tagRe  = regexp.MustCompile(`<(/?)(section|svg|g|rect)\b([^>]*)>`)
	attrRe = regexp.MustCompile(`\s(class|data-[a-z]+)="([^"]*)"`)
)

// skeleton extracts the page's structure: every section, svg, classed g
// and segment rect with its class and data-* attributes, indented by
// section and svg nesting. Pixels and numbers are left out, so the golden
// files change only when the structure does.
func skeleton(page string) string {
	var b strings.Builder
	depth, skipSVG := 0, false
	for _, m := range tagRe.FindAllStringSubmatch(page, -1) {
		closing, tag, attrs := m[1] == "/", m[2], m[3]
		if closing {
			if tag == "svg" && skipSVG {
				skipSVG = false
				continue
			}
			if tag == "section" || tag == "svg" {
				depth--
			}
			continue
		}
		var kept []string
		for _, a := range attrRe.FindAllStringSubmatch(attrs, -1) {
			kept = append(kept, a[1]+"="+strconv.Quote(a[2]))
		}
		if len(kept) == 0 {
			// An unclassed g (a tooltip wrapper) or svg (a legend icon)
			// is no structure; skip it and its end.
			if tag == "svg" {
				skipSVG = true
			}
			continue
		}
		if tag == "rect" && !strings.Contains(attrs, `class="seg-`) {
			continue
		}
		b.WriteString(strings.Repeat("  ", depth) + tag + " " + strings.Join(kept, " ") + "\n")
		if tag == "section" || tag == "svg" {
			depth++
		}
	}
	return b.String()
}

// htmlComparisonFixture is comparisonFixture with an inconclusive and a
// faster row, so that every marker shape is drawn.
func htmlComparisonFixture() Comparison {
	c := comparisonFixture()
	c.Rows = append(c.Rows,
		ComparisonRow{Package: "example.com/p", Name: "BenchmarkFast", Metric: MetricTime,
			Old: &ComparedValue{Center: fptr(200), Processes: 5}, New: &ComparedValue{Center: fptr(150), Processes: 5},
			Ratio: fptr(0.75), Low: fptr(0.7), High: fptr(0.8), Confidence: fptr(0.95), P: fptr(0.001), Verdict: VerdictFaster},
		ComparisonRow{Package: "example.com/p", Name: "BenchmarkUnsure", Metric: MetricTime,
			Old: &ComparedValue{Center: fptr(200), Processes: 5}, New: &ComparedValue{Center: fptr(204), Processes: 5},
			Ratio: fptr(1.02), Low: fptr(0.97), High: fptr(1.08), Confidence: fptr(0.95), P: fptr(0.3), Verdict: VerdictInconclusive},
		ComparisonRow{Package: "example.com/p", Name: "BenchmarkFast", Metric: "MB/s",
			Old: &ComparedValue{Center: fptr(100), Processes: 5}, New: &ComparedValue{Center: fptr(133), Processes: 5},
			Ratio: fptr(1.33), Low: fptr(1.25), High: fptr(1.4), Confidence: fptr(0.95), P: fptr(0.001), Verdict: VerdictIncreased})
	c.Mismatches = []FieldDiff{{Field: "cpu", Old: "cpu", New: "other cpu"}}
	return c
}

// olderGreen is greenDoc measured a little slower: the OLD run of a
// compare.
func olderGreen() *Document {
	d := greenDoc()
	d.Rows[0] = benchRow(d.Rows[0].Package, d.Rows[0].Name,
		samples(1000, u64(1024), u64(2), nil, 1300, 1310, 1290),
		samples(1000, u64(1024), u64(2), nil, 1320, 1330, 1315))
	return &d
}

// againstDoc is a run with --against: each identity measured by the
// working tree and revision v1.0.
func againstDoc() *Document {
	d := greenDoc()
	var rows []Row
	for _, r := range d.Rows {
		old := r
		old.Build = "v1.0"
		rows = append(rows, old, r)
	}
	d.Rows = rows
	d.Comparisons = []Comparison{comparisonFixture()}
	return &d
}

// hostileDoc has a name that is markup, a failed process among good
// ones, a short sample and a failure output holding markup.
func hostileDoc() *Document {
	d := errorDoc()
	r := benchRow("example.com/x", "BenchmarkX/<script>alert(1)</script>",
		samples(100, nil, nil, nil, 1000, 1010),
		samples(100, nil, nil, nil, 1020, 1030))
	r.Processes[1].Samples[0].Short = true
	r.Summary.ShortSamples = 1
	r.Processes = append(r.Processes, ProcessResult{Index: 2, Outcome: "signal", Error: str("killed by SIGSEGV <b>")})
	r.Outcome, r.Error, r.Output = "signal", str("killed by SIGSEGV <b>"), "</pre><script>x()</script>"
	r.Notes = []string{"a process it started still held stdout <i>"}
	d.Rows = append(d.Rows, r)
	return &d
}

func windowsHTMLDoc() *Document {
	d := windowDoc()
	d.WindowSummaries = windowSummaries()
	// One mixed-scope window: only its wall is drawn.
	d.WindowSummaries = append(d.WindowSummaries, WindowSummary{Package: "github.com/acme/shop/ingest", Workload: "BenchmarkMixed",
		Name: "BenchmarkMixed", Processes: 2, Reps: 1, Scope: ScopeMixed,
		WallNs: &WindowStat{Median: 1000, Min: 900, Max: 1100}, Note: "proc 1: scope process"})
	return &d
}

func htmlCases() []struct {
	name string
	r    HTMLReport
} {
	green, errs, counted, tests := greenDoc(), errorDoc(), countedDoc(), testDoc()
	return []struct {
		name string
		r    HTMLReport
	}{
		{"green", HTMLReport{Run: &green}},
		{"errors", HTMLReport{Run: &errs}},
		{"counted", HTMLReport{Run: &counted}},
		{"tests", HTMLReport{Run: &tests}},
		{"windows", HTMLReport{Run: windowsHTMLDoc()}},
		{"compare", HTMLReport{Run: &green, Old: olderGreen(), Comparisons: []Comparison{htmlComparisonFixture()}}},
		{"against", HTMLReport{Run: againstDoc(), Comparisons: []Comparison{comparisonFixture()}, Title: "against v1.0"}},
		{"hostile", HTMLReport{Run: hostileDoc()}},
	}
}

func TestWriteHTMLSkeleton(t *testing.T) {
	for _, tt := range htmlCases() {
		t.Run(tt.name, func(t *testing.T) {
			page := renderHTML(t, tt.r)
			golden(t, "html/"+tt.name+".skeleton", []byte(skeleton(page)))
			assert.Equal(t, page, renderHTML(t, tt.r), "the same input gives the same bytes")
		})
	}
}

// TestWriteHTMLSelfContained checks that nothing in the page reaches
// outside the file and that the page has what a browser needs.
func TestWriteHTMLSelfContained(t *testing.T) {
	external := regexp.MustCompile(`(?i)(src=|href=|<link|<script|@import|url\(|https?://)`)
	for _, tt := range htmlCases() {
		t.Run(tt.name, func(t *testing.T) {
			page := renderHTML(t, tt.r)
			assert.Empty(t, external.FindAllString(page, -1), "no external reference, no script")
			for _, want := range []string{`<html lang="en">`, `<meta charset="utf-8">`, `<meta name="viewport"`, `<title>`} {
				assert.Contains(t, page, want)
			}
			assert.NotRegexp(t, `\b(NaN|[+-]?Inf)\b`, page, "no non-finite number")
			assert.NotContains(t, page, "<nil>")
		})
	}
}

// TestWriteHTMLHooks checks the hooks the browser test relies on against
// the documents: one strip plot per identity with one process group per
// process of every row drawn, one forest row per time comparison row and
// one window group per summary.
func TestWriteHTMLHooks(t *testing.T) {
	sectionRe := regexp.MustCompile(`(?s)<section class="benchmark" data-identity="([^"]*)">(.*?)</section>`)
	for _, tt := range htmlCases() {
		t.Run(tt.name, func(t *testing.T) {
			page := renderHTML(t, tt.r)
			want := map[string]int{}
			var order []string
			count := func(d *Document) {
				if d == nil {
					return
				}
				for _, r := range d.Rows {
					if r.Kind == KindBenchmark && d.Meta.Mode != ModeTest {
						id := esc(r.Package + " " + r.Name)
						if _, ok := want[id]; !ok {
							order = append(order, id)
						}
						want[id] += len(r.Processes)
					}
				}
			}
			count(tt.r.Run)
			count(tt.r.Old)
			sections := sectionRe.FindAllStringSubmatch(page, -1)
			require.Len(t, sections, len(want), "one section per benchmark identity")
			for _, s := range sections {
				id, body := s[1], s[2]
				assert.Equal(t, 1, strings.Count(body, `<svg class="strip"`), "%s: exactly one strip plot", id)
				assert.Contains(t, body, `data-processes="`+strconv.Itoa(want[id])+`"`, id)
				assert.Equal(t, want[id], strings.Count(body, `<g class="process" `), "%s: one group per process", id)
			}

			comps := append([]Comparison(nil), tt.r.Comparisons...)
			for _, c := range tt.r.Run.Comparisons {
				dup := false
				for _, d := range comps {
					dup = dup || assert.ObjectsAreEqual(c, d)
				}
				if !dup {
					comps = append(comps, c)
				}
			}
			assert.Equal(t, len(comps), strings.Count(page, `<section class="comparison">`), "comparisons are shown once each")
			timeRows := 0
			for _, c := range comps {
				for _, r := range c.Rows {
					if r.Metric == MetricTime {
						timeRows++
					}
				}
			}
			assert.Equal(t, len(comps), strings.Count(page, `<svg class="forest" data-metric="sec/op"`))
			forest := regexp.MustCompile(`(?s)<svg class="forest" data-metric="sec/op".*?</svg>`).FindAllString(page, -1)
			rows := 0
			for _, f := range forest {
				rows += strings.Count(f, `<g class="forest-row"`)
			}
			assert.Equal(t, timeRows, rows, "one forest row per sec/op comparison row")
			assert.Equal(t, timeRows, strings.Count(page, `<g class="forest-row"`), "other metrics' forests hold no g.forest-row")

			assert.Equal(t, len(tt.r.Run.WindowSummaries), strings.Count(page, `<g class="window" `), "one group per window summary")
		})
	}
}

func TestWriteHTMLEscapes(t *testing.T) {
	page := renderHTML(t, HTMLReport{Run: hostileDoc()})
	assert.NotContains(t, page, "<script>")
	assert.NotContains(t, page, "</pre><script>")
	assert.NotContains(t, page, "SIGSEGV <b>")
	assert.Contains(t, page, "new: a process it started still held stdout &lt;i&gt;", "a row's notes are shown with their side")
	assert.Contains(t, page, "BenchmarkX/&lt;script&gt;alert(1)&lt;/script&gt;")
	assert.Contains(t, page, "&lt;/pre&gt;&lt;script&gt;x()&lt;/script&gt;", "the output tail is shown, escaped")
	assert.Contains(t, page, `data-outcome="signal"`, "the failed process is drawn with its outcome")
	assert.Contains(t, page, `class="dot short"`, "a short sample is marked")
}

// TestWriteHTMLUnavailableNotZero checks that an unattributed component is
// an em dash, never a drawn zero, and that a wall-only window draws its
// wall only.
func TestWriteHTMLUnavailableNotZero(t *testing.T) {
	d := windowsHTMLDoc()
	page := renderHTML(t, HTMLReport{Run: d})
	for _, s := range d.WindowSummaries {
		id := esc(s.Package + " " + s.Workload + " " + s.Name)
		i := strings.Index(page, `<g class="window" data-window="`+id+`"`)
		require.GreaterOrEqual(t, i, 0, id)
		rest := page[i+1:]
		end := strings.Index(rest, `<g class="window" `)
		if end < 0 {
			end = strings.Index(rest, `</svg>`)
		}
		body := rest[:end]
		for _, seg := range windowSegments {
			drawn := strings.Contains(body, `class="`+seg.class+`"`)
			st := seg.get(s)
			switch {
			case s.WallNs == nil || s.Scope == ScopeMixed || s.Scope == ScopeWallOnly:
				assert.False(t, drawn, "%s: %s drawn for a window without components", id, seg.class)
			case st == nil:
				assert.False(t, drawn, "%s: unavailable %s drawn", id, seg.class)
			default:
				assert.True(t, drawn, "%s: %s missing", id, seg.class)
			}
		}
		if s.Scope == ScopeMixed {
			assert.Contains(t, body, `seg-wall`, "a mixed window draws its wall")
		}
	}
	assert.Contains(t, page, "<td class=\"num\">"+dash+"</td>", "an unavailable component is an em dash in the table")
}

// TestWriteHTMLNeedsRun checks the one required field.
func TestWriteHTMLNeedsRun(t *testing.T) {
	assert.Error(t, WriteHTML(&bytes.Buffer{}, HTMLReport{}))
}

// TestWriteHTMLAxis checks the axis choice: log only when the values span
// more than ×10, ticks inside the domain and increasing.
func TestWriteHTMLAxis(t *testing.T) {
	for _, tt := range []struct {
		lo, hi float64
		log    bool
	}{{1000, 1200, false}, {10, 5000, true}, {5, 5, false}, {0, 3, false}, {1e3, 1e9, true}} {
		a := newAxis(tt.lo, tt.hi, 0, 100, true)
		assert.Equal(t, tt.log, a.log, "%v..%v", tt.lo, tt.hi)
		ts := a.ticks()
		assert.GreaterOrEqual(t, len(ts), 2, "%v..%v: %v", tt.lo, tt.hi, ts)
		for i, v := range ts {
			assert.True(t, v >= a.lo && v <= a.hi*(1+1e-9), "tick %v outside %v..%v", v, a.lo, a.hi)
			if i > 0 {
				assert.Greater(t, v, ts[i-1])
			}
		}
		assert.InDelta(t, 0, a.pos(a.lo), 1e-9)
		assert.InDelta(t, 100, a.pos(a.hi), 1e-9)
	}
}

// TestWriteHTMLDemo renders a real run document of the demo, trimmed to
// two identities and kept in testdata, and checks its hooks.
func TestWriteHTMLDemo(t *testing.T) {
	b, err := os.ReadFile("testdata/html/demo-run.json")
	require.NoError(t, err)
	var d Document
	require.NoError(t, json.Unmarshal(b, &d))
	page := renderHTML(t, HTMLReport{Run: &d})
	for _, r := range d.Rows {
		if r.Kind == KindBenchmark {
			assert.Contains(t, page, `<section class="benchmark" data-identity="`+esc(r.Package+" "+r.Name)+`">`)
		}
	}
	assert.Equal(t, len(d.WindowSummaries), strings.Count(page, `<g class="window" `))
	golden(t, "html/demo.skeleton", []byte(skeleton(page)))
}

// TestWriteHTMLForestMarkers checks that each verdict is drawn with its own
// shape, and that a row without a ratio has no marker on the axis.
func TestWriteHTMLForestMarkers(t *testing.T) {
	green := greenDoc()
	page := renderHTML(t, HTMLReport{Run: &green, Comparisons: []Comparison{htmlComparisonFixture()}})
	rowRe := regexp.MustCompile(`(?s)<g class="forest-row(?:-metric)?" data-identity="[^"]*" data-verdict="([^"]*)">(.*?)<text[^>]*class="verdict`)
	seen := map[string]bool{}
	for _, m := range rowRe.FindAllStringSubmatch(page, -1) {
		verdict, body := m[1], m[2]
		seen[verdict] = true
		switch verdict {
		case VerdictFaster:
			assert.Contains(t, body, `class="mk mk-down"`)
		case VerdictSlower:
			assert.Contains(t, body, `class="mk mk-up"`)
		case VerdictDecreased:
			assert.Contains(t, body, `class="mk mk-dec"`)
		case VerdictIncreased:
			assert.Contains(t, body, `class="mk mk-inc"`)
		case VerdictEquivalent, VerdictSame, VerdictWithinNoise:
			assert.Contains(t, body, `<circle class="mk mk-same"`)
		case VerdictInconclusive:
			assert.Contains(t, body, `class="mk mk-unsure"`)
		default:
			assert.NotContains(t, body, `class="mk `, "%s: no marker on the axis", verdict)
			assert.Contains(t, body, verdict+": no ratio")
		}
	}
	for _, v := range []string{VerdictFaster, VerdictSlower, VerdictEquivalent, VerdictInconclusive, VerdictFailed, VerdictOnlyOld, VerdictIncreased} {
		assert.True(t, seen[v], "a forest row with verdict %s", v)
	}
}

// TestWriteHTMLStripAxis checks that the strip plot switches to a log axis
// only when its values span more than ×10.
func TestWriteHTMLStripAxis(t *testing.T) {
	for _, tt := range []struct {
		name string
		ns   []float64
		log  bool
	}{
		{"narrow", []float64{1000, 1100, 1200}, false},
		{"wide", []float64{100, 900, 5000}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := greenDoc()
			d.Rows = []Row{benchRow("example.com/p", "BenchmarkX", samples(10, nil, nil, nil, tt.ns...), samples(10, nil, nil, nil, tt.ns...))}
			page := renderHTML(t, HTMLReport{Run: &d})
			assert.Equal(t, tt.log, strings.Contains(page, "ns/op (log axis"), "log axis")
			assert.Equal(t, !tt.log, strings.Contains(page, "ns/op (linear axis)"), "linear axis")
		})
	}
}
