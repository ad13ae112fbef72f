//go:build linux

package sources

import (
	"errors"
	"fmt"
	"syscall"
)

// tier0 is the floor every process has without privilege: getrusage
// (RUSAGE_SELF) and the kernel's I/O accounting (/proc/self/io), both
// process-wide, read as a snapshot at each edge of a bracket.
type tier0 struct{}

// rusageMetrics are the tier0 metrics read from getrusage, in catalog order.
var rusageMetrics = []string{"cpu-user", "cpu-sys", "minflt", "majflt", "nvcsw", "nivcsw", "maxrss"}

func (tier0) name() string { return SourceTier0 }

func (t tier0) probe(Options) Report {
	c, abs := t.open(catalogNames(SourceTier0), Options{})
	if c == nil {
		return Report{Source: SourceTier0, Absences: abs}.finish()
	}
	defer c.Close()
	return c.Report()
}

func (tier0) open(want []string, _ Options) (Counter, []Absence) {
	c := &tier0Counter{ioFD: -1}
	var ru syscall.Rusage
	ruErr := sys.rusage(&ru)
	var produced, ioWanted []string
	var abs []Absence
	for _, m := range want {
		switch {
		case contains(rusageMetrics, m):
			if ruErr != nil {
				abs = append(abs, Absence{Capability: CapCounting, Metrics: []string{m}, Reason: fmt.Sprintf("getrusage(RUSAGE_SELF): %v", ruErr)})
				continue
			}
			c.rusage = true
			produced = append(produced, m)
		default:
			ioWanted = append(ioWanted, m)
		}
	}
	caps := []Capability{CapCounting}
	var ioAbs []Absence
	if len(ioWanted) > 0 {
		ioAbs = c.openIO(ioWanted)
		if len(ioAbs) == 0 {
			caps = append(caps, CapIOAccounting)
		}
		abs = append(abs, ioAbs...)
		produced = append(produced, notAbsent(ioWanted, ioAbs)...)
	}
	if len(produced) == 0 {
		return nil, abs
	}
	c.metrics = orderLike(want, produced)
	if ruErr != nil {
		caps = caps[1:]
	}
	c.report = Report{Source: SourceTier0, Available: true, Capabilities: caps, Absences: abs}.finish()
	return c, abs
}

// openIO opens /proc/self/io for the wanted fields and keeps it open: each
// snapshot is then one pread, the smallest footprint tier0 can leave in the
// very counters it reads (one syscr and the file's size in rchar per
// bracket).
func (c *tier0Counter) openIO(want []string) []Absence {
	fd, err := syscall.Open(sys.procIO, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		why := fmt.Sprintf("open %s: %v", sys.procIO, err)
		if errors.Is(err, syscall.ENOENT) {
			why += " (kernel built without task I/O accounting)"
		}
		return absentAll(CapIOAccounting, want, why)
	}
	var s ioSnapshot
	if err := c.readIOFrom(fd, &s); err != nil {
		syscall.Close(fd)
		return absentAll(CapIOAccounting, want, err.Error())
	}
	var abs []Absence
	for i, f := range procIOFields {
		if contains(want, f.metric) && !s.have[i] {
			abs = append(abs, Absence{Capability: CapIOAccounting, Metrics: []string{f.metric},
				Reason: fmt.Sprintf("%s has no %s field (kernel built without that accounting)", sys.procIO, f.key)})
		}
	}
	if len(abs) == len(want) {
		syscall.Close(fd)
		return abs
	}
	c.ioFD = fd
	return abs
}

// tier0Counter takes a snapshot at Start and one at Stop.
type tier0Counter struct {
	metrics []string
	report  Report
	rusage  bool
	ioFD    int // -1 when no /proc/self/io metric is counted
	buf     [512]byte

	ru0     syscall.Rusage
	io0     ioSnapshot
	started bool
	closed  bool
}

func (c *tier0Counter) Source() string    { return SourceTier0 }
func (c *tier0Counter) Report() Report    { return c.report }
func (c *tier0Counter) Metrics() []string { return append([]string(nil), c.metrics...) }

