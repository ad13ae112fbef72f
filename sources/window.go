package sources

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
