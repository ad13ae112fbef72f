package sources

import (
	"errors"
	"time"
)

// Window readers.
//
// A workload window is measured by reading cumulative totals at its two
// edges and subtracting: nothing is enabled, reset or sampled in between, so
// the body runs once, untouched, and windows may overlap freely. The readers
// below are those edge reads. Each returns one snapshot; the caller
// subtracts.
//
// Their scopes differ, and the difference is the point:
//
//   - ThreadTimes is the calling OS thread's own: on-CPU time (getrusage
//     RUSAGE_THREAD, split user/kernel) and time spent runnable on a run
//     queue (schedstat). Only at thread scope does wall = on-CPU + run queue
//     + everything else hold as arithmetic, which is why the wall-clock
//     decomposition is read here.
//   - ProcessTimes is the whole process's: it discloses CPU burned and I/O
//     done by other threads (the garbage collector, goroutines the body
//     started), which thread scope does not see.
//   - Pressure is the whole system's PSI stall totals. A window delta says
//     how much stall the host accumulated concurrently with the window; it
//     cannot be attributed to the measured thread, so it is a diagnostic.
//   - ReadCgroupIOPressure is the same integral scoped to this process's own
//     cgroup: when benchsup's sandbox gave the child a cgroup of its own, the
//     io stall there is the child's, and can be attributed.

// CgroupEnv is the environment variable in which benchsup's sandbox names
// (by its last path element) the cgroup of its own it started a child in
// (protocol.EnvCgroup). Without it, or when this process's cgroup is not the
// one named, a cgroup's pressure files may count other processes' stalls, so
// ReadCgroupIOPressure refuses to read them.
const CgroupEnv = "BENCHSUP_CGROUP"

// ThreadTimes is the calling OS thread's own accounting. Call it only from a
// goroutine locked to its thread (runtime.LockOSThread): otherwise the two
// edges of a window may read two different threads, and their difference
// means nothing.
type ThreadTimes struct {
	// UserNs and SysNs are getrusage(RUSAGE_THREAD). On most kernels the
	// split between them comes from tick samples, so it is approximate;
	// the kernel scales the pair so that their sum matches the thread's
	// exact runtime, so the sum is close to RunNs.
	UserNs, SysNs int64
	// RunNs is /proc/thread-self/schedstat field 1: time on CPU, in ns,
	// exact (the scheduler's own clock).
	RunNs int64
	// WaitNs is schedstat field 2: time runnable but waiting on a run
	// queue, in ns.
	WaitNs int64
	// HaveSchedstat says RunNs and WaitNs were read. When false they are
	// zero and mean "not measured", and SchedstatAbsence says why.
	HaveSchedstat    bool
	SchedstatAbsence string
}

// ProcessTimes is the whole process's accounting: getrusage(RUSAGE_SELF)
// and /proc/self/io. Child processes are not included (RUSAGE_SELF).
type ProcessTimes struct {
	UserNs, SysNs int64
	// MaxRSSBytes is getrusage's ru_maxrss: the process's peak resident
	// set so far, a level, in bytes.
	MaxRSSBytes int64
	// Counts holds "minflt", "majflt", "nvcsw", "nivcsw" (getrusage) and
	// "rchar", "wchar", "syscr", "syscw", "read-bytes", "write-bytes"
	// (/proc/self/io), under the tier0 metric names. A count the host does
	// not provide is missing from the map, never zero.
	Counts map[string]float64
	// IOAbsence says why the /proc/self/io counts are missing, when some
	// are.
	IOAbsence string
}

// Pressure is one reading of the host's PSI stall totals, in ns (the files
// give µs "total=" fields). They are cumulative since boot; a window's value
// is the difference of two readings.
type Pressure struct {
	IOSome, IOFull, MemSome, MemFull, CPUSome int64
}

// Edge is one reading of every source a window always reads, taken at one
// of its edges. A reader that failed or was skipped has its error (or, for
// the cgroup's io.pressure, CgroupOK false and the reason) instead of a
// value.
type Edge struct {
	// At is the wall clock (monotonic) at this edge.
	At time.Time

	Thread    ThreadTimes
	ThreadErr error

	Process    ProcessTimes
	ProcessErr error

	Pressure    Pressure
	PressureErr error

	// CgroupIOSome is this process's own cgroup's io.pressure "some"
	// total, in ns.
	CgroupIOSome int64
	CgroupOK     bool
	CgroupWhy    string
}

// EdgeReader reads the sources every workload window always reads, at its
// two edges: the wall clock, the window thread's own accounting
// (ReadThreadTimes), the process's (ReadProcessTimes), this process's own
// cgroup's io.pressure and the system's PSI. They are reads of cumulative
// totals only (a few system calls, nothing enabled), which is why they are
// the default edge set: their perturbation of a window is measured by
// bench/windows and tabulated in WindowEdgeCosts.
//
// Open reads outermost first (PSI, so its reads lie outside every other
// reading; then the clock, the cgroup, the thread, the process); Close
// reads in the opposite order, so a window's wall time holds the other
// readers' own cost and nothing else of the apparatus.
type EdgeReader struct {
	// Skip* turn one reader off. The worker never sets them; bench/windows
	// does, to measure each reader's perturbation on its own.
	SkipThread, SkipProcess, SkipPressure, SkipCgroup bool

	cgroupPath string // this process's own io.pressure, when it has one
	cgroupWhy  string // why not
}

// errEdgeSkipped is the error of a reader an EdgeReader was told to skip.
var errEdgeSkipped = errors.New("not read (skipped)")

// NewEdgeReader returns an EdgeReader with every reader on. It finds this
// process's own cgroup io.pressure file once (reading the mount table and
// the cgroup membership), so that an edge reads the one small file only.
func NewEdgeReader() *EdgeReader {
	r := &EdgeReader{}
	r.cgroupPath, r.cgroupWhy = cgroupIOPressurePath()
	return r
}

// Open reads the opening edge.
func (r *EdgeReader) Open(e *Edge) {
	r.pressure(e)
	e.At = time.Now()
	r.cgroup(e)
	r.thread(e)
	r.process(e)
}

// Close reads the closing edge.
func (r *EdgeReader) Close(e *Edge) {
	r.process(e)
	r.thread(e)
	r.cgroup(e)
	e.At = time.Now()
	r.pressure(e)
}

func (r *EdgeReader) thread(e *Edge) {
	if r.SkipThread {
		e.ThreadErr = errEdgeSkipped
		return
	}
	e.Thread, e.ThreadErr = ReadThreadTimes()
}

func (r *EdgeReader) process(e *Edge) {
	if r.SkipProcess {
		e.ProcessErr = errEdgeSkipped
		return
	}
	e.Process, e.ProcessErr = ReadProcessTimes()
}

func (r *EdgeReader) pressure(e *Edge) {
	if r.SkipPressure {
		e.PressureErr = errEdgeSkipped
		return
	}
	e.Pressure, e.PressureErr = ReadSystemPressure()
}

func (r *EdgeReader) cgroup(e *Edge) {
	switch {
	case r.SkipCgroup:
		e.CgroupOK, e.CgroupWhy = false, errEdgeSkipped.Error()
	case r.cgroupPath == "":
		e.CgroupOK, e.CgroupWhy = false, r.cgroupWhy
	default:
		e.CgroupIOSome, e.CgroupOK, e.CgroupWhy = readCgroupIOSome(r.cgroupPath)
	}
}