// Start snapshots /proc/self/io first and getrusage second, and Stop reads
// them in the opposite order: the CPU time of reading /proc/self/io then
// falls outside the getrusage window, and the I/O window holds, besides the
// body, only getrusage (no I/O) and Start's own read of the file (one syscr,
// the file's size in rchar), a fixed floor per bracket, which cancels in
// a difference of brackets and which the worker's empty brackets measure
// where it brackets calls itself.
func (c *tier0Counter) Start() error {
	if c.closed {
		return errors.New("sources: Start on a closed counter")
	}
	if c.started {
		return errors.New("sources: Start called twice without Stop")
	}
	if c.ioFD >= 0 {
		if err := c.readIOFrom(c.ioFD, &c.io0); err != nil {
			return err
		}
	}
	if c.rusage {
		if err := sys.rusage(&c.ru0); err != nil {
			return fmt.Errorf("getrusage: %v", err)
		}
	}
	c.started = true
	return nil
}

func (c *tier0Counter) Stop() (Reading, error) {
	if c.closed || !c.started {
		err := errors.New("sources: Stop without Start")
		return unavailableReading(c.metrics, err.Error()), err
	}
	c.started = false
	var ru1 syscall.Rusage
	var io1 ioSnapshot
	if c.rusage {
		if err := sys.rusage(&ru1); err != nil {
			err = fmt.Errorf("getrusage: %v", err)
			return unavailableReading(c.metrics, err.Error()), err
		}
	}
	if c.ioFD >= 0 {
		if err := c.readIOFrom(c.ioFD, &io1); err != nil {
			return unavailableReading(c.metrics, err.Error()), err
		}
	}
	r := newReading()
	for _, m := range c.metrics {
		if v, ok := rusageDelta(m, &c.ru0, &ru1); ok {
			r.Values[m] = v
			continue
		}
		for i, f := range procIOFields {
			if f.metric != m {
				continue
			}
			if !c.io0.have[i] || !io1.have[i] {
				r.Unavailable[m] = fmt.Sprintf("%s lost its %s field", sys.procIO, f.key)
			} else if io1.v[i] < c.io0.v[i] {
				r.Unavailable[m] = fmt.Sprintf("%s %s went backwards", sys.procIO, f.key)
			} else {
				r.Values[m] = float64(io1.v[i] - c.io0.v[i])
			}
		}
	}
	return r, nil
}

func (c *tier0Counter) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	if c.ioFD >= 0 {
		err := syscall.Close(c.ioFD)
		c.ioFD = -1
		return err
	}
	return nil
}

// readIOFrom rereads /proc/self/io from the top into s.
func (c *tier0Counter) readIOFrom(fd int, s *ioSnapshot) error {
	n, err := syscall.Pread(fd, c.buf[:], 0)
	if err != nil {
		return fmt.Errorf("reading %s: %v", sys.procIO, err)
	}
	if n == len(c.buf) {
		return fmt.Errorf("reading %s: more than %d bytes", sys.procIO, len(c.buf))
	}
	return parseProcIO(c.buf[:n], s)
}

// rusageDelta returns metric's value over a bracket from getrusage
// snapshots a and b: a difference for counts and times, b's level for
// maxrss. It reports false for metrics that are not getrusage's.
func rusageDelta(metric string, a, b *syscall.Rusage) (float64, bool) {
	ns := func(tv syscall.Timeval) float64 { return float64(tv.Sec)*1e9 + float64(tv.Usec)*1e3 }
	switch metric {
	case "cpu-user":
		return ns(b.Utime) - ns(a.Utime), true
	case "cpu-sys":
		return ns(b.Stime) - ns(a.Stime), true
	case "minflt":
		return float64(b.Minflt - a.Minflt), true
	case "majflt":
		return float64(b.Majflt - a.Majflt), true
	case "nvcsw":
		return float64(b.Nvcsw - a.Nvcsw), true
	case "nivcsw":
		return float64(b.Nivcsw - a.Nivcsw), true
	case "maxrss":
		return float64(b.Maxrss) * 1024, true // Linux reports KiB
	}
	return 0, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// orderLike returns the elements of subset in the order they have in order.
func orderLike(order, subset []string) []string {
	return intersect(order, subset)
}
