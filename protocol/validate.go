package protocol

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// checkString bounds a decoded string and requires valid UTF-8, so every
// renderer downstream can print it as is.
func checkString(field, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s: %d bytes exceeds bound %d", field, len(s), max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s: not valid UTF-8", field)
	}
	return nil
}

// checkStrings checks each of ss as checkString does, as field[].
func checkStrings(field string, ss []string, max int) error {
	for _, s := range ss {
		if err := checkString(field+"[]", s, max); err != nil {
			return err
		}
	}
	return nil
}

func checkCount(field string, n, max int) error {
	if n > max {
		return fmt.Errorf("%s: %d entries exceeds bound %d", field, n, max)
	}
	return nil
}

func checkNonNegative(field string, v int64) error {
	if v < 0 {
		return fmt.Errorf("%s: negative value %d", field, v)
	}
	return nil
}

func checkFinite(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: not a finite number", field)
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (id Identity) validate() error {
	return firstErr(
		checkString("identity.package", id.Package, MaxNameLen),
		checkString("identity.name", id.Name, MaxNameLen),
	)
}

func (m Hello) validate() error {
	return firstErr(
		checkString("workerVersion", m.WorkerVersion, MaxNameLen),
		checkString("goVersion", m.GoVersion, MaxNameLen),
		checkString("goos", m.GOOS, MaxNameLen),
		checkString("goarch", m.GOARCH, MaxNameLen),
		checkNonNegative("pid", int64(m.PID)),
		checkNonNegative("gomaxprocs", int64(m.GOMAXPROCS)),
		checkNonNegative("again", int64(m.Again)),
	)
}

func (m Request) validate() error {
	if !m.Mode.valid() {
		return fmt.Errorf("mode: unknown %q", truncate(string(m.Mode)))
	}
	c := m.Config
	if err := firstErr(
		m.Identity.validate(),
		checkString("fullName", m.FullName, MaxTextLen),
		checkNonNegative("config.minSampleNs", c.MinSampleNs),
		checkNonNegative("config.samples", int64(c.Samples)),
		checkCount("config.samples", c.Samples, MaxSamplesPerFrame),
		checkNonNegative("config.iterations", c.Iterations),
		checkString("config.run", c.Run, MaxNameLen),
		checkString("config.bench", c.Bench, MaxNameLen),
		checkString("config.skipPattern", c.SkipPattern, MaxNameLen),
		checkString("config.after", c.After, MaxNameLen),
		checkNonNegative("config.testTimeoutNs", c.TestTimeoutNs),
		checkCount("config.args", len(c.Args), MaxArgs),
		checkCount("config.skip", len(c.Skip), MaxIdentitiesPerFrame),
		checkCount("config.metrics", len(c.Metrics), MaxMetricCells),
		checkCount("config.windowMetrics", len(c.WindowMetrics), MaxMetricCells),
		checkNonNegative("config.perfIters", c.PerfIters),
		checkNonNegative("config.perfBatch", c.PerfBatch),
		checkNonNegative("repetition", int64(m.Repetition)),
	); err != nil {
		return err
	}
	if w := c.Interference; w != nil {
		if err := w.validate(); err != nil {
			return fmt.Errorf("config.interference: %w", err)
		}
	}
	return firstErr(
		checkStrings("config.args", c.Args, MaxNameLen),
		checkStrings("config.skip", c.Skip, MaxNameLen),
		checkStrings("config.metrics", c.Metrics, MaxNameLen),
		checkStrings("config.windowMetrics", c.WindowMetrics, MaxNameLen),
	)
}

// Validate reports whether the request fits every published bound; a
// supervisor calls it before spawning, so an oversize request is refused as an
// invalid configuration instead of failing on the wire.
func (m Request) Validate() error { return m.validate() }

func (m Ready) validate() error { return m.Identity.validate() }

func (m Progress) validate() error {
	if !m.Phase.valid() {
		return fmt.Errorf("phase: unknown %q", truncate(string(m.Phase)))
	}
	if err := firstErr(checkNonNegative("done", m.Done), checkNonNegative("total", m.Total)); err != nil {
		return err
	}
	if m.Total > 0 && m.Done > m.Total {
		return fmt.Errorf("done %d exceeds total %d", m.Done, m.Total)
	}
	return nil
}

func (m Result) validate() error {
	if err := firstErr(
		m.Identity.validate(),
		checkNonNegative("repetition", int64(m.Repetition)),
		checkNonNegative("bytesPerOp", m.BytesPerOp),
		checkCount("samples", len(m.Samples), MaxSamplesPerFrame),
		checkCount("metrics", len(m.Metrics), MaxMetricCells),
		checkCount("absences", len(m.Absences), MaxAbsences),
		checkNonNegative("countIterations", m.CountIterations),
		checkString("countMethod", m.CountMethod, MaxNameLen),
		checkNonNegative("afterSiblings", m.AfterSiblings),
		checkNonNegative("extraDropped", m.ExtraDropped),
		checkCount("extraDroppedUnits", len(m.ExtraDroppedUnits), MaxDroppedUnits),
	); err != nil {
		return err
	}
	if int64(len(m.ExtraDroppedUnits)) > m.ExtraDropped {
		return fmt.Errorf("extraDroppedUnits: %d units named, %d dropped", len(m.ExtraDroppedUnits), m.ExtraDropped)
	}
	for _, u := range m.ExtraDroppedUnits {
		if err := checkString("extraDroppedUnits[]", u, MaxNameLen); err != nil {
			return err
		}
		if u == "" {
			return fmt.Errorf("extraDroppedUnits: empty unit")
		}
	}
	for i, s := range m.Samples {
		if err := s.validate(); err != nil {
			return fmt.Errorf("samples[%d]: %w", i, err)
		}
	}
	if err := checkCount("retaken", len(m.Retaken), MaxSamplesPerFrame); err != nil {
		return err
	}
	for i, s := range m.Retaken {
		if err := s.validate(); err != nil {
			return fmt.Errorf("retaken[%d]: %w", i, err)
		}
	}
	if o := m.Interference; o != nil {
		if err := firstErr(checkNonNegative("interference.pauses", int64(o.Pauses)),
			checkNonNegative("interference.pausedNs", o.PausedNs),
			checkString("interference.problem", o.Problem, MaxTextLen)); err != nil {
			return err
		}
	}
	for _, c := range m.Metrics {
		if err := firstErr(checkString("metrics[].name", c.Name, MaxNameLen), checkFinite("metrics[].value", c.Value),
			checkFinite("metrics[].uncertainty", c.Uncertainty), checkString("metrics[].note", c.Note, MaxTextLen)); err != nil {
			return err
		}
		if c.Uncertainty < 0 {
			return fmt.Errorf("metrics[].uncertainty: negative %v", c.Uncertainty)
		}
	}
	for _, a := range m.Absences {
		if err := firstErr(checkString("absences[].name", a.Name, MaxNameLen), checkString("absences[].reason", a.Reason, MaxTextLen)); err != nil {
			return err
		}
		if a.Reason == "" {
			return fmt.Errorf("absences: %q has no reason", truncate(a.Name))
		}
	}
	return nil
}

func (s Sample) validate() error {
	if s.Iterations <= 0 {
		return fmt.Errorf("n: %d iterations, want at least 1", s.Iterations)
	}
	if err := firstErr(
		checkNonNegative("ns", s.ElapsedNs),
		checkCount("extra", len(s.Extra), MaxExtraPerSample),
	); err != nil {
		return err
	}
	if w := s.Watch; w != nil {
		if err := firstErr(checkNonNegative("watch.hostBusyTicks", w.HostBusyTicks), checkNonNegative("watch.tickNs", w.TickNs),
			checkNonNegative("watch.ownCpuNs", w.OwnCPUNs), checkNonNegative("watch.wallNs", w.WallNs),
			checkNonNegative("watch.cpus", int64(w.CPUs))); err != nil {
			return err
		}
	}
	if (s.AllocBytes == nil) != (s.Allocs == nil) {
		return fmt.Errorf("allocBytes and allocs must be reported together")
	}
	for _, e := range s.Extra {
		if err := firstErr(checkString("unit", e.Unit, MaxNameLen), checkFinite("value", e.Value),
			checkString("unmeasured", e.Unmeasured, MaxTextLen)); err != nil {
			return fmt.Errorf("extra: %w", err)
		}
		if e.Unmeasured != "" && e.Value != 0 {
			return fmt.Errorf("extra: an unmeasured %s has a value", truncate(e.Unit))
		}
		if e.Unit == "" {
			return fmt.Errorf("extra: empty unit")
		}
	}
	return nil
}

func (m Log) validate() error {
	if m.Limit == "" && (m.Test != "" || m.Restored) {
		return fmt.Errorf("log: test or restored without a limit")
	}
	return firstErr(
		checkString("text", m.Text, MaxTextLen),
		checkString("test", m.Test, MaxNameLen),
		checkString("limit", m.Limit, MaxNameLen),
	)
}

func (m Skip) validate() error { return checkString("reason", m.Reason, MaxTextLen) }

func (m Failure) validate() error {
	if !m.Class.valid() {
		return fmt.Errorf("class: unknown %q", truncate(string(m.Class)))
	}
	return firstErr(checkString("message", m.Message, MaxTextLen), checkString("stack", m.Stack, MaxTextLen))
}

func (Done) validate() error { return nil }

func (m Listing) validate() error {
	if err := checkCount("identities", len(m.Identities), MaxIdentitiesPerFrame); err != nil {
		return err
	}
	for _, l := range m.Identities {
		if err := checkString("identities[].name", l.Name, MaxNameLen); err != nil {
			return err
		}
		if l.Name == "" {
			return fmt.Errorf("identities: empty name")
		}
		if !l.Kind.valid() {
			return fmt.Errorf("identities[].kind: unknown %q", truncate(string(l.Kind)))
		}
		if err := firstErr(
			checkNonNegative("identities[].n", l.Iterations),
			checkNonNegative("identities[].sampleNs", l.SampleNs),
			checkNonNegative("identities[].fixedNs", l.FixedNs),
			checkNonNegative("identities[].setupNs", l.SetupNs),
			checkCount("identities[].calibration", len(l.Calibration), MaxCalibrationRuns),
			checkString("identities[].problem", l.Problem, MaxTextLen),
			checkString("identities[].fullName", l.FullName, MaxTextLen),
			checkString("identities[].skipped", l.Skipped, MaxTextLen),
			checkNonNegative("identities[].afterSiblings", l.AfterSiblings),
		); err != nil {
			return err
		}
		for i, s := range l.Calibration {
			if err := s.validate(); err != nil {
				return fmt.Errorf("identities[].calibration[%d]: %w", i, err)
			}
		}
	}
	return nil
}

func (m TestEvent) validate() error {
	if !m.Action.valid() {
		return fmt.Errorf("action: unknown %q", truncate(string(m.Action)))
	}
	return firstErr(
		checkString("test", m.Test, MaxNameLen),
		checkNonNegative("elapsedNs", m.ElapsedNs),
		checkString("output", m.Output, MaxTextLen),
		checkNonNegative("omittedBytes", m.OmittedBytes),
		checkCount("imitatedBeside", len(m.ImitatedBeside), MaxImitatedBeside),
		checkStrings("imitatedBeside", m.ImitatedBeside, MaxNameLen),
	)
}

// truncate shortens peer-controlled text quoted in an error message.
func truncate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

// TruncateText cuts s to at most max bytes without splitting a UTF-8
// sequence, and replaces invalid UTF-8, so that a worker can always fit free
// text into a bounded field.
func TruncateText(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func (m Window) validate() error {
	if m.Reps < 1 {
		return fmt.Errorf("reps: %d, want at least 1", m.Reps)
	}
	switch m.Scope {
	case "thread", "process", "wall-only":
	default:
		return fmt.Errorf("scope: unknown %q", truncate(m.Scope))
	}
	if err := firstErr(
		checkString("name", m.Name, MaxNameLen),
		checkNonNegative("wallNs", m.WallNs),
		checkString("note", m.Note, MaxTextLen),
		checkCount("totals", len(m.Totals), MaxTotalsPerWindow),
	); err != nil {
		return err
	}
	for _, d := range []struct {
		name string
		v    *int64
	}{{"onCpuUserNs", m.OnCPUUserNs}, {"onCpuKernelNs", m.OnCPUKernelNs}, {"offCpuRunqueueNs", m.OffCPURunqueueNs},
		{"offCpuDiskNs", m.OffCPUDiskNs}, {"offCpuOtherNs", m.OffCPUOtherNs}, {"otherThreadsCpuNs", m.OtherThreadsCPUNs}} {
		if d.v != nil {
			if err := checkNonNegative(d.name, *d.v); err != nil {
				return err
			}
		}
	}
	for _, c := range m.Totals {
		if err := firstErr(checkString("totals[].name", c.Name, MaxNameLen), checkFinite("totals[].value", c.Value)); err != nil {
			return err
		}
	}
	if p := m.PSI; p != nil {
		if err := firstErr(checkNonNegative("psi.ioSomeNs", p.IOSomeNs), checkNonNegative("psi.ioFullNs", p.IOFullNs),
			checkNonNegative("psi.memSomeNs", p.MemSomeNs), checkNonNegative("psi.memFullNs", p.MemFullNs),
			checkNonNegative("psi.cpuSomeNs", p.CPUSomeNs)); err != nil {
			return err
		}
	}
	if r := m.Regime; r != nil {
		if err := firstErr(checkString("regime.requested", r.Requested, MaxNameLen), checkString("regime.effective", r.Effective, MaxNameLen),
			checkNonNegative("regime.residentBefore", r.ResidentBefore), checkNonNegative("regime.residentAfter", r.ResidentAfter),
			checkNonNegative("regime.totalBytes", r.TotalBytes), checkString("regime.note", r.Note, MaxTextLen)); err != nil {
			return err
		}
	}
	return nil
}

func (w Interference) validate() error {
	switch w.Response {
	case ResponseObserve, ResponseRetake, ResponsePause:
	default:
		return fmt.Errorf("response: unknown %q", truncate(w.Response))
	}
	if err := firstErr(checkFinite("maxForeign", w.MaxForeign), checkNonNegative("maxRetakes", int64(w.MaxRetakes)),
		checkCount("maxRetakes", w.MaxRetakes, MaxSamplesPerFrame), checkNonNegative("settleNs", w.SettleNs),
		checkNonNegative("pauseMaxNs", w.PauseMaxNs), checkCount("cpus", len(w.CPUs), MaxWatchedCPUs)); err != nil {
		return err
	}
	if w.MaxForeign < 0 || w.MaxForeign > 1 {
		return fmt.Errorf("maxForeign: %v is not a share in [0, 1]", w.MaxForeign)
	}
	for _, c := range w.CPUs {
		if c < 0 {
			return fmt.Errorf("cpus: negative CPU %d", c)
		}
	}
	return nil
}
