//go:build linux

package sources

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// syscallSource counts system calls with the kernel's syscall tracepoints:
// raw_syscalls:sys_enter for the total, and syscalls:sys_enter_<name> for one
// syscall, which needs no filter and no syscall-number table at run time. It
// needs a readable tracefs, to learn the tracepoints' ids.
type syscallSource struct{}

// syscallKernelOnly: the generic raw_syscalls tracepoint hands perf kernel
// registers, so an exclude_kernel event never sees it fire. The per-syscall
// tracepoints hand it the caller's user registers and still count.
var syscallKernelOnly = map[string]string{
	"syscalls": "raw_syscalls:sys_enter fires with kernel-mode registers",
}

func (syscallSource) name() string { return SourceSyscalls }

func (syscallSource) plan(want []string) perfPlan {
	var pl perfPlan
	root, err := findTracefs()
	if err != nil {
		pl.absences = absentAll(CapEventTracing, want, err.Error())
		return pl
	}
	var events []perfEvent
	for _, m := range want {
		rel := filepath.Join("events", "raw_syscalls", "sys_enter", "id")
		if m != "syscalls" {
			rel = filepath.Join("events", "syscalls", "sys_enter_"+strings.TrimPrefix(m, syscallPrefix), "id")
		}
		id, err := tracepointID(filepath.Join(root, rel))
		if err != nil {
			pl.absences = append(pl.absences, Absence{Capability: CapEventTracing, Metrics: []string{m}, Reason: "no tracepoint: " + err.Error()})
			continue
		}
		events = append(events, perfEvent{m, perfTypeTracepoint, id})
	}
	if len(events) == 0 {
		return pl
	}
	t, err := settle(events, false)
	if err != nil {
		pl.absences = append(pl.absences, absentAll(CapEventTracing, metricsOf(events), err.Error())...)
		return pl
	}
	t.g.close()
	pl.events, pl.mode = t.events, t.mode
	pl.absences = append(pl.absences, t.drops...)
	pl.caps = []Capability{CapEventTracing}
	pl.userOnlyNotes(SourceSyscalls)
	pl.dropKernelOnly(syscallKernelOnly)
	return pl
}

// findTracefs returns the first tracefs root whose raw_syscalls tracepoint
// id is readable, or an error naming every path tried and what it found.
func findTracefs() (string, error) {
	var tried []string
	for _, root := range sys.tracefs {
		p := filepath.Join(root, "events", "raw_syscalls", "sys_enter", "id")
		if _, err := tracepointID(p); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		return root, nil
	}
	msg := "tracefs not readable: " + strings.Join(tried, "; ")
	if mounted, err := tracefsMounted(); err == nil && !mounted {
		msg += fmt.Sprintf(" (no tracefs in %s; mount -t tracefs nodev /sys/kernel/tracing)", sys.mounts)
	}
	return "", errors.New(msg)
}

// tracefsMounted reports whether the mount table lists a tracefs.
func tracefsMounted() (bool, error) {
	b, err := os.ReadFile(sys.mounts)
	if err != nil {
		return false, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if f := bytes.Fields(line); len(f) >= 3 && string(f[2]) == "tracefs" {
			return true, nil
		}
	}
	return false, nil
}

func tracepointID(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	id, err := parseTracepointID(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	return id, nil
}

func (s syscallSource) probe(Options) Report {
	r := probeReport(SourceSyscalls, s.plan([]string{"syscalls"}))
	for i, a := range r.Absences {
		if a.Capability == CapEventTracing && len(a.Metrics) == 1 && a.Metrics[0] == "syscalls" {
			// Without tracefs the per-syscall counts are out as well.
			r.Absences[i].Metrics = []string{"syscalls", syscallPattern}
		}
	}
	return r
}

func (s syscallSource) open(want []string, _ Options) (Counter, []Absence) {
	return openPlan(SourceSyscalls, s.plan(want), want, false)
}
