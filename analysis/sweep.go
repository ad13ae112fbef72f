package analysis

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// Sweeps: how a benchmark's cost grows with a size its sub-benchmarks
// already vary (docs/design.md#sweeps). What a fit says is empirical
// scaling over the measured range, not proof of big-O: a model selected
// over 1Ki–1Mi says nothing of 1Gi.
//
// The models are fitted in log space to the points' medians (ns/op): for
// a model g, log t = log c + log g(n), with c by least squares, so every
// model has one free parameter and their residuals compare directly:
//
//	constant   g = 1              nominal exponent 0
//	log        g = log2(2n)       nominal exponent 0
//	linear     g = n              nominal exponent 1
//	nlogn      g = n·log2(2n)     nominal exponent 1
//	quadratic  g = n²             nominal exponent 2
//	cubic      g = n³             nominal exponent 3
//
// The nominal exponent is the power of n, a logarithmic factor counting
// 0. The logarithm is log2(2n) = 1+log2(n), not log2(n): values are
// positive integers and sweeps often start at n=1, where log n is 0 and
// log g would be minus infinity; the shift keeps the two log models
// defined there without refusing the point, and changes their growth by
// a constant factor at most 2 that tends to 1.
//
// Selection, with k points, SS the residual sum of squares (natural-log
// units) of a model, best the lowest, σ̂² = SS_best/(k−1) the noise the
// best fit leaves, and t_d the one-sided 99.5% quantile of Student's t
// with d degrees of freedom:
//
//   - poor-fit, when the best model is too far from the points: its RMS
//     log residual exceeds PoorFitRMS (0.25, about ±28%), or one point
//     misses it by more than PoorFitMaxResidual (0.7, a factor of 2), or
//     the points' log-log slope differs from the model's own slope over
//     the same values by more than TrendTolerance (0.1) and more than
//     t_(k−2) standard errors of that slope (a trend the model leaves
//     over: a fixed cost plus a linear term, n^1.5). Noise alone, of the
//     size this host shows between processes (a few percent, 10-15% on
//     the worst benchmarks, docs/measurement.md), seldom exceeds these;
//   - ambiguous, when the runner-up is too close to call:
//     SS_runner-up − SS_best < (t_(k−1)·max(σ̂, NoiseFloor))². When model
//     A is true and B is selected, SS_A − SS_B is normal with mean −D²
//     and standard deviation 2σD (D the distance between the two models'
//     centered log curves over the values), so a margin m bounds the
//     chance of a wrong selection by Φ(−√m/σ) whatever D; t widens it for
//     a σ estimated from few points, and NoiseFloor (2%) keeps a fit that
//     happens to pass through every point from claiming more than the
//     host can tell. Candidates are the models within the margin;
//   - fitted otherwise: the best model is Selected.
//
// Calibration (TestSweepCalibration, fixed seeds): the six models, with
// random coefficients, on eight layouts (4 to 11 points; steps of 2, 4
// and 10; spans from a factor of 2 to 10^6), under multiplicative
// lognormal noise of σ = 2, 5, 10 and 15% on every median (more than a
// median over several processes shows): 57,600 synthetic sweeps. Of
// those called fitted, 0.04% selected a wrong model (0.14% at σ = 15%,
// none at 2 and 5%; 0.33% on the demo's four points 1Ki..64Ki, the
// worst layout); 0.27% of all were called poor fits (0.85% at σ = 15%).
// The true model was selected in 81% of sweeps: 92% at σ = 2%, 68% at
// 15%; by model, constant 78%, log 75%, linear 75%, n log n 75%,
// quadratic 91%, cubic 95%; 21% over a range of only a factor of 2. The
// rest are ambiguous: over a narrow range or with much noise the models
// cannot be told apart, and the analysis says so rather than pick. A
// fixed cost plus a linear term, both weighing over 1..1Ki, was called
// fitted in none of 1,000 such sweeps (TestSweepMisspecified); a fixed
// cost that dominates the whole range is called constant, with the
// observed exponent beside it.
const (
	PoorFitRMS         = 0.25
	PoorFitMaxResidual = 0.7
	NoiseFloor         = 0.02
	TrendTolerance     = 0.1
)

// MinSweepPoints is the fewest distinct values a fit needs, and
// MinSweepSpan the smallest factor between its largest and smallest
// value: below either, the models cannot be told apart at all.
const (
	MinSweepPoints = 4
	MinSweepSpan   = 2
)

