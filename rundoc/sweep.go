package rundoc

import (
	"fmt"
	"math/big"
)

// ScalingCaveat is what every rendering of a sweep says beside its model:
// a fit over the values that ran describes those values only.
const ScalingCaveat = "empirical scaling over the measured range, not proof of big-O"

// Sweep is one family of sub-benchmarks over a numeric parameter
// (BenchmarkHash/impl=fnv/n=*) and how its time per operation grows with
// that parameter: empirical scaling over the measured range, not proof of
// big-O (docs/design.md#sweeps). Package analysis finds and fits them.
type Sweep struct {
	Package string `json:"package"`
	// Build is the build the rows measured (Row.Build); "" for the
	// working tree.
	Build string `json:"build,omitempty"`
	// Family is the members' shared name with the varying element written
	// "key=*" ("*" when bare).
	Family string `json:"family"`
	// Parameter is the varying element's key, "" for a bare element.
	Parameter string      `json:"parameter"`
	Status    SweepStatus `json:"status"`
	// Caveat is ScalingCaveat: every sweep says what a fit can claim,
	// in the document as in every rendering of it.
	Caveat string `json:"caveat"`
	// Reason says why the status is not fitted, or qualifies a fit; ""
	// when there is nothing to say.
	Reason string `json:"reason,omitempty"`
	// Selected is the model the fit selected; nil unless Status is
	// fitted.
	Selected *Model `json:"selected"`
	// Best is the lowest-residual model whenever the models were fitted,
	// selected or not (an ambiguous or poor fit still names it), and
	// Candidates the models too close to it to call, Best first; nil and
	// absent when no model was fitted.
	Best       *Model  `json:"best"`
	Candidates []Model `json:"candidates,omitempty"`
	// Points are the members that have a measured time, in ascending
	// value.
	Points []SweepPoint `json:"points"`
	// Models holds one fit per model, in the order of AllModels; empty
	// when the points did not allow a fit (unavailable).
	Models []ModelFit `json:"models"`
	// Range is the points' smallest and largest value; nil when there is
	// no point.
	Range *SweepRange `json:"range"`
	// ObservedExponent is the least-squares slope of log time against log
	// value, and ExponentStdError its standard error from that
	// regression; nil when no fit was made.
	ObservedExponent *float64 `json:"observedExponent"`
	ExponentStdError *float64 `json:"exponentStdError"`
	// Omitted are the members left out of the points, with why (failed,
	// skipped, no measured time, a value that is not a positive number).
	Omitted []SweepOmission `json:"omitted,omitempty"`
}

// SweepStatus is what the analysis of a sweep concluded; its JSON is the
// string.
type SweepStatus string

// Sweep statuses.
const (
	// SweepFitted: one model fits and no other comes close.
	SweepFitted SweepStatus = "fitted"
	// SweepAmbiguous: another model fits almost as well; Candidates lists
	// them.
	SweepAmbiguous SweepStatus = "ambiguous"
	// SweepPoorFit: even the best model is far from the points.
	SweepPoorFit SweepStatus = "poor-fit"
	// SweepUnavailable: the points allow no fit (too few, too narrow a
	// range, a value given twice); Reason says which.
	SweepUnavailable SweepStatus = "unavailable"
)

// Known reports whether s is one of the statuses above.
func (s SweepStatus) Known() bool {
	switch s {
	case SweepFitted, SweepAmbiguous, SweepPoorFit, SweepUnavailable:
		return true
	}
	return false
}

// Model is a growth model of a sweep; its JSON is the string.
type Model string

// The models, slowest-growing first.
const (
	ModelConstant  Model = "constant"
	ModelLog       Model = "log"
	ModelLinear    Model = "linear"
	ModelNLogN     Model = "nlogn"
	ModelQuadratic Model = "quadratic"
	ModelCubic     Model = "cubic"
)

// AllModels lists the models in the order a sweep's fits are.
var AllModels = []Model{ModelConstant, ModelLog, ModelLinear, ModelNLogN, ModelQuadratic, ModelCubic}

// Known reports whether m is one of AllModels.
func (m Model) Known() bool {
	for _, k := range AllModels {
		if m == k {
			return true
		}
	}
	return false
}

// Text is the model as prose writes it: "n log n", "n²".
func (m Model) Text() string {
	switch m {
	case ModelNLogN:
		return "n log n"
	case ModelQuadratic:
		return "quadratic"
	}
	return string(m)
}

