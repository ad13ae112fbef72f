//go:build linux

package sources

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
)

// perfEvent is one event a perf source counts.
type perfEvent struct {
	metric string
	typ    uint32
	config uint64
}

// perfMode is how a source's events are opened, as settled on this host.
type perfMode struct {
	// userOnly sets exclude_kernel and exclude_hv: counting kernel mode
	// was refused (perf_event_paranoid without CAP_PERFMON).
	userOnly bool
	refusal  string // why kernel counting was refused, when userOnly
	// perEvent reads each event on its own: kernels before 4.13 refuse
	// PERF_FORMAT_GROUP on inherited events. The group is still
	// scheduled as one and only read while disabled, so its counts stay
	// consistent.
	perEvent bool
}

const (
	perfOpenFlags = perfFlagFDCloexec
	// maxOpenAttempts bounds the retries of a process-wide open whose
	// thread set changed while it was opening.
	maxOpenAttempts = 4
)

// attr returns the attributes of ev. A leader is opened disabled (its
// siblings follow its state); inherit makes every thread or process that a
// monitored thread creates later count into this event too.
func (m perfMode) attr(ev perfEvent, leader, inherit bool) *perfEventAttr {
	a := &perfEventAttr{
		Type:       ev.typ,
		Config:     ev.config,
		Size:       perfAttrSize,
		ReadFormat: perfFormatTotalTimeEnabled | perfFormatTotalTimeRunning | perfFormatID,
	}
	if !m.perEvent {
		a.ReadFormat |= perfFormatGroup
	}
	if leader {
		a.Bits |= perfBitDisabled
	}
	if inherit {
		a.Bits |= perfBitInherit
	}
	if m.userOnly {
		a.Bits |= perfBitExcludeKernel | perfBitExcludeHv
	}
	return a
}

// group is one open counter group: its fds (leader first) and event ids, in
// event order.
type group struct {
	tid int
	fds []int
	ids []uint64
}

func (g *group) close() {
	for i := len(g.fds) - 1; i >= 0; i-- {
		sys.close(g.fds[i])
	}
	g.fds, g.ids = nil, nil
}