// maxSweepLiteral bounds the text ParseSweepValue reads, and
// maxSweepExponent its decimal exponent, so that a hostile name costs
// little.
const (
	maxSweepLiteral  = 320 // the decimal digits of the largest float64, and a few
	maxSweepExponent = 400
)

var sweepSuffixes = []struct {
	suffix string
	mult   int64
}{
	// Longest first: "KiB" before "Ki" before "B".
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40},
	{"KB", 1e3}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
}

// ParseSweepValue reads the value of a sweep parameter, as a name writes
// it: a decimal number ("1024", "08", "1.5", "1e4", "2.5e3"), optionally
// followed by a decimal suffix (K, k, M, G, T, KB, kB, MB, GB, TB: steps
// of 1000), a binary one (Ki, Mi, Gi, Ti, KiB, MiB, GiB, TiB: steps of
// 1024) or B (bytes, ×1). Suffixes are case-sensitive but for k and kB
// (m is milli, not mega).
// The value must be a positive integer once scaled: "1.5KiB" is 1536,
// while "0", "-1", "1e-3" and "1.5" are refused (a sweep is over sizes
// and counts). Leading zeros are decimal ("08" is 8, as testing's
// "%02d" names mean), so "08" and "8" are the same value. No sign, hex,
// underscore, Inf or NaN; at most 320 bytes, and a value must fit a
// float64 (below about 1.8e308). The result is exact: values past
// float64's exact integers (2^53) keep every digit.
func ParseSweepValue(s string) (*big.Int, bool) {
	if s == "" || len(s) > maxSweepLiteral {
		return nil, false
	}
	mult := int64(1)
	for _, sf := range sweepSuffixes {
		if rest, ok := strings.CutSuffix(s, sf.suffix); ok {
			s, mult = rest, sf.mult
			break
		}
	}
	mant, exp, hasExp := s, "", false
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp, hasExp = s[:i], s[i+1:], true
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if !digits(intPart) || (hasDot && !digits(frac)) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(intPart + "." + frac + "0")
	if !ok {
		return nil, false
	}
	if hasExp {
		neg := false
		if rest, ok := strings.CutPrefix(exp, "-"); ok {
			exp, neg = rest, true
		} else {
			exp = strings.TrimPrefix(exp, "+")
		}
		if !digits(exp) || len(exp) > 3 {
			return nil, false
		}
		var e int64
		fmt.Sscan(exp, &e)
		if e > maxSweepExponent {
			return nil, false
		}
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(e), nil))
		if neg {
			r.Quo(r, p)
		} else {
			r.Mul(r, p)
		}
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() || r.Sign() <= 0 {
		return nil, false
	}
	n := new(big.Int).Set(r.Num())
	if f, _ := new(big.Float).SetInt(n).Float64(); math.IsInf(f, 0) {
		return nil, false
	}
	return n, true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// FormatSweepValue writes a value compactly for prose: with a binary
// suffix (Ki, Mi, Gi, Ti) when it is a whole multiple of 1024, else a
// decimal one (K, M, G, T) when a multiple of 1000, else in full.
func FormatSweepValue(exact string) string {
	n, ok := new(big.Int).SetString(exact, 10)
	if !ok || n.Sign() <= 0 {
		return exact
	}
	for _, sys := range []struct {
		base     int64
		suffixes []string
	}{{1024, []string{"Ki", "Mi", "Gi", "Ti"}}, {1000, []string{"K", "M", "G", "T"}}} {
		b := big.NewInt(sys.base)
		x, unit := new(big.Int).Set(n), ""
		for _, s := range sys.suffixes {
			q, r := new(big.Int).QuoRem(x, b, new(big.Int))
			if r.Sign() != 0 || q.Sign() == 0 {
				break
			}
			x, unit = q, s
		}
		if unit != "" {
			return x.String() + unit
		}
	}
	return n.String()
}

// SweepFamily is a family FindSweeps found, before its fit.
type SweepFamily struct {
	Package string
	Build   string
	// Family is the members' name with the varying element written
	// "key=*" ("*" when bare), and Parameter its key ("" when bare).
	Family    string
	Parameter string
	// Points are the members with a measured time, in the rows' order;
	// Omitted the members left out, with why.
	Points  []rundoc.SweepPoint
	Omitted []rundoc.SweepOmission
}

