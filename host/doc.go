// Package host is the supervisor's side of host hygiene: what it checks and
// claims on the machine before and around a run, so that a measurement is
// not taken under load that was known or could have been avoided.
//
//   - CPU lists and topology: ParseCPUList and FormatCPUList speak the
//     kernel's list format ("0-3,5"); OnlineCPUs and Siblings read sysfs.
//   - Quiescence preflight: WaitQuiet waits, idle, until host CPU busy time
//     (sources.ReadHostCPU, from /proc/stat) stays under an average and a
//     per-CPU limit for a stable interval, or fails with *NotQuietError
//     rather than measuring under known load. Its rundoc.Quiescence is
//     what the run's document records.
//   - Host claim: Claim takes flock-based lock files, one per CPU, so that
//     two benchsup runs on one host serialize, or proceed together on
//     disjoint CPU sets; HostClaim.Report is the document's rundoc.HostClaim.
//     The file format is below.
//   - Shared paths: the claim directory is one every user can write, so
//     it must be a real directory owned by root or this user, sticky if
//     others can write it, and a lock file must be a regular file with
//     one link, opened without following links; anything else is refused
//     with an *UnsafePathError (ErrUnsafePath) naming it, never followed,
//     truncated or written. ResolveShared, CheckOpened and CheckSharedPath
//     apply the same rule to the other files benchsup writes (outputs in
//     /tmp): no link or file of another user than this one or root is
//     followed or written over in a directory other users can write.
//
// # Host claim file format
//
// The format is documented for other tools in docs/design.md, section
// "Host claim file format" (keep the two in step with claim_linux.go).
// In short: one lock file per CPU, cpuN.lock, in the claim directory;
// the claim is flock(LOCK_EX) on each file of the set, taken all or none
// in ascending order; a holder writes one JSON owner line (OwnerRecord)
// into each and truncates it on release. The lock, not the record, is the
// claim: it dies with its process, so a record under a free lock is stale.
//
// The interference arithmetic (foreign load = host busy time minus the
// process's own CPU time) is protocol.Watch.ForeignShare, derived from the
// raw reading the worker, built into the user's test binary, takes between
// samples.
//
// What this package does not do: it does not pin processes (the supervisor
// applies --cpus), does not adjust any measured number, and does not see
// storage, memory-bandwidth, thermal or frequency interference. A claim
// coordinates only with processes that use the same claim directory: a
// private /tmp (systemd PrivateTmp=), another mount namespace or a
// container without a shared path silently narrows it, and this package
// does not detect that yet. The Linux implementations read /proc and
// /sys; elsewhere every function returns an error wrapping
// errors.ErrUnsupported that says so, except the shared-path checks,
// which check nothing there (outputs are written as they were) and say so
// in their documentation.
package host
