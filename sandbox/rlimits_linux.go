//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// rlimitResources are the limits the shim compares, by their C names.
var rlimitResources = []struct {
	name string
	id   int
}{
	{"RLIMIT_CPU", unix.RLIMIT_CPU},
	{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE},
	{"RLIMIT_DATA", unix.RLIMIT_DATA},
	{"RLIMIT_STACK", unix.RLIMIT_STACK},
	{"RLIMIT_CORE", unix.RLIMIT_CORE},
	{"RLIMIT_RSS", unix.RLIMIT_RSS},
	{"RLIMIT_NPROC", unix.RLIMIT_NPROC},
	{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE},
	{"RLIMIT_MEMLOCK", unix.RLIMIT_MEMLOCK},
	{"RLIMIT_AS", unix.RLIMIT_AS},
	{"RLIMIT_LOCKS", unix.RLIMIT_LOCKS},
	{"RLIMIT_SIGPENDING", unix.RLIMIT_SIGPENDING},
	{"RLIMIT_MSGQUEUE", unix.RLIMIT_MSGQUEUE},
	{"RLIMIT_NICE", unix.RLIMIT_NICE},
	{"RLIMIT_RTPRIO", unix.RLIMIT_RTPRIO},
	{"RLIMIT_RTTIME", unix.RLIMIT_RTTIME},
}

// loweredLimits compares the limits of pid, an ended child not yet reaped
// (prlimit still reads a zombie's), with this process's own, which the
// child started with, and returns those it lowered; a limit that cannot be
// read is left out. The soft RLIMIT_NOFILE is left out too: the Go runtime
// raises its own process's to the hard limit and gives children the one it
// started with, so this process's is not what the child started with, and
// a lowered descriptor limit makes calls fail, which the program reports
// itself, rather than ending the process.
func loweredLimits(pid int) []LimitChange {
	var out []LimitChange
	for _, r := range rlimitResources {
		var own, its unix.Rlimit
		if unix.Getrlimit(r.id, &own) != nil || unix.Prlimit(pid, r.id, nil, &its) != nil {
			continue
		}
		if r.id == unix.RLIMIT_NOFILE {
			its.Cur = own.Cur
		}
		if its.Cur < own.Cur || its.Max < own.Max {
			out = append(out, LimitChange{Resource: r.name, WasSoft: own.Cur, WasHard: own.Max, Soft: its.Cur, Hard: its.Max})
		}
	}
	return out
}
