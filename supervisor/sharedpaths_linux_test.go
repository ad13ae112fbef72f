package supervisor

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchsup/benchsup/host"
)

// The coverage profile is placed, not written through: in a sticky
// world-writable directory another user's link at its name is refused and
// its target untouched; this user's own link is followed, as before.
func TestPlaceFile(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: the planted link must belong to another user (chown)")
	}
	base := t.TempDir()
	shared := filepath.Join(base, "tmp")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(shared, 0o777))
	must(os.Chmod(shared, 0o777|os.ModeSticky))
	src := filepath.Join(base, "merged")
	must(os.WriteFile(src, []byte("mode: set\n"), 0o600))
	victim := filepath.Join(base, "victim")
	must(os.WriteFile(victim, []byte("precious\n"), 0o600))
	planted := filepath.Join(shared, "c.out")
	must(os.Symlink(victim, planted))
	must(os.Lchown(planted, 65534, 65534))

	if err := placeFile(src, planted); !errors.Is(err, host.ErrUnsafePath) {
		t.Errorf("placeFile over another user's link: %v", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("the link's target holds %q", data)
	}
	if ents, _ := os.ReadDir(shared); len(ents) != 1 {
		t.Errorf("%s holds %d entries, want the planted link alone", shared, len(ents))
	}

	mine := filepath.Join(shared, "mine.out")
	own := filepath.Join(base, "own.out")
	must(os.Symlink(own, mine))
	must(placeFile(src, mine))
	if data, _ := os.ReadFile(own); string(data) != "mode: set\n" {
		t.Errorf("through this user's link: %q", data)
	}
	if fi, err := os.Stat(own); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("placed profile mode %v, %v; want 0644", fi.Mode(), err)
	}
}