// FindSweeps finds the sweep families among rows: per package and build,
// the benchmark leaves whose names (ParseName) differ in exactly one
// element, that element being key=VALUE with the same key in every
// member, or a bare VALUE at the same position, VALUE a positive integer
// as ParseSweepValue reads it. A name with several such elements belongs
// to one family per element, the others held fixed
// (BenchmarkHash/impl=fnv/n=* and BenchmarkHash/impl=xxh/n=*). A family
// needs two members whose values parse to be one at all (a lone sized
// benchmark is not a sweep); FitSweep then asks for more. Siblings of a
// family whose value is not a positive integer ("n=small", "n=0") are
// listed in Omitted, as are members without a measured time (failed,
// skipped, or a median of 0 ns, which has no logarithm). Two members
// with one value ("n=8", "n=8#01", "n=08") stay points: FitSweep refuses
// the family and names them. Families come in the order of their first
// member.
func FindSweeps(rows []rundoc.Row) []SweepFamily {
	type member struct {
		row   int
		value *big.Int // nil: not a positive integer
		text  string
	}
	type family struct {
		pkg, build, id, key string
		members             []member
		numeric             int
	}
	var fams []*family
	at := map[[3]string]*family{}
	for ri, r := range rows {
		if r.Kind != rundoc.KindBenchmark {
			continue
		}
		n := ParseName(r.Name)
		for i, e := range n.Elements {
			id := n.Family(i)
			k := [3]string{r.Package, r.Build, id}
			f := at[k]
			if f == nil {
				f = &family{pkg: r.Package, build: r.Build, id: id, key: e.Key}
				at[k] = f
				fams = append(fams, f)
			}
			v, ok := ParseSweepValue(e.Value)
			if !ok {
				v = nil
			} else {
				f.numeric++
			}
			f.members = append(f.members, member{row: ri, value: v, text: e.Value})
		}
	}
	var out []SweepFamily
	for _, f := range fams {
		if f.numeric < 2 {
			continue
		}
		sf := SweepFamily{Package: f.pkg, Build: f.build, Family: f.id, Parameter: f.key}
		for _, m := range f.members {
			r := rows[m.row]
			if m.value == nil {
				sf.Omitted = append(sf.Omitted, rundoc.SweepOmission{Name: r.Name,
					Reason: fmt.Sprintf("%q is not a positive integer", m.text)})
				continue
			}
			if why := unmeasured(r); why != "" {
				sf.Omitted = append(sf.Omitted, rundoc.SweepOmission{Name: r.Name, Reason: why})
				continue
			}
			sf.Points = append(sf.Points, point(r, m.value))
		}
		out = append(out, sf)
	}
	return out
}

// unmeasured says why a row has no time a fit can use; "" when it has.
func unmeasured(r rundoc.Row) string {
	switch {
	case r.Outcome == rundoc.OutcomeSkipped:
		if r.Skipped != nil {
			return "skipped: " + *r.Skipped
		}
		return "skipped"
	case r.Outcome == rundoc.OutcomeNotRun:
		// Never started (an interrupted run, --fail-fast): not a failure
		// of the member, as the table's interrupted line says.
		if r.Error != nil {
			return "not run: " + *r.Error
		}
		return "not run"
	case r.IsError():
		if r.Error != nil {
			return "failed (" + string(r.Outcome) + "): " + *r.Error
		}
		return "failed (" + string(r.Outcome) + ")"
	case r.Summary == nil:
		return "no measured time"
	case !(r.Summary.MedianNs > 0):
		return fmt.Sprintf("median time %v ns: no logarithm", r.Summary.MedianNs)
	}
	return ""
}

func point(r rundoc.Row, v *big.Int) rundoc.SweepPoint {
	f, _ := new(big.Float).SetInt(v).Float64()
	p := rundoc.SweepPoint{Value: f, ValueExact: v.String(), Name: r.Name, MedianNs: r.Summary.MedianNs}
	if iv := r.Summary.Interval; iv != nil {
		c := *iv
		p.Interval = &c
	}
	p.Throughput = throughput(r)
	return p
}

