package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// ErrOutOfMemory is wrapped by every *OutOfMemoryError.
var ErrOutOfMemory = errors.New("sandbox: out of memory")

// Cgroup versions, as LimitSupport and Resources name them.
const (
	CgroupV1 = "v1" // a controller mounted as its own cgroup v1 hierarchy
	CgroupV2 = "v2" // a controller enabled in the unified hierarchy
)

// LimitSupport is what the probe found for the resource controllers: for
// memory and for pids, the cgroup version through which per-child cgroups
// with that controller can be created ("" when none can), and when none
// can, why. Each controller lives in one hierarchy at a time, so a hybrid
// host may offer memory through v1 and nothing through v2.
type LimitSupport struct {
	Memory     string // CgroupV2, CgroupV1 or ""
	MemoryNote string // why Memory is ""
	// MemorySwap says that the child's swap can be held at zero:
	// memory.swap.max (v2) or memory.memsw.limit_in_bytes (v1) exists.
	// Without it a limited child may swap (where the host has swap).
	MemorySwap bool
	Pids       string // CgroupV2, CgroupV1 or ""
	PidsNote   string // why Pids is ""
}

// Describe is the one-line account of s: "memory v1 (swap off), pids v1",
// with the reason for each absent controller.
func (s LimitSupport) Describe() string {
	part := func(name, version, note string) string {
		if version == "" {
			return name + " unavailable (" + note + ")"
		}
		return name + " " + version
	}
	mem := part("memory", s.Memory, s.MemoryNote)
	if s.Memory != "" && s.MemorySwap {
		mem += " (swap off)"
	}
	return mem + ", " + part("pids", s.Pids, s.PidsNote)
}

// Resources is what a child's resource cgroups recorded, read after it
// ended and before they were removed.
type Resources struct {
	// MemoryLimit and PidsLimit are the limits the child ran under; zero
	// when none.
	MemoryLimit int64
	PidsLimit   int64
	// Memory and Pids name the cgroup version of the controller used for
	// the child (CgroupV1, CgroupV2), "" when it had none.
	Memory, Pids string
	// PeakMemory is the most memory ever charged to the child's cgroup at
	// once (memory.peak in v2, memory.max_usage_in_bytes in v1), in bytes:
	// every process of the child, page cache included. Valid when
	// PeakMemoryKnown; otherwise PeakMemoryNote says why not.
	PeakMemory      int64
	PeakMemoryKnown bool
	PeakMemoryNote  string
	// OOMKills is how many processes of the child the kernel's OOM killer
	// killed (memory.events oom_kill in v2, memory.oom_control oom_kill in
	// v1); -1 when unknown (no memory cgroup, or no counter). LimitHits is
	// how often usage hit MemoryLimit (memory.events max in v2,
	// memory.failcnt in v1): the kernel then reclaimed memory (page cache
	// first) to stay under it, which can slow what was measured. -1 without
	// a limit, or when it could not be read.
	OOMKills  int64
	LimitHits int64
	// LimitReached says that usage reached MemoryLimit: LimitHits > 0, or
	// the peak at the limit (where the kernel does not count the hits: v1
	// with memsw on recent kernels).
	LimitReached bool
	// PidsRefused is how many forks and clones pids.max refused (the max
	// line of pids.events).
	PidsRefused int64
	// ThreadFailure says that the child's stderr carries the Go runtime's
	// "runtime: failed to create new OS thread": the pids limit (or the
	// host's) stopped it.
	ThreadFailure bool
}

