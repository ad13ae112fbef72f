package report

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// fittedSweep fits points at values whose times follow f, with the
// multiplicative wobble given per point, as package analysis would.
func fittedSweep(family, param string, values []int64, wobble []float64, f func(n float64) float64) rundoc.Sweep {
	var pts []rundoc.SweepPoint
	for i, v := range values {
		ns := f(float64(v)) * (1 + wobble[i%len(wobble)])
		name := strings.Replace(family, "*", param+strconv.FormatInt(v, 10), 1)
		pts = append(pts, rundoc.SweepPoint{Value: float64(v), ValueExact: strconv.FormatInt(v, 10), Name: name, MedianNs: ns,
			Interval: &rundoc.Interval{LowNs: ns * 0.97, HighNs: ns * 1.04, Confidence: 0.9375}})
	}
	sw := analysis.FitSweep(pts)
	sw.Package, sw.Family = "example.com/p", strings.Replace(family, "*", param+"*", 1)
	sw.Parameter = strings.TrimSuffix(param, "=")
	return sw
}

// sweepDoc is GreenDoc with a sweep in every state: the fixtures' fitted
// and unavailable ones, an ambiguous one (linear or n log n over a
// narrow range) and a poor fit (a fixed cost plus a linear term).
func sweepDoc() rundoc.Document {
	doc := rundoctest.GreenDoc()
	doc.Sweeps = rundoctest.SweepsFixture()
	amb := fittedSweep("BenchmarkSort/*", "n=", []int64{1000, 1300, 1700, 2200}, []float64{0.01, -0.01, 0.012, -0.008},
		func(n float64) float64 { return 3 * n })
	poor := fittedSweep("BenchmarkLookup/*", "n=", []int64{1, 4, 16, 64, 256, 1024}, []float64{0},
		func(n float64) float64 { return 500 + 20*n })
	doc.Sweeps = append(doc.Sweeps, amb, poor)
	for i := range doc.Sweeps {
		doc.Sweeps[i].Package = doc.Rows[0].Package // named as the run's rows are
	}
	return doc
}

func TestWriteTableSweeps(t *testing.T) {
	doc := sweepDoc()
	var states []rundoc.SweepStatus
	for _, sw := range doc.Sweeps {
		states = append(states, sw.Status)
	}
	require.Equal(t, []rundoc.SweepStatus{rundoc.SweepFitted, rundoc.SweepUnavailable, rundoc.SweepAmbiguous, rundoc.SweepPoorFit}, states,
		"the fixture has a sweep in every state")
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
	rundoctest.Golden(t, "sweeps.table", buf.Bytes())
	out := buf.String()
	assert.Contains(t, out, "\n"+sweepsTitle+"\n", "the block says what a fit is worth")
	block := out[strings.Index(out, sweepsTitle):]
	for _, sw := range doc.Sweeps {
		assert.Contains(t, block, sw.Family, "one line per family")
	}
	assert.Contains(t, block, "1KiB–64KiB", "the range in the names' own style")
	assert.Contains(t, block, "8–18446744073709551617", "a value past 2^53 keeps every digit")
	assert.Contains(t, block, "unavailable: 2 points, 4 needed")
	assert.Contains(t, block, "ambiguous: ")
	assert.Contains(t, block, "poor-fit: closest ")
	assert.Contains(t, block, "1 member left out: BenchmarkCount/size=0KiB")
	assert.NotRegexp(t, `(?m)^BenchmarkHash/impl=fnv/n=\*.*\b0\.0+\b`, block, "no fit: no number stands in for one")
}

