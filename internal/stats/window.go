package stats

import "slices"

// Breakdown is where a window's wall-clock time went, in nanoseconds. A nil
// component could not be attributed; its time stays in Other.
type Breakdown struct {
	Wall     int64
	User     *int64 // on CPU in user mode
	Kernel   *int64 // on CPU in kernel mode
	Runqueue *int64 // runnable, waiting for a CPU
	Disk     *int64 // stalled on I/O
	Other    int64  // the rest: sleeping, blocked, or what no source attributes
	// Clamped is by how much the attributed components exceeded Wall
	// (their sources' clocks and granularity differ): Other is then 0.
	Clamped int64
}

// Decompose splits wall into the given components and the residual Other,
// clamped at zero. It is the arithmetic only: the components must share one
// scope (one thread's own times), or the sum means nothing.
func Decompose(wall int64, user, kernel, runqueue, disk *int64) Breakdown {
	b := Breakdown{Wall: wall, User: user, Kernel: kernel, Runqueue: runqueue, Disk: disk}
	rest := wall
	for _, c := range []*int64{user, kernel, runqueue, disk} {
		if c != nil {
			rest -= *c
		}
	}
	if rest < 0 {
		b.Clamped = -rest
		rest = 0
	}
	b.Other = rest
	return b
}

// WindowValues is one process's measurement of one window, in
// nanoseconds: its wall time, the components of its decomposition, and the
// quantities disclosed beside it. A nil field was not measured, or not
// attributed, in that process.
type WindowValues struct {
	Wall                         int64
	User, Kernel, Runqueue, Disk *int64
	Other                        *int64
	OtherThreads, IOStall        *int64
	Totals                       map[string]float64 // source totals ("tier0.read-bytes")
}

// WindowAcross is one window summarized over the processes that measured
// it. The process is the unit (rule 5 of docs/design.md): each contributes
// its one value of each quantity, never pooled with another process's, and
// each quantity is summarized on its own, so the components' medians need
// not add up to the median wall.
//
// Stats.MAD of a quantity is its spread between processes (0 for a single
// process, where there is no spread to speak of: callers say "not
// available" rather than 0).
type WindowAcross struct {
	Processes int
	Wall      Stats
	// A component is nil unless every process attributed it: a median over
	// the processes that happened to attribute it would silently describe
	// a different set of processes than Wall does.
	User, Kernel, Runqueue, Disk, Other *Stats
	OtherThreads, IOStall               *Stats
	// Totals holds the totals every process has; Partial names, sorted,
	// those only some processes have.
	Totals  map[string]Stats
	Partial []string
}

// SummarizeWindow summarizes one window over the processes that measured
// it; false when none did, or a value is not finite.
func SummarizeWindow(ps []WindowValues) (WindowAcross, bool) {
	if len(ps) == 0 {
		return WindowAcross{}, false
	}
	walls := make([]float64, len(ps))
	for i, p := range ps {
		walls[i] = float64(p.Wall)
	}
	wall, ok := Summarize(walls)
	if !ok {
		return WindowAcross{}, false
	}
	a := WindowAcross{Processes: len(ps), Wall: wall, Totals: map[string]Stats{}}
	component := func(get func(WindowValues) *int64) *Stats {
		vals := make([]float64, 0, len(ps))
		for _, p := range ps {
			v := get(p)
			if v == nil {
				return nil
			}
			vals = append(vals, float64(*v))
		}
		st, ok := Summarize(vals)
		if !ok {
			return nil
		}
		return &st
	}
	a.User = component(func(p WindowValues) *int64 { return p.User })
	a.Kernel = component(func(p WindowValues) *int64 { return p.Kernel })
	a.Runqueue = component(func(p WindowValues) *int64 { return p.Runqueue })
	a.Disk = component(func(p WindowValues) *int64 { return p.Disk })
	a.Other = component(func(p WindowValues) *int64 { return p.Other })
	a.OtherThreads = component(func(p WindowValues) *int64 { return p.OtherThreads })
	a.IOStall = component(func(p WindowValues) *int64 { return p.IOStall })

	seen := map[string]int{}
	for _, p := range ps {
		for k := range p.Totals {
			seen[k]++
		}
	}
	for k, n := range seen {
		if n < len(ps) {
			a.Partial = append(a.Partial, k)
			continue
		}
		vals := make([]float64, len(ps))
		for i, p := range ps {
			vals[i] = p.Totals[k]
		}
		st, ok := Summarize(vals)
		if !ok {
			return WindowAcross{}, false
		}
		a.Totals[k] = st
	}
	slices.Sort(a.Partial)
	return a, true
}