// openGroup opens events as one group on thread tid (0: the calling
// thread), all or nothing.
func openGroup(events []perfEvent, m perfMode, tid int, inherit bool) (group, error) {
	if tid == 0 {
		// pid 0 is the thread of each call: the members must open on the
		// leader's thread, or the kernel refuses them (EINVAL).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	g := group{tid: tid}
	for i, ev := range events {
		leader := -1
		if i > 0 {
			leader = g.fds[0]
		}
		fd, err := sys.perfOpen(m.attr(ev, i == 0, inherit), tid, -1, leader, perfOpenFlags)
		if err != nil {
			g.close()
			return group{}, eventError{ev, err}
		}
		g.fds = append(g.fds, fd)
		id, err := sys.eventID(fd)
		if err != nil {
			g.close()
			return group{}, fmt.Errorf("PERF_EVENT_IOC_ID: %w", err)
		}
		g.ids = append(g.ids, id)
	}
	return g, nil
}

// eventError is a failed perf_event_open of one event.
type eventError struct {
	ev  perfEvent
	err error
}

func (e eventError) Error() string { return fmt.Sprintf("%s: %v", openCall(e.ev), e.err) }
func (e eventError) Unwrap() error { return e.err }

// trial is a group opened on the calling thread to learn what this host
// accepts. It stays open so that the hardware source can calibrate on it.
type trial struct {
	mode   perfMode
	events []perfEvent // the events that opened, leader first
	g      group
	drops  []Absence // events that did not open, with the reason
}

// settle opens events as one inherited group on the calling thread, exactly
// as the process-wide groups will be opened, and works out what this host
// accepts:
//
//   - kernel plus user counting, else user only when that was refused
//     (EACCES, EPERM): perf_event_paranoid gates kernel counting on its own;
//   - group reads, else per-event reads when the kernel rejects
//     PERF_FORMAT_GROUP with inherit (EINVAL before Linux 4.13);
//   - which events open at all: the first that opens leads, and an event
//     this PMU lacks (ENOENT, ENODEV, EOPNOTSUPP, EINVAL) is dropped with its
//     reason rather than costing the others.
//
// An error means no event opens; its text is the reason, naming the call
// and the errno.
func settle(events []perfEvent, pmuContext bool) (*trial, error) {
	// Every open names the calling thread (pid 0); a goroutine that moved
	// to another thread between the leader's open and a member's had the
	// member refused with EINVAL, read as "not inherited with group reads"
	// (a busy CI host lost context-switches and cpu-migrations so).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t := &trial{}
	var firstErr error
	leaderFD := -1
	for _, ev := range events {
		leader := leaderFD < 0
		fd, err := sys.perfOpen(t.mode.attr(ev, leader, true), 0, -1, leaderFD, perfOpenFlags)
		if err != nil && leader && (errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)) && !t.mode.userOnly {
			t.mode.userOnly = true
			t.mode.refusal = fmt.Sprintf("kernel counting refused with %s, %s", errnoName(errnoOf(err)), paranoidSetting())
			fd, err = sys.perfOpen(t.mode.attr(ev, leader, true), 0, -1, leaderFD, perfOpenFlags)
		}
		if err != nil && leader && errors.Is(err, syscall.EINVAL) && !t.mode.perEvent {
			t.mode.perEvent = true
			fd, err = sys.perfOpen(t.mode.attr(ev, leader, true), 0, -1, leaderFD, perfOpenFlags)
			if err != nil {
				t.mode.perEvent = false
			}
		}
		if err == nil {
			var id uint64
			if id, err = sys.eventID(fd); err != nil {
				sys.close(fd)
				err = fmt.Errorf("PERF_EVENT_IOC_ID: %w", err)
			} else {
				if leader {
					leaderFD = fd
				}
				t.g.fds, t.g.ids = append(t.g.fds, fd), append(t.g.ids, id)
				t.events = append(t.events, ev)
				continue
			}
		}
		reason := describeOpenError(ev, err, t.mode, pmuContext)
		if firstErr == nil {
			firstErr = errors.New(reason)
		}
		if !eventSpecific(err) {
			// Nothing else will open either (permissions, no
			// perf_event_open, no descriptors): the source is out.
			t.g.close()
			return nil, errors.New(reason)
		}
		t.drops = append(t.drops, Absence{Capability: CapCounting, Metrics: []string{ev.metric}, Reason: reason})
	}
	if len(t.events) == 0 {
		return nil, firstErr
	}
	return t, nil
}

// eventSpecific reports whether an open failure is about the event (this
// PMU lacks it, or cannot count it this way) rather than about perf as a
// whole.
func eventSpecific(err error) bool {
	e := errnoOf(err)
	return e == syscall.ENOENT || e == syscall.ENODEV || e == syscall.EOPNOTSUPP || e == syscall.EINVAL
}

func errnoOf(err error) syscall.Errno {
	e, _ := errorAs[syscall.Errno](err)
	return e
}

// openCall names the perf_event_open call that opened ev, for reasons.
func openCall(ev perfEvent) string {
	typ := map[uint32]string{
		perfTypeHardware:   "PERF_TYPE_HARDWARE",
		perfTypeSoftware:   "PERF_TYPE_SOFTWARE",
		perfTypeTracepoint: "PERF_TYPE_TRACEPOINT",
		perfTypeRaw:        "PERF_TYPE_RAW",
	}[ev.typ]
	if typ == "" {
		typ = fmt.Sprintf("type %d", ev.typ)
	}
	return fmt.Sprintf("perf_event_open(%s, %s)", typ, ev.metric)
}

