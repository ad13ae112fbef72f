package sources

import (
	"fmt"
	"math"
	"strings"
)

// What reading a source at a workload window's edges costs the window.
//
// The sources every window reads (EdgeReader: the thread's and the
// process's accounting, this cgroup's io.pressure, the system's PSI) only
// read cumulative totals at the two edges and enable nothing in between,
// so what they cost a window is the time of those reads. tier0's metrics
// come from the same process reading. Those are the default edge set, and
// WindowDefault selects tier0's metrics for --window-metrics.
//
// Every other source is a counter that is enabled over the window: the
// perf sources hook every context switch and fault of every thread of the
// process (inherited counters), the syscall tracepoints move every system
// call onto the kernel's traced path. They are opt-in for windows
// (--window-metrics), and a window that reads one says in its note what it
// was measured to cost (WindowCostNote).
//
// The figures below are measurements, not estimates: go run ./bench/windows
// runs a 100 ms CPU window, a 100 ms warm read and a 100 ms cold read with
// and without each source, back to back in random order, many rounds, on
// the host WindowCostHost names, and prints the table they are copied from
// (docs/counters.md's workloads section has the whole table). Run it on another
// host to measure there.

// WindowCostHost says where and how the WindowEdgeCosts were measured.
const WindowCostHost = "go run ./bench/windows -rounds=81 on a linux/amd64 2-vCPU VM (Linux 6.18, no PMU, no tracefs), 2026-12-01"

// WindowCost is the measured cost of reading one source at a window's
// edges, on the three windows of bench/windows.
type WindowCost struct {
	// Source is a catalog source (SourcePerfSW, ...), or "default set"
	// for the sources every window reads.
	Source string
	// Enabled says the source is a counter enabled over the window
	// (opt-in); false: reads of totals at the edges only.
	Enabled bool
	// Figures are per window, in the order cpu, warm, cold; empty when
	// the source could not be measured where WindowCostHost ran.
	Figures []WindowCostFigure
	// NotMeasured says why there are no figures.
	NotMeasured string
}

// WindowCostFigure is one source's cost on one 100 ms window: the median,
// over the rounds, of the relative difference between a window with the
// source and one without, run back to back; the distribution-free 95%
// confidence interval of that median; and the median time of the edge
// reads themselves (both edges, the default set's included for an opt-in
// source).
type WindowCostFigure struct {
	Window                         string // "CPU window", "warm read", "cold read"
	MedianPct, CILowPct, CIHighPct float64
	EdgeReadsUs                    float64
}

// WindowEdgeCosts are the measurements (see WindowCostHost).
var WindowEdgeCosts = []WindowCost{
	{Source: "default set", Figures: []WindowCostFigure{
		{"CPU window", +0.16, -0.90, +1.52, 270},
		{"warm read", -1.06, -3.64, +1.54, 241},
		{"cold read", +0.85, -1.80, +5.71, 298},
	}},
	{Source: SourcePerfSW, Enabled: true, Figures: []WindowCostFigure{
		{"CPU window", +1.70, +0.23, +2.98, 471},
		{"warm read", +0.20, -2.69, +3.34, 507},
		{"cold read", -0.20, -4.33, +3.40, 582},
	}},
	{Source: SourcePerfHW, Enabled: true, NotMeasured: "no PMU there (perf_event_open(PERF_TYPE_HARDWARE) fails with ENOENT)"},
	{Source: SourceSyscalls, Enabled: true, NotMeasured: "no tracefs there"},
	{Source: SourceRaw, Enabled: true, NotMeasured: "no PMU there (perf_event_open(PERF_TYPE_RAW) fails with ENOENT)"},
}

// WindowDefault is what --window-metrics selects when it is not given: the
// metrics of the sources that are read, never enabled, at a window's edges
// (tier0's, which the process reading of the default edge set provides).
func WindowDefault() []string {
	var names []string
	for _, d := range catalog {
		if d.Source == SourceTier0 {
			names = append(names, d.Name)
		}
	}
	return names
}

// windowCost returns the measured cost of a source.
func windowCost(source string) (WindowCost, bool) {
	for _, c := range WindowEdgeCosts {
		if c.Source == source {
			return c, true
		}
	}
	return WindowCost{}, false
}

// WindowCostNote is the sentence a window's note carries for an opt-in
// source it reads: the measured cost, how and where it was measured, or
// that it was not measured and why.
func WindowCostNote(source string) string {
	c, ok := windowCost(source)
	if ok && c.Source == "default set" {
		ok = false
	}
	head := fmt.Sprintf("%s counters enabled over this window (--window-metrics)", source)
	switch {
	case !ok:
		return head + ": what they cost a window was never measured; run go run ./bench/windows to measure it here"
	case len(c.Figures) == 0:
		return fmt.Sprintf("%s: what they cost a window is not measured: bench/windows found %s (%s); run go run ./bench/windows to measure it here",
			head, c.NotMeasured, WindowCostHost)
	}
	parts := make([]string, len(c.Figures))
	lo, hi := math.Inf(1), math.Inf(-1)
	base, _ := windowCost("default set")
	for i, f := range c.Figures {
		parts[i] = fmt.Sprintf("%+.1f%% [95%% CI %+.1f%%, %+.1f%%] on a %s", f.MedianPct, f.CILowPct, f.CIHighPct, f.Window)
		for _, b := range base.Figures {
			if b.Window == f.Window {
				lo, hi = math.Min(lo, f.EdgeReadsUs-b.EdgeReadsUs), math.Max(hi, f.EdgeReadsUs-b.EdgeReadsUs)
			}
		}
	}
	edges := ""
	if lo <= hi {
		edges = fmt.Sprintf(", its starts and stops adding %.2f–%.2f ms at the edges", lo/1e3, hi/1e3)
	}
	return fmt.Sprintf("%s: measured to change the wall time of a 100 ms window by %s%s (medians of back-to-back pairs with and without, %s)",
		head, strings.Join(parts, ", "), edges, WindowCostHost)
}
