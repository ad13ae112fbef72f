package integration

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/rundoc"
)

// testLayout: in a benchmark run, every function of the measured package
// sits at the offset modulo the page that go test's own build of the
// package gives it (docs/design.md#layout), and the document says so.
func testLayout(t *testing.T) {
	endToEnd(t)
	if runtime.GOOS != "linux" {
		t.Skip("the layout is compared in ELF binaries")
	}
	mod := fixtureModule(t, "layout")
	jsonOut := filepath.Join(t.TempDir(), "run.json")
	cmd := exec.Command(filepath.Join(binDir, "benchsup"), "run", "--bench", "--repetitions=1", "--sample-time=10ms", "--metrics=none", "--json="+jsonOut, ".")
	cmd.Dir = mod
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("benchsup: %v\n%s", err, out)
	}
	doc := readJSON[rundoc.Document](t, jsonOut)
	builds := doc.Meta.Provenance.Builds
	if len(builds) != 1 || builds[0].Binary == "" {
		t.Fatalf("want one build with its binary kept, got %+v", builds)
	}
	if !strings.Contains(builds[0].Layout, "at go test's offset modulo 4096") {
		t.Errorf("layout %q: want the package at go test's offset", builds[0].Layout)
	}
	plain := filepath.Join(t.TempDir(), "plain.test")
	build := exec.Command("go", "test", "-c", "-o", plain, ".")
	build.Dir = mod
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	want, got := pageOffsets(t, plain, "example.com/layout."), pageOffsets(t, builds[0].Binary, "example.com/layout.")
	if len(want) == 0 {
		t.Fatal("no function of example.com/layout in go test's binary")
	}
	for name, off := range want {
		if got[name] != off {
			t.Errorf("%s at offset %d of its page in benchsup's binary, %d in go test's", name, got[name], off)
		}
	}
}

// pageOffsets returns the offset in its page of every function of bin
// whose name starts with prefix.
func pageOffsets(t *testing.T, bin, prefix string) map[string]uint64 {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && strings.HasPrefix(s.Name, prefix) {
			out[s.Name] = s.Value % 4096
		}
	}
	return out
}
