package sandbox

import (
	"strconv"
	"strings"
	"syscall"
)

// LimitChange is a resource limit (setrlimit) the program had lowered by
// the time it ended: the shim reads the ended program's limits before it
// reaps it and compares them with its own, which the program started with.
// A process dies of a limit it set itself (a CPU time limit ends it with
// SIGKILL, a lowered address space limit makes the Go runtime fail to
// allocate and exit 2) where nothing else tells the row why; the worker
// names a change only after the test that made it returns
// (docs/design.md#containment).
type LimitChange struct {
	Resource string // the C name: "RLIMIT_CPU"
	// WasSoft, WasHard are the limits the program started with, Soft and
	// Hard those it ended with; ^uint64(0) (RLIM_INFINITY) is no limit.
	WasSoft, WasHard, Soft, Hard uint64
}

// rlimInfinity is RLIM_INFINITY: no limit.
const rlimInfinity = ^uint64(0)

// String says what changed: "lowered RLIMIT_CPU from unlimited to 1 s and
// its hard limit from unlimited to 2 s".
func (c LimitChange) String() string {
	var parts []string
	if c.Soft != c.WasSoft {
		parts = append(parts, limitMove(c.WasSoft, c.Soft)+" "+c.Resource+" from "+c.value(c.WasSoft)+" to "+c.value(c.Soft))
	}
	if c.Hard != c.WasHard {
		what := c.Resource + "'s hard limit"
		if len(parts) > 0 {
			what = "its hard limit"
		}
		parts = append(parts, limitMove(c.WasHard, c.Hard)+" "+what+" from "+c.value(c.WasHard)+" to "+c.value(c.Hard))
	}
	return strings.Join(parts, " and ")
}

func limitMove(was, now uint64) string {
	if now < was {
		return "lowered"
	}
	return "raised"
}

func (c LimitChange) value(v uint64) string {
	if v == rlimInfinity {
		return "unlimited"
	}
	s := strconv.FormatUint(v, 10)
	switch c.Resource {
	case "RLIMIT_CPU":
		return s + " s"
	case "RLIMIT_RTTIME":
		return s + " µs"
	}
	return s
}

// limitsText is what an ended program's lowered limits add to the error of
// its end: "; it had lowered RLIMIT_CPU from …, and the kernel kills a
// process past its hard CPU time limit with SIGKILL". The kernel's part is
// said only of the signal that limit sends; empty without changes.
func limitsText(changes []LimitChange, sig syscall.Signal) string {
	if len(changes) == 0 {
		return ""
	}
	var parts []string
	for _, c := range changes {
		parts = append(parts, c.String())
	}
	s := "; it had " + strings.Join(parts, ", ")
	name := signalName(sig) // by name: not every platform's syscall has SIGXCPU
	for _, c := range changes {
		switch {
		case c.Resource == "RLIMIT_CPU" && name == "SIGKILL" && c.Hard != rlimInfinity:
			return s + ", and the kernel kills a process past its hard CPU time limit with SIGKILL"
		case c.Resource == "RLIMIT_CPU" && name == "SIGXCPU":
			return s + ", and the kernel sends SIGXCPU to a process past its CPU time limit"
		case c.Resource == "RLIMIT_FSIZE" && name == "SIGXFSZ":
			return s + ", and the kernel sends SIGXFSZ to a process that writes past its file size limit"
		}
	}
	return s
}