// throughput is the row's work per second: b.SetBytes' bytes (recovered
// from the exact samples' MB/s, which the supervisor derives from it),
// else the one b.ReportMetric unit ending in "/op" other than the
// allocation counts; nil when there is neither, or the samples disagree.
func throughput(r rundoc.Row) *rundoc.Throughput {
	s := r.Summary
	if s == nil || !(s.MedianNs > 0) {
		return nil
	}
	unit, work := "", 0.0
	if b, ok := setBytes(r); ok {
		unit, work = "B/s", b
	} else {
		for u, v := range s.Metrics {
			switch {
			case !strings.HasSuffix(u, "/op") || u == rundoc.MetricBytes || u == rundoc.MetricAllocs || u == "ns/op" || u == rundoc.MetricTime:
				continue
			case unit != "" || v == nil || !(*v > 0) || math.IsInf(*v, 0):
				return nil // several work units, or one without a value: none is the work
			}
			unit, work = strings.TrimSuffix(u, "/op")+"/s", *v
		}
	}
	if unit == "" {
		return nil
	}
	t := &rundoc.Throughput{Unit: unit, WorkPerOp: work, Median: work * 1e9 / s.MedianNs}
	if iv := s.Interval; iv != nil && iv.LowNs > 0 {
		lo, hi := work*1e9/iv.HighNs, work*1e9/iv.LowNs
		t.Low, t.High = &lo, &hi
	}
	return t
}

// setBytes recovers b.SetBytes' value from the samples' MB/s (bytes × N
// / elapsed ns × 1e3): every sample must give the same whole number, and
// each must prove it. An exact sample's totals give it outright. A sample
// rebuilt from testing's printed line (a sub-benchmark's: the worker sees
// only the line) has ns/op and MB/s rounded as testing prints them, so its
// estimate counts only when those roundings cannot move it by half a byte:
// small sizes, and fast ones, recover; a sample that cannot prove its
// value leaves the rate out rather than guess it (the MB/s column still
// shows testing's own figure).
func setBytes(r rundoc.Row) (float64, bool) {
	var got int64
	for _, p := range r.Processes {
		for _, x := range p.Samples {
			mbs, ok := x.Extra["MB/s"]
			if !ok || x.Iterations <= 0 || x.ElapsedNs <= 0 || !(mbs > 0) {
				continue
			}
			nsPerOp := float64(x.ElapsedNs) / float64(x.Iterations)
			est := mbs * nsPerOp / 1e3
			b := int64(math.Round(est))
			if !x.Exact {
				bound := est * (0.005/mbs + printedHalfUnit(nsPerOp)/nsPerOp)
				if bound >= 0.5 || math.Abs(est-float64(b)) > bound {
					return 0, false
				}
			}
			if b <= 0 || (got != 0 && b != got) {
				return 0, false
			}
			got = b
		}
	}
	return float64(got), got > 0
}

// printedHalfUnit is half the last digit testing prints of an ns/op
// value (its prettyPrint: whole numbers from 999.95, below that four
// significant figures), the most that rounding for the printed line moved
// it. (MB/s is printed with two decimals: 0.005.)
func printedHalfUnit(v float64) float64 {
	t, h := 999.95, 0.5
	for v < t && h > 1e-9 {
		t, h = t/10, h/10
	}
	return h
}

// SweepShortfall says in a few words why an unavailable sweep has no fit,
// by the rules FitSweep applies ("3 points, 4 needed", "range under ×2",
// "a value given twice"), for a table cell; the sweep's Reason says it
// whole. "see notes" when the cause is none of those.
func SweepShortfall(sw rundoc.Sweep) string {
	k := len(sw.Points)
	for i := 1; i < k; i++ {
		if sw.Points[i].ValueExact == sw.Points[i-1].ValueExact {
			return "a value given twice"
		}
	}
	switch {
	case k == 0:
		return "no measured point"
	case k == 1:
		return fmt.Sprintf("1 point, %d needed", MinSweepPoints)
	case k < MinSweepPoints:
		return fmt.Sprintf("%d points, %d needed", k, MinSweepPoints)
	case sw.Range != nil:
		lo, okLo := new(big.Int).SetString(sw.Range.MinExact, 10)
		hi, okHi := new(big.Int).SetString(sw.Range.MaxExact, 10)
		if okLo && okHi && new(big.Int).Mul(lo, big.NewInt(MinSweepSpan)).Cmp(hi) > 0 {
			return fmt.Sprintf("range under ×%d", MinSweepSpan)
		}
	}
	return "see notes"
}

