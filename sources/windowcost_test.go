package sources

import (
	"strings"
	"testing"
)

// TestWindowEdgeCosts checks the measured table against the rules it
// backs: every source has an entry, measured or with the reason it is not;
// the default edge set and every default window metric's source are read,
// never enabled, and measured under 2% of a 100 ms window in their own edge
// reads and in the median change of the window's wall time.
func TestWindowEdgeCosts(t *testing.T) {
	for _, s := range []string{"default set", SourcePerfHW, SourcePerfSW, SourceSyscalls, SourceRaw} {
		c, ok := windowCost(s)
		if !ok {
			t.Errorf("%s: no entry in WindowEdgeCosts", s)
			continue
		}
		if len(c.Figures) == 0 && c.NotMeasured == "" {
			t.Errorf("%s: neither figures nor why not", s)
		}
		if len(c.Figures) != 0 && len(c.Figures) != 3 {
			t.Errorf("%s: %d figures, want the CPU, warm and cold windows", s, len(c.Figures))
		}
		for _, f := range c.Figures {
			if f.CILowPct > f.MedianPct || f.MedianPct > f.CIHighPct || f.EdgeReadsUs <= 0 {
				t.Errorf("%s, %s: inconsistent figure %+v", s, f.Window, f)
			}
		}
	}
	def, _ := windowCost("default set")
	if def.Enabled {
		t.Error("the default edge set enables nothing")
	}
	for _, f := range def.Figures {
		if f.MedianPct >= 2 || f.EdgeReadsUs >= 0.02*100e3 {
			t.Errorf("default set on a %s: %+v, want under 2%% of 100 ms", f.Window, f)
		}
	}
	for _, m := range WindowDefault() {
		d, ok := Describe(m)
		if !ok || d.Source != SourceTier0 {
			t.Errorf("default window metric %s is not read by the default edge set's process reading (source %s)", m, d.Source)
		}
	}
	if len(WindowDefault()) == 0 {
		t.Error("no default window metrics")
	}
}

func TestWindowCostNote(t *testing.T) {
	n := WindowCostNote(SourcePerfSW)
	for _, want := range []string{"perf-sw counters enabled over this window", "measured", "cold read", "95% CI", "bench/windows", "2-vCPU VM", "ms at the edges"} {
		if !strings.Contains(n, want) {
			t.Errorf("perf-sw note %q does not say %q", n, want)
		}
	}
	n = WindowCostNote(SourcePerfHW)
	for _, want := range []string{"not measured", "no PMU", "go run ./bench/windows"} {
		if !strings.Contains(n, want) {
			t.Errorf("perf-hw note %q does not say %q", n, want)
		}
	}
	if n := WindowCostNote("made-up"); !strings.Contains(n, "never measured") {
		t.Errorf("unknown source: %q", n)
	}
}