// SweepPoint is one member of a sweep with a measured time.
type SweepPoint struct {
	// Value is the parameter's value, rounded to a float64, and
	// ValueExact the same value in full, in decimal: a value beyond
	// float64's exact integers (2^53) is exact there only.
	Value      float64 `json:"value"`
	ValueExact string  `json:"valueExact"`
	Name       string  `json:"name"`
	// MedianNs is the row's median ns/op (Summary.MedianNs) and Interval
	// its interval; nil when the row has none (one process).
	MedianNs float64   `json:"medianNs"`
	Interval *Interval `json:"interval"`
	// Throughput is the work per second the point did; nil when the
	// benchmark reported no work per operation.
	Throughput *Throughput `json:"throughput,omitempty"`
}

// Throughput is work per second derived from a point's time: b.SetBytes'
// bytes ("B/s"), or a b.ReportMetric unit ending in "/op" ("items/op"
// gives "items/s"). The median rate is the work over the median time, and
// its interval the work over the time interval's ends, reversed: no second
// statistic.
type Throughput struct {
	Unit      string  `json:"unit"`      // "B/s", or the metric's unit with "/op" made "/s"
	WorkPerOp float64 `json:"workPerOp"` // bytes or items per operation
	Median    float64 `json:"median"`
	// Low and High are the rates at the time interval's high and low
	// ends; nil when the point has no interval.
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
}

// ModelFit is one model fitted to a sweep's points in log space:
// log t = log c + log g(n), c by least squares.
type ModelFit struct {
	Model Model `json:"model"`
	// Coefficient is c, in nanoseconds per unit of g(n).
	Coefficient float64 `json:"coefficient"`
	// NominalExponent is the model's power of n: 0 for constant and log,
	// 1 for linear and n log n, 2 and 3 (a logarithmic factor counts 0).
	NominalExponent float64 `json:"nominalExponent"`
	// R2 is the coefficient of determination in log space, against the
	// mean log time (so 0 for the constant model, and negative for a
	// model worse than it); nil when every point has the same time.
	R2 *float64 `json:"r2"`
	// RMSLogResidual and MaxLogResidual are the root mean square and the
	// largest absolute residual, in natural-log units (0.1 is about 10%).
	RMSLogResidual float64 `json:"rmsLogResidual"`
	MaxLogResidual float64 `json:"maxLogResidual"`
	Selected       bool    `json:"selected"`
}

// SweepRange is the smallest and largest value of a sweep's points, as
// float64s and exactly, in decimal.
type SweepRange struct {
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	MinExact string  `json:"minExact"`
	MaxExact string  `json:"maxExact"`
}

// SweepOmission is a member left out of a sweep's points.
type SweepOmission struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// SweepChange is a family whose scaling differs between the two sides of
// a comparison beyond what their fits can tell apart: the selected model
// changed (both sides fitted), or the observed exponents differ by more
// than their standard errors allow (see analysis.CompareSweeps).
type SweepChange struct {
	Package string `json:"package"`
	Family  string `json:"family"`
	// Old and New are each side's selected model; nil when that side's
	// status is not fitted.
	Old *Model `json:"old"`
	New *Model `json:"new"`
	// OldExponent and NewExponent are the observed exponents, Difference
	// new minus old and StdError the standard error of that difference.
	OldExponent float64 `json:"oldExponent"`
	NewExponent float64 `json:"newExponent"`
	Difference  float64 `json:"difference"`
	StdError    float64 `json:"stdError"`
	// ModelChanged and ExponentChanged say which of the two differs.
	ModelChanged    bool `json:"modelChanged"`
	ExponentChanged bool `json:"exponentChanged"`
	// Text is the line a renderer prints: "linear → n log n over
	// 1KiB–1MiB".
	Text string `json:"text"`
}

func (v *validator) sweeps(prefix string, sweeps []Sweep) {
	type identity struct{ pkg, build, family string }
	seen := map[identity]int{}
	for i, s := range sweeps {
		path := idx(prefix+"sweeps", i)
		id := identity{s.Package, s.Build, s.Family}
		if j, dup := seen[id]; dup {
			v.fail(path, "family %s %s%s repeats sweeps[%d]", s.Package, s.Family, buildSuffix(s.Build), j)
		}
		seen[id] = i
		v.sweep(path, s)
		if v.err != nil {
			return
		}
	}
}

