//go:build !linux

package sources

import (
	"fmt"
	"runtime"
)

// Every source is Linux-only for now. Elsewhere each reports its absence, so
// that a run on another OS still says what it could not measure and why.
func platformSources() []source {
	return []source{
		unsupported{SourcePerfHW, CapCounting},
		unsupported{SourcePerfSW, CapCounting},
		unsupported{SourceTier0, CapCounting},
		unsupported{SourceSyscalls, CapEventTracing},
		unsupported{SourceRaw, CapRawEvents},
	}
}

type unsupported struct {
	src string
	cap Capability
}

func (u unsupported) name() string { return u.src }

func (u unsupported) reason() string {
	return fmt.Sprintf("the %s source is implemented for Linux only (this is %s/%s)", u.src, runtime.GOOS, runtime.GOARCH)
}

func (u unsupported) probe(Options) Report {
	var metrics []string
	for _, d := range catalog {
		if d.Source == u.src {
			metrics = append(metrics, d.Name)
		}
	}
	return unavailableReport(u.src, Absence{Capability: u.cap, Metrics: metrics, Reason: u.reason()})
}

func (u unsupported) open(want []string, _ Options) (Counter, []Absence) {
	return nil, absentAll(u.cap, want, u.reason())
}

// unavailableReport is the report of a source that can measure nothing here.
func unavailableReport(src string, a Absence) Report {
	return Report{Source: src, Absences: []Absence{a}}.finish()
}
