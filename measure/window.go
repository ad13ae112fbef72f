package measure

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
