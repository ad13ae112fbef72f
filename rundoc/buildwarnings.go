package rundoc

import (
	"fmt"
	"strings"
)

// BuildFlagWarnings returns, for a benchmark run's build flags (Meta's
// BuildFlags), one warning for each flag that makes the measured code other
// than what users run: the race detector, the memory and address
// sanitizers and coverage instrument every access or block, and -gcflags
// with -N or -l turns off the optimizer or inlining. The numbers of such a
// build are honest measurements of another program; the warning says so
// wherever the numbers go (docs/design.md#build-flags). Nil when none.
func BuildFlagWarnings(flags []string) []string {
	var out []string
	cover := false
	for _, f := range flags {
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		on := !hasValue || value != "false"
		switch name {
		case "race":
			if on {
				out = append(out, "built with -race: the race detector instruments every memory access; these numbers are not those of the code users run")
			}
		case "msan", "asan":
			if on {
				out = append(out, fmt.Sprintf("built with -%s: the sanitizer instruments every memory access; these numbers are not those of the code users run", name))
			}
		case "cover", "covermode", "coverpkg":
			if on && !cover {
				cover = true
				out = append(out, fmt.Sprintf("built with -%s: coverage counters are added to every block; these numbers are not those of the code users run", name))
			}
		case "gcflags":
			if w := gcflagsWarning(value); w != "" {
				out = append(out, w)
			}
		}
	}
	return out
}

// gcflagsWarning is the warning for a -gcflags value whose compiler flags
// include -N (optimizations off) or -l (inlining off), whatever package
// pattern prefixes them (-gcflags=all=-N -l); "" otherwise.
func gcflagsWarning(value string) string {
	flags := value
	if pattern, rest, ok := strings.Cut(value, "="); ok && !strings.HasPrefix(pattern, "-") {
		flags = rest // pattern=flags
	}
	var off []string
	for _, f := range strings.Fields(flags) {
		switch strings.TrimLeft(f, "-") {
		case "N":
			off = append(off, "-N disables optimizations")
		case "l":
			off = append(off, "-l disables inlining")
		}
	}
	if len(off) == 0 {
		return ""
	}
	return "built with -gcflags=" + value + ": " + strings.Join(off, ", ") + "; these numbers are not those of the code users run"
}
