package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/benchsup/benchsup/host"
)

// In a directory other users can write (like /tmp), --json and --events
// follow no other user's link and write over no other user's file or
// FIFO: each is refused in one line, and what it leads to is untouched.
func TestOutputSharedDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: the planted entries must belong to another user (chown)")
	}
	const nobody = 65534
	base := t.TempDir()
	shared := filepath.Join(base, "tmp")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(base, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plant := func(name string, make func(p string) error) string {
		p := filepath.Join(shared, name)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := plant("link.json", func(p string) error { return os.Symlink(victim, p) })
	theirs := plant("theirs.json", func(p string) error { return os.WriteFile(p, []byte("theirs\n"), 0o666) })
	fifo := plant("fifo.json", func(p string) error { return syscall.Mkfifo(p, 0o666) })
	mine := filepath.Join(shared, "mine.json")
	if err := os.WriteFile(mine, []byte("old events\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{link, theirs, fifo} {
		for _, flag := range []string{"--json", "--events"} {
			t.Run(flag+" "+filepath.Base(path), func(t *testing.T) {
				var err error
				if flag == "--json" {
					var o *outputFile
					if o, err = createOutput(flag, path); err == nil {
						o.abort()
					}
				} else {
					var e *eventStream
					if e, err = openEvents(path, nil); err == nil {
						e.close()
					}
				}
				if !errors.Is(err, host.ErrUnsafePath) || !strings.HasPrefix(err.Error(), flag+" "+path+": cannot write there: ") || strings.Contains(err.Error(), "\n") {
					t.Errorf("err = %v; want one line refusing %s %s as unsafe", err, flag, path)
				}
			})
		}
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "precious\n" {
		t.Errorf("the link's target holds %q (%v)", data, err)
	}
	if data, err := os.ReadFile(theirs); err != nil || string(data) != "theirs\n" {
		t.Errorf("another user's file holds %q (%v)", data, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted link was replaced: %v, %v", fi.Mode(), err)
	}
	ents, _ := os.ReadDir(shared)
	if len(ents) != 4 {
		t.Errorf("%s holds %d entries, want the 4 it had: a temporary file was left", shared, len(ents))
	}

	// This user's own file there is written as before: --events starts it
	// afresh.
	e, err := openEvents(mine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.close(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(mine); len(data) != 0 {
		t.Errorf("--events left %q in this user's file, want it truncated", data)
	}
}