func TestSweepCells(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		name, got, want string
	}{
		{"R² near 1 is not rounded to a perfect fit", formatR2(f(0.99996)), ">0.9999"},
		{"a perfect R²", formatR2(f(1)), "1.0000"},
		{"a negative R²", formatR2(f(-1.6)), "−1.6000"},
		{"no R²", formatR2(nil), dash},
		{"exponent to its standard error's precision", formatExponent(f(0.998), f(0.004)), "0.998 ±0.004"},
		{"at least two decimals", formatExponent(f(1.4321), f(0.12)), "1.43 ±0.12"},
		{"at most four", formatExponent(f(2), f(1e-9)), "2.0000 ±0.0000"},
		{"no standard error", formatExponent(f(-0.5), nil), "−0.50"},
		{"no exponent", formatExponent(nil, f(0.1)), dash},
		{"names' style", sweepValueText("BenchmarkX/size=*/k=2", "BenchmarkX/size=1KiB/k=2", "1024"), "1KiB"},
		{"a name that does not hold the value", sweepValueText("BenchmarkX/n=*", "BenchmarkY", "1048576"), "1Mi"},
		{"one of two wildcards", sweepValueText("BenchmarkX/a*b/n=*", "BenchmarkX/a*b/n=1e4", "10000"), "1e4"},
		{"or list", orList([]string{"linear", "n log n", "quadratic"}), "linear, n log n or quadratic"},
		{"another build's family", sweepDisplayName(rundoc.Sweep{Package: "p", Family: "B/n=*", Build: "v1.0"}, map[string]string{"p": "p", "q": "q"}), "p.B/n=* @v1.0"},
		{"its hook", sweepIdentity(rundoc.Sweep{Package: "p", Family: "B/n=*", Build: "v1.0"}), "p B/n=* @v1.0"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
	t.Run("a range under a factor of 2", func(t *testing.T) {
		sw := fittedSweep("BenchmarkX/*", "n=", []int64{100, 110, 120, 130}, []float64{0}, func(n float64) float64 { return n })
		assert.Equal(t, "unavailable: range under ×2", sweepModelCell(sw), sw.Reason)
	})
	t.Run("a value given twice", func(t *testing.T) {
		sw := rundoc.Sweep{Status: rundoc.SweepUnavailable, Points: []rundoc.SweepPoint{{ValueExact: "8"}, {ValueExact: "8"}}}
		assert.Equal(t, "unavailable: a value given twice", sweepModelCell(sw))
	})
}

func TestWriteComparisonTableSweeps(t *testing.T) {
	c := rundoctest.ComparisonFixture()
	c.Sweeps = rundoctest.SweepChangesFixture()
	var buf bytes.Buffer
	require.NoError(t, WriteComparisonTable(&buf, c))
	rundoctest.Golden(t, "comparison-sweeps.golden", buf.Bytes())
	assert.Contains(t, buf.String(), "scaling changes ("+rundoc.ScalingCaveat+")")
	assert.Regexp(t, `\n  BenchmarkCount/size=\*\s+linear → n log n over 1KiB–1MiB\n`, buf.String())

	buf.Reset()
	require.NoError(t, WriteComparisonTable(&buf, rundoctest.ComparisonFixture()))
	assert.NotContains(t, buf.String(), "scaling changes", "no sweep line, no block")
}

// wantSweepColumns is the documented contract of the sweep columns.
var wantSweepColumns = []string{"sweep:parameter", "sweep:status", "sweep:caveat", "sweep:reason", "sweep:selected", "sweep:best",
	"sweep:candidates", "sweep:points", "sweep:range_min", "sweep:range_max", "sweep:observed_exponent",
	"sweep:exponent_stderr", "sweep:omitted", "sweep:model", "sweep:model_selected", "sweep:coefficient",
	"sweep:nominal_exponent", "sweep:r2", "sweep:rms_log_residual", "sweep:max_log_residual"}

func TestWriteCSVSweeps(t *testing.T) {
	doc := sweepDoc()
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, doc, CSVOptions{}))
	rundoctest.Golden(t, "csv/sweeps-wide.golden", buf.Bytes())
	header, rows := readCSV(t, buf.Bytes())
	require.Equal(t, wantSweepColumns, header[len(header)-len(wantSweepColumns):], "the sweep columns come last")

	require.GreaterOrEqual(t, len(rows), len(doc.Rows))
	for i, r := range rows[:len(doc.Rows)] {
		for _, c := range wantSweepColumns {
			assert.Equal(t, "", r[c], "row %d (%s): %s belongs to sweep rows", i, r["name"], c)
		}
	}
	sweepRows := rows[len(doc.Rows):]
	n := 0
	for _, sw := range doc.Sweeps {
		fits := max(len(sw.Models), 1)
		require.GreaterOrEqual(t, len(sweepRows), n+fits)
		selected := 0
		for j, r := range sweepRows[n : n+fits] {
			what := sw.Family + " row " + strconv.Itoa(j)
			assert.Equal(t, "sweep", r["kind"], what)
			assert.Equal(t, sw.Package, r["package"], what)
			assert.Equal(t, sw.Family, r["name"], what)
			assert.Equal(t, string(sw.Status), r["sweep:status"], what)
			assert.Equal(t, sw.Reason, r["sweep:reason"], what)
			assert.Equal(t, strconv.Itoa(len(sw.Points)), r["sweep:points"], what)
			assert.Equal(t, sw.Range.MinExact, r["sweep:range_min"], what)
			assert.Equal(t, sw.Range.MaxExact, r["sweep:range_max"], what)
			assertFloat(t, sw.ObservedExponent, r["sweep:observed_exponent"], what)
			assertFloat(t, sw.ExponentStdError, r["sweep:exponent_stderr"], what)
			for _, c := range []string{"outcome", "median_ns", "processes", "metric:B/op"} {
				assert.Equal(t, "", r[c], "%s: %s is a row's", what, c)
			}
			if len(sw.Models) == 0 {
				for _, c := range wantSweepColumns[12:] {
					assert.Equal(t, "", r[c], "%s: no fit, no %s", what, c)
				}
				continue
			}
			f := sw.Models[j]
			assert.Equal(t, string(f.Model), r["sweep:model"], what)
			assert.Equal(t, strconv.FormatBool(f.Selected), r["sweep:model_selected"], what)
			assertFloat(t, &f.Coefficient, r["sweep:coefficient"], what)
			assertFloat(t, f.R2, r["sweep:r2"], what)
			assertFloat(t, &f.RMSLogResidual, r["sweep:rms_log_residual"], what)
			assertFloat(t, &f.MaxLogResidual, r["sweep:max_log_residual"], what)
			if f.Selected {
				selected++
			}
		}
		if sw.Status == rundoc.SweepFitted {
			assert.Equal(t, 1, selected, "%s: a fitted family selects one model", sw.Family)
		} else {
			assert.Equal(t, 0, selected, "%s: a %s family selects none", sw.Family, sw.Status)
		}
		n += fits
	}
	assert.Len(t, sweepRows, n, "one row per family and model, no more")
	assert.Equal(t, "18446744073709551617", sweepRows[6]["sweep:range_max"], "a value past 2^53 keeps every digit")

	buf.Reset()
	require.NoError(t, WriteCSV(&buf, rundoctest.GreenDoc(), CSVOptions{}))
	assert.NotContains(t, buf.String(), "sweep:", "a run without sweeps keeps its columns")
}