func (v *validator) sweep(path string, s Sweep) {
	if !s.Status.Known() {
		v.fail(path+".status", "%q is not a sweep status", s.Status)
		return
	}
	for _, m := range []struct {
		name string
		m    *Model
	}{{"selected", s.Selected}, {"best", s.Best}} {
		if m.m != nil && !m.m.Known() {
			v.fail(path+"."+m.name, "%q is not a model", *m.m)
		}
	}
	for j, p := range s.Points {
		pp := idx(path+".points", j)
		if !(p.Value > 0) {
			v.fail(pp+".value", "%v is not a positive value", p.Value)
		}
		v.exact(pp+".valueExact", p.ValueExact, p.Value)
		v.time(pp+".medianNs", p.MedianNs)
		if iv := p.Interval; iv != nil {
			v.time(pp+".interval.lowNs", iv.LowNs)
			v.time(pp+".interval.highNs", iv.HighNs)
			v.ordered(pp+".interval", "lowNs", "highNs", iv.LowNs, iv.HighNs)
			v.fraction(pp+".interval.confidence", &iv.Confidence)
		}
		if tp := p.Throughput; tp != nil {
			v.nonNegative(pp+".throughput.workPerOp", tp.WorkPerOp)
			v.nonNegative(pp+".throughput.median", tp.Median)
			if tp.Low != nil && tp.High != nil {
				v.ordered(pp+".throughput", "low", "high", *tp.Low, *tp.High)
			}
		}
		if j > 0 && p.Value < s.Points[j-1].Value {
			v.fail(pp+".value", "%v is below the previous point's %v (points are in ascending value)", p.Value, s.Points[j-1].Value)
		}
	}
	if r := s.Range; r != nil {
		v.exact(path+".range.minExact", r.MinExact, r.Min)
		v.exact(path+".range.maxExact", r.MaxExact, r.Max)
		v.ordered(path+".range", "min", "max", r.Min, r.Max)
	} else if len(s.Points) > 0 {
		v.fail(path+".range", "null, but the sweep has %d points", len(s.Points))
	}
	selected, names := 0, map[Model]int{}
	for j, m := range s.Models {
		mp := idx(path+".models", j)
		if !m.Model.Known() {
			v.fail(mp+".model", "%q is not a model", m.Model)
		}
		if k, dup := names[m.Model]; dup {
			v.fail(mp+".model", "%q repeats models[%d]", m.Model, k)
		}
		names[m.Model] = j
		v.nonNegative(mp+".coefficient", m.Coefficient)
		v.nonNegative(mp+".rmsLogResidual", m.RMSLogResidual)
		v.nonNegative(mp+".maxLogResidual", m.MaxLogResidual)
		if m.R2 != nil && *m.R2 > 1 {
			v.fail(mp+".r2", "%v is above 1", *m.R2)
		}
		if m.Selected {
			selected++
			if s.Selected == nil || *s.Selected != m.Model {
				v.fail(mp+".selected", "true, but the sweep's selected model is %s", modelText(s.Selected))
			}
		}
	}
	for _, m := range append([]Model{deref(s.Selected), deref(s.Best)}, s.Candidates...) {
		if _, ok := names[m]; m != "" && !ok {
			v.fail(path, "model %s is not among the sweep's models", m)
		}
	}
	switch {
	case s.Status == SweepFitted && (s.Selected == nil || selected != 1):
		v.fail(path+".selected", "a fitted sweep selects exactly one model (selected %s, %d marked)", modelText(s.Selected), selected)
	case s.Status != SweepFitted && (s.Selected != nil || selected != 0):
		v.fail(path+".selected", "a sweep %s selects no model", s.Status)
	case s.Status == SweepFitted && (s.Best == nil || *s.Best != *s.Selected):
		v.fail(path+".best", "%s, but a fitted sweep selects its best model, %s", modelText(s.Best), modelText(s.Selected))
	case s.Status != SweepUnavailable && len(s.Models) == 0:
		v.fail(path+".models", "a sweep %s has its models' fits", s.Status)
	}
	if s.ExponentStdError != nil {
		v.nonNegative(path+".exponentStdError", *s.ExponentStdError)
	}
}

// exact checks a decimal value and its float64 rounding.
func (v *validator) exact(path, exact string, f float64) {
	n, ok := new(big.Int).SetString(exact, 10)
	if !ok || n.Sign() <= 0 || n.String() != exact {
		v.fail(path, "%q is not a positive decimal integer", exact)
		return
	}
	if g, _ := new(big.Float).SetInt(n).Float64(); g != f {
		v.fail(path, "%s does not round to %v", exact, f)
	}
}

func (v *validator) sweepChanges(prefix string, changes []SweepChange) {
	for i, c := range changes {
		path := idx(prefix+"sweeps", i)
		for _, m := range []*Model{c.Old, c.New} {
			if m != nil && !m.Known() {
				v.fail(path, "%q is not a model", *m)
			}
		}
		v.nonNegative(path+".stdError", c.StdError)
	}
}

func deref(m *Model) Model {
	if m == nil {
		return ""
	}
	return *m
}

func modelText(m *Model) string {
	if m == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *m)
}