// describeOpenError turns a failed open into a reason a user can act on:
// the call, the errno and what it means, and what was found on the host.
func describeOpenError(ev perfEvent, err error, m perfMode, pmuContext bool) string {
	e := errnoOf(err)
	if e == 0 {
		return fmt.Sprintf("%s: %v", openCall(ev), err)
	}
	var why string
	switch e {
	case syscall.ENOENT:
		why = "no PMU provides this event"
	case syscall.ENODEV:
		why = "no PMU of this type"
	case syscall.EOPNOTSUPP:
		why = "the PMU cannot count this event in this mode"
	case syscall.EINVAL:
		why = reprobeEINVAL(ev, m)
	case syscall.EACCES:
		why = "refused without CAP_PERFMON even for user-mode counting; " + paranoidSetting()
	case syscall.EPERM:
		why = "refused by a seccomp filter or security module; " + paranoidSetting()
	case syscall.ENOSYS:
		why = "this kernel has no perf_event_open"
	case syscall.EMFILE, syscall.ENFILE:
		why = "out of file descriptors"
	case syscall.EBUSY:
		why = "another user holds the PMU exclusively"
	default:
		why = e.Error()
	}
	s := fmt.Sprintf("%s failed with %s: %s", openCall(ev), errnoName(e), why)
	if pmuContext && (e == syscall.ENOENT || e == syscall.ENODEV || e == syscall.EOPNOTSUPP || e == syscall.EINVAL) {
		s += "; " + pmuInventory()
	}
	return s
}

// reprobeEINVAL tells the two meanings of EINVAL apart: the kernel rejects
// the event itself, or only the combination of attributes benchsup asked for
// (inherit, group reads). It retries the event alone on the calling thread
// with nothing but the exclusions.
func reprobeEINVAL(ev perfEvent, m perfMode) string {
	a := &perfEventAttr{Type: ev.typ, Config: ev.config, Size: perfAttrSize, Bits: perfBitDisabled}
	if m.userOnly {
		a.Bits |= perfBitExcludeKernel | perfBitExcludeHv
	}
	fd, err := sys.perfOpen(a, 0, -1, -1, perfOpenFlags)
	if err == nil {
		sys.close(fd)
		return "the event opens alone, but not inherited with group reads"
	}
	return "the PMU rejects this event or its config"
}

// paranoidSetting reports perf_event_paranoid for reasons.
func paranoidSetting() string {
	b, err := os.ReadFile(sys.paranoid)
	if err != nil {
		return "perf_event_paranoid unreadable"
	}
	return "perf_event_paranoid=" + strings.TrimSpace(string(b))
}

// pmuInventory says which event sources the kernel registered, so that an
// absent hardware event names what was found instead.
func pmuInventory() string {
	ents, err := os.ReadDir(sys.eventSources)
	if err != nil {
		return fmt.Sprintf("cannot list %s: %v", sys.eventSources, err)
	}
	var names []string
	cpu := false
	for _, e := range ents {
		n := e.Name()
		names = append(names, n)
		if n == "cpu" || strings.HasPrefix(n, "cpu_") || strings.HasPrefix(n, "armv") || strings.Contains(n, "pmu") {
			cpu = true
		}
	}
	s := fmt.Sprintf("%s holds %s", sys.eventSources, strings.Join(names, ", "))
	if len(names) == 0 {
		s = sys.eventSources + " is empty"
	}
	if !cpu {
		s += " (no cpu PMU)"
	}
	return s
}

// procGroup is a source's events counted over the whole process: one group
// per thread that existed at open, each inherited by the threads and
// processes its thread creates afterwards.
type procGroup struct {
	events  []perfEvent
	metrics []string // events' metric names, in event order
	mode    perfMode
	groups  []group
	note    string // a coverage caveat, when the thread set would not settle

	buf           []byte
	before, after []sample
	state         int // pgIdle, pgArmed, pgEnabled or pgDisabled
}

