package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
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
func htmlComparisonFixture() rundoc.Comparison {
	c := rundoctest.ComparisonFixture()
	c.Rows = append(c.Rows,
		rundoc.ComparisonRow{Package: "example.com/p", Name: "BenchmarkFast", Metric: rundoc.MetricTime,
			Old: &rundoc.ComparedValue{Center: rundoctest.Fptr(200), Processes: 5}, New: &rundoc.ComparedValue{Center: rundoctest.Fptr(150), Processes: 5},
			Ratio: rundoctest.Fptr(0.75), Low: rundoctest.Fptr(0.7), High: rundoctest.Fptr(0.8), Confidence: rundoctest.Fptr(0.95), P: rundoctest.Fptr(0.001), Verdict: rundoc.VerdictFaster},
		rundoc.ComparisonRow{Package: "example.com/p", Name: "BenchmarkUnsure", Metric: rundoc.MetricTime,
			Old: &rundoc.ComparedValue{Center: rundoctest.Fptr(200), Processes: 5}, New: &rundoc.ComparedValue{Center: rundoctest.Fptr(204), Processes: 5},
			Ratio: rundoctest.Fptr(1.02), Low: rundoctest.Fptr(0.97), High: rundoctest.Fptr(1.08), Confidence: rundoctest.Fptr(0.95), P: rundoctest.Fptr(0.3), Verdict: rundoc.VerdictInconclusive},
		rundoc.ComparisonRow{Package: "example.com/p", Name: "BenchmarkFast", Metric: "MB/s",
			Old: &rundoc.ComparedValue{Center: rundoctest.Fptr(100), Processes: 5}, New: &rundoc.ComparedValue{Center: rundoctest.Fptr(133), Processes: 5},
			Ratio: rundoctest.Fptr(1.33), Low: rundoctest.Fptr(1.25), High: rundoctest.Fptr(1.4), Confidence: rundoctest.Fptr(0.95), P: rundoctest.Fptr(0.001), Verdict: rundoc.VerdictIncreased},
		rundoc.ComparisonRow{Package: "example.com/p", Name: "BenchmarkFast", Metric: "B/op",
			Old: &rundoc.ComparedValue{Center: rundoctest.Fptr(64), Processes: 5}, New: &rundoc.ComparedValue{Center: rundoctest.Fptr(80), Processes: 5},
			Ratio: rundoctest.Fptr(1.25), Low: rundoctest.Fptr(1.25), High: rundoctest.Fptr(1.25), Confidence: rundoctest.Fptr(0.95), P: rundoctest.Fptr(0.001), Verdict: rundoc.VerdictIncreased},
		// No allocation on either side: the same, without a ratio.
		rundoc.ComparisonRow{Package: "example.com/p", Name: "BenchmarkNoAlloc", Metric: "B/op",
			Old: &rundoc.ComparedValue{Center: rundoctest.Fptr(0), Processes: 5}, New: &rundoc.ComparedValue{Center: rundoctest.Fptr(0), Processes: 5},
			Verdict: rundoc.VerdictSame})
	c.Mismatches = []rundoc.FieldDiff{{Field: "cpu", Old: "cpu", New: "other cpu"}}
	return c
}

// olderGreen is GreenDoc measured a little slower: the OLD run of a
// compare.
func olderGreen() *rundoc.Document {
	d := rundoctest.GreenDoc()
	d.Rows[0] = rundoctest.BenchRow(d.Rows[0].Package, d.Rows[0].Name,
		rundoctest.SamplesOf(1000, rundoctest.U64(1024), rundoctest.U64(2), nil, 1300, 1310, 1290),
		rundoctest.SamplesOf(1000, rundoctest.U64(1024), rundoctest.U64(2), nil, 1320, 1330, 1315))
	return &d
}

// againstDoc is a run with --against: each identity measured by the
// working tree and revision v1.0.
func againstDoc() *rundoc.Document {
	d := rundoctest.GreenDoc()
	var rows []rundoc.Row
	for _, r := range d.Rows {
		old := r
		old.Build = "v1.0"
		rows = append(rows, old, r)
	}
	d.Rows = rows
	d.Comparisons = []rundoc.Comparison{rundoctest.ComparisonFixture()}
	return &d
}

