//go:build linux

package sources

// perfSW counts the kernel's software events: exact, cheap, and available
// wherever perf_event_open is, PMU or not.
type perfSW struct{}

var swEvents = []perfEvent{
	{"task-clock", perfTypeSoftware, perfCountSWTaskClock},
	{"page-faults", perfTypeSoftware, perfCountSWPageFaults},
	{"context-switches", perfTypeSoftware, perfCountSWContextSwitches},
	{"cpu-migrations", perfTypeSoftware, perfCountSWCPUMigrations},
}

// swKernelOnly are the software events raised only from kernel context: a
// user-mode-only group would count them as zero.
var swKernelOnly = map[string]string{
	"context-switches": "the scheduler counts context switches in kernel mode",
	"cpu-migrations":   "the scheduler counts migrations in kernel mode",
}

func (perfSW) name() string { return SourcePerfSW }

func (perfSW) plan(want []string) perfPlan {
	var pl perfPlan
	t, err := settle(eventsFor(swEvents, setOf(want)), false)
	if err != nil {
		pl.absences = absentAll(CapCounting, want, err.Error())
		return pl
	}
	t.g.close()
	pl.events, pl.mode, pl.absences = t.events, t.mode, t.drops
	pl.caps = []Capability{CapCounting}
	pl.userOnlyNotes(SourcePerfSW)
	pl.dropKernelOnly(swKernelOnly)
	return pl
}

func (s perfSW) probe(Options) Report {
	return probeReport(SourcePerfSW, s.plan(catalogNames(SourcePerfSW)))
}

func (s perfSW) open(want []string, _ Options) (Counter, []Absence) {
	return openPlan(SourcePerfSW, s.plan(want), want, false)
}

func metricsOf(events []perfEvent) []string {
	var out []string
	for _, ev := range events {
		out = append(out, ev.metric)
	}
	return out
}
