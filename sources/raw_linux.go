//go:build linux

package sources

// rawSource counts raw:r<hex> selectors: model-specific PMU event codes
// (PERF_TYPE_RAW, config = the code), in a group of their own so that the
// default hardware group's exactness never depends on them. The group is
// never shrunk (each event was asked for by name); a bracket in which it
// multiplexed is scaled and labeled like any other.
type rawSource struct{}

func (rawSource) name() string { return SourceRaw }

func (rawSource) plan(want []string) perfPlan {
	var pl perfPlan
	var events []perfEvent
	for _, n := range want {
		cfg, err := parseRawConfig(n)
		if err != nil {
			pl.absences = append(pl.absences, Absence{Capability: CapRawEvents, Metrics: []string{n}, Reason: err.Error()})
			continue
		}
		events = append(events, perfEvent{n, perfTypeRaw, cfg})
	}
	if len(events) == 0 {
		return pl
	}
	t, err := settle(events, true)
	if err != nil {
		pl.absences = append(pl.absences, absentAll(CapRawEvents, metricsOf(events), err.Error())...)
		return pl
	}
	t.g.close()
	pl.events, pl.mode = t.events, t.mode
	for _, d := range t.drops {
		d.Capability = CapRawEvents
		pl.absences = append(pl.absences, d)
	}
	pl.caps = []Capability{CapRawEvents}
	pl.userOnlyNotes(SourceRaw)
	return pl
}

// probe opens raw code 0, which the x86 and Arm PMUs both accept, to learn
// whether raw events can be counted at all; a given code is only checked
// when it is opened.
func (s rawSource) probe(Options) Report {
	r := probeReport(SourceRaw, s.plan([]string{rawPrefix + "0"}))
	for i, a := range r.Absences {
		if len(a.Metrics) == 1 && a.Metrics[0] == rawPrefix+"0" {
			r.Absences[i].Metrics = []string{rawPattern} // the family, not code 0, is what is out
		}
	}
	return r
}

func (s rawSource) open(want []string, _ Options) (Counter, []Absence) {
	return openPlan(SourceRaw, s.plan(want), want, false)
}
