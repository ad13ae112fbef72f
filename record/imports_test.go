package record

import (
	"go/build"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/protocol"
)

// TestEnvFDIsTheSandboxs: the name record reads its region's descriptor
// from is the one the sandbox sets (protocol.EnvRecordFD); record declares
// its own so as to import nothing of benchsup's.
func TestEnvFDIsTheSandboxs(t *testing.T) {
	if EnvFD != protocol.EnvRecordFD {
		t.Fatalf("record.EnvFD is %q, the sandbox sets %q", EnvFD, protocol.EnvRecordFD)
	}
}

// TestStandardLibraryOnly: the package's own files import nothing outside
// the standard library, so importing it adds nothing to a program's build.
func TestStandardLibraryOnly(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.Imports) == 0 {
		t.Fatal("no imports read")
	}
	for _, p := range pkg.Imports {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			t.Errorf("imports %s, which is not the standard library", p)
		}
	}
}
