// Package sources is what benchsup measures with besides the clock: the
// metric catalog, the selection grammar of --metrics, and one counter source
// per kind of counter, each probed on the host that runs it.
//
// The worker, linked into a user's test binary, opens the sources a run
// selected and brackets a counting pass of the benchmark with all of them
// at once (Bracket: one set of runs serves every source, and no source's
// reads fall inside another's counting window); the clock never runs while
// a counter is enabled. The CLI uses Probe to say what this host can
// measure and why not the rest, and Defaults to count, without --metrics,
// only what this host can.
//
// # Dependencies and architectures
//
// The package imports only the standard library, and its non-test code
// uses no language feature or standard-library API newer than Go 1.22. The
// worker and everything it links are copied into the user's module and
// built into the user's test binary at that language version (the copy
// carries //go:build go1.22): a module this package imported would join the
// user's build list, where the newer of two required versions wins, and so
// could change what the user's own code builds with. What golang.org/x/sys
// would otherwise supply is defined here instead: struct perf_event_attr,
// the PERF_* constants and perf ioctl numbers (perfabi_*_linux.go), the
// system calls package syscall has no function for (perf_event_open,
// mincore, fadvise), and the names of the errnos that reasons print. Where
// the kernel ABI differs by architecture, in ioctl encoding (ppc64 and mips
// differ from the rest), bitfield order (big-endian architectures),
// fadvise's calling convention (386, arm and 32-bit mips split 64-bit
// arguments differently) and POSIX_FADV_DONTNEED (6 on s390x), each family
// has its own build-constrained file.
// The tests check every definition against golang.org/x/sys/unix, at run
// time on the host and at compile time for whatever GOARCH they are built
// for.
//
// Everything is defined for linux/386, amd64, arm, arm64, loong64, mips,
// mipsle, mips64, mips64le, ppc64, ppc64le, riscv64 and s390x. On another
// Linux architecture this package does not guess those values: the perf
// sources report an absence ("perf_event_open(PERF_TYPE_SOFTWARE,
// task-clock): not supported by this build on linux/<arch>") and the
// page-cache controls fail saying the same, while tier0 and the window
// readers, which need none of it, work. On other operating systems every
// source reports that it is implemented for Linux only.
//
// # Sources
//
//	perf-hw   cycles, instructions, branches, branch-misses, cache-references,
//	          cache-misses: one perf_event group; ipc derived from it
//	perf-sw   task-clock, page-faults, context-switches, cpu-migrations:
//	          kernel software events, one group
//	tier0     getrusage(RUSAGE_SELF) and /proc/self/io: no privilege needed
//	syscalls  per-syscall counts from the syscall tracepoints (tracefs)
//	raw       raw:r<hex> PMU event codes, in a group of their own
//
// A source that cannot work here is never an error: Open and Probe return an
// Absence that names what was tried and what was found (the errno, the PMUs
// the kernel registered, perf_event_paranoid, the tracefs paths). A source
// that works in a lesser mode says so in Report.Degraded: events dropped from
// its group, user-mode-only counting, scaled mode.
//
// # Readings
//
// A Reading holds one bracket's totals. Nothing is ever reported as zero for
// "not counted": such a metric is in Reading.Unavailable with the reason. A
// value scaled from a multiplexed perf group is in Reading.Estimated. The
// derived metric ipc is instructions/cycles from the same group read over the
// same bracket: Counter.Stop includes it (by Derive), and Sum, which combines
// the brackets of a batched pass, recomputes it from the summed totals rather
// than adding ratios.
//
// # How perf counters cover the whole process
//
// Go runs goroutines on whichever OS thread is free and creates threads as it
// needs them, and the runtime's own work (garbage collection, the scavenger)
// runs on other threads than the benchmark's; counting only the calling
// thread would miss work and would depend on scheduling. So perf counts
// cover the whole process, the way perf stat covers a command:
//
//   - Open lists /proc/self/task and opens the source's group on every
//     thread (pid = tid, cpu = -1), each with inherit set, so that every
//     thread (or process) a monitored thread creates later counts into its
//     creator's group, and its descendants' too.
//   - It then lists the threads again. A thread that appeared in between
//     was created either by a thread already open (inherited: counted) or by
//     one not yet open (counted by nobody), and the two cannot be told
//     apart, so everything is closed and opened again, up to four times;
//     if the thread set never settles, the counter says so in Degraded.
//   - Start reads every group, then enables each with
//     PERF_EVENT_IOC_ENABLE and PERF_IOC_FLAG_GROUP (which the kernel applies
//     to each leader's siblings and to all their inherited children); Stop
//     disables them the same way and reads again. A group read
//     (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID)
//     already includes every live inherited child and every exited one.
//   - Counters are never reset: PERF_EVENT_IOC_RESET clears an event's own
//     count but not what exited children folded into it, so a bracket is
//     the difference of two cumulative reads.
//   - Each thread's group is scaled by its own enabled/running times when it
//     multiplexed, then the threads are summed.
//
// The blind spots and biases that remain:
//
//   - The edges are staggered: enabling and disabling take one ioctl per
//     opened thread in turn, so what other threads do during those few
//     microseconds is counted in part. The ioctls themselves (kernel mode,
//     on the calling thread) are a fixed floor per bracket that grows with
//     the number of threads. Where the worker subtracts two brackets (runs
//     of an unmodified benchmark) it cancels; where it brackets calls
//     itself (measure.Iter, measure.Case), empty brackets measure it and
//     it is subtracted.
//   - Everything the process does during a bracket is counted: the garbage
//     collector, other goroutines, and child processes started by the body
//     (inherit follows fork, as perf stat does), whereas tier0's
//     getrusage(RUSAGE_SELF) excludes child processes.
//   - A thread's exit loses nothing: an inherited thread folds its counts
//     into its creator's group, and a thread opened directly leaves its
//     final counts readable. A thread that exits between the listing and
//     its own open (ESRCH) is simply not opened.
//   - An inherited child's enabled and running times are summed into its
//     creator's, so a multiplexed group is scaled by its threads' combined
//     ratio, as perf stat does.
//
// # Multiplexing and exactness
//
// The default hardware group is meant to count exactly. Open calibrates it on
// the calling thread (a 2 ms busy loop) and, while its counters run less than
// the time they are enabled, drops the last-level-cache pair, then the branch
// pair; the dropped metrics come back as absences saying why. Options.Scaled
// keeps the whole group instead. Either way every bracket is checked when
// read: a bracket in which a group multiplexed (time_running <
// time_enabled) is scaled and marked Estimated, one whose group was enabled
// but never running is Unavailable, and a multiplexed bracket with under
// 1 ms of counter time is Unavailable, since so short a slice scales badly.
//
// # Privilege
//
// Every perf source first asks for user and kernel counting. When
// perf_event_paranoid refuses that (EACCES or EPERM) it falls back to user
// mode only (exclude_kernel, exclude_hv) and reports it as Degraded; the
// events that only ever fire in kernel mode (context-switches,
// cpu-migrations, the raw_syscalls total) are then absent rather than zero.
// task-clock is a clock rather than an event, and kernels have applied the
// exclusions to its sampling only: it may still include kernel time.
package sources

//go:generate go run ./internal/gensyscalls -sys v0.50.0 amd64 arm64
