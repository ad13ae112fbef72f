package sources

import "fmt"

// levels are the metrics whose value is a level at a bracket's end rather
// than a total over it: Sum keeps the largest instead of adding.
var levels = map[string]bool{"maxrss": true}

// Derive returns r with its derived metrics recomputed from the raw totals
// it holds: ipc = instructions / cycles. Both come from one perf group read
// over one bracket (or, after Sum, over the same brackets), which is what
// makes the ratio meaningful. ipc is Estimated if either input is, and
// Unavailable, with the reason, if either input is or if no cycle was
// counted. Counter.Stop already returns derived readings; Sum re-derives, so
// callers need Derive only for readings they assemble themselves.
func Derive(r Reading) Reading {
	out := r.clone()
	delete(out.Values, "ipc")
	delete(out.Estimated, "ipc")
	delete(out.Unavailable, "ipc")
	ins, iok := r.Values["instructions"]
	cyc, cok := r.Values["cycles"]
	insWhy, iun := r.Unavailable["instructions"]
	cycWhy, cun := r.Unavailable["cycles"]
	switch {
	case iun:
		out.setUnavailable("ipc", "instructions: "+insWhy)
	case cun:
		out.setUnavailable("ipc", "cycles: "+cycWhy)
	case !iok || !cok:
		// Not both counted in this reading: nothing to derive.
	case cyc == 0:
		out.setUnavailable("ipc", "no cycles counted")
	default:
		out.Values["ipc"] = ins / cyc
		if r.Estimated["instructions"] || r.Estimated["cycles"] {
			out.Estimated["ipc"] = true
		}
	}
	return out
}

// DerivedFrom returns the metrics a derived metric is computed from (ipc:
// instructions and cycles), or nil for a metric that is counted itself.
func DerivedFrom(metric string) []string {
	if metric == "ipc" {
		return []string{"instructions", "cycles"}
	}
	return nil
}

// Sum combines the readings of several brackets of one counter, such as the
// batched brackets of one counting pass, into one reading of their total:
// totals add, levels keep the largest, estimates stay labeled, and derived
// metrics are recomputed from the sums (a sum of ratios means nothing). A
// metric unavailable in any bracket, or missing from some, is unavailable in
// the sum: a partial total would understate it.
func Sum(rs ...Reading) Reading {
	out := Reading{Values: map[string]float64{}, Estimated: map[string]bool{}, Unavailable: map[string]string{}}
	present := map[string]int{}
	for _, r := range rs {
		for k, v := range r.Values {
			present[k]++
			switch {
			case levels[k]:
				if cur, ok := out.Values[k]; !ok || v > cur {
					out.Values[k] = v
				}
			default:
				out.Values[k] += v
			}
		}
		for k, e := range r.Estimated {
			if e {
				out.Estimated[k] = true
			}
		}
		for k, why := range r.Unavailable {
			if _, ok := out.Unavailable[k]; !ok {
				out.Unavailable[k] = why
			}
		}
	}
	for k, n := range present {
		if _, ok := out.Unavailable[k]; !ok && n < len(rs) {
			out.Unavailable[k] = fmt.Sprintf("no value in %d of %d brackets", len(rs)-n, len(rs))
		}
	}
	for k := range out.Unavailable {
		delete(out.Values, k)
		delete(out.Estimated, k)
	}
	return Derive(out)
}

// clone returns a deep copy of r with every map allocated.
func (r Reading) clone() Reading {
	out := Reading{
		Values:      make(map[string]float64, len(r.Values)+1),
		Estimated:   make(map[string]bool, len(r.Estimated)),
		Unavailable: make(map[string]string, len(r.Unavailable)),
	}
	for k, v := range r.Values {
		out.Values[k] = v
	}
	for k, v := range r.Estimated {
		if v {
			out.Estimated[k] = true
		}
	}
	for k, v := range r.Unavailable {
		out.Unavailable[k] = v
	}
	return out
}

// setUnavailable records why metric has no value, removing any value.
func (r Reading) setUnavailable(metric, why string) {
	delete(r.Values, metric)
	delete(r.Estimated, metric)
	r.Unavailable[metric] = why
}

// newReading returns an empty reading with its maps allocated.
func newReading() Reading {
	return Reading{Values: map[string]float64{}, Estimated: map[string]bool{}, Unavailable: map[string]string{}}
}

// unavailableReading marks every metric unavailable for one reason.
func unavailableReading(metrics []string, why string) Reading {
	r := newReading()
	for _, m := range metrics {
		r.Unavailable[m] = why
	}
	return r
}