// hostileDoc has a name that is markup, a failed process among good
// ones, a short sample and a failure output holding markup.
func hostileDoc() *rundoc.Document {
	d := rundoctest.ErrorDoc()
	r := rundoctest.BenchRow("example.com/x", "BenchmarkX/<script>alert(1)</script>",
		rundoctest.SamplesOf(100, nil, nil, nil, 1000, 1010),
		rundoctest.SamplesOf(100, nil, nil, nil, 1020, 1030))
	r.Processes[1].Samples[0].Short = true
	r.Summary.ShortSamples = 1
	r.Processes = append(r.Processes, rundoc.ProcessResult{Index: 2, Outcome: "signal", Error: rundoctest.Str("killed by SIGSEGV <b>")})
	r.Outcome, r.Error, r.Output = "signal", rundoctest.Str("killed by SIGSEGV <b>"), "</pre><script>x()</script>"
	r.Notes = []string{"a process it started still held stdout <i>"}
	d.Rows = append(d.Rows, r)
	return &d
}

func windowsHTMLDoc() *rundoc.Document {
	d := rundoctest.WindowDoc()
	d.WindowSummaries = rundoctest.WindowSummaryList()
	// One mixed-scope window: only its wall is drawn.
	d.WindowSummaries = append(d.WindowSummaries, rundoc.WindowSummary{Package: "github.com/acme/shop/ingest", Workload: "BenchmarkMixed",
		Name: "BenchmarkMixed", Processes: 2, Reps: 1, Scope: rundoc.ScopeMixed,
		WallNs: &rundoc.WindowStat{Median: 1000, Min: 900, Max: 1100}, Note: "proc 1: scope process"})
	return &d
}

func htmlCases() []struct {
	name string
	r    HTMLReport
} {
	green, errs, counted, tests := rundoctest.GreenDoc(), rundoctest.ErrorDoc(), rundoctest.CountedDoc(), rundoctest.TestsDoc()
	return []struct {
		name string
		r    HTMLReport
	}{
		{"green", HTMLReport{Run: &green}},
		{"errors", HTMLReport{Run: &errs}},
		{"counted", HTMLReport{Run: &counted}},
		{"tests", HTMLReport{Run: &tests}},
		{"windows", HTMLReport{Run: windowsHTMLDoc()}},
		{"compare", HTMLReport{Run: &green, Old: olderGreen(), Comparisons: []rundoc.Comparison{htmlComparisonFixture()}}},
		{"against", HTMLReport{Run: againstDoc(), Comparisons: []rundoc.Comparison{rundoctest.ComparisonFixture()}, Title: "against v1.0"}},
		{"hostile", HTMLReport{Run: hostileDoc()}},
		{"hygiene", HTMLReport{Run: hygieneDoc()}},
		{"sweeps", HTMLReport{Run: sweepsHTMLDoc()}},
		{"variants", HTMLReport{Run: variantsHTMLDoc()}},
	}
}

// sweepsHTMLDoc is sweepDoc run against a baseline whose comparison
// found a family's scaling changed.
func sweepsHTMLDoc() *rundoc.Document {
	d := sweepDoc()
	c := rundoctest.ComparisonFixture()
	c.Sweeps = rundoctest.SweepChangesFixture()
	d.Comparisons = []rundoc.Comparison{c}
	return &d
}

func TestWriteHTMLSkeleton(t *testing.T) {
	for _, tt := range htmlCases() {
		t.Run(tt.name, func(t *testing.T) {
			page := renderHTML(t, tt.r)
			rundoctest.Golden(t, "html/"+tt.name+".skeleton", []byte(skeleton(page)))
			assert.Equal(t, page, renderHTML(t, tt.r), "the same input gives the same bytes")
		})
	}
}

