//go:build linux

package sources

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// mincoreChunk is how much of a file is mapped at once to ask mincore
// about it: it bounds the address space and the vector (one byte per page)
// a huge file would need. It is a multiple of every page size Linux uses,
// as mmap offsets must be.
const mincoreChunk = 256 << 20

// capFowner is CAP_FOWNER's bit in the capability sets.
const capFowner = 3

// mincore is the system call; tests replace it to play a host that refuses
// it (a seccomp filter, a kernel without it).
var mincore = sysMincore

// fileResidency returns how many of f's bytes are in the page cache.
func fileResidency(f *os.File, size int64) (int64, error) {
	if size == 0 {
		return 0, nil // nothing to map (mmap of length 0 is EINVAL)
	}
	if why := residencyHidden(f); why != "" {
		return 0, fmt.Errorf("%w: %s", ErrNoResidency, why)
	}
	ps := int64(syscall.Getpagesize())
	fd := int(f.Fd())
	first := int64(mincoreChunk)
	if size < first {
		first = size
	}
	vec := make([]byte, (first+ps-1)/ps)
	var resident int64
	for off := int64(0); off < size; off += mincoreChunk {
		n := size - off
		if n > mincoreChunk {
			n = mincoreChunk
		}
		m, err := syscall.Mmap(fd, off, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			return 0, fmt.Errorf("%w: mmap: %v", ErrNoResidency, err)
		}
		pages := (n + ps - 1) / ps
		err = mincore(unsafe.Pointer(&m[0]), uintptr(n), &vec[0])
		syscall.Munmap(m)
		if err != nil {
			return 0, fmt.Errorf("%w: mincore: %v", ErrNoResidency, err)
		}
		for i := int64(0); i < pages; i++ {
			if vec[i]&1 == 0 {
				continue
			}
			b := ps
			if end := off + (i+1)*ps; end > size {
				b -= end - size // the last page holds only the file's tail
			}
			resident += b
		}
	}
	return resident, nil
}

// residencyHidden says why mincore would not tell f's page-cache residency
// truthfully, or "" when it would. Since Linux 5.0 mincore reports the page
// cache of a file mapping only to a process that owns the file (or has
// CAP_FOWNER) or could open it for writing; for anyone else it reports only
// the pages mapped into its own page tables, which for a fresh mapping is
// nothing. That would read as "cold" whatever the cache holds, so such a
// file is reported as unobservable instead.
func residencyHidden(f *os.File) string {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return fmt.Sprintf("fstat: %v", err)
	}
	if int(st.Uid) == os.Geteuid() {
		return ""
	}
	if b, err := os.ReadFile(windowFiles.procStatus); err == nil {
		if caps, err := parseCapEff(b); err == nil && caps&(1<<capFowner) != 0 {
			return ""
		}
	}
	// Through /proc/self/fd, so that the check is of the file opened, not
	// of whatever its path names now.
	if faccessatEffective(atFDCWD, fmt.Sprintf("/proc/self/fd/%d", f.Fd()), wOK) == nil {
		return ""
	}
	return fmt.Sprintf("mincore reports page-cache residency only for files the process owns or may write (Linux 5.0 and later), and this file belongs to uid %d and is not writable", st.Uid)
}

// evictFile drops f's pages from the page cache. Dirty pages cannot be
// dropped, so fdatasync first writes them back and waits. DONTNEED is
// advice: the kernel keeps pages that are mapped, locked or under
// writeback, which the residency check afterwards reveals.
func evictFile(f *os.File) error {
	fd := int(f.Fd())
	// fdatasync on a read-only descriptor is allowed on Linux, and it
	// flushes the file's dirty pages whoever dirtied them.
	if err := syscall.Fdatasync(fd); err != nil {
		return fmt.Errorf("fdatasync: %v", err)
	}
	if err := fadvise(fd, 0, 0, fadvDontneed); err != nil {
		return fmt.Errorf("posix_fadvise(POSIX_FADV_DONTNEED): %v", err)
	}
	return nil
}

// preloadFile brings f into the page cache. WILLNEED starts asynchronous
// readahead of the whole file, so the read-through that follows mostly
// waits on I/O already in flight; the read-through is what makes it
// certain, since WILLNEED may be cut short.
func preloadFile(f *os.File) error {
	if err := fadvise(int(f.Fd()), 0, 0, fadvWillneed); err != nil {
		return fmt.Errorf("posix_fadvise(POSIX_FADV_WILLNEED): %v", err)
	}
	if err := readThrough(f); err != nil {
		return fmt.Errorf("read-through: %v", err)
	}
	return nil
}

// File system magic numbers (statfs f_type, include/uapi/linux/magic.h):
// memoryOnlyFS are those whose file pages live in memory only, the rest
// name a few common disk-backed ones in notes.
var (
	memoryOnlyFS = map[uint32]string{
		0x01021994: "tmpfs",
		0x858458f6: "ramfs",
		0x958458f6: "hugetlbfs",
	}
	knownFS = map[uint32]string{
		0xef53:     "ext2/3/4",
		0x58465342: "xfs",
		0x9123683e: "btrfs",
		0x794c7630: "overlayfs",
		0x6969:     "nfs",
		0x65735546: "fuse",
		0x01021997: "9p",
		0x2fc12fc1: "zfs",
		0xf2f52010: "f2fs",
	}
)

// statfsType is fstatfs's f_type of an open file; tests replace it to play
// a file system this host does not have.
var statfsType = func(fd int) (uint32, error) {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(fd, &st); err != nil {
		return 0, err
	}
	return uint32(st.Type), nil
}

// fileSystem names the file system f is on, and says whether it keeps file
// pages in memory only (so that no eviction is possible).
func fileSystem(f *os.File) (name string, memoryOnly bool) {
	t, err := statfsType(int(f.Fd()))
	if err != nil {
		return fmt.Sprintf("file system unknown: fstatfs: %v", err), false
	}
	if n, ok := memoryOnlyFS[t]; ok {
		return n, true
	}
	if n, ok := knownFS[t]; ok {
		return fmt.Sprintf("%s, f_type 0x%x", n, t), false
	}
	return fmt.Sprintf("f_type 0x%x", t), false
}