// TestSweepModelG checks the plot's g(n) against the fit's: data made
// exactly c·g(n) by analysis.ModelG must be fitted with coefficient c, so the
// drawn curve passes through the points package analysis fitted.
func TestSweepModelG(t *testing.T) {
	for _, m := range rundoc.AllModels {
		t.Run(string(m), func(t *testing.T) {
			const c = 3.5
			var pts []rundoc.SweepPoint
			for _, v := range []int64{1, 8, 64, 512, 4096} {
				pts = append(pts, rundoc.SweepPoint{Value: float64(v), ValueExact: strconv.FormatInt(v, 10),
					Name: "BenchmarkX/n=" + strconv.FormatInt(v, 10), MedianNs: c * analysis.ModelG(m, float64(v))})
			}
			sw := analysis.FitSweep(pts)
			require.NotEmpty(t, sw.Models, sw.Reason)
			for _, f := range sw.Models {
				if f.Model == m {
					assert.InEpsilon(t, c, f.Coefficient, 1e-9)
					assert.InDelta(t, 0, f.MaxLogResidual, 1e-9)
				}
			}
		})
	}
}

func TestWriteHTMLSweeps(t *testing.T) {
	d := sweepsHTMLDoc()
	page := renderHTML(t, HTMLReport{Run: d})
	assert.Contains(t, page, rundoc.ScalingCaveat, "the page says what a fit is worth")
	assert.Contains(t, page, "<strong>Scaling changes</strong>")
	assert.Contains(t, page, esc("example.com/p BenchmarkCount/size=*: linear → n log n over 1KiB–1MiB"))
	for i, sw := range d.Sweeps {
		svg := regexp.MustCompile(`(?s)<svg class="sweep" data-family="` + regexp.QuoteMeta(esc(sweepIdentity(sw))) + `".*?</svg>`).FindString(page)
		require.NotEmpty(t, svg, sw.Family)
		assert.Contains(t, svg, `aria-labelledby="sweep`+strconv.Itoa(i)+`-title sweep`+strconv.Itoa(i)+`-desc"`, "%s: titled and described", sw.Family)
		assert.Contains(t, svg, `<desc id="sweep`+strconv.Itoa(i)+`-desc">`+esc(string(sw.Status)), sw.Family)
		switch sw.Status {
		case rundoc.SweepFitted:
			assert.Contains(t, svg, `data-model="`+string(*sw.Selected)+`" data-curve="selected"`, "%s: the selected model's curve, solid", sw.Family)
			assert.NotContains(t, svg, `data-curve="best"`, sw.Family)
		case rundoc.SweepUnavailable:
			assert.NotContains(t, svg, `class="model"`, "%s: no fit, no curve", sw.Family)
		default:
			assert.Contains(t, svg, `data-model="`+string(*sw.Best)+`" data-curve="best"`, "%s: the closest model's curve, dashed", sw.Family)
			assert.NotContains(t, svg, `data-curve="selected"`, "%s: nothing selected, nothing drawn as selected", sw.Family)
		}
	}
	assert.Contains(t, page, "left out: BenchmarkCount/size=0KiB: ")
}
