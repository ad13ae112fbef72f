package sources

import (
	"fmt"
	"strconv"
	"strings"
)

// Descriptor is one catalog entry.
type Descriptor struct {
	// Name is the stable id used by --metrics and JSON: "instructions",
	// "ipc", "task-clock", "minflt", "syscalls:read", "raw:r00c0". A
	// parametric family has one pattern entry ("syscalls:<name>",
	// "raw:r<hex>"); Describe gives an instance its own descriptor.
	Name   string
	Header string // short column label
	// Unit is "/op" for a total that is divided by the iteration count;
	// "" for a value that is not (a level such as maxrss, a ratio such as
	// ipc).
	Unit    string
	Format  Format
	Class   Class
	Source  string // SourcePerfHW, SourcePerfSW, SourceTier0, SourceSyscalls or SourceRaw
	Default bool   // shown without --metrics
}

// The parametric families' pattern names and the prefixes of their
// instances.
const (
	syscallPattern = "syscalls:<name>"
	syscallPrefix  = "syscalls:"
	syscallAlias   = "sc:"
	rawPattern     = "raw:r<hex>"
	rawPrefix      = "raw:r"
)

// catalog is every metric benchsup knows. Its order is the order of columns
// and of Select's result: perf-hw first with instructions, the exact and
// host-stable anchor, first of all.
var catalog = []Descriptor{
	{"instructions", "instr", "/op", FormatCount, Quantitative, SourcePerfHW, true},
	{"cycles", "cycles", "/op", FormatCount, Quantitative, SourcePerfHW, false},
	{"ipc", "ipc", "", FormatRatio, Quantitative, SourcePerfHW, true},
	{"branches", "branches", "/op", FormatCount, Quantitative, SourcePerfHW, false},
	{"branch-misses", "br-miss", "/op", FormatCount, Quantitative, SourcePerfHW, true},
	{"cache-references", "cache-ref", "/op", FormatCount, Quantitative, SourcePerfHW, false},
	{"cache-misses", "cache-miss", "/op", FormatCount, Quantitative, SourcePerfHW, false},

	{"task-clock", "task-clock", "/op", FormatDuration, Quantitative, SourcePerfSW, true},
	{"page-faults", "faults", "/op", FormatCount, Quantitative, SourcePerfSW, false},
	// Scheduling counts describe the host's scheduler as much as the code.
	{"context-switches", "ctx-sw", "/op", FormatCount, Diagnostic, SourcePerfSW, false},
	{"cpu-migrations", "migr", "/op", FormatCount, Diagnostic, SourcePerfSW, false},

	// The kernel apportions rusage's total CPU time (exact) between user
	// and system mode from tick samples on most kernels, so the split is
	// an estimate: diagnostic. task-clock is the exact CPU time.
	{"cpu-user", "user", "/op", FormatDuration, Diagnostic, SourceTier0, false},
	{"cpu-sys", "sys", "/op", FormatDuration, Diagnostic, SourceTier0, false},
	{"minflt", "minflt", "/op", FormatCount, Quantitative, SourceTier0, true},
	{"majflt", "majflt", "/op", FormatCount, Quantitative, SourceTier0, false},
	{"nvcsw", "nvcsw", "/op", FormatCount, Diagnostic, SourceTier0, false},
	{"nivcsw", "nivcsw", "/op", FormatCount, Diagnostic, SourceTier0, false},
	// A process-wide high-water mark: a level, and not the body's own.
	{"maxrss", "maxrss", "", FormatBytes, Diagnostic, SourceTier0, false},
	{"rchar", "rchar", "/op", FormatBytes, Quantitative, SourceTier0, false},
	{"wchar", "wchar", "/op", FormatBytes, Quantitative, SourceTier0, false},
	{"syscr", "syscr", "/op", FormatCount, Quantitative, SourceTier0, true},
	{"syscw", "syscw", "/op", FormatCount, Quantitative, SourceTier0, false},
	{"read-bytes", "rd-bytes", "/op", FormatBytes, Quantitative, SourceTier0, false},
	{"write-bytes", "wr-bytes", "/op", FormatBytes, Quantitative, SourceTier0, false},

	// Enabling syscall tracepoints moves every system call of the process
	// onto the kernel's slower traced path: diagnostic.
	{"syscalls", "syscalls", "/op", FormatCount, Diagnostic, SourceSyscalls, false},
	{syscallPattern, "sc:<name>", "/op", FormatCount, Diagnostic, SourceSyscalls, false},

	// Raw events are model-specific and ride their own group.
	{rawPattern, "r<hex>", "/op", FormatCount, Diagnostic, SourceRaw, false},
}

