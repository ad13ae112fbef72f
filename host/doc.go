// Package host is the supervisor's side of host hygiene: what it checks and
// claims on the machine before and around a run, so that a measurement is
// not taken under load that was known or could have been avoided.
//
//   - CPU lists and topology: ParseCPUList and FormatCPUList speak the
//     kernel's list format ("0-3,5"); OnlineCPUs and Siblings read sysfs.
//   - Quiescence preflight: WaitQuiet waits, idle, until host CPU busy time
//     (sources.ReadHostCPU, from /proc/stat) stays under an average and a
//     per-CPU limit for a stable interval, or fails with *NotQuietError
//     rather than measuring under known load. Its QuiescenceReport is what
//     the run's document records.
//   - Host claim: Claim takes flock-based lock files, one per CPU, so that
//     two benchsup runs on one host serialize, or proceed together on
//     disjoint CPU sets. The file format is below.
//
// # Host claim file format
//
// A claim directory holds one lock file per logical CPU, named cpuN.lock
// (N the kernel's CPU number, as in /sys/devices/system/cpu/cpuN). The
// directory is $BENCHSUP_CLAIM_DIR when set, else /run/lock/benchsup when
// it exists or can be created, else benchsup-claim under the temporary
// directory; whoever creates it makes it mode 01777 (world-writable and
// sticky, like /tmp) so every user's runs share it, and creates lock files
// mode 0666.
//
// To claim a set of CPUs, a process opens each file of the set in
// ascending CPU order (creating it if absent, with O_EXCL, never O_CREAT on
// an existing file, which fs.protected_regular refuses in sticky
// directories) and takes flock(LOCK_EX|LOCK_NB) on it. If any is held it
// closes every file it opened, which drops its locks, and tries again
// later: it never holds part of a set while waiting, so two claimants
// cannot deadlock, and a waiting run holds nothing and uses no CPU. A run
// that names no CPUs claims every online CPU, which excludes all others;
// runs on disjoint sets proceed together.
//
// Once it holds the whole set, the claimant replaces each file's contents
// (truncate, write, fsync) with its owner record, one JSON line:
//
//	{"pid":4242,"host":"build7","started":"2026-12-01T23:40:00Z","cpus":"0-1","cmd":"benchsup run ./..."}
//
// pid is the claiming process, host its hostname, started the UTC time the
// claim was taken (RFC 3339), cpus the whole claimed set in the kernel's
// list format, cmd a human-readable command. Readers ignore anything after
// the first line and fields they do not know. On release the claimant
// truncates each file to empty and closes it.
//
// The lock, not the record, is the claim: flock belongs to the open file
// description and dies with the last process holding it, so a crashed
// owner never blocks anyone, and a record found in a file whose lock is
// free is stale (Claim notes it when its pid no longer runs on this host).
// A waiter reports the record's owner, and cross-checks it with the
// process /proc/locks says took the lock: when they differ, when that
// process has ended while a process that inherited its descriptor holds
// on, or when the holder is stopped (state T), Holder.Note says so. An
// empty file with a held lock is a claim being taken or released, or a
// tool that writes no record.
//
// The interference arithmetic (foreign load = host busy time minus the
// process's own CPU time) is sources.ForeignShare, since the worker, built
// into the user's test binary, computes it between samples.
//
// What this package does not do: it does not pin processes (the supervisor
// applies --cpus), does not adjust any measured number, and does not see
// storage, memory-bandwidth, thermal or frequency interference. A claim
// coordinates only with processes that use the same claim directory: a
// private /tmp (systemd PrivateTmp=), another mount namespace or a
// container without a shared path silently narrows it, and this package
// does not detect that yet. The Linux implementations read /proc and
// /sys; elsewhere every function returns an error wrapping
// errors.ErrUnsupported that says so.
package host