// openProcess opens events on every thread of the process. Threads that
// appear while it opens may have been created by a thread whose group was
// not open yet, and so be counted by nobody; it cannot tell those from
// threads its inherited groups already cover, so it closes everything and
// starts again, up to maxOpenAttempts times.
func openProcess(events []perfEvent, m perfMode) (*procGroup, error) {
	p := &procGroup{events: events, mode: m}
	for _, ev := range events {
		p.metrics = append(p.metrics, ev.metric)
	}
	for attempt := 1; ; attempt++ {
		tids, err := sys.threads()
		if err != nil {
			return nil, fmt.Errorf("listing threads: %v", err)
		}
		p.groups = p.groups[:0]
		for _, tid := range tids {
			g, err := openGroup(events, m, tid, true)
			if errors.Is(err, syscall.ESRCH) {
				continue // exited since it was listed: nothing to count
			}
			if err != nil {
				p.close()
				if ee, ok := errorAs[eventError](err); ok {
					return nil, fmt.Errorf("thread %d: %s", tid, describeOpenError(ee.ev, ee.err, m, false))
				}
				return nil, fmt.Errorf("thread %d: %v", tid, err)
			}
			p.groups = append(p.groups, g)
		}
		now, err := sys.threads()
		if err != nil {
			p.close()
			return nil, fmt.Errorf("listing threads: %v", err)
		}
		if subset(now, tids) {
			break
		}
		if attempt == maxOpenAttempts {
			p.note = fmt.Sprintf("the process kept creating threads while its counters opened (%d attempts): a thread created then by a not-yet-monitored thread is not counted", attempt)
			break
		}
		p.close()
	}
	n := len(events)
	size := groupReadSize(n)
	if m.perEvent {
		size = eventReadSize
	}
	p.buf = make([]byte, size)
	p.before, p.after = make([]sample, len(p.groups)), make([]sample, len(p.groups))
	for i := range p.groups {
		p.before[i].counts = make([]uint64, n)
		p.after[i].counts = make([]uint64, n)
	}
	return p, nil
}

// subset reports whether every id of a is in b (both ascending).
func subset(a, b []int) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
	}
	return true
}

// read reads every group into s.
func (p *procGroup) read(s []sample) error {
	for i, g := range p.groups {
		if err := readGroup(g, p.mode, p.buf, &s[i]); err != nil {
			return err
		}
	}
	return nil
}

// readGroup reads one group's cumulative sample.
func readGroup(g group, m perfMode, buf []byte, s *sample) error {
	if !m.perEvent {
		n, err := sys.read(g.fds[0], buf)
		if err != nil {
			return fmt.Errorf("reading perf group: %v", err)
		}
		if n == 0 {
			return errors.New("reading perf group: no data (the group is in an error state)")
		}
		return parseGroupRead(buf[:n], g.ids, s)
	}
	for i, fd := range g.fds {
		n, err := sys.read(fd, buf)
		if err != nil {
			return fmt.Errorf("reading perf event: %v", err)
		}
		v, e, r, err := parseEventRead(buf[:n], g.ids[i])
		if err != nil {
			return err
		}
		if i == 0 {
			s.enabled, s.running = e, r
		}
		s.counts[i] = v
	}
	return nil
}

