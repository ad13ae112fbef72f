//go:build linux

package supervisor

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/record"
)

// recordRegion is one child's shared region (docs/design.md#recording):
// a memfd, or where there is none an unlinked private file in dir, mapped
// here and inherited by the child.
type recordRegion struct {
	f   *os.File
	mem []byte
	rd  *record.Reader
}

// memfdCreate is unix.MemfdCreate; a test makes it fail.
var memfdCreate = unix.MemfdCreate

func newRecordRegion(dir string) (*recordRegion, error) {
	var f *os.File
	if fd, err := memfdCreate("benchsup-record", unix.MFD_CLOEXEC); err == nil {
		f = os.NewFile(uintptr(fd), "benchsup-record")
	} else {
		pf, perr := os.CreateTemp(dir, "record-*")
		if perr != nil {
			return nil, fmt.Errorf("shared region: memfd_create: %v; private file: %w", err, perr)
		}
		_ = os.Remove(pf.Name()) // private: only the descriptors reach it
		f = pf
	}
	if err := f.Truncate(record.RegionSize); err != nil {
		f.Close()
		return nil, fmt.Errorf("shared region: %w", err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, record.RegionSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("shared region: mmap: %w", err)
	}
	if err := record.InitRegion(mem); err != nil {
		_ = unix.Munmap(mem)
		f.Close()
		return nil, err
	}
	rd, err := record.NewReader(mem)
	if err != nil {
		_ = unix.Munmap(mem)
		f.Close()
		return nil, err
	}
	return &recordRegion{f: f, mem: mem, rd: rd}, nil
}

func (r *recordRegion) close() {
	_ = unix.Munmap(r.mem)
	r.f.Close()
}