// ModelG is model m's g(n), the function its fitted coefficient
// multiplies (the table in the doc comment above): a renderer draws a fit
// as Coefficient·ModelG(Model, n). An unknown model is NaN.
func ModelG(m rundoc.Model, n float64) float64 {
	for _, sm := range sweepModels {
		if sm.model == m {
			return math.Exp(sm.logG(math.Log(n)))
		}
	}
	return math.NaN()
}

// sweepModel is one model's log g(n) as a function of x = ln n.
type sweepModel struct {
	model    rundoc.Model
	exponent float64
	logG     func(x float64) float64
}

// lnLog2of2n is ln(log2(2n)) = ln(1 + log2 n), for x = ln n ≥ 0.
func lnLog2of2n(x float64) float64 { return math.Log1p(x / math.Ln2) }

var sweepModels = []sweepModel{
	{rundoc.ModelConstant, 0, func(float64) float64 { return 0 }},
	{rundoc.ModelLog, 0, lnLog2of2n},
	{rundoc.ModelLinear, 1, func(x float64) float64 { return x }},
	{rundoc.ModelNLogN, 1, func(x float64) float64 { return x + lnLog2of2n(x) }},
	{rundoc.ModelQuadratic, 2, func(x float64) float64 { return 2 * x }},
	{rundoc.ModelCubic, 3, func(x float64) float64 { return 3 * x }},
}

// tQuantile995 is the one-sided 99.5% quantile of Student's t by degrees
// of freedom (1..30; beyond, the normal's 2.576 plus a shrinking term).
var tQuantile995 = []float64{0, 63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
	3.106, 3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
	2.831, 2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750}

func tQuantile(dof int) float64 {
	if dof < len(tQuantile995) {
		return tQuantile995[dof]
	}
	return 2.576 + 5.2/float64(dof) // within 0.01 of the table's tail
}

// FitSweep fits the six models to points (see the comment at the top of
// this file) and returns the sweep with its status, fits, range and
// observed exponent; Package, Build, Family, Parameter and Omitted are
// the caller's to set. Points are sorted by value. Before any fit, with
// exact arithmetic on ValueExact, it checks that the values are distinct
// positive integers, at least MinSweepPoints of them, spanning a factor of
// at least MinSweepSpan; otherwise the sweep is unavailable, with the
// reason and its factual range, and no model. A poor or ambiguous fit
// selects nothing (every ModelFit.Selected false, Selected nil) but names
// its Best and, when ambiguous, the Candidates too close to call.
func FitSweep(points []rundoc.SweepPoint) rundoc.Sweep {
	sw := rundoc.Sweep{Status: rundoc.SweepUnavailable, Caveat: rundoc.ScalingCaveat, Points: slices.Clone(points), Models: []rundoc.ModelFit{}}
	exact := make(map[string]*big.Int, len(points))
	for _, p := range points {
		v, ok := new(big.Int).SetString(p.ValueExact, 10)
		if !ok || v.Sign() <= 0 {
			sw.Reason = fmt.Sprintf("%s: value %q is not a positive integer", p.Name, p.ValueExact)
			return sw
		}
		exact[p.ValueExact] = v
	}
	slices.SortStableFunc(sw.Points, func(a, b rundoc.SweepPoint) int { return exact[a.ValueExact].Cmp(exact[b.ValueExact]) })
	k := len(sw.Points)
	if k == 0 {
		sw.Reason = "no point has a measured time"
		return sw
	}
	lo, hi := sw.Points[0], sw.Points[k-1]
	sw.Range = &rundoc.SweepRange{Min: lo.Value, Max: hi.Value, MinExact: lo.ValueExact, MaxExact: hi.ValueExact}
	for i := 1; i < k; i++ {
		if a, b := sw.Points[i-1], sw.Points[i]; a.ValueExact == b.ValueExact {
			sw.Reason = fmt.Sprintf("%s and %s have one value, %s: a family's values must differ", a.Name, b.Name, a.ValueExact)
			return sw
		}
	}
	for _, p := range sw.Points {
		if !(p.MedianNs > 0) || math.IsInf(p.MedianNs, 0) {
			sw.Reason = fmt.Sprintf("%s: median time %v ns has no logarithm", p.Name, p.MedianNs)
			return sw
		}
	}
	if k < MinSweepPoints {
		sw.Reason = fmt.Sprintf("%d points with a measured time; a fit needs at least %d", k, MinSweepPoints)
		return sw
	}
	if new(big.Int).Mul(exact[lo.ValueExact], big.NewInt(MinSweepSpan)).Cmp(exact[hi.ValueExact]) > 0 {
		sw.Reason = fmt.Sprintf("the values span %s–%s, less than the factor of %d a fit needs",
			FormatSweepValue(lo.ValueExact), FormatSweepValue(hi.ValueExact), MinSweepSpan)
		return sw
	}
	fitModels(&sw)
	return sw
}

