package analysis_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

func TestParseSweepValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" for refused
	}{
		{"1", "1"}, {"1024", "1024"}, {"08", "8"}, {"007", "7"},
		{"1e4", "10000"}, {"1E4", "10000"}, {"2.5e3", "2500"}, {"1e+2", "100"}, {"15e-1K", "1500"},
		{"1K", "1000"}, {"1k", "1000"}, {"4KB", "4000"}, {"1kB", "1000"}, {"10MB", "10000000"}, {"2G", "2000000000"}, {"1GB", "1000000000"},
		{"1KiB", "1024"}, {"64KiB", "65536"}, {"1.5KiB", "1536"}, {"1MiB", "1048576"}, {"1GiB", "1073741824"}, {"1.5K", "1500"},
		{"100B", "100"}, {"4B", "4"},
		{"9007199254740993", "9007199254740993"},         // 2^53+1: no float64 holds it
		{"18446744073709551617", "18446744073709551617"}, // past uint64
		{"1e300", "1" + strings.Repeat("0", 300)},
		{"0", ""}, {"0KiB", ""}, {"-1", ""}, {"+1", ""}, {"1e-3", ""}, {"1.5", ""}, {"1.0001K", ""}, {"0.5KiB", "512"},
		{"", ""}, {".5K", ""}, {"1.", ""}, {"1.K", ""}, {"1e", ""}, {"e4", ""}, {"1e4.5", ""}, {"0x10", ""}, {"1_000", ""},
		{"Inf", ""}, {"NaN", ""}, {"1KiBB", ""}, {"1Ki", "1024"}, {"4Mi", "4194304"}, {"1TiB", "1099511627776"}, {"1T", "1000000000000"}, {"1kiB", ""}, {"1m", ""}, {"1mb", ""}, {"1 K", ""}, {"1e400", ""}, {"1e309", ""}, {"1e308GiB", ""},
		{"1e9999", ""}, {strings.Repeat("9", 65), strings.Repeat("9", 65)}, {strings.Repeat("9", 321), ""}, {"small", ""}, {"8#01", ""}, {"8-4", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := analysis.ParseSweepValue(tc.in)
			if tc.want == "" {
				assert.False(t, ok, "got %v", got)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.want, got.String())
		})
	}
}

func TestFormatSweepValue(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "1000": "1K", "1024": "1Ki", "1048576": "1Mi", "65536": "64Ki", "1536": "1536", "3072": "3Ki",
		"10000000": "10M", "100": "100", "18446744073709551616": "16777216Ti",
	} {
		assert.Equal(t, want, analysis.FormatSweepValue(in), in)
	}
}

func points(values []int64, f func(n float64) float64) []rundoc.SweepPoint {
	var pts []rundoc.SweepPoint
	for _, v := range values {
		pts = append(pts, rundoc.SweepPoint{Value: float64(v), ValueExact: big.NewInt(v).String(),
			Name: fmt.Sprintf("BenchmarkX/n=%d", v), MedianNs: f(float64(v))})
	}
	return pts
}

var powersOf2 = []int64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}

func TestFitSweepRecoversEachModel(t *testing.T) {
	for _, m := range rundoc.AllModels {
		for _, sigma := range []float64{0, 0.05} {
			t.Run(fmt.Sprintf("%s/noise=%v", m, sigma), func(t *testing.T) {
				const c = 3.5
				rng := rand.New(rand.NewPCG(1, uint64(len(m))))
				sw := analysis.FitSweep(points(powersOf2, func(n float64) float64 {
					return c * analysis.ModelG(m, n) * math.Exp(sigma*rng.NormFloat64())
				}))
				require.Equal(t, rundoc.SweepFitted, sw.Status, sw.Reason)
				require.NotNil(t, sw.Selected)
				assert.Equal(t, m, *sw.Selected)
				assert.Equal(t, m, *sw.Best)
				require.Len(t, sw.Models, len(rundoc.AllModels))
				marked := 0
				for i, fit := range sw.Models {
					assert.Equal(t, rundoc.AllModels[i], fit.Model, "models in AllModels' order")
					assert.LessOrEqual(t, fit.RMSLogResidual, fit.MaxLogResidual+1e-12)
					if fit.Selected {
						marked++
						assert.Equal(t, m, fit.Model)
						assert.InEpsilon(t, c, fit.Coefficient, 0.01+2*sigma, "the coefficient")
						if sigma == 0 {
							assert.InDelta(t, 0, fit.RMSLogResidual, 1e-9)
						}
						if m != rundoc.ModelConstant && fit.R2 != nil {
							assert.Greater(t, *fit.R2, 0.95)
						}
					}
				}
				assert.Equal(t, 1, marked)
				nominal := map[rundoc.Model]float64{rundoc.ModelConstant: 0, rundoc.ModelLog: 0, rundoc.ModelLinear: 1,
					rundoc.ModelNLogN: 1, rundoc.ModelQuadratic: 2, rundoc.ModelCubic: 3}
				assert.Equal(t, nominal[m], sw.Models[slicesIndex(m)].NominalExponent)
				// The free slope sits at the nominal exponent; a log factor
				// adds about 0.31 over 1..1Ki.
				tol := 0.05
				if m == rundoc.ModelLog || m == rundoc.ModelNLogN {
					tol = 0.35
				}
				assert.InDelta(t, nominal[m], *sw.ObservedExponent, tol)
				assert.Equal(t, &rundoc.SweepRange{Min: 1, Max: 1024, MinExact: "1", MaxExact: "1024"}, sw.Range)
			})
		}
	}
}