// TestWriteHTMLSelfContained checks that nothing in the page reaches
// outside the file and that the page has what a browser needs.
func TestWriteHTMLSelfContained(t *testing.T) {
	external := regexp.MustCompile(`(?i)(src=|href="[^#]|<link|<script|@import|url\(|https?://)`)
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
// One window group per summary.
func TestWriteHTMLHooks(t *testing.T) {
	sectionRe := regexp.MustCompile(`(?s)<section class="benchmark" id="b[0-9]+-[A-Za-z0-9-]*" data-identity="([^"]*)">(.*?)</section>`)
	for _, tt := range htmlCases() {
		t.Run(tt.name, func(t *testing.T) {
			page := renderHTML(t, tt.r)
			want := map[string]int{}
			var order []string
			count := func(d *rundoc.Document) {
				if d == nil {
					return
				}
				for _, r := range d.Rows {
					if r.Kind == rundoc.KindBenchmark && d.Meta.Mode != rundoc.ModeTest {
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

			comps := append([]rundoc.Comparison(nil), tt.r.Comparisons...)
			for _, c := range tt.r.Run.Comparisons {
				dup := false
				for _, d := range comps {
					dup = dup || assert.ObjectsAreEqual(c, d)
				}
				if !dup {
					comps = append(comps, c)
				}
			}
			// Comparisons of builds have a section and a time forest each;
			// variant comparisons (--vs) a forest per group.
			builds := 0
			timeRows := 0
			groups := map[[2]string]bool{}
			for _, c := range comps {
				if c.Variants == nil {
					builds++
				}
				for _, r := range c.Rows {
					if r.Metric == rundoc.MetricTime {
						timeRows++
						if c.Variants != nil {
							groups[[2]string{r.Package, r.Name}] = true
						}
					}
				}
			}
			assert.Equal(t, builds, strings.Count(page, `<section class="comparison">`), "comparisons are shown once each")
			assert.Equal(t, builds+len(groups), strings.Count(page, `<svg class="forest" data-metric="sec/op"`))
			forest := regexp.MustCompile(`(?s)<svg class="forest" data-metric="sec/op".*?</svg>`).FindAllString(page, -1)
			rows := 0
			for _, f := range forest {
				rows += strings.Count(f, `<g class="forest-row"`)
			}
			assert.Equal(t, timeRows, rows, "one forest row per sec/op comparison row")
			assert.Equal(t, timeRows, strings.Count(page, `<g class="forest-row"`), "other metrics' forests hold no g.forest-row")

			assert.Equal(t, len(tt.r.Run.WindowSummaries), strings.Count(page, `<g class="window" `), "one group per window summary")

			plots := regexp.MustCompile(`(?s)<svg class="sweep" data-family="([^"]*)"[^>]*data-points="(\d+)".*?</svg>`).FindAllStringSubmatch(page, -1)
			require.Len(t, plots, len(tt.r.Run.Sweeps), "one plot per sweep family")
			for i, sw := range tt.r.Run.Sweeps {
				assert.Equal(t, esc(sweepIdentity(sw)), plots[i][1])
				assert.Equal(t, strconv.Itoa(len(sw.Points)), plots[i][2], "%s: every point is drawn", sw.Family)
				assert.Equal(t, len(sw.Points), strings.Count(plots[i][0], `<g class="point" `), "%s: one group per point", sw.Family)
			}
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
			case s.WallNs == nil || s.Scope == rundoc.ScopeMixed || s.Scope == rundoc.ScopeWallOnly:
				assert.False(t, drawn, "%s: %s drawn for a window without components", id, seg.class)
			case st == nil:
				assert.False(t, drawn, "%s: unavailable %s drawn", id, seg.class)
			default:
				assert.True(t, drawn, "%s: %s missing", id, seg.class)
			}
		}
		if s.Scope == rundoc.ScopeMixed {
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
	b, err := os.ReadFile(filepath.Join("..", "rundoc", "testdata", "demo-run.json")) // the model's sample run
	require.NoError(t, err)
	var d rundoc.Document
	require.NoError(t, json.Unmarshal(b, &d))
	page := renderHTML(t, HTMLReport{Run: &d})
	for _, r := range d.Rows {
		if r.Kind == rundoc.KindBenchmark {
			assert.Regexp(t, `<section class="benchmark" id="b[0-9]+-[A-Za-z0-9-]*" data-identity="`+regexp.QuoteMeta(esc(r.Package+" "+r.Name))+`">`, page)
		}
	}
	assert.Equal(t, len(d.WindowSummaries), strings.Count(page, `<g class="window" `))
	rundoctest.Golden(t, "html/demo.skeleton", []byte(skeleton(page)))
}

// TestWriteHTMLForestMarkers checks that each verdict is drawn with its own
// shape, and that a row without a ratio has no marker on the axis.
func TestWriteHTMLForestMarkers(t *testing.T) {
	green := rundoctest.GreenDoc()
	page := renderHTML(t, HTMLReport{Run: &green, Comparisons: []rundoc.Comparison{htmlComparisonFixture()}})
	rowRe := regexp.MustCompile(`(?s)<g class="forest-row(?:-metric)?" data-identity="[^"]*" data-verdict="([^"]*)">(.*?)<text[^>]*class="verdict`)
	seen := map[string]bool{}
	for _, m := range rowRe.FindAllStringSubmatch(page, -1) {
		verdict, body := m[1], m[2]
		seen[verdict] = true
		switch rundoc.Verdict(verdict) {
		case rundoc.VerdictFaster:
			assert.Contains(t, body, `class="mk mk-down"`)
		case rundoc.VerdictSlower:
			assert.Contains(t, body, `class="mk mk-up"`)
		case rundoc.VerdictDecreased:
			assert.Contains(t, body, `class="mk mk-dec"`)
		case rundoc.VerdictIncreased:
			assert.Contains(t, body, `class="mk mk-inc"`)
		case rundoc.VerdictEquivalent, rundoc.VerdictSame, rundoc.VerdictWithinNoise:
			if strings.Contains(body, "no ratio") {
				// 0 B/op on both sides: no marker, and not a failure's cross.
				assert.NotContains(t, body, `class="mk `)
				assert.NotContains(t, body, `class="fail"`, "%s without a ratio is not drawn as a failure", verdict)
				seen["same without a ratio"] = true
				continue
			}
			assert.Contains(t, body, `<circle class="mk mk-same"`)
		case rundoc.VerdictInconclusive:
			assert.Contains(t, body, `class="mk mk-unsure"`)
		default:
			assert.NotContains(t, body, `class="mk `, "%s: no marker on the axis", verdict)
			assert.Contains(t, body, verdict+": no ratio")
		}
	}
	for _, v := range []rundoc.Verdict{rundoc.VerdictFaster, rundoc.VerdictSlower, rundoc.VerdictEquivalent, rundoc.VerdictInconclusive, rundoc.VerdictFailed, rundoc.VerdictOnlyOld, rundoc.VerdictIncreased} {
		assert.True(t, seen[string(v)], "a forest row with verdict %s", v)
	}
	assert.True(t, seen["same without a ratio"], "a forest row that is the same without a ratio")
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
			d := rundoctest.GreenDoc()
			d.Rows = []rundoc.Row{rundoctest.BenchRow("example.com/p", "BenchmarkX", rundoctest.SamplesOf(10, nil, nil, nil, tt.ns...), rundoctest.SamplesOf(10, nil, nil, nil, tt.ns...))}
			page := renderHTML(t, HTMLReport{Run: &d})
			assert.Equal(t, tt.log, strings.Contains(page, "ns/op (log axis"), "log axis")
			assert.Equal(t, !tt.log, strings.Contains(page, "ns/op (linear axis)"), "linear axis")
		})
	}
}

// hygieneDoc is GreenDoc run with every host hygiene measure of #15: a
// placement with unreserved SMT siblings, one shard of four, a passed
// quiescence preflight, a claim that waited, and the interference watch
// in retake mode. Its first benchmark had to repair itself (two samples
// retaken in process 0, one disturbed sample kept in process 1: the
// budget ran out there); its second was watched and saw nothing; the
// others were not watched.
func hygieneDoc() *rundoc.Document {
	d := rundoctest.GreenDoc()
	d.Meta.Placement = &rundoc.Placement{CPUs: "0-1", UnreservedSiblings: "8-9", Note: "children's GOMAXPROCS follows the affinity: 2"}
	d.Meta.Shard = &rundoc.ShardInfo{Index: 2, Count: 4, Method: "hash", Functions: 3}
	d.Meta.Quiescence = &rundoc.Quiescence{MaxAverage: 0.2, MaxCore: 0.5, StableNs: 1e9, TimeoutNs: 60e9, WaitedNs: 1_234_000_000, Polls: 12,
		StableAverage: rundoctest.F64(0.04), StableBusiest: rundoctest.F64(0.11), StableBusiestCPU: new(1)}
	d.Meta.Claim = &rundoc.HostClaim{Dir: "/run/benchsup", CPUs: "0-1", WaitedNs: 3_400_000_000,
		WaitedFor: []string{"cpu1 is held by pid 123 on build7 since 2026-03-01T11:59:00Z (benchsup run ./...)"}}
	d.Meta.Interference = &rundoc.InterferencePolicy{Response: "retake", MaxForeign: 0.1, MaxRetakes: 25, Scope: rundoc.InterferenceScope}

	watch := func(r *rundoc.Row, foreign ...[]float64) {
		for i := range r.Processes {
			p := &r.Processes[i]
			p.Interference = &rundoc.ProcessInterference{Samples: len(p.Samples)}
			for j := range p.Samples {
				p.Samples[j].Foreign = rundoctest.F64(foreign[i][j])
				if foreign[i][j] > 0.1 {
					p.Samples[j].Disturbed = true
					p.Interference.Disturbed++
				}
				if m := p.Interference.MaxForeign; m == nil || foreign[i][j] > *m {
					p.Interference.MaxForeign = rundoctest.F64(foreign[i][j])
				}
			}
		}
	}
	enc := &d.Rows[0]
	watch(enc, []float64{0.01, 0.02, 0.01}, []float64{0.03, 0.02, 0.35}, []float64{0.01, 0.01, 0.02})
	enc.Processes[1].Interference.BudgetExhausted = true
	retaken := rundoctest.SamplesOf(1000, rundoctest.U64(1024), rundoctest.U64(2), nil, 1890, 2410)
	retaken[0].Foreign, retaken[0].Disturbed = rundoctest.F64(0.42), true
	retaken[1].Foreign, retaken[1].Disturbed = rundoctest.F64(0.6), true
	p0 := &enc.Processes[0]
	p0.Retaken = retaken
	p0.Interference.Samples += 2
	p0.Interference.Disturbed += 2
	p0.Interference.Retakes = 2
	p0.Interference.MaxForeign = rundoctest.F64(0.6)
	enc.Interference = rundoc.SumInterference(enc.Processes)
	enc.Notes = append(enc.Notes, enc.Interference.Note())

	dec := &d.Rows[1]
	watch(dec, []float64{0.01, 0.02, 0.03}, []float64{0.02, 0.01, 0.02}, []float64{0.01, 0.04, 0.02})
	dec.Interference = rundoc.SumInterference(dec.Processes)
	return &d
}

// TestHygieneLines pins each header line of the host hygiene fields, one
// line each, and that a document without them has none.
func TestHygieneLines(t *testing.T) {
	merged := rundoctest.GreenDoc().Meta
	merged.Shard = &rundoc.ShardInfo{Count: 4, Method: "balanced", Merged: []rundoc.MergedPart{
		{Index: 1, Hostname: "a"}, {Index: 2, Hostname: "b"}, {Index: 3, Hostname: "a"}, {Index: 4, Hostname: "b"}}}
	merged.Claim = &rundoc.HostClaim{Dir: "/run/benchsup", CPUs: "0-7", MachineWide: true}
	merged.Quiescence = &rundoc.Quiescence{MaxAverage: 0.125, MaxCore: 0.5, StableNs: 2e9, CPUs: "2-3", WaitedNs: 2e9, Note: "SMT siblings unknown"}
	merged.Interference = &rundoc.InterferencePolicy{Response: "pause", MaxForeign: 0.1, MaxRetakes: 25, SettleNs: 5e8, PauseMaxNs: 3e10, CPUs: "2-3"}
	tests := []struct {
		name string
		meta rundoc.Meta
		want []string
	}{
		{"none", rundoctest.GreenDoc().Meta, nil},
		{"all", hygieneDoc().Meta, []string{
			"placement: cpus 0-1 (children's GOMAXPROCS follows the affinity: 2); SMT siblings 8-9 not reserved",
			"shard: 2/4 by hash, 3 functions",
			"quiescence: host quiet for 1s under 20% average, 50% per CPU after waiting 1.2s",
			"claim: cpus 0-1 in /run/benchsup, waited 3.4s (cpu1 is held by pid 123 on build7 since 2026-03-01T11:59:00Z (benchsup run ./...))",
			"interference: retake over 10% foreign CPU (retakes at most 25 per process)",
		}},
		{"merged", merged, []string{
			"shards: 4 merged (hosts a, b), dealt by balanced",
			"quiescence: cpus 2-3 quiet for 2s under 12.5% average, 50% per CPU after waiting 2s (SMT siblings unknown)",
			"claim: cpus 0-7 (machine-wide) in /run/benchsup, free",
			"interference: pause over 10% foreign CPU on cpus 2-3 (retakes at most 25 per process; pauses settle 500ms, at most 30s in all)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hygieneLines(tt.meta)
			assert.Equal(t, tt.want, got)
			for _, l := range got {
				assert.NotContains(t, l, "\n", "one line each")
			}
		})
	}
}

// TestWriteTableHygiene is the table golden of hygieneDoc: the hygiene
// lines follow containment, the repaired row shows its retakes in n and
// its interference line in the notes.
func TestWriteTableHygiene(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, *hygieneDoc(), TableOptions{}))
	out := buf.String()
	rundoctest.Golden(t, "hygiene.table", buf.Bytes())
	lines := strings.Split(out, "\n")
	require.Greater(t, len(lines), 7)
	assert.True(t, strings.HasPrefix(lines[1], "containment: "))
	for i, want := range []string{"placement: ", "shard: ", "quiescence: ", "claim: ", "interference: "} {
		assert.True(t, strings.HasPrefix(lines[2+i], want), "line %d is %q", 2+i, lines[2+i])
	}
	assert.Contains(t, out, "(2 retaken)")
	assert.Contains(t, out, "(1 disturbed)")
	assert.Contains(t, out, "interference: 3 of 11 samples disturbed (max 60% foreign CPU), 2 retaken, 1 disturbed sample kept; budget exhausted in 1 process")
}

// TestWriteHTMLHygiene checks that the page shows every hygiene fact, the
// repaired row's callout, and each disturbed and retaken sample in its own
// process's group, with the legend explaining both.
func TestWriteHTMLHygiene(t *testing.T) {
	doc := hygieneDoc()
	page := renderHTML(t, HTMLReport{Run: doc})
	for _, want := range []string{
		"<td>placement</td><td>cpus 0-1 (children&#39;s GOMAXPROCS follows the affinity: 2); SMT siblings 8-9 not reserved</td>",
		"<td>shard</td><td>2/4 by hash, 3 functions</td>",
		"<td>quiescence</td><td>host quiet for 1s under 20% average, 50% per CPU after waiting 1.2s; seen over the quiet interval: 4% average, busiest CPU 11% (cpu1)</td>",
		"<td>claim</td><td>cpus 0-1 in /run/benchsup, waited 3.4s",
		"<td>interference</td><td>retake over 10% foreign CPU (retakes at most 25 per process); watches benchmark timing samples only",
	} {
		assert.Contains(t, page, want)
	}
	assert.Equal(t, 1, strings.Count(page, "<td>placement</td>"), "the placement fact is replaced, not repeated")

	sectionRe := regexp.MustCompile(`(?s)<section class="benchmark" id="b[0-9]+-[A-Za-z0-9-]*" data-identity="([^"]*)">(.*?)</section>`)
	sections := sectionRe.FindAllStringSubmatch(page, -1)
	require.Len(t, sections, len(doc.Rows))
	for i, s := range sections {
		body, r := s[2], doc.Rows[i]
		repaired := r.Interference.Repaired()
		assert.Equal(t, repaired, strings.Contains(body, `class="repair"`), "%s: a callout exactly when the row was repaired", r.Name)
		disturbed, retaken := 0, 0
		for _, p := range r.Processes {
			g := regexp.MustCompile(`(?s)<g class="process" data-process="` + strconv.Itoa(p.Index) + `"[^>]*>(.*?<title>.*?)</g>\s*(?:<g class="process"|</svg>)`).FindStringSubmatch(body)
			require.NotNil(t, g, "%s: process %d has its group", r.Name, p.Index)
			kd := 0
			for _, smp := range p.Samples {
				if smp.Disturbed {
					kd++
				}
			}
			assert.Equal(t, kd, strings.Count(g[1], `class="ring"`), "%s p%d: one ring per disturbed kept sample", r.Name, p.Index)
			assert.Equal(t, len(p.Retaken), strings.Count(g[1], `class="retaken"`), "%s p%d: one cross per retaken sample, in its lane", r.Name, p.Index)
			disturbed += kd
			retaken += len(p.Retaken)
		}
		assert.Equal(t, disturbed > 0, strings.Contains(body, "disturbed sample (foreign CPU"), "%s: legend for rings", r.Name)
		assert.Equal(t, retaken > 0, strings.Contains(body, "retaken: not in any statistic"), "%s: legend for crosses", r.Name)
		assert.Equal(t, r.Interference != nil, strings.Contains(body, "interference watch</td>"), "%s: the watch's counts exactly when it ran", r.Name)
	}
	enc := sections[0][2]
	assert.Contains(t, enc, "had to repair itself: 3 of 11 samples disturbed (max 60% foreign CPU), 2 retaken")
	assert.NotContains(t, enc, "<li>new: interference: ", "the callout replaces the note, not repeats it")
	assert.Contains(t, enc, "retaken sample 1: 2.410µs/op (60% foreign CPU: disturbed); discarded and taken again, in no statistic")
	assert.Contains(t, sections[1][2], "9 samples watched, 0 disturbed, 0 retaken, 0 pauses; max 4% foreign CPU")
}

// TestHTMLRepairCallout pins the callout's wording by what the watch did,
// and the watch's counts under the metrics, for rows of every kind.
func TestHTMLRepairCallout(t *testing.T) {
	tests := []struct {
		name       string
		in         *rundoc.RowInterference
		repair     string // prefix of the callout; "" for none
		watchParts []string
	}{
		{"unwatched", nil, "", nil},
		{"quiet", &rundoc.RowInterference{Samples: 9, MaxForeign: rundoctest.F64(0.02)}, "", []string{"9 samples watched, 0 disturbed", "max 2% foreign CPU"}},
		{"too short to tell", &rundoc.RowInterference{Samples: 9, TooShort: 9}, "", []string{"foreign CPU — (no sample window long enough to tell)", "9 too short to judge"}},
		{"retaken", &rundoc.RowInterference{Samples: 11, Disturbed: 2, Retakes: 2, MaxForeign: rundoctest.F64(0.5)}, "had to repair itself: 2 of 11 samples disturbed", []string{"2 retaken"}},
		{"paused", &rundoc.RowInterference{Samples: 9, Disturbed: 1, Pauses: 1, PausedNs: 2e9, MaxForeign: rundoctest.F64(0.3)}, "had to repair itself: ", []string{"1 pause (2.000s)"}},
		{"observed", &rundoc.RowInterference{Samples: 9, Disturbed: 3, MaxForeign: rundoctest.F64(0.3)}, "disturbed by foreign load: 3 of 9 samples disturbed", []string{"3 disturbed, 0 retaken"}},
		{"not watched", &rundoc.RowInterference{Problem: "no /proc/stat"}, "interference watch: not watched: no /proc/stat", []string{"— (not watched: no /proc/stat)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rundoctest.GreenDoc().Rows[0]
			r.Interference = tt.in
			if n := tt.in.Note(); n != "" {
				r.Notes = append(r.Notes, n)
			}
			v := benchRowView(nil, sideRow{Row: r, Side: "new"})
			if tt.repair == "" {
				assert.Empty(t, v.Repair)
			} else {
				assert.True(t, strings.HasPrefix(v.Repair, tt.repair), "callout %q", v.Repair)
				assert.NotContains(t, v.Notes, tt.in.Note(), "the callout is not repeated as a note")
			}
			var watch string
			for _, m := range v.Metrics {
				if m.Name == "interference watch" {
					watch = m.Value
				}
			}
			if tt.in == nil {
				assert.Empty(t, watch, "no watch, no line: not a row of zeros")
			}
			for _, p := range tt.watchParts {
				assert.Contains(t, watch, p)
			}
		})
	}
	page := renderHTML(t, HTMLReport{Run: new(rundoctest.GreenDoc())})
	for _, name := range []string{"shard", "quiescence", "claim", "interference"} {
		assert.NotContains(t, page, "<td>"+name+"</td>", "a run without %s has no such fact", name)
	}
}

// TestWriteHTMLLegendSides: the legend names the other build's samples
// only where a plot draws another build.
func TestWriteHTMLLegendSides(t *testing.T) {
	green := rundoctest.GreenDoc()
	render := func(r HTMLReport) string {
		var b strings.Builder
		require.NoError(t, WriteHTML(&b, r))
		return b.String()
	}
	assert.NotContains(t, render(HTMLReport{Run: &green}), "sample (old / other build)")
	assert.Contains(t, render(HTMLReport{Run: &green, Old: olderGreen()}), "sample (old / other build)")
}

// TestSourceFactsSayAReasonOnce: an absence whose reason is the source's
// own status does not repeat it.
func TestSourceFactsSayAReasonOnce(t *testing.T) {
	why := "perf_event_open(PERF_TYPE_HARDWARE, instructions) failed with ENOENT: no PMU provides this event"
	m := rundoc.Meta{Sources: []rundoc.SourceReport{
		{Source: "perf-hw", Status: "unavailable: " + why, Absences: []rundoc.SourceAbsence{{Capability: "counting", Metrics: []string{"instructions"}, Reason: why}}},
		{Source: "perf-sw", Available: true, Absences: []rundoc.SourceAbsence{{Capability: "syscalls", Metrics: []string{"syscr"}, Reason: "no tracefs"}}},
	}}
	got := sourceFacts(m)
	require.Len(t, got, 2)
	assert.Equal(t, 1, strings.Count(got[0].Value, why), got[0].Value)
	assert.Contains(t, got[0].Value, "no counting (instructions): for that reason")
	assert.Equal(t, "available; no syscalls (syscr): no tracefs", got[1].Value)
}

// TestWriteHTMLFixedIterations: with -benchtime=Nx a sample is N
// iterations, and the summary says so rather than the unused sample time.
func TestWriteHTMLFixedIterations(t *testing.T) {
	doc := rundoctest.GreenDoc()
	doc.Meta.Knobs.Iterations = 2000
	var b strings.Builder
	require.NoError(t, WriteHTML(&b, HTMLReport{Run: &doc}))
	assert.Contains(t, b.String(), "2000 iterations (fixed, not calibrated) × 3 per process")
	assert.NotContains(t, b.String(), "10.00ms × 3 per process")
}

// TestWriteHTMLRevisionSide: a revision's rows are headed by the revision,
// once, as its lanes and its metrics column are.
func TestWriteHTMLRevisionSide(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteHTML(&b, HTMLReport{Run: againstDoc()}))
	assert.Contains(t, b.String(), "<strong>v1.0:</strong>")
	assert.NotContains(t, b.String(), "v1.0 (revision v1.0)")
}
