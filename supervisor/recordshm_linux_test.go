//go:build linux

package supervisor

import (
	"encoding/binary"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/record"
)

// TestRecordRegion: a region is a memfd sealed against a change of size
// (the child holds a writable descriptor: a region it shrank would fault
// benchsup's reads), mapped, initialized and readable; where memfd_create
// fails there is no region, and the error says why.
func TestRecordRegion(t *testing.T) {
	reg, err := newRecordRegion()
	if err != nil {
		t.Fatal(err)
	}
	defer reg.close()
	fi, err := reg.f.Stat()
	if err != nil || fi.Size() != record.RegionSize {
		t.Errorf("region size %v (%v), want %d", fi.Size(), err, record.RegionSize)
	}
	link, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(reg.f.Fd())))
	if !strings.HasPrefix(link, "/memfd:") {
		t.Errorf("region is %q", link)
	}
	if err := reg.f.Truncate(0); !errors.Is(err, unix.EPERM) {
		t.Errorf("truncating the region: %v, want EPERM (sealed)", err)
	}
	if err := reg.f.Truncate(2 * record.RegionSize); !errors.Is(err, unix.EPERM) {
		t.Errorf("growing the region: %v, want EPERM (sealed)", err)
	}
	if ids := reg.rd.Identities(); len(ids) != 0 {
		t.Errorf("a fresh region has identities %v", ids)
	}

	old := memfdCreate
	memfdCreate = func(string, int) (int, error) { return -1, unix.ENOSYS }
	defer func() { memfdCreate = old }()
	if _, err := newRecordRegion(); err == nil || !strings.Contains(err.Error(), "memfd_create") {
		t.Errorf("without memfd: %v, want an error naming memfd_create", err)
	}
}

// TestRecordDrainDropsImpossibleCounts: the child writes its region, so a
// program that wrote over the identity table loses those identities,
// each named in a note, and keeps the run: a document with them would
// not validate.
func TestRecordDrainDropsImpossibleCounts(t *testing.T) {
	reg, err := newRecordRegion()
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