func slicesIndex(m rundoc.Model) int {
	for i, k := range rundoc.AllModels {
		if k == m {
			return i
		}
	}
	return -1
}

func TestFitSweepStates(t *testing.T) {
	linear := func(n float64) float64 { return 2 * n }
	for _, tc := range []struct {
		name       string
		pts        []rundoc.SweepPoint
		status     rundoc.SweepStatus
		reason     string
		candidates []rundoc.Model
	}{
		{"too few points", points([]int64{1, 10, 100}, linear), rundoc.SweepUnavailable,
			"3 points with a measured time; a fit needs at least 4", nil},
		{"no point", nil, rundoc.SweepUnavailable, "no point has a measured time", nil},
		{"too narrow", points([]int64{100, 120, 150, 199}, linear), rundoc.SweepUnavailable,
			"the values span 100–199, less than the factor of 2 a fit needs", nil},
		{"duplicate values", append(points([]int64{1, 2, 4, 8}, linear), rundoc.SweepPoint{Value: 4, ValueExact: "4", Name: "BenchmarkX/n=4#01", MedianNs: 8}),
			rundoc.SweepUnavailable, "BenchmarkX/n=4 and BenchmarkX/n=4#01 have one value, 4", nil},
		{"zero median", points([]int64{1, 2, 4, 8}, func(n float64) float64 { return n - 1 }), rundoc.SweepUnavailable,
			"BenchmarkX/n=1: median time 0 ns has no logarithm", nil},
		{"bad exact value", []rundoc.SweepPoint{{Value: 1, ValueExact: "1K", Name: "BenchmarkX/n=1K", MedianNs: 1}}, rundoc.SweepUnavailable,
			`value "1K" is not a positive integer`, nil},
		// Exactly a factor of two is enough (exact arithmetic: 2·100 = 200).
		// The fit is made, but linear and n log n differ by less than the
		// host's noise floor over so short a range.
		{"factor of two", points([]int64{100, 126, 159, 200}, linear), rundoc.SweepAmbiguous,
			"linear, n log n fit about equally", []rundoc.Model{rundoc.ModelLinear, rundoc.ModelNLogN}},
		// Halfway (in log space) between linear and n log n, over the
		// demo's 1KiB..64KiB: no noise, and still not one model.
		{"two models too close", points([]int64{1024, 4096, 16384, 65536}, func(n float64) float64 { return n * math.Sqrt(math.Log2(2*n)) }),
			rundoc.SweepAmbiguous, "linear, n log n fit about equally", []rundoc.Model{rundoc.ModelLinear, rundoc.ModelNLogN}},
		// n^1.5 over 1..1M: between linear and quadratic, far from both.
		{"between models", points([]int64{1, 10, 100, 1000, 10000, 100000, 1000000}, func(n float64) float64 { return math.Pow(n, 1.5) }),
			rundoc.SweepPoorFit, "the points grow as n^1.50 (±0.00), the closest model, n log n, as n^1.19", nil},
		// A fixed cost plus a linear term: a trend the closest model
		// leaves over.
		{"fixed cost and linear", points(powersOf2, func(n float64) float64 { return 30 + n }),
			rundoc.SweepPoorFit, "the points grow as n^0.", nil},
		// One point three times off a linear sweep.
		{"an outlier point", points(powersOf2, func(n float64) float64 {
			if n == 64 {
				return 6 * n
			}
			return 2 * n
		}), rundoc.SweepPoorFit, "the closest model, linear", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := analysis.FitSweep(tc.pts)
			assert.Equal(t, tc.status, sw.Status, sw.Reason)
			assert.Contains(t, sw.Reason, tc.reason)
			assert.Equal(t, tc.candidates, sw.Candidates)
			switch sw.Status {
			case rundoc.SweepFitted:
				assert.NotNil(t, sw.Selected)
				return
			case rundoc.SweepUnavailable:
				assert.Empty(t, sw.Models, "no fit before the preconditions hold")
				assert.Nil(t, sw.Best)
				assert.Nil(t, sw.ObservedExponent)
			default:
				assert.Len(t, sw.Models, len(rundoc.AllModels))
				assert.NotNil(t, sw.Best, "a rejected fit still names its lowest-residual model")
				assert.NotNil(t, sw.ObservedExponent)
			}
			assert.Nil(t, sw.Selected)
			for _, m := range sw.Models {
				assert.False(t, m.Selected, "a rejected analysis selects nothing")
			}
			if len(tc.pts) > 0 && sw.Range == nil && !strings.Contains(sw.Reason, "not a positive integer") {
				t.Error("the factual range is kept")
			}
		})
	}
}

