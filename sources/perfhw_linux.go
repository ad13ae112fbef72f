//go:build linux

package sources

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

// perfHW counts the CPU's generic hardware events as one group, so that ipc
// divides counts enabled, scheduled and disabled together.
type perfHW struct{}

// hwEvents is the full group in opening order: instructions leads.
var hwEvents = []perfEvent{
	{"instructions", perfTypeHardware, perfCountHWInstructions},
	{"cycles", perfTypeHardware, perfCountHWCPUCycles},
	{"branches", perfTypeHardware, perfCountHWBranchInstructions},
	{"branch-misses", perfTypeHardware, perfCountHWBranchMisses},
	{"cache-references", perfTypeHardware, perfCountHWCacheReferences},
	{"cache-misses", perfTypeHardware, perfCountHWCacheMisses},
}

// hwShrink is the order in which a multiplexing default group gives up
// events: the last-level-cache pair first, then the branch pair. cycles and
// instructions stay: they are the anchor and ipc.
var hwShrink = [][]string{{"cache-references", "cache-misses"}, {"branches", "branch-misses"}}

// calibrationSpin is how long the open-time calibration keeps the CPU busy
// under the group to see whether it multiplexes.
var calibrationSpin = 2 * time.Millisecond

func (perfHW) name() string { return SourcePerfHW }

// plan settles the hardware group for the wanted metrics. In the default
// mode it calibrates the group and shrinks it (hwShrink) until its counters
// run all the time they are enabled; with opts.Scaled it keeps the group
// whole and says that it multiplexes. Either way every bracket is checked
// again when read, so ambient contention is labeled, never hidden.
func (perfHW) plan(want []string, opts Options) perfPlan {
	// The trial group counts the calling thread: the goroutine that plans
	// is locked to its thread and exits locked, which ends the thread. It
	// never calls runtime.UnlockOSThread: the less of the runtime the
	// worker makes live beyond what go test's binary reaches, the less
	// the runtime's code after it moves (docs/design.md#injection).
	done := make(chan perfPlan)
	go func() {
		runtime.LockOSThread()
		done <- planOnThread(want, opts)
	}()
	return <-done
}

// planOnThread is plan on a goroutine locked to its thread.
func planOnThread(want []string, opts Options) perfPlan {
	need := setOf(want)
	if need["ipc"] {
		need["instructions"], need["cycles"] = true, true
	}
	events := eventsFor(hwEvents, need)
	pl := perfPlan{}

	stage := 0
	for {
		t, err := settle(events, true)
		if err != nil {
			pl.events = nil
			pl.absences = append(pl.absences, absentAll(CapCounting, notAbsent(want, pl.absences), err.Error())...)
			return pl
		}
		events, pl.mode = t.events, t.mode
		pl.absences = append(pl.absences, t.drops...)
		enabled, running, err := calibrate(t)
		t.g.close()
		if err != nil {
			pl.degraded = append(pl.degraded, fmt.Sprintf("%s: calibration failed (%v); multiplexing is detected per bracket only", SourcePerfHW, err))
			break
		}
		if enabled == 0 || running >= enabled {
			break
		}
		ran := fmt.Sprintf("counters ran %.0f%% of the enabled time at calibration", 100*float64(running)/float64(enabled))
		if opts.Scaled {
			pl.degraded = append(pl.degraded, fmt.Sprintf("%s: scaled mode: the group of %d events multiplexes (%s); its values are labeled estimates", SourcePerfHW, len(events), ran))
			break
		}
		var drop []string
		for ; stage < len(hwShrink) && len(drop) == 0; stage++ {
			drop = intersect(hwShrink[stage], metricsOf(events))
		}
		if len(drop) == 0 || len(drop) == len(events) {
			pl.degraded = append(pl.degraded, fmt.Sprintf("%s: the group multiplexes even at its smallest (%s); its values are labeled estimates", SourcePerfHW, ran))
			break
		}
		pl.absences = append(pl.absences, Absence{Capability: CapCounting, Metrics: drop,
			Reason: fmt.Sprintf("dropped from the %s group to avoid multiplexing (%s); --perf-scaled keeps them as labeled estimates", SourcePerfHW, ran)})
		pl.degraded = append(pl.degraded, fmt.Sprintf("%s: %s dropped from the group to avoid multiplexing", SourcePerfHW, strings.Join(drop, " and ")))
		events = eventsFor(events, notIn(metricsOf(events), drop))
	}
	pl.events = events

	opened := setOf(metricsOf(events))
	if need["ipc"] && !(opened["instructions"] && opened["cycles"]) {
		why := "instructions and cycles did not both open"
		for _, a := range pl.absences {
			if len(a.Metrics) > 0 && (a.Metrics[0] == "instructions" || a.Metrics[0] == "cycles") {
				why = a.Reason
				break
			}
		}
		pl.absences = append(pl.absences, Absence{Capability: CapCounting, Metrics: []string{"ipc"}, Reason: "needs instructions and cycles in one group: " + why})
	}
	pl.caps = []Capability{CapCounting}
	if opts.Scaled {
		pl.caps = append(pl.caps, CapCountingScaled)
	}
	pl.userOnlyNotes(SourcePerfHW)
	return pl
}

// calibrate keeps the calling thread busy for calibrationSpin under the
// trial group and returns how long the group was enabled and how long its
// counters actually ran: less running than enabled means it multiplexes.
func calibrate(t *trial) (enabled, running uint64, err error) {
	buf := make([]byte, groupReadSize(len(t.events)))
	var before, after sample
	before.counts = make([]uint64, len(t.events))
	after.counts = make([]uint64, len(t.events))
	if err := readGroup(t.g, t.mode, buf, &before); err != nil {
		return 0, 0, err
	}
	if err := sys.ioctl(t.g.fds[0], perfEventIOCEnable, perfIOCFlagGroup); err != nil {
		return 0, 0, fmt.Errorf("PERF_EVENT_IOC_ENABLE: %v", err)
	}
	for start := time.Now(); time.Since(start) < calibrationSpin; {
	}
	if err := sys.ioctl(t.g.fds[0], perfEventIOCDisable, perfIOCFlagGroup); err != nil {
		return 0, 0, fmt.Errorf("PERF_EVENT_IOC_DISABLE: %v", err)
	}
	if err := readGroup(t.g, t.mode, buf, &after); err != nil {
		return 0, 0, err
	}
	return after.enabled - before.enabled, after.running - before.running, nil
}

func (h perfHW) probe(opts Options) Report {
	return probeReport(SourcePerfHW, h.plan(catalogNames(SourcePerfHW), opts))
}

func (h perfHW) open(want []string, opts Options) (Counter, []Absence) {
	return openPlan(SourcePerfHW, h.plan(want, opts), want, true)
}

// notIn returns a set of the names of all that are not in drop.
func notIn(all, drop []string) map[string]bool {
	m := setOf(all)
	for _, d := range drop {
		delete(m, d)
	}
	return m
}
