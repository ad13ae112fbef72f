//go:build linux

package supervisor

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/record"
)

// recordRegion is one child's shared region (docs/design.md#recording):
// a memfd sealed against a change of size, mapped here and inherited by
// the child.
type recordRegion struct {
	f   *os.File
	mem []byte
	rd  *record.Reader
}

// memfdCreate is unix.MemfdCreate; a test makes it fail.
var memfdCreate = unix.MemfdCreate

func newRecordRegion() (*recordRegion, error) {
	// A memfd sealed against shrinking: the child holds a writable
	// descriptor of it, and a region it could truncate would fault
	// benchsup's next read of the mapping (SIGBUS), so there is no
	// fallback to a file, which cannot be sealed: without memfd the
	// spans stay in the program (its recorder keeps its own), said once.
	fd, err := memfdCreate("benchsup-record", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("shared region: memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "benchsup-record")
	if err := f.Truncate(record.RegionSize); err != nil {
		f.Close()
		return nil, fmt.Errorf("shared region: %w", err)
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_SEAL); err != nil {
		f.Close()
		return nil, fmt.Errorf("shared region: sealing its size: %w", err)
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