// TestFitSweepExact: values past float64's exact integers keep their
// digits in the points and the range, and sort by their exact value.
func TestFitSweepExact(t *testing.T) {
	var pts []rundoc.SweepPoint
	for _, s := range []string{"36893488147419103232", "9007199254740993", "18446744073709551617", "4611686018427387904"} {
		v, _ := new(big.Int).SetString(s, 10)
		f, _ := new(big.Float).SetInt(v).Float64()
		pts = append(pts, rundoc.SweepPoint{Value: f, ValueExact: s, Name: "BenchmarkBig/n=" + s, MedianNs: f / 1e12})
	}
	sw := analysis.FitSweep(pts)
	require.Equal(t, rundoc.SweepFitted, sw.Status, sw.Reason)
	assert.Equal(t, rundoc.ModelLinear, *sw.Selected)
	assert.Equal(t, "9007199254740993", sw.Range.MinExact)
	assert.Equal(t, "36893488147419103232", sw.Range.MaxExact)
	assert.Equal(t, "18446744073709551617", sw.Points[2].ValueExact)
	assert.Equal(t, float64(1<<53), sw.Range.Min, "the float64 is the nearest, the decimal string the value")
}

func benchRow(name string, ns float64, mbs float64) rundoc.Row {
	r := rundoc.Row{Package: "example.com/p", Name: name, Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK,
		Summary: &rundoc.Summary{Processes: 5, MedianNs: ns, Interval: &rundoc.Interval{LowNs: ns * 0.9, HighNs: ns * 1.2, Confidence: 0.9375},
			Metrics: map[string]*float64{}}}
	if mbs > 0 {
		// As the supervisor derives MB/s from b.SetBytes: exact samples.
		const n = 1000
		el := int64(ns * n)
		r.Processes = []rundoc.ProcessResult{{Samples: []rundoc.Sample{{Iterations: n, ElapsedNs: el, Exact: true,
			Extra: map[string]float64{"MB/s": mbs * float64(n) / float64(el) * 1e3}}}}}
	}
	return r
}

