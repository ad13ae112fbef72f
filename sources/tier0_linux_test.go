//go:build linux

package sources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var allTier0 = []string{"cpu-user", "cpu-sys", "minflt", "majflt", "nvcsw", "nivcsw", "maxrss",
	"rchar", "wchar", "syscr", "syscw", "read-bytes", "write-bytes"}

func TestTier0Brackets(t *testing.T) {
	cs, abs := Open(allTier0, Options{})
	if len(cs) != 1 || len(abs) != 0 {
		t.Fatalf("counters %v, absences %+v", sourcesOf(cs), abs)
	}
	c := cs[0]
	defer c.Close()
	if rep := c.Report(); !rep.Available || !hasCap(rep, CapIOAccounting) || rep.Status != "" {
		t.Errorf("report %+v", rep)
	}
	if got := strings.Join(c.Metrics(), ","); got != strings.Join(allTier0, ",") {
		t.Errorf("Metrics() = %s", got)
	}
	path := filepath.Join(t.TempDir(), "f")
	payload := make([]byte, 8192)
	for bracket := 0; bracket < 2; bracket++ {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		touchPages(t, 128)
		if err := os.WriteFile(path, payload, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		r, err := c.Stop()
		if err != nil {
			t.Fatal(err)
		}
		checkShape(t, r, c.Metrics())
		for m, min := range map[string]float64{"minflt": 128, "wchar": 8192, "rchar": 8192, "syscw": 1, "syscr": 1, "maxrss": 1} {
			if r.Values[m] < min {
				t.Errorf("bracket %d: %s = %v, want at least %v", bracket, m, r.Values[m], min)
			}
		}
	}
}

func TestTier0WithoutProcIO(t *testing.T) {
	saved := sys.procIO
	sys.procIO = filepath.Join(t.TempDir(), "no-such-io")
	defer func() { sys.procIO = saved }()
	cs, abs := Open([]string{"minflt", "rchar", "write-bytes"}, Options{})
	if len(cs) != 1 {
		t.Fatalf("counters %v", sourcesOf(cs))
	}
	defer cs[0].Close()
	if len(abs) != 1 || abs[0].Capability != CapIOAccounting || absentMetrics(abs) != "rchar,write-bytes" ||
		!strings.Contains(abs[0].Reason, "no-such-io") || !strings.Contains(abs[0].Reason, "without task I/O accounting") {
		t.Fatalf("absences %+v", abs)
	}
	if got := strings.Join(cs[0].Metrics(), ","); got != "minflt" {
		t.Errorf("Metrics() = %s", got)
	}
	if rep := cs[0].Report(); hasCap(rep, CapIOAccounting) || !hasCap(rep, CapCounting) || len(rep.Absences) != 1 {
		t.Errorf("report %+v", rep)
	}
	r := bracket(t, cs[0])
	if _, ok := r.Values["rchar"]; ok {
		t.Error("rchar has a value without /proc/self/io")
	}
}

func TestTier0ProcIOMissingOneField(t *testing.T) {
	// A kernel with TASK_XACCT but no TASK_IO_ACCOUNTING fields, recorded.
	io := filepath.Join(t.TempDir(), "io")
	writeFile(t, io, "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\n")
	saved := sys.procIO
	sys.procIO = io
	defer func() { sys.procIO = saved }()
	cs, abs := Open([]string{"rchar", "read-bytes"}, Options{})
	if len(cs) != 1 || absentMetrics(abs) != "read-bytes" || !strings.Contains(abs[0].Reason, "no read_bytes field") {
		t.Fatalf("counters %v, absences %+v", sourcesOf(cs), abs)
	}
	defer cs[0].Close()
	r := bracket(t, cs[0])
	if v, ok := r.Values["rchar"]; !ok || v != 0 {
		t.Errorf("rchar of an unchanging recorded file = %v, %v; want 0", v, ok)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