// Note is the sentence a report gives what the limits did to the child,
// whatever its class: a pids limit reached, an OOM kill that did not end
// the root (with the limit and the peak of the child's cgroup); "" when
// nothing happened.
func (r Resources) Note() string {
	var parts []string
	if r.PidsRefused > 0 {
		s := fmt.Sprintf("pids limit %d reached: %d fork", r.PidsLimit, r.PidsRefused)
		if r.PidsRefused > 1 {
			s += "s"
		}
		parts = append(parts, s+" refused")
	}
	if r.ThreadFailure {
		s := "the Go runtime failed to create a new OS thread"
		if r.PidsLimit > 0 {
			s += fmt.Sprintf(" (threads count against the pids limit of %d)", r.PidsLimit)
		}
		parts = append(parts, s)
	}
	if r.LimitReached && r.OOMKills == 0 {
		times := ""
		if r.LimitHits > 0 {
			times = fmt.Sprintf(" %d times", r.LimitHits)
		}
		parts = append(parts, fmt.Sprintf("memory limit %s reached%s: the kernel reclaimed memory (page cache first) to stay under it, which can slow what was measured",
			formatLimit(r.MemoryLimit), times))
	}
	if r.OOMKills > 0 {
		s := fmt.Sprintf("the kernel's OOM killer killed %d process", r.OOMKills)
		if r.OOMKills > 1 {
			s += "es"
		}
		if r.MemoryLimit > 0 {
			s += " at the " + formatLimit(r.MemoryLimit) + " limit"
		}
		if r.PeakMemoryKnown {
			// As the out-of-memory error gives it: how near the limit
			// the child's processes came together.
			s += ", peak " + formatMiB(r.PeakMemory)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// threadFailureText is what the Go runtime prints when clone fails for a
// new M: with a pids limit, the usual way a Go child meets it.
const threadFailureText = "runtime: failed to create new OS thread"

// OutOfMemoryError reports a child whose root the kernel's OOM killer
// killed (SIGKILL with an OOM kill counted in its cgroup).
type OutOfMemoryError struct {
	Limit int64 // bytes; 0 when the child had no limit of its own
	Peak  int64 // bytes; valid when PeakKnown
	// PeakKnown is false when the peak could not be read.
	PeakKnown bool
	// Inferred says that the kernel keeps no OOM kill counter here and the
	// class rests on the limit having been hit (memory.failcnt) and the
	// SIGKILL.
	Inferred bool
	// StderrTail: see ExitError.
	StderrTail string
}

func (e *OutOfMemoryError) Error() string { return prefix + e.Detail() }

// Detail is Error without the package's prefix (see Detailer).
func (e *OutOfMemoryError) Detail() string {
	s := "out of memory: killed by the kernel"
	if e.Limit > 0 {
		s += " at the " + formatLimit(e.Limit) + " limit"
	}
	if e.PeakKnown {
		s += fmt.Sprintf(", peak %s", formatMiB(e.Peak))
	}
	if e.Inferred {
		s += " (inferred: SIGKILL after the limit was hit; this kernel counts no OOM kills)"
	}
	return s
}

// Unwrap returns ErrOutOfMemory.
func (e *OutOfMemoryError) Unwrap() error { return ErrOutOfMemory }

// formatLimit writes a limit as it is usually given: "64 MiB" when it is a
// whole number of KiB, MiB, GiB or TiB, otherwise "N bytes".
func formatLimit(n int64) string {
	units := []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}}
	for _, u := range units {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// formatMiB writes a measured amount in MiB with one decimal.
func formatMiB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// checkLimits refuses negative limits, and limits this host cannot apply.
func checkLimits(cfg *Config, sup LimitSupport) error {
	if cfg.MemoryLimit < 0 {
		return &ConfigError{Field: "MemoryLimit", Reason: fmt.Sprintf("negative limit %d", cfg.MemoryLimit)}
	}
	if cfg.PidsLimit < 0 {
		return &ConfigError{Field: "PidsLimit", Reason: fmt.Sprintf("negative limit %d", cfg.PidsLimit)}
	}
	if cfg.MemoryLimit == 0 && cfg.PidsLimit == 0 {
		return nil
	}
	if cfg.Cgroup == CgroupOff {
		field := "MemoryLimit"
		if cfg.MemoryLimit == 0 {
			field = "PidsLimit"
		}
		return &ConfigError{Field: field, Reason: "a limit needs a cgroup, and Cgroup is CgroupOff"}
	}
	if cfg.MemoryLimit > 0 && sup.Memory == "" {
		return &ConfigError{Field: "MemoryLimit", Reason: "no writable memory controller: " + sup.MemoryNote}
	}
	if cfg.PidsLimit > 0 && sup.Pids == "" {
		return &ConfigError{Field: "PidsLimit", Reason: "no writable pids controller: " + sup.PidsNote}
	}
	return nil
}