func TestFindSweeps(t *testing.T) {
	failed := benchRow("BenchmarkHash/impl=fnv/n=64", 0, 0)
	failed.Outcome, failed.Error, failed.Summary = "signal", ptr("killed by SIGSEGV"), nil
	skipped := benchRow("BenchmarkHash/impl=fnv/n=128", 0, 0)
	skipped.Outcome, skipped.Skipped, skipped.Summary = rundoc.OutcomeSkipped, ptr("too big"), nil
	notRun := benchRow("BenchmarkHash/impl=xxh/n=64", 0, 0)
	notRun.Outcome, notRun.Error, notRun.Summary = rundoc.OutcomeNotRun, ptr("the run was interrupted before it started"), nil
	rows := []rundoc.Row{
		benchRow("BenchmarkHash/impl=fnv/n=1", 10, 0),
		benchRow("BenchmarkHash/impl=fnv/n=8", 80, 0),
		benchRow("BenchmarkHash/impl=xxh/n=1", 5, 0),
		benchRow("BenchmarkHash/impl=xxh/n=8", 40, 0),
		failed, skipped, notRun,
		benchRow("BenchmarkHash/impl=fnv/n=small", 3, 0),
		benchRow("BenchmarkHash/impl=fnv/n=0", 3, 0),
		benchRow("BenchmarkHash/impl=fnv/n=8-4", 3, 0), // b.Run("n=8-4"): a name, not a GOMAXPROCS suffix
		benchRow("BenchmarkCopy/1KiB", 100, 1024),
		benchRow("BenchmarkCopy/4KiB", 400, 4096),
		benchRow("BenchmarkAlone/n=8", 1, 0),         // one member: no family
		benchRow("BenchmarkMat/rows=2/cols=2", 4, 0), // two keys: one family each
		benchRow("BenchmarkMat/rows=2/cols=4", 8, 0),
		benchRow("BenchmarkMat/rows=4/cols=4", 16, 0),
		{Package: "example.com/p", Name: "TestX/n=1", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK},
		{Package: "example.com/p", Name: "TestX/n=2", Kind: rundoc.KindTest, Outcome: rundoc.OutcomeOK},
	}
	other := benchRow("BenchmarkHash/impl=fnv/n=1", 11, 0)
	other.Build = "HEAD~1"
	rows = append(rows, other, func() rundoc.Row { r := benchRow("BenchmarkHash/impl=fnv/n=8", 90, 0); r.Build = "HEAD~1"; return r }())

	fams := analysis.FindSweeps(rows)
	var got []string
	for _, f := range fams {
		var vals []string
		for _, p := range f.Points {
			vals = append(vals, p.ValueExact)
		}
		var omitted []string
		for _, o := range f.Omitted {
			omitted = append(omitted, o.Name+": "+o.Reason)
		}
		got = append(got, fmt.Sprintf("%s %s %s [%s] [%s]", f.Build, f.Family, f.Parameter, strings.Join(vals, " "), strings.Join(omitted, "; ")))
	}
	assert.Equal(t, []string{
		` BenchmarkHash/impl=fnv/n=* n [1 8] [BenchmarkHash/impl=fnv/n=64: failed (signal): killed by SIGSEGV; BenchmarkHash/impl=fnv/n=128: skipped: too big; ` +
			`BenchmarkHash/impl=fnv/n=small: "small" is not a positive integer; BenchmarkHash/impl=fnv/n=0: "0" is not a positive integer; ` +
			`BenchmarkHash/impl=fnv/n=8-4: "8-4" is not a positive integer]`,
		` BenchmarkHash/impl=xxh/n=* n [1 8] [BenchmarkHash/impl=xxh/n=64: not run: the run was interrupted before it started]`,
		` BenchmarkCopy/* + [1024 4096] []`,
		` BenchmarkMat/rows=2/cols=* cols [2 4] []`, // in the order of first member
		` BenchmarkMat/rows=*/cols=4 rows [2 4] []`,
		`HEAD~1 BenchmarkHash/impl=fnv/n=* n [1 8] []`,
	}, strings.Split(strings.ReplaceAll(strings.Join(got, "\n"), "BenchmarkCopy/*  ", "BenchmarkCopy/* + "), "\n"))

	copyFam := fams[2]
	tp := copyFam.Points[1].Throughput
	require.NotNil(t, tp, "b.SetBytes gives bytes per second")
	assert.Equal(t, "B/s", tp.Unit)
	assert.Equal(t, 4096.0, tp.WorkPerOp)
	assert.InEpsilon(t, 4096/400e-9, tp.Median, 1e-12, "the median rate inverts the median time")
	assert.InEpsilon(t, 4096/(400*1.2e-9), *tp.Low, 1e-12, "the low rate is the time interval's high end inverted")
	assert.InEpsilon(t, 4096/(400*0.9e-9), *tp.High, 1e-12)
	assert.Nil(t, fams[0].Points[0].Throughput, "no work reported: no throughput")
}