// fitModels fits and selects; sw's points are sorted and checked.
func fitModels(sw *rundoc.Sweep) {
	k := len(sw.Points)
	x, y := make([]float64, k), make([]float64, k)
	meanY := 0.0
	for i, p := range sw.Points {
		x[i], y[i] = math.Log(p.Value), math.Log(p.MedianNs)
		meanY += y[i] / float64(k)
	}
	ssTot := 0.0
	for _, v := range y {
		ssTot += (v - meanY) * (v - meanY)
	}
	ss := make([]float64, len(sweepModels))
	sw.Models = make([]rundoc.ModelFit, len(sweepModels))
	for j, m := range sweepModels {
		lnC := 0.0
		for i := range x {
			lnC += (y[i] - m.logG(x[i])) / float64(k)
		}
		maxR := 0.0
		for i := range x {
			r := y[i] - lnC - m.logG(x[i])
			ss[j] += r * r
			maxR = math.Max(maxR, math.Abs(r))
		}
		fit := rundoc.ModelFit{Model: m.model, Coefficient: math.Exp(lnC), NominalExponent: m.exponent,
			RMSLogResidual: math.Sqrt(ss[j] / float64(k)), MaxLogResidual: maxR}
		if ssTot > 0 {
			r2 := 1 - ss[j]/ssTot
			fit.R2 = &r2
		}
		sw.Models[j] = fit
	}
	// The observed exponent: the free log-log slope and its standard error.
	meanX := 0.0
	for _, v := range x {
		meanX += v / float64(k)
	}
	sxx, sxy := 0.0, 0.0
	for i := range x {
		sxx += (x[i] - meanX) * (x[i] - meanX)
		sxy += (x[i] - meanX) * (y[i] - meanY)
	}
	slope := sxy / sxx
	ssLin := 0.0
	for i := range x {
		r := y[i] - meanY - slope*(x[i]-meanX)
		ssLin += r * r
	}
	se := math.Sqrt(ssLin / float64(k-2) / sxx)
	sw.ObservedExponent, sw.ExponentStdError = &slope, &se

	order := make([]int, len(ss))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ss[a], ss[b]) })
	best := order[0]
	bestModel := sweepModels[best].model
	sw.Best = &bestModel
	noise := math.Max(math.Sqrt(ss[best]/float64(k-1)), NoiseFloor)
	margin := math.Pow(tQuantile(k-1)*noise, 2)
	bf := sw.Models[best]
	// The slope the best model itself has over these values, against
	// the points' own: a trend its residuals leave over.
	modelSlope := 0.0
	for i := range x {
		modelSlope += (x[i] - meanX) * sweepModels[best].logG(x[i])
	}
	modelSlope /= sxx
	trend := math.Abs(slope - modelSlope)
	switch {
	case trend > TrendTolerance && trend > tQuantile(k-2)*se:
		sw.Status = rundoc.SweepPoorFit
		sw.Reason = fmt.Sprintf("the points grow as n^%.2f (±%.2f), the closest model, %s, as n^%.2f over this range",
			slope, se, bestModel.Text(), modelSlope)
	case bf.RMSLogResidual > PoorFitRMS || bf.MaxLogResidual > PoorFitMaxResidual:
		sw.Status = rundoc.SweepPoorFit
		sw.Reason = fmt.Sprintf("the closest model, %s, misses the points by %s RMS and up to %s (a fit allows %s and %s)",
			bestModel.Text(), logPercent(bf.RMSLogResidual), logPercent(bf.MaxLogResidual),
			logPercent(PoorFitRMS), logPercent(PoorFitMaxResidual))
	case ss[order[1]]-ss[best] < margin:
		sw.Status = rundoc.SweepAmbiguous
		var names []string
		for _, j := range order {
			if ss[j]-ss[best] < margin {
				sw.Candidates = append(sw.Candidates, sweepModels[j].model)
				names = append(names, sweepModels[j].model.Text())
			}
		}
		sw.Reason = fmt.Sprintf("%s fit about equally: the runner-up's squared log residuals exceed the best's by %.2g, less than the %.2g a selection needs at this noise",
			strings.Join(names, ", "), ss[order[1]]-ss[best], margin)
	default:
		sw.Status = rundoc.SweepFitted
		sw.Selected = &bestModel
		sw.Models[best].Selected = true
	}
}

