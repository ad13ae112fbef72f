//go:build linux

package supervisor

import (
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