// catalogIndex maps a concrete (non-pattern) name to its catalog position.
var catalogIndex = func() map[string]int {
	m := make(map[string]int, len(catalog))
	for i, d := range catalog {
		if !isPattern(d.Name) {
			m[d.Name] = i
		}
	}
	return m
}()

func isPattern(name string) bool { return strings.Contains(name, "<") }

// catalogNames returns the concrete names of src's metrics, in catalog
// order.
func catalogNames(src string) []string {
	var out []string
	for _, d := range catalog {
		if d.Source == src && !isPattern(d.Name) {
			out = append(out, d.Name)
		}
	}
	return out
}

// isConcrete reports whether name is a catalog entry's own (non-pattern) name.
func isConcrete(name string) bool {
	_, ok := catalogIndex[name]
	return ok
}

// Catalog returns every metric benchsup knows, in a stable order that does
// not depend on this host: perf-hw (instructions first), perf-sw, tier0,
// syscalls, raw. Each parametric family is one pattern entry.
func Catalog() []Descriptor {
	return append([]Descriptor(nil), catalog...)
}

// Describe returns the descriptor of a concrete metric name, including an
// instance of a parametric family ("syscalls:read", "sc:read", "raw:r00c0";
// its Name is then the canonical spelling). It reports false for unknown
// names, patterns, and malformed instances.
func Describe(name string) (Descriptor, bool) {
	if i, ok := catalogIndex[name]; ok {
		return catalog[i], true
	}
	if sc, ok := syscallInstance(name); ok {
		if syntaxErr(sc) != nil {
			return Descriptor{}, false
		}
		d := catalog[patternIndex(syscallPattern)]
		d.Name, d.Header = syscallPrefix+sc, syscallAlias+sc
		return d, true
	}
	if strings.HasPrefix(name, rawPrefix) {
		if _, err := parseRawConfig(name); err != nil {
			return Descriptor{}, false
		}
		d := catalog[patternIndex(rawPattern)]
		d.Name, d.Header = strings.ToLower(name), strings.ToLower(name[len("raw:"):])
		return d, true
	}
	return Descriptor{}, false
}

func patternIndex(p string) int {
	for i, d := range catalog {
		if d.Name == p {
			return i
		}
	}
	panic("sources: no catalog pattern " + p)
}

// syscallInstance returns the syscall a "syscalls:<name>" or "sc:<name>"
// selector names.
func syscallInstance(name string) (string, bool) {
	switch {
	case strings.HasPrefix(name, syscallPrefix):
		return name[len(syscallPrefix):], true
	case strings.HasPrefix(name, syscallAlias):
		return name[len(syscallAlias):], true
	}
	return "", false
}

// syntaxErr checks a syscall name's spelling: kernel syscall names are
// lower-case identifiers (read, pread64, _sysctl).
func syntaxErr(sc string) error {
	if sc == "" {
		return fmt.Errorf("no syscall named")
	}
	for _, r := range sc {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("%q is not a syscall name (lower-case letters, digits and _)", sc)
		}
	}
	return nil
}

// parseRawConfig returns the perf_event_attr.config of a "raw:r<hex>"
// selector: one to sixteen hexadecimal digits, the perf tool's rNNNN
// notation.
func parseRawConfig(name string) (uint64, error) {
	if !strings.HasPrefix(name, rawPrefix) {
		return 0, fmt.Errorf("%q is not a raw selector (raw:r<hex>)", name)
	}
	hex := name[len(rawPrefix):]
	if hex == "" || len(hex) > 16 {
		return 0, fmt.Errorf("raw selector %q: want 1 to 16 hexadecimal digits after raw:r", name)
	}
	v, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("raw selector %q: %q is not hexadecimal", name, hex)
	}
	return v, nil
}

// catalogRank orders concrete names and instances the way Select returns
// them: by their catalog entry, instances at their family's position.
func catalogRank(name string) int {
	if i, ok := catalogIndex[name]; ok {
		return i
	}
	if strings.HasPrefix(name, syscallPrefix) {
		return patternIndex(syscallPattern)
	}
	return patternIndex(rawPattern)
}
