// Package sandbox starts one benchsup child process and supervises it to the
// end: a fresh process per benchmark (or test package), talking the protocol
// package's exchange over one inherited socket, contained, bounded in time
// and in captured output, always reaped, and classified.
//
// Start spawns a child and returns a *Child; Hello, Send and Receive drive
// the exchange; Wait returns its Outcome. Run does all of it for one Request.
//
// # What the child gets
//
//   - argv: Config.Path (absolute; no shell, no PATH search) then Config.Args.
//     With Config.Executable the file executed is the caller's descriptor
//     (/proc/self/fd/N in the forked child, N close-on-exec), and Path is
//     only argv[0]: a child that deletes or replaces os.Args[0] affects no
//     later child, and the file the caller checked is the file that runs.
//   - A working directory: Config.Dir, resolved and checked before the spawn.
//   - An environment built by Config.Env: strict by default (see EnvPolicy),
//     plus protocol.EnvFD=3 and, when it runs in a cgroup of its own,
//     protocol.EnvCgroup naming that cgroup (Outcome.EnvNamesHash covers the
//     policy's names and EnvFD, not EnvCgroup, whose presence depends on the
//     host rather than on the policy).
//   - Exactly four descriptors: 0 is /dev/null, 1 and 2 are pipes the
//     supervisor drains, 3 is its end of a socketpair (the protocol endpoint);
//     with Config.RecordFile a fifth, 4, the shared region a recorder
//     delivers spans through, named by protocol.EnvRecordFD. A plain program
//     (Config.Program: no endpoint, no protocol.EnvFD, no handshake, the
//     total deadline the only one) gets three, or four with RecordFile at 3.
//     Go opens every descriptor close-on-exec, but a supervisor may itself
//     have inherited descriptors without that flag; before its first spawn
//     this package marks every descriptor above 2 of the calling process
//     close-on-exec, once (walking /proc/self/fd, or close_range(2) where
//     /proc is missing). Descriptors created later without the flag, by cgo
//     code say, are not covered.
//   - Its own process group (Setpgid), so that the child and everything it
//     forks can be signalled as one.
//   - The parent-death signal SIGKILL (Pdeathsig), so that a supervisor that
//     is killed takes its children along. Linux delivers it when the thread
//     that forked the child exits, not the process, and the Go runtime does
//     end threads (a goroutine that exits while locked to its thread takes
//     the thread along). Every spawn therefore runs on one goroutine locked
//     to its OS thread that never exits. The signal reaches the child only:
//     its descendants are left to init. A process that started a reaper
//     (StartReaper) has them killed too, with the child's cgroup and process
//     group, and its scratch directory (MkdirTemp) removed, however it dies.
//   - Where a writable cgroup v2 hierarchy is found (Config.Cgroup), its own
//     cgroup, entered atomically at clone time (clone3 CLONE_INTO_CGROUP),
//     falling back to writing its pid into cgroup.procs. The cgroup is a kill
//     boundary that setsid or a double fork cannot escape. It limits nothing
//     unless asked.
//   - Resource limits, when asked (Config.MemoryLimit, Config.PidsLimit):
//     memory (swap off) and tasks, through whichever hierarchy holds the
//     controller (ProbeLimits: cgroup v2, or v1 on a hybrid host, where the
//     spawning thread enters the child's v1 cgroups for the fork, see
//     limits_linux.go). A limit no controller here can apply is a
//     *ConfigError. Whenever a memory controller can be written, limit or
//     not, the child gets a memory cgroup, and Outcome.Resources has its
//     peak memory, OOM kills and the forks a pids limit refused.
//
// # Deadlines and termination
//
// Both deadlines run on the monotonic clock from the moment Start is entered,
// so time spent spawning counts against them. The startup deadline ends when
// the Hello has been read; the total deadline ends when the child exits. They
// are enforced by the Child itself, whether or not the caller is reading at
// the time; so a Hello that arrived but was not read by the startup deadline
// is late: call Hello promptly after Start.
//
// A timeout leaves evidence. When a deadline expires, the root alone first
// gets SIGQUIT, to which the Go runtime answers by writing every goroutine's
// stack to stderr and exiting with status 2 (as a test binary does at go
// test's -timeout). The head of what the child writes to stderr from then on,
// within Config.StderrLimit, is Outcome.Stacks, apart from the stderr tail,
// which keeps the end of a long dump. The process group is not asked: the
// dumps of grandchildren would interleave on the same stderr. If the root has
// not exited after Config.QuitGrace (it ignores or handles SIGQUIT, or is not
// a Go program), the termination below follows. When the caller's context is
// done, the termination comes at once, without SIGQUIT.
//
// Termination: the child's process group (and every member of its cgroup)
// gets SIGTERM; if the root has not exited after Config.Grace, the root, the
// group and the cgroup get SIGKILL. A child that breaks the protocol, or a
// parent-side I/O failure, is killed at once with SIGKILL. Whatever signal
// ends it, a child that timed out is classified by its timeout.
//
// Exit is observed without reaping (waitid with WNOWAIT): while the root is an
// unreaped zombie its pid, and so its process-group id, cannot be reused. Only
// then are the group and the cgroup killed (with SIGKILL and no grace: the
// root is gone), so that grandchildren never outlive the run, and only then is
// the root reaped. No pid is signalled after
// it has been reaped. The child is reaped even if Wait is never called.
//
// Standard output and standard error are drained concurrently into bounded
// tail buffers that count every byte (Capture), so a child that writes without
// end delays no deadline and grows no memory. After the child is reaped the
// pipes and the socket are read for at most Config.DrainWindow and closed, so
// a process that escaped containment and keeps a pipe or the socket open
// cannot hang Wait; Outcome.DrainNote then says which it held.
// Wait also reads and checks the messages the caller left unread, so that a
// Done, Skip or Failure still counts.
//
// # Classification
//
// Wait classifies the child by the first rule that applies:
//
//  1. ClassInvalidConfig: the Config (or the Request, for Run) was refused
//     before anything was spawned (*ConfigError, ErrInvalidConfig).
//  2. ClassCanceled: the caller's context ended the child (*CanceledError,
//     holding the context's cause; ErrCanceled).
//  3. ClassStartupTimeout: no Hello by the startup deadline
//     (*TimeoutError, ErrStartupTimeout), however the child then ended:
//     by its exit with status 2 after the goroutine dump, or by SIGTERM or
//     SIGKILL.
//  4. ClassExecTimeout: the child had not exited by the total deadline
//     (*TimeoutError, ErrExecTimeout), however it then ended.
//  5. ClassMalformed: the child sent a frame or a message sequence the
//     protocol does not allow, or a Hello of another protocol version (the
//     protocol package's error: protocol.ErrMalformed or protocol.ErrVersion),
//     or exited 0 without sending Done (*NoDoneError: before its Hello, a
//     TestMain that never called m.Run; after it, code that called
//     os.Exit(0)). A stream
//     cut off inside a frame by a child that then died by a signal or a
//     nonzero exit is classified by that death instead (rules 7 to 10): it
//     died while writing.
//  6. ClassParentIO: the supervisor's side failed: descriptors or the spawn
//     could not be made, a send or read failed in a way the child's death does
//     not explain, or the child was reaped by someone else (*IOError,
//     ErrParentIO).
//  7. ClassOutOfMemory: the root was killed by SIGKILL and the kernel's OOM
//     killer counted a kill in the child's memory cgroup (where the kernel
//     counts none, v1 before Linux 4.13: the limit was hit); the
//     *OutOfMemoryError carries the limit and the peak (ErrOutOfMemory).
//  8. ClassSignal: the child was killed by a signal this package did not send
//     (*SignalError: which signal, whether it dumped core), or its root
//     stayed stopped (SIGSTOP, SIGTSTP, ...) for half a second: it is then
//     sent SIGQUIT and SIGCONT, so that it prints its stacks, and ended
//     (*StoppedError), instead of being waited for until the deadline.
//  9. ClassFailure: the child reported a Failure; this takes precedence over
//     the nonzero exit that normally follows (*FailureError).
//  10. ClassExit: the child exited with a nonzero status (*ExitError). A Go
//     runtime fatal error (deadlock, concurrent map writes) exits 2, its text
//     in the stderr tail.
//  11. ClassSkipped: Skip, Done and exit status 0 (no error).
//  12. ClassSuccess: Done and exit status 0 (no error).
//
// Each of these error types carries its cause in fields (the exit status,
// the signal, the deadline, the context's cause) and is a Detailer: its
// Detail is its Error without the "sandbox: " prefix, so that a caller
// words its own account from values, never by cutting Error's text.
//
// # After the supervisor
//
// StartReaper starts the reaper, the process that cleans up after a
// supervisor killed with SIGKILL: it kills every cgroup and process group
// still registered, and, for children without a cgroup, every process whose
// environment carries EnvRun, then removes the cgroups and the registered
// paths (see reaper_linux.go for the design and its limits). Everything a
// run leaves while it runs is named after its owner (pid, start time, pid
// namespace), and RemoveStale removes what a dead owner left, never a live
// run's.
//
// # What it deliberately does not do
//
// It is not a security sandbox: no namespaces, no seccomp, no change of user,
// no resource limits but the memory and pids limits asked for. It contains failures of cooperative code (crashes,
// hangs, leaked processes, runaway output), not hostile code. It does not
// retry, does not search PATH, does not run a shell, and never falls back to
// running anything in-process. It does not interpret measurements. It needs
// exclusive ownership of reaping its children: a process that installs
// automatic SIGCHLD reaping (signal.Ignore(SIGCHLD) or a subreaper library
// calling wait(-1)) breaks that contract; where the loss is detected the child
// is classified ClassParentIO and its pid is not signalled again, but a
// concurrent reaper can race the window between exit and reaping.
//
// Fresh-process children need Linux; elsewhere Start reports
// errors.ErrUnsupported (wrapped in an *IOError) after validating the Config.
package sandbox