// logPercent writes a natural-log distance as the percentage it
// multiplies by.
func logPercent(l float64) string { return fmt.Sprintf("%.0f%%", (math.Exp(l)-1)*100) }

// Sweeps finds the sweep families among a run's rows (FindSweeps) and
// fits each (FitSweep): the entry point of the run, merge and compare
// commands. Nil when there is none.
func Sweeps(rows []rundoc.Row) []rundoc.Sweep {
	var out []rundoc.Sweep
	for _, f := range FindSweeps(rows) {
		sw := FitSweep(f.Points)
		sw.Package, sw.Build, sw.Family, sw.Parameter = f.Package, f.Build, f.Family, f.Parameter
		sw.Omitted = f.Omitted
		if sw.Status == rundoc.SweepUnavailable && len(f.Omitted) > 0 {
			sw.Reason += fmt.Sprintf(" (%d member(s) left out)", len(f.Omitted))
		}
		out = append(out, sw)
	}
	return out
}

// Exponent changes CompareSweeps calls: the difference of the observed
// exponents must exceed ExponentChangeZ standard errors of the difference
// (each side's from its log-log regression, combined in quadrature) and
// MinExponentChange in absolute terms, so that a tiny but precise drift
// is not called a change of scaling.
const (
	ExponentChangeZ   = 3
	MinExponentChange = 0.1
)

// CompareSweeps returns a line per family of both old and new (by package
// and family; builds differ between a comparison's sides) whose scaling
// differs beyond what their fits can tell apart: both sides fitted with
// different models, or observed exponents that differ by more than
// ExponentChangeZ standard errors and MinExponentChange. A family on one
// side only, or unavailable on either, has no line; its points keep their
// own rows and verdicts in the comparison.
func CompareSweeps(old, new []rundoc.Sweep) []rundoc.SweepChange {
	type key struct{ pkg, family string }
	before := map[key]rundoc.Sweep{}
	for _, s := range old {
		before[key{s.Package, s.Family}] = s
	}
	var out []rundoc.SweepChange
	for _, n := range new {
		o, ok := before[key{n.Package, n.Family}]
		if !ok || o.ObservedExponent == nil || n.ObservedExponent == nil || o.ExponentStdError == nil || n.ExponentStdError == nil {
			continue
		}
		c := rundoc.SweepChange{Package: n.Package, Family: n.Family, Old: o.Selected, New: n.Selected,
			OldExponent: *o.ObservedExponent, NewExponent: *n.ObservedExponent}
		c.Difference = c.NewExponent - c.OldExponent
		c.StdError = math.Hypot(*o.ExponentStdError, *n.ExponentStdError)
		c.ModelChanged = o.Selected != nil && n.Selected != nil && *o.Selected != *n.Selected
		c.ExponentChanged = math.Abs(c.Difference) > ExponentChangeZ*c.StdError && math.Abs(c.Difference) >= MinExponentChange
		if !c.ModelChanged && !c.ExponentChanged {
			continue
		}
		var text string
		if c.ModelChanged {
			text = fmt.Sprintf("%s → %s", o.Selected.Text(), n.Selected.Text())
		} else {
			text = fmt.Sprintf("exponent %.2f → %.2f (±%.2f)", c.OldExponent, c.NewExponent, c.StdError)
		}
		text += " over " + rangeText(n.Range)
		if or, nr := rangeText(o.Range), rangeText(n.Range); or != nr {
			text += " (old over " + or + ")"
		}
		c.Text = text
		out = append(out, c)
	}
	return out
}

func rangeText(r *rundoc.SweepRange) string {
	if r == nil {
		return "no range"
	}
	return FormatSweepValue(r.MinExact) + "–" + FormatSweepValue(r.MaxExact)
}
