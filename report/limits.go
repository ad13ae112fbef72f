package report

import (
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// limitsText is the table's and the HTML summary's line for the limits:
// "memory 64 MiB (cgroup v1, swap off), pids 64 (cgroup v1) per child";
// empty when the run set none.
func limitsText(l *rundoc.Limits) string {
	if l == nil || (l.MemoryBytes <= 0 && l.Pids <= 0) {
		return ""
	}
	var parts []string
	if l.MemoryBytes > 0 {
		parts = append(parts, "memory "+limitSize(l.MemoryBytes)+" ("+cgroupText(l.MemoryCgroup)+", swap off)")
	}
	if l.Pids > 0 {
		parts = append(parts, "pids "+strconv.FormatInt(l.Pids, 10)+" ("+cgroupText(l.PidsCgroup)+")")
	}
	return strings.Join(parts, ", ") + " per child"
}

func cgroupText(version string) string {
	if version == "" {
		return "no cgroup"
	}
	return "cgroup " + version
}

// limitSize writes a limit exactly, in the largest binary unit that
// divides it, as --memory-limit accepts it back (64 MiB, 1536 KiB).
func limitSize(n int64) string {
	for _, u := range byteUnits {
		if size := int64(u.scale); n%size == 0 {
			return strconv.FormatInt(n/size, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
