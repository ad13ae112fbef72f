package rundoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Window.Scope values.
const (
	ScopeThread   = "thread"
	ScopeProcess  = "process"
	ScopeWallOnly = "wall-only"
)

// ScopeMixed is a WindowSummary's scope when its processes' differ.
const ScopeMixed = "mixed"

// IsError reports whether the window records a failure of its process.
func (w Window) IsError() bool { return w.Error != nil }

// IsSkipped reports whether the window's process skipped (and did not
// fail).
func (w Window) IsSkipped() bool { return w.Error == nil && w.Skipped != nil }

// LocalName is a window's package-relative name: its Name, which for an
// unnumbered or named window already carries the workload (BenchmarkIngest,
// BenchmarkIngest/parse), with the workload in front of a bare number
// (#2 becomes BenchmarkIngest#2) and the workload alone for an empty name.
func (w Window) LocalName() string {
	switch {
	case w.Name == "":
		return w.Workload
	case strings.HasPrefix(w.Name, "#"):
		return w.Workload + w.Name
	default:
		return w.Name
	}
}

// LocalName is a summary's package-relative name, as Window.LocalName
// is a window's.
func (s WindowSummary) LocalName() string {
	return Window{Workload: s.Workload, Name: s.Name}.LocalName()
}

// namedWindowStat is one of a summary's statistics with its JSON name.
type namedWindowStat struct {
	name string
	st   *WindowStat
}

// stats are s's statistics with their JSON names, in document order.
func (s WindowSummary) stats() []namedWindowStat {
	return []namedWindowStat{
		{"wallNs", s.WallNs}, {"onCpuUserNs", s.OnCPUUserNs}, {"onCpuKernelNs", s.OnCPUKernelNs},
		{"offCpuRunqueueNs", s.OffCPURunqueueNs}, {"offCpuDiskNs", s.OffCPUDiskNs}, {"offCpuOtherNs", s.OffCPUOtherNs},
		{"otherThreadsCpuNs", s.OtherThreadsCPUNs}, {"ioStallNs", s.IOStallNs},
	}
}

// MarshalJSON writes a summary with its totals always an object (null
// keeps the single meaning "not available"), and refuses a non-finite
// number rather than writing part of a document.
func (s WindowSummary) MarshalJSON() ([]byte, error) {
	type plain WindowSummary // without this method
	if s.Totals == nil {
		s.Totals = map[string]*float64{}
	}
	check := func(name string, v *float64) error {
		if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
			return fmt.Errorf("%w: windowSummaries %s %s is %v", ErrNonFinite, s.LocalName(), name, *v)
		}
		return nil
	}
	for _, f := range s.stats() {
		if f.st == nil {
			continue
		}
		for _, v := range []struct {
			name string
			v    *float64
		}{{"median", &f.st.Median}, {"spread", f.st.Spread}, {"min", &f.st.Min}, {"max", &f.st.Max}} {
			if err := check(f.name+"."+v.name, v.v); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Totals)) {
		if err := check(fmt.Sprintf("totals[%q]", k), s.Totals[k]); err != nil {
			return nil, err
		}
	}
	// As WriteJSON's encoder: <, > and & stay as they are.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(s)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