// ioctlAll applies a group ioctl to every leader. PERF_IOC_FLAG_GROUP covers
// the leader's siblings, and the kernel applies it to every inherited child
// of each as well.
func (p *procGroup) ioctlAll(req uint) error {
	var first error
	for _, g := range p.groups {
		if err := sys.ioctl(g.fds[0], req, perfIOCFlagGroup); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// The edges of a bracket, in order: arm (the opening read, while nothing
// counts), enable, disable, collect (the closing read). start and stop are
// the first two and the last two; a Bracket shared with other sources calls
// them one by one, so that the other sources' reads fall outside this
// group's enabled window.
const (
	pgIdle = iota
	pgArmed
	pgEnabled
	pgDisabled
)

// start reads every group, then enables them all: the bracket's opening
// read is taken while nothing counts.
func (p *procGroup) start() error {
	if err := p.arm(); err != nil {
		return err
	}
	return p.enable()
}

// arm takes the bracket's opening read.
func (p *procGroup) arm() error {
	if p.state != pgIdle {
		return errors.New("sources: Start called twice without Stop")
	}
	if err := p.read(p.before); err != nil {
		return err
	}
	p.state = pgArmed
	return nil
}

// enable enables every group of an armed bracket.
func (p *procGroup) enable() error {
	if p.state != pgArmed {
		return errors.New("sources: enable without arm")
	}
	if err := p.ioctlAll(perfEventIOCEnable); err != nil {
		p.ioctlAll(perfEventIOCDisable)
		p.state = pgIdle
		return fmt.Errorf("PERF_EVENT_IOC_ENABLE: %v", err)
	}
	p.state = pgEnabled
	return nil
}

// stop disables every group, then reads them: the bracket's totals are the
// differences from start's reads. Counters are never reset: a reset clears
// an event's own count but not what exited inherited children folded into
// it, so reset-and-read totals would drift once threads come and go.
func (p *procGroup) stop() (Reading, error) {
	if p.state != pgEnabled {
		p.state = pgIdle
		return unavailableReading(p.metrics, "Stop without Start"), errors.New("sources: Stop called without Start")
	}
	if err := p.disable(); err != nil {
		return unavailableReading(p.metrics, err.Error()), err
	}
	return p.collect()
}

// disable disables every group of an enabled bracket.
func (p *procGroup) disable() error {
	if p.state != pgEnabled {
		p.state = pgIdle
		return errors.New("sources: Stop called without Start")
	}
	if err := p.ioctlAll(perfEventIOCDisable); err != nil {
		p.state = pgIdle
		return fmt.Errorf("PERF_EVENT_IOC_DISABLE: %v", err)
	}
	p.state = pgDisabled
	return nil
}

// collect takes the closing read of a disabled bracket and returns its
// totals.
func (p *procGroup) collect() (Reading, error) {
	if p.state != pgDisabled {
		p.state = pgIdle
		return unavailableReading(p.metrics, "Stop without Start"), errors.New("sources: Stop called without Start")
	}
	p.state = pgIdle
	if err := p.read(p.after); err != nil {
		return unavailableReading(p.metrics, err.Error()), err
	}
	return bracketReading(p.metrics, p.before, p.after), nil
}

func (p *procGroup) close() {
	for i := range p.groups {
		p.groups[i].close()
	}
	p.groups = nil
}

// perfCounter is the Counter of every perf source.
type perfCounter struct {
	source  string
	report  Report
	metrics []string // selected and produced
	pg      *procGroup
	derive  bool // the source has derived metrics (ipc)
	closed  bool
}

func (c *perfCounter) Source() string    { return c.source }
func (c *perfCounter) Report() Report    { return c.report }
func (c *perfCounter) Metrics() []string { return append([]string(nil), c.metrics...) }

func (c *perfCounter) Start() error {
	if c.closed {
		return errors.New("sources: Start on a closed counter")
	}
	return c.pg.start()
}

func (c *perfCounter) Stop() (Reading, error) {
	if c.closed {
		return unavailableReading(c.metrics, "counter closed"), errors.New("sources: Stop on a closed counter")
	}
	r, err := c.pg.stop()
	if err != nil {
		return unavailableReading(c.metrics, err.Error()), err
	}
	if c.derive {
		r = Derive(r)
	}
	return r, nil
}

// The edges of a bracket one by one (see Bracket).

func (c *perfCounter) arm() error {
	if c.closed {
		return errors.New("sources: Start on a closed counter")
	}
	return c.pg.arm()
}

func (c *perfCounter) enable() error { return c.pg.enable() }

func (c *perfCounter) disable() error { return c.pg.disable() }

func (c *perfCounter) collect() (Reading, error) {
	r, err := c.pg.collect()
	if err != nil {
		return unavailableReading(c.metrics, err.Error()), err
	}
	if c.derive {
		r = Derive(r)
	}
	return r, nil
}

func (c *perfCounter) Close() error {
	if !c.closed {
		c.closed = true
		c.pg.close()
	}
	return nil
}

// perfPlan is what a perf source settled on: the events to open, how, and
// what to report.
type perfPlan struct {
	events   []perfEvent
	mode     perfMode
	absences []Absence // selected metrics it will not produce, and absent modes
	degraded []string
	caps     []Capability
}

// userOnlyNotes records a user-mode-only fallback in a plan: an absent
// capability and a degraded state.
func (pl *perfPlan) userOnlyNotes(src string) {
	if !pl.mode.userOnly {
		pl.caps = append(pl.caps, CapKernelCounting)
		return
	}
	pl.absences = append(pl.absences, Absence{Capability: CapKernelCounting, Reason: pl.mode.refusal + "; counts cover user mode only"})
	pl.degraded = append(pl.degraded, src+": user-mode counting only ("+pl.mode.refusal+")")
}

// dropKernelOnly removes the events that only ever fire in kernel mode, which
// a user-mode-only group would count as zero, and records their absence.
func (pl *perfPlan) dropKernelOnly(kernelOnly map[string]string) {
	if !pl.mode.userOnly {
		return
	}
	kept := pl.events[:0:0]
	for _, ev := range pl.events {
		if why, ok := kernelOnly[ev.metric]; ok {
			pl.absences = append(pl.absences, Absence{Capability: CapKernelCounting, Metrics: []string{ev.metric}, Reason: why + ", and " + pl.mode.refusal})
			continue
		}
		kept = append(kept, ev)
	}
	pl.events = kept
}

// openPlan opens a settled plan over the whole process. It returns the
// counter, if any wanted metric can be produced, and the absences of the
// wanted metrics it cannot produce.
func openPlan(src string, pl perfPlan, want []string, derive bool) (Counter, []Absence) {
	var metricAbs []Absence
	for _, a := range pl.absences {
		if len(a.Metrics) > 0 {
			metricAbs = append(metricAbs, a)
		}
	}
	metricAbs = selectedOnly(metricAbs, want)
	produced := notAbsent(want, metricAbs)
	if len(pl.events) == 0 || len(produced) == 0 {
		return nil, metricAbs
	}
	pg, err := openProcess(pl.events, pl.mode)
	if err != nil {
		return nil, append(metricAbs, absentAll(CapCounting, produced, err.Error())...)
	}
	if pg.note != "" {
		pl.degraded = append(pl.degraded, src+": "+pg.note)
	}
	rep := Report{Source: src, Available: true, Capabilities: pl.caps, Absences: pl.absences, Degraded: pl.degraded}.finish()
	return &perfCounter{source: src, report: rep, metrics: produced, pg: pg, derive: derive}, metricAbs
}

// probeReport is the report of a settled plan, for Probe.
func probeReport(src string, pl perfPlan) Report {
	if len(pl.caps) == 0 { // nothing settled
		return Report{Source: src, Absences: pl.absences}.finish()
	}
	return Report{Source: src, Available: true, Capabilities: pl.caps, Absences: pl.absences, Degraded: pl.degraded}.finish()
}

// notAbsent returns the metrics of want that no absence names, in order.
func notAbsent(want []string, abs []Absence) []string {
	gone := map[string]bool{}
	for _, a := range abs {
		for _, m := range a.Metrics {
			gone[m] = true
		}
	}
	var out []string
	for _, m := range want {
		if !gone[m] {
			out = append(out, m)
		}
	}
	return out
}

// eventsFor returns the events of table whose metric is in want, in table
// order.
func eventsFor(table []perfEvent, want map[string]bool) []perfEvent {
	var out []perfEvent
	for _, ev := range table {
		if want[ev.metric] {
			out = append(out, ev)
		}
	}
	return out
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// intersect returns the elements of a that are in b, in a's order.
func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// selectedOnly narrows absences to the wanted metrics; an absence about a
// mode (no metrics) is kept as is.
func selectedOnly(abs []Absence, want []string) []Absence {
	var out []Absence
	for _, a := range abs {
		if len(a.Metrics) == 0 {
			out = append(out, a)
			continue
		}
		if m := intersect(a.Metrics, want); len(m) > 0 {
			a.Metrics = m
			out = append(out, a)
		}
	}
	return out
}

// errorAs is errors.As for one type. It walks the chain itself: errors.As
// reflects, which makes code live in a user's test binary that go test's
// does not reach, and moves the runtime's code after it
// (docs/design.md#injection).
func errorAs[T error](err error) (T, bool) {
	for err != nil {
		if t, ok := err.(T); ok {
			return t, true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if t, ok := errorAs[T](e); ok {
					return t, true
				}
			}
			var zero T
			return zero, false
		default:
			var zero T
			return zero, false
		}
	}
	var zero T
	return zero, false
}
