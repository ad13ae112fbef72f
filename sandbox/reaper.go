package sandbox

// ReaperArg, as the only argument, makes a benchsup binary the reaper: its
// main calls ReaperMain when it sees it. It is not a command users type.
const ReaperArg = "__benchsup-reaper"

// EnvRun is set, to a value naming the run, in the environment of a child
// that has no cgroup while a reaper runs. Processes inherit their
// environment, so the reaper finds the child's descendants by it
// (/proc/PID/environ) even when they left its process group (a daemon that
// called setsid), as long as they kept it: one started with a cleared
// environment, or that exec'd with one, is not found. It is not part of
// Outcome.EnvNamesHash, whose names depend on the policy alone.
const EnvRun = "BENCHSUP_RUN"
