//go:build linux

package sources

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestSyscallsWithoutTracefs(t *testing.T) {
	k := useFake(t, newFakePerf())
	reps := Probe(Options{})
	r := reportOf(t, reps, SourceSyscalls)
	if r.Available || len(r.Absences) != 1 || r.Absences[0].Capability != CapEventTracing {
		t.Fatalf("report %+v", r)
	}
	for _, want := range append(k.tracefs, "raw_syscalls/sys_enter/id", "no tracefs in "+k.mounts) {
		if !strings.Contains(r.Status, want) {
			t.Errorf("status %q lacks %q", r.Status, want)
		}
	}
	if got := strings.Join(r.Absences[0].Metrics, ","); got != "syscalls,syscalls:<name>" {
		t.Errorf("absent metrics %s", got)
	}
	cs, abs := Open([]string{"syscalls:read"}, Options{})
	if len(cs) != 0 || absentMetrics(abs) != "syscalls:read" {
		t.Errorf("counters %v, absences %+v", sourcesOf(cs), abs)
	}
}

func TestSyscallsWithTracefs(t *testing.T) {
	f := newFakePerf()
	k := useFake(t, f)
	root := k.tracefs[1] // the debugfs location: the first is tried and missing
	writeFile(t, filepath.Join(root, "events/raw_syscalls/sys_enter/id"), "17\n")
	writeFile(t, filepath.Join(root, "events/syscalls/sys_enter_read/id"), "600\n")
	if r := reportOf(t, Probe(Options{}), SourceSyscalls); !r.Available || !hasCap(r, CapEventTracing) {
		t.Fatalf("report %+v", r)
	}
	f.opens = nil
	cs, abs := Open([]string{"syscalls", "syscalls:read", "sc:write"}, Options{})
	if len(cs) != 1 {
		t.Fatalf("counters %v, absences %+v", sourcesOf(cs), abs)
	}
	defer closeAll(cs)
	if absentMetrics(abs) != "syscalls:write" || !strings.Contains(abs[0].Reason, "sys_enter_write") {
		t.Errorf("absences %+v", abs)
	}
	configs := map[uint64]bool{}
	for _, o := range f.opens {
		if o.attr.Type != perfTypeTracepoint {
			t.Errorf("opened type %d", o.attr.Type)
		}
		configs[o.attr.Config] = true
	}
	if !configs[17] || !configs[600] || len(configs) != 2 {
		t.Errorf("tracepoint configs %v, want 17 and 600", configs)
	}
	r := bracket(t, cs[0])
	if _, ok := r.Values["syscalls:read"]; !ok {
		t.Errorf("reading %+v", r)
	}
}

func TestSyscallsUserOnlyLosesTheTotal(t *testing.T) {
	f := newFakePerf()
	f.openErr = func(a *perfEventAttr, pid, groupFD int) error {
		if a.Bits&perfBitExcludeKernel == 0 {
			return unix.EACCES
		}
		return nil
	}
	k := useFake(t, f)
	writeFile(t, filepath.Join(k.tracefs[0], "events/raw_syscalls/sys_enter/id"), "17\n")
	writeFile(t, filepath.Join(k.tracefs[0], "events/syscalls/sys_enter_read/id"), "600\n")
	cs, abs := Open([]string{"syscalls", "syscalls:read"}, Options{})
	defer closeAll(cs)
	if len(cs) != 1 || absentMetrics(abs) != "syscalls" || !strings.Contains(abs[0].Reason, "kernel-mode registers") {
		t.Fatalf("counters %v, absences %+v", sourcesOf(cs), abs)
	}
}

func TestSyscallTable(t *testing.T) {
	want := map[string]map[string]int{
		"amd64": {"read": 0, "write": 1, "openat": 257},
		"arm64": {"read": 63, "write": 64, "openat": 56},
	}[runtime.GOARCH]
	if want == nil {
		t.Skipf("no syscall table for linux/%s", runtime.GOARCH)
	}
	for name, nr := range want {
		if got, ok := syscallNumbers[name]; !ok || got != nr {
			t.Errorf("%s = %d, %v; want %d", name, got, ok, nr)
		}
	}
	for name := range syscallNumbers {
		if err := syntaxErr(name); err != nil {
			t.Errorf("table name %q: %v", name, err)
		}
	}
}
