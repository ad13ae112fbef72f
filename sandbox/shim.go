package sandbox

// ShimArg, as the first argument, makes a benchsup binary benchsup's shim:
// it calls ShimMain with the arguments after it (benchsup from an init
// function, so that a shim initializes little). It is not a command
// users type.
//
// With Config.Shim the process the sandbox starts is the shim (this
// process's own executable, /proc/self/exe), and the shim starts the
// program: the program's parent is then the shim, never the supervisor.
// The shim is the child's process-group leader, lives in its cgroup, is the
// subreaper of everything the program starts, and reports to the sandbox on
// a pipe of its own:
//
//   - A signal the code under test sends to its parent (getppid), to the
//     shim's pid or to the shim's group from outside ends that child only:
//     the shim asks the program for its stacks (SIGQUIT, as at a deadline),
//     kills it after a grace, and the Outcome is ClassSignal with a
//     *ParentSignalError naming the signal. The supervisor's own signals to
//     the group are announced to the shim on a control pipe first, so the
//     shim never mistakes them for the code's.
//   - A shim that is killed (SIGKILL, which it cannot catch) takes the
//     program along (its parent-death signal); the Outcome says the
//     program's parent was killed by a signal benchsup did not send.
//   - Orphans, wherever they moved (another process group, another cgroup,
//     a new session), are reparented to the shim; when the program exits
//     the shim names and kills every process left in its tree, as
//     Outcome.Leftover says.
//   - The program's exit status is relayed exactly, so a shim changes no
//     classification.
//
// The shim starts in the child's cgroups, so that the program does. Where
// the memory and pids controllers are cgroup v1 hierarchies it then leaves
// them (and a pids limit is the program's again); through cgroup2 its few
// threads and megabytes stay: they count towards Resources.PeakMemory and,
// with Config.PidsLimit, the limit written is the program's plus
// ShimTasks.
const ShimArg = "__benchsup-shim"

// ShimTasks is what a pids limit is raised by for the shim's own threads.
const ShimTasks = 16

// shimArgs is what the sandbox passes the shim after ShimArg.
type shimArgs struct {
	nfiles       int // descriptors 0..nfiles-1 are the program's
	ctrl, report int
	execFD       int    // -1: exec path
	linkDir      string // with execFD: where the exec's named link goes ("-": none; see execLinkDir)
	path         string
	argv         []string
}
