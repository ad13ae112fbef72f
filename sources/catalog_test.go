package sources

import (
	"strings"
	"testing"
)

func TestCatalogShape(t *testing.T) {
	cat := Catalog()
	if cat[0].Name != "instructions" {
		t.Errorf("first entry %q, want instructions", cat[0].Name)
	}
	order := map[string]int{SourcePerfHW: 0, SourcePerfSW: 1, SourceTier0: 2, SourceSyscalls: 3, SourceRaw: 4}
	seen := map[string]bool{}
	last := 0
	for _, d := range cat {
		rank, ok := order[d.Source]
		if !ok {
			t.Errorf("%s: unknown source %q", d.Name, d.Source)
		}
		if rank < last {
			t.Errorf("%s (%s) out of source order", d.Name, d.Source)
		}
		last = rank
		if seen[d.Name] {
			t.Errorf("%s listed twice", d.Name)
		}
		seen[d.Name] = true
		if d.Header == "" || (d.Class != Quantitative && d.Class != Diagnostic) {
			t.Errorf("%s: incomplete descriptor %+v", d.Name, d)
		}
		switch d.Format {
		case FormatCount, FormatRatio, FormatBytes, FormatDuration:
		default:
			t.Errorf("%s: format %q", d.Name, d.Format)
		}
		if (d.Unit == "") != (d.Name == "ipc" || d.Name == "maxrss") {
			t.Errorf("%s: unit %q", d.Name, d.Unit)
		}
	}
	for _, p := range []string{"syscalls:<name>", "raw:r<hex>"} {
		if !seen[p] {
			t.Errorf("no pattern entry %s", p)
		}
	}
	// Catalog returns a copy.
	cat[0].Name = "x"
	if Catalog()[0].Name != "instructions" {
		t.Error("Catalog's result aliases the catalog")
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		in, name, header, source string
		ok                       bool
	}{
		{"ipc", "ipc", "ipc", SourcePerfHW, true},
		{"syscalls:read", "syscalls:read", "sc:read", SourceSyscalls, true},
		{"sc:pread64", "syscalls:pread64", "sc:pread64", SourceSyscalls, true},
		{"raw:r00C0", "raw:r00c0", "r00c0", SourceRaw, true},
		{"raw:rxyz", "", "", "", false},
		{"syscalls:<name>", "", "", "", false},
		{"sc:", "", "", "", false},
		{"nope", "", "", "", false},
	} {
		d, ok := Describe(tc.in)
		if ok != tc.ok || d.Name != tc.name || d.Header != tc.header || d.Source != tc.source {
			t.Errorf("Describe(%q) = %+v, %v", tc.in, d, ok)
		}
		if ok && (strings.HasPrefix(d.Name, "syscalls:") || strings.HasPrefix(d.Name, "raw:")) && d.Class != Diagnostic {
			t.Errorf("%s: instance class %s", d.Name, d.Class)
		}
	}
}