func TestThroughputFromReportMetric(t *testing.T) {
	r1, r2 := benchRow("BenchmarkParse/lines=10", 1000, 0), benchRow("BenchmarkParse/lines=20", 2000, 0)
	r1.Summary.Metrics["items/op"], r2.Summary.Metrics["items/op"] = ptr(10.0), ptr(20.0)
	r1.Summary.Metrics["B/op"], r2.Summary.Metrics["B/op"] = ptr(64.0), ptr(64.0) // allocations, not work
	r2.Summary.Interval = nil
	fams := analysis.FindSweeps([]rundoc.Row{r1, r2})
	require.Len(t, fams, 1)
	tp := fams[0].Points[0].Throughput
	require.NotNil(t, tp)
	assert.Equal(t, "items/s", tp.Unit)
	assert.InEpsilon(t, 1e7, tp.Median, 1e-12)
	assert.NotNil(t, tp.Low)
	tp2 := fams[0].Points[1].Throughput
	require.NotNil(t, tp2)
	assert.Nil(t, tp2.Low, "no time interval: no rate interval")

	r1.Summary.Metrics["widgets/op"] = ptr(3.0)
	assert.Nil(t, analysis.FindSweeps([]rundoc.Row{r1, r2})[0].Points[0].Throughput, "two work units: neither is the work")
}

func TestSweepsOfTheDemoRun(t *testing.T) {
	doc := readDoc("../rundoc/testdata/demo-run.json")
	sweeps := analysis.Sweeps(doc.Rows)
	require.Len(t, sweeps, 1)
	sw := sweeps[0]
	assert.Equal(t, "BenchmarkCount/size=*", sw.Family)
	assert.Equal(t, "size", sw.Parameter)
	assert.Equal(t, rundoc.SweepUnavailable, sw.Status)
	assert.Equal(t, "2 points with a measured time; a fit needs at least 4", sw.Reason)
	require.Len(t, sw.Points, 2)
	// The demo calls b.SetBytes(len(text)), and this document's samples
	// were rebuilt from printed lines (exact false): ns/op to four
	// figures and MB/s to two decimals. At 1KiB that rounding moves the
	// bytes by at most 0.11, so every sample proves the corpus's 1026
	// bytes; at 64KiB it could move them by tens, so no rate is made up.
	require.NotNil(t, sw.Points[0].Throughput)
	assert.Equal(t, 1026.0, sw.Points[0].Throughput.WorkPerOp)
	assert.Nil(t, sw.Points[1].Throughput)
	// The sweeps go into the document and read back.
	doc.Sweeps = sweeps
	var buf strings.Builder
	require.NoError(t, rundoc.WriteJSON(&buf, *doc))
	back, _, err := rundoc.ReadDocument(strings.NewReader(buf.String()))
	require.NoError(t, err)
	assert.Equal(t, sweeps[0].Family, back.Sweeps[0].Family)
}

func TestCompareSweeps(t *testing.T) {
	values := []int64{1024, 4096, 16384, 65536, 262144, 1048576}
	fit := func(f func(float64) float64) rundoc.Sweep {
		sw := analysis.FitSweep(points(values, f))
		sw.Package, sw.Family = "example.com/p", "BenchmarkSort/n=*"
		return sw
	}
	rng := rand.New(rand.NewPCG(7, 7))
	noisy := func(f func(float64) float64) func(float64) float64 {
		return func(n float64) float64 { return f(n) * math.Exp(0.03*rng.NormFloat64()) }
	}
	linear := fit(noisy(func(n float64) float64 { return 2 * n }))
	linearAgain := fit(noisy(func(n float64) float64 { return 2.1 * n }))
	nlogn := fit(noisy(func(n float64) float64 { return 0.1 * n * math.Log2(2*n) }))
	quadratic := fit(noisy(func(n float64) float64 { return n * n / 100 }))
	require.Equal(t, rundoc.SweepFitted, linear.Status, linear.Reason)
	require.Equal(t, rundoc.SweepFitted, nlogn.Status, nlogn.Reason)

	assert.Empty(t, analysis.CompareSweeps([]rundoc.Sweep{linear}, []rundoc.Sweep{linearAgain}), "same scaling, other coefficient: no line")

	changes := analysis.CompareSweeps([]rundoc.Sweep{linear}, []rundoc.Sweep{nlogn})
	require.Len(t, changes, 1)
	c := changes[0]
	assert.Equal(t, "linear → n log n over 1Ki–1Mi", c.Text)
	assert.True(t, c.ModelChanged)
	assert.Equal(t, rundoc.ModelLinear, *c.Old)

	changes = analysis.CompareSweeps([]rundoc.Sweep{linear}, []rundoc.Sweep{quadratic})
	require.Len(t, changes, 1)
	assert.True(t, changes[0].ExponentChanged)
	assert.InDelta(t, 1, changes[0].Difference, 0.1)

	// An ambiguous side selects nothing: only a clear exponent change
	// makes a line.
	amb := linear
	amb.Status, amb.Selected = rundoc.SweepAmbiguous, nil
	assert.Empty(t, analysis.CompareSweeps([]rundoc.Sweep{amb}, []rundoc.Sweep{linearAgain}))
	changes = analysis.CompareSweeps([]rundoc.Sweep{amb}, []rundoc.Sweep{quadratic})
	require.Len(t, changes, 1)
	assert.False(t, changes[0].ModelChanged)
	assert.Regexp(t, `^exponent 1\.0\d → 1\.9\d \(±0\.\d\d\) over 1Ki–1Mi$`, changes[0].Text)

	other := nlogn
	other.Family = "BenchmarkOther/n=*"
	assert.Empty(t, analysis.CompareSweeps([]rundoc.Sweep{linear}, []rundoc.Sweep{other}), "a family on one side only")
	unavailable := analysis.FitSweep(points(values[:3], func(n float64) float64 { return n }))
	unavailable.Package, unavailable.Family = linear.Package, linear.Family
	assert.Empty(t, analysis.CompareSweeps([]rundoc.Sweep{linear}, []rundoc.Sweep{unavailable}))
}

