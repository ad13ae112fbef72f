//go:build linux

package supervisor

import (
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/record"
)

// TestRecordRegion: a region is a memfd, or where memfd_create fails an
// unlinked private file; either is mapped, initialized and readable.
func TestRecordRegion(t *testing.T) {
	for _, memfd := range []bool{true, false} {
		name := map[bool]string{true: "memfd", false: "private file"}[memfd]
		t.Run(name, func(t *testing.T) {
			if !memfd {
				old := memfdCreate
				memfdCreate = func(string, int) (int, error) { return -1, unix.ENOSYS }
				defer func() { memfdCreate = old }()
			}
			dir := t.TempDir()
			reg, err := newRecordRegion(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer reg.close()
			fi, err := reg.f.Stat()
			if err != nil || fi.Size() != record.RegionSize {
				t.Errorf("region size %v (%v), want %d", fi.Size(), err, record.RegionSize)
			}
			link, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(reg.f.Fd())))
			if memfd != strings.HasPrefix(link, "/memfd:") {
				t.Errorf("region is %q", link)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the private file is still linked in %s", dir)
			}
			if ids := reg.rd.Identities(); len(ids) != 0 {
				t.Errorf("a fresh region has identities %v", ids)
			}
		})
	}
}

// TestRecordDrainDropsImpossibleCounts: the child writes its region, so a
// program that wrote over the identity table loses those identities,
// each named in a note, and keeps the run: a document with them would
// not validate.
func TestRecordDrainDropsImpossibleCounts(t *testing.T) {
	reg, err := newRecordRegion(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.close()
	// Two identities published, neither with a name: what zeroed or
	// scribbled entries read as.
	binary.NativeEndian.PutUint64(reg.mem[5*8:], 2)
	d, err := newSpanDrain(reg, record.Config{})
	if err != nil {
		t.Fatal(err)
	}
	go d.run()
	recs, notes, err := d.finish(func(record.SharedIdentity) string { return "prog" })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 0 || len(notes) != 2 || !strings.Contains(notes[0], "cannot be") {
		t.Errorf("recordings %v, notes %q; want none and two notes", recs, notes)
	}
}
