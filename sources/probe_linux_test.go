//go:build linux

package sources

import (
	"encoding/json"
	"os"
	"testing"
)

// TestProbeThisHost checks the reports' invariants on the real host and
// logs them (go test -v -run ProbeThisHost shows what this host measures).
func TestProbeThisHost(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := fds()
	reps := Probe(Options{})
	if after := fds(); after != before {
		t.Errorf("Probe left %d descriptors open", after-before)
	}
	want := []string{SourcePerfHW, SourcePerfSW, SourceTier0, SourceSyscalls, SourceRaw}
	if len(reps) != len(want) {
		t.Fatalf("%d reports", len(reps))
	}
	for i, r := range reps {
		if r.Source != want[i] {
			t.Errorf("report %d is %s, want %s", i, r.Source, want[i])
		}
		if !r.Available && (r.Status == "" || len(r.Absences) == 0) {
			t.Errorf("%s unavailable without a reason: %+v", r.Source, r)
		}
		if r.Available && len(r.Capabilities) == 0 {
			t.Errorf("%s available with no capability", r.Source)
		}
		if len(r.Degraded) > 0 && r.Status == "" {
			t.Errorf("%s degraded without a status", r.Source)
		}
		for _, a := range r.Absences {
			if a.Reason == "" || a.Capability == "" {
				t.Errorf("%s: incomplete absence %+v", r.Source, a)
			}
		}
	}
	if !reps[2].Available {
		t.Errorf("tier0 unavailable: %+v", reps[2])
	}
	b, _ := json.MarshalIndent(reps, "", "  ")
	t.Logf("Probe on this host:\n%s", b)
}
