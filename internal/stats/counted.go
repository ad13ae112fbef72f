package stats

import "math"

// CountedAcross combines one counted metric over processes: each process's
// value (a median of its own repeated counting measurements) and its
// uncertainty (half their range). The value is the median of the values
// (the process is the unit, as for time); the uncertainty is the larger of
// the median process's own uncertainty and half the range of the values,
// so it covers both the noise inside a process and the spread between
// processes. It reports false for no values, lengths that differ, a
// negative uncertainty or a non-finite number.
func CountedAcross(values, uncertainties []float64) (value, uncertainty float64, ok bool) {
	if len(values) == 0 || len(values) != len(uncertainties) {
		return 0, 0, false
	}
	for _, u := range uncertainties {
		if u < 0 {
			return 0, 0, false
		}
	}
	v, okV := Summarize(values)
	u, okU := Summarize(uncertainties)
	if !okV || !okU {
		return 0, 0, false
	}
	return v.Median, math.Max(u.Median, (v.Max-v.Min)/2), true
}

// BelowNoise reports whether a counted per-iteration value is not
// distinguishable from zero: its uncertainty reaches it, or it is negative
// (a count per iteration cannot be).
func BelowNoise(value, uncertainty float64) bool {
	return value < 0 || (uncertainty > 0 && math.Abs(value) <= uncertainty)
}