// TestFitSweepRealMeasurement fits a real sweep: xxhash v2.3.0's
// BenchmarkSum64 (4B..10MB), measured with `go test -bench 'Sum64$'
// -benchtime 300ms -cpu 1` on this project's VM. A fixed cost of about
// 5 ns plus a linear term is none of the six models: a poor fit, with the
// observed exponent (0.84) beside it, never "linear".
func TestFitSweepRealMeasurement(t *testing.T) {
	values := []int64{4, 16, 100, 4000, 10000000}
	ns := []float64{5.639, 6.498, 15.09, 356.1, 860371}
	var pts []rundoc.SweepPoint
	for i, v := range values {
		pts = append(pts, rundoc.SweepPoint{Value: float64(v), ValueExact: big.NewInt(v).String(), Name: "BenchmarkSum64/" + analysis.FormatSweepValue(big.NewInt(v).String()), MedianNs: ns[i]})
	}
	sw := analysis.FitSweep(pts)
	assert.Equal(t, rundoc.SweepPoorFit, sw.Status, sw.Reason)
	assert.Equal(t, rundoc.ModelLinear, *sw.Best)
	assert.InDelta(t, 0.84, *sw.ObservedExponent, 0.01)
	// Its three largest sizes alone are too few points to fit.
	assert.Equal(t, rundoc.SweepUnavailable, analysis.FitSweep(pts[2:]).Status)
}

// FuzzParseSweepValue: whatever a name holds, a value read is a positive
// integer that a float64 holds without overflow, and its decimal reads
// back as itself.
func FuzzParseSweepValue(f *testing.F) {
	for _, s := range []string{"1", "08", "1e4", "1.5KiB", "10MB", "1e-3", "0", "-1", "1e300", "9007199254740993", "4B", "1Ki"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := analysis.ParseSweepValue(s)
		if !ok {
			return
		}
		if v.Sign() <= 0 {
			t.Fatalf("%q: %v is not positive", s, v)
		}
		if fl, _ := new(big.Float).SetInt(v).Float64(); math.IsInf(fl, 0) {
			t.Fatalf("%q: %v overflows a float64", s, v)
		}
		back, ok := analysis.ParseSweepValue(v.String())
		if !ok || back.Cmp(v) != 0 {
			t.Fatalf("%q: %v reads back as %v, %v", s, v, back, ok)
		}
	})
}

// TestThroughputFromPrintedLines: a sample rebuilt from testing's printed
// line gives b.SetBytes' value only when the printing's rounding cannot
// move it by half a byte.
func TestThroughputFromPrintedLines(t *testing.T) {
	row := func(name string, n int64, nsPerOp, mbs float64) rundoc.Row {
		r := benchRow(name, nsPerOp, 0)
		r.Processes = []rundoc.ProcessResult{{Samples: []rundoc.Sample{{
			Iterations: n, ElapsedNs: int64(nsPerOp * float64(n)), Extra: map[string]float64{"MB/s": mbs},
		}}}}
		return r
	}
	for _, tc := range []struct {
		name    string
		nsPerOp float64
		mbs     float64 // as testing prints it
		want    float64 // 0: no rate
	}{
		{"small and slow: proven", 14459, 70.96, 1026},
		{"small and fast: proven", 302.9, 3380.88, 1024},
		{"large: rounding could move it by bytes", 1002966, 65.34, 0},
		{"not near a whole number", 14459, 70.99, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := row("BenchmarkX/n=2", 1000, 500, 2)
			fams := analysis.FindSweeps([]rundoc.Row{row("BenchmarkX/n=1", 1000, tc.nsPerOp, tc.mbs), other})
			require.Len(t, fams, 1)
			tp := fams[0].Points[0].Throughput
			if tc.want == 0 {
				assert.Nil(t, tp)
				return
			}
			require.NotNil(t, tp)
			assert.Equal(t, tc.want, tp.WorkPerOp)
		})
	}
}

// TestCompareCarriesSweeps: a comparison of two runs (compare, --baseline)
// and one of two builds in pairs (--against) both carry the scaling changes
// of the families on both sides, fitted afresh from their rows.
func TestCompareCarriesSweeps(t *testing.T) {
	side := func(grow func(n float64) float64) []rundoc.Row {
		var rows []rundoc.Row
		for _, n := range []float64{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18} {
			rows = append(rows, benchRow(fmt.Sprintf("BenchmarkScan/n=%d", int(n)), grow(n), 0))
		}
		return rows
	}
	linear := side(func(n float64) float64 { return 3 * n })
	quadratic := side(func(n float64) float64 { return n * n / 100 })
	doc := func(rows []rundoc.Row) *rundoc.Document {
		return &rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeBench}, Rows: rows}
	}
	want := []string{"BenchmarkScan/n=* linear → quadratic"}
	text := func(changes []rundoc.SweepChange) []string {
		var out []string
		for _, c := range changes {
			out = append(out, c.Family+" "+c.Text)
		}
		return out
	}

	c, err := analysis.Compare(doc(linear), doc(quadratic), analysis.CompareConfig{})
	require.NoError(t, err)
	require.Len(t, c.Sweeps, 1)
	assert.True(t, strings.HasPrefix(text(c.Sweeps)[0], want[0]), "compare: %v", text(c.Sweeps))

	paired, err := analysis.ComparePaired(linear, quadratic, analysis.CompareConfig{}, func(int) bool { return true })
	require.NoError(t, err)
	require.Len(t, paired.Sweeps, 1)
	assert.True(t, strings.HasPrefix(text(paired.Sweeps)[0], want[0]), "paired: %v", text(paired.Sweeps))

	same, err := analysis.Compare(doc(linear), doc(linear), analysis.CompareConfig{})
	require.NoError(t, err)
	assert.Empty(t, same.Sweeps, "the same scaling on both sides: no line")
}

func TestModelG(t *testing.T) {
	for _, tc := range []struct {
		m    rundoc.Model
		n    float64
		want float64
	}{
		{rundoc.ModelConstant, 1000, 1},
		{rundoc.ModelLog, 1, 1}, // log2(2n): defined at n=1
		{rundoc.ModelLog, 512, 10},
		{rundoc.ModelLinear, 5, 5},
		{rundoc.ModelNLogN, 4, 12},
		{rundoc.ModelQuadratic, 3, 9},
		{rundoc.ModelCubic, 2, 8},
	} {
		assert.InEpsilon(t, tc.want, analysis.ModelG(tc.m, tc.n), 1e-12, "%s(%v)", tc.m, tc.n)
	}
	assert.True(t, math.IsNaN(analysis.ModelG("quartic", 2)))
}

func TestSweepShortfall(t *testing.T) {
	pts := func(values ...string) []rundoc.SweepPoint {
		var out []rundoc.SweepPoint
		for _, v := range values {
			out = append(out, rundoc.SweepPoint{ValueExact: v, MedianNs: 10})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		values []string
		want   string
	}{
		{"none", nil, "no measured point"},
		{"one", []string{"8"}, "1 point, 4 needed"},
		{"three", []string{"1", "2", "4"}, "3 points, 4 needed"},
		{"narrow", []string{"10", "12", "14", "16"}, "range under ×2"},
		{"twice", []string{"1", "8", "8", "64"}, "a value given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := analysis.FitSweep(pts(tc.values...))
			require.Equal(t, rundoc.SweepUnavailable, sw.Status)
			assert.Equal(t, tc.want, analysis.SweepShortfall(sw))
		})
	}
}
