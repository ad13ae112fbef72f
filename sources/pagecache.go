package sources

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Page-cache regimes for workloads.
//
// A workload that reads files measures a different thing depending on
// whether they are in the page cache: a cold run measures the disk, a warm
// one memory. Prepare brings the files a workload names to the regime it
// asks for, right before its window, and verifies the result with mincore,
// so that a window is stamped with what was requested and what was in
// effect. It acts on the named files only. It never writes
// /proc/sys/vm/drop_caches or does anything else system-wide: that would
// evict every other process's cache (and needs root), and the effect on the
// named files is all a window's stamp can vouch for anyway.

// Regime is a page-cache state a workload asks for.
type Regime string

const (
	// RegimeCold: none of the files is in the page cache.
	RegimeCold Regime = "cold"
	// RegimeWarm: all of the files are in the page cache.
	RegimeWarm Regime = "warm"
	// RegimeSteady: whatever state earlier runs left; Prepare does
	// nothing but record it.
	RegimeSteady Regime = "steady"

	// RegimePartial is only ever an effective regime: cold or warm was
	// asked for and only part of it was achieved (Stamp.Note says why).
	RegimePartial Regime = "partial"
	// RegimeUnverified is only ever an effective regime: the preparation
	// was done but residency cannot be observed here (Stamp.Note says
	// why).
	RegimeUnverified Regime = "unverified"
	// RegimeNotEvictable is only ever an effective regime: cold was asked
	// for, and the files' pages cannot be evicted here. A memory-only file
	// system (tmpfs, ramfs) has no disk copy to drop them to, and some file
	// systems ignore POSIX_FADV_DONTNEED; either way the window reads
	// memory, not a disk, and Stamp.Note says which it was.
	RegimeNotEvictable Regime = "not-evictable"
)

// evict drops a file's pages from the page cache (evictFile); tests
// replace it to play a file system that ignores the advice.
var evict = evictFile

// ErrNoResidency is wrapped by Resident's error when page-cache residency
// cannot be observed for a file here (no mincore, a file system that cannot
// be mapped, a file whose residency the kernel hides from this process). It
// is an absence, not a failure: Prepare turns it into an unverified stamp.
var ErrNoResidency = errors.New("page-cache residency cannot be observed")

// Residency is how much of some files is in the page cache.
type Residency struct {
	// ResidentBytes counts each resident page as a whole page, except a
	// file's last page, which counts only the file bytes it holds: so
	// ResidentBytes <= TotalBytes, and equal when every page is resident.
	ResidentBytes int64
	// TotalBytes is the sum of the files' sizes.
	TotalBytes int64
}

// Resident measures how much of the files is in the page cache, by mapping
// each file and asking mincore about every page of it (mapping does not
// fault pages in, so the measurement does not change what it measures).
// When residency cannot be observed the error wraps ErrNoResidency.
func Resident(paths ...string) (Residency, error) {
	files, sizes, err := openRegular(paths)
	if err != nil {
		return Residency{}, err
	}
	defer closeFiles(files)
	return residency(files, sizes)
}

// Stamp is what Prepare did and verified: the regime requested, the one in
// effect afterwards, and the resident bytes before and after.
type Stamp struct {
	Requested, Effective Regime
	// ResidentBefore and ResidentAfter are -1 when residency could not be
	// observed (Effective is then RegimeUnverified, or RegimeSteady with a
	// Note): -1 is "not measured", never a residency.
	ResidentBefore, ResidentAfter int64
	TotalBytes                    int64
	Note                          string
}

// Prepare brings the named files to a page-cache regime now:
//
//   - cold: fdatasync each file (dirty pages cannot be dropped), then
//     posix_fadvise(POSIX_FADV_DONTNEED) over the whole file;
//   - warm: posix_fadvise(POSIX_FADV_WILLNEED) (starts readahead), then
//     read each file through;
//   - steady: nothing.
//
// It measures residency before and after and returns the stamp. Effective
// is the requested regime when verified in full (cold: nothing resident
// after; warm: everything resident), RegimePartial when only part of it was
// achieved (the kernel keeps pages another process maps, or reclaim evicts
// what was read), RegimeUnverified when residency cannot be observed here;
// for steady it is steady. Cold is never claimed where eviction cannot
// work: for files on a memory-only file system (tmpfs, ramfs, hugetlbfs:
// statfs says which, whether or not residency can be observed), or when
// the advice evicted no page at all, Effective is RegimeNotEvictable. Note
// says why whenever Effective is not the regime requested, or residency
// was not observed.
//
// An error means Prepare could not do what was asked (an unknown regime, a
// file that cannot be opened or is not a regular file, a failing fdatasync,
// fadvise or read); the stamp returned with it holds what was known.
func Prepare(regime Regime, paths ...string) (Stamp, error) {
	st := Stamp{Requested: regime, ResidentBefore: -1, ResidentAfter: -1}
	switch regime {
	case RegimeCold, RegimeWarm, RegimeSteady:
	default:
		return st, fmt.Errorf("page-cache regime %q: want %q, %q or %q", regime, RegimeCold, RegimeWarm, RegimeSteady)
	}
	files, sizes, err := openRegular(paths)
	if err != nil {
		return st, err
	}
	defer closeFiles(files)
	for _, s := range sizes {
		st.TotalBytes += s
	}
	if len(files) == 0 {
		st.Effective, st.ResidentBefore, st.ResidentAfter = regime, 0, 0
		st.Note = "no files named"
		return st, nil
	}

	before, resErr := residency(files, sizes)
	if resErr != nil && !errors.Is(resErr, ErrNoResidency) {
		return st, resErr
	}
	if resErr == nil {
		st.ResidentBefore = before.ResidentBytes
	}

	// Files whose pages exist in memory only: cold cannot evict them.
	var inMemory []string
	for _, f := range files {
		var err error
		switch regime {
		case RegimeCold:
			if fs, memoryOnly := fileSystem(f); memoryOnly {
				inMemory = append(inMemory, fmt.Sprintf("%s is on %s", f.Name(), fs))
			}
			err = evict(f)
		case RegimeWarm:
			err = preloadFile(f)
		}
		if err != nil {
			return st, fmt.Errorf("preparing %s %s: %w", f.Name(), regime, err)
		}
	}

	if resErr == nil {
		var after Residency
		after, resErr = residency(files, sizes)
		if resErr != nil && !errors.Is(resErr, ErrNoResidency) {
			return st, resErr
		}
		if resErr == nil {
			st.ResidentAfter = after.ResidentBytes
		}
	}
	memoryOnly := ""
	if len(inMemory) > 0 {
		memoryOnly = strings.Join(inMemory, ", ") +
			", a file system that keeps file pages in memory only: with no disk copy to drop them to, POSIX_FADV_DONTNEED cannot evict them, so the window reads memory, not a disk"
	}
	if resErr != nil {
		st.ResidentBefore, st.ResidentAfter = -1, -1
		st.Effective = RegimeUnverified
		if regime == RegimeSteady {
			st.Effective = RegimeSteady
		}
		st.Note = "residency not verified: " + resErr.Error()
		if len(inMemory) == len(files) {
			st.Effective = RegimeNotEvictable
			st.Note = memoryOnly + "; " + st.Note
		} else if memoryOnly != "" {
			st.Note = memoryOnly + "; " + st.Note
		}
		return st, nil
	}

	switch {
	case regime == RegimeSteady:
		st.Effective = RegimeSteady
	case regime == RegimeCold && len(inMemory) == len(files):
		st.Effective = RegimeNotEvictable
		st.Note = memoryOnly
	case regime == RegimeCold && len(inMemory) > 0:
		st.Effective = RegimePartial
		st.Note = fmt.Sprintf("%d of %d bytes still resident after fdatasync and POSIX_FADV_DONTNEED: %s", st.ResidentAfter, st.TotalBytes, memoryOnly)
	case regime == RegimeCold && st.ResidentAfter == 0:
		st.Effective = RegimeCold
	case regime == RegimeCold && st.ResidentBefore > 0 && st.ResidentAfter >= st.ResidentBefore:
		// Not one page left: the advice had no effect at all.
		st.Effective = RegimeNotEvictable
		fs := make([]string, len(files))
		for i, f := range files {
			fs[i], _ = fileSystem(f)
		}
		st.Note = fmt.Sprintf("fdatasync and POSIX_FADV_DONTNEED evicted nothing: %d of %d bytes resident before, %d after; the file system (%s) ignores the advice, or another process maps or locks every page, so the window reads memory, not a disk",
			st.ResidentBefore, st.TotalBytes, st.ResidentAfter, strings.Join(slices.Compact(fs), ", "))
	case regime == RegimeWarm && st.ResidentAfter == st.TotalBytes:
		st.Effective = RegimeWarm
	case regime == RegimeCold:
		st.Effective = RegimePartial
		st.Note = fmt.Sprintf("%d of %d bytes still resident after fdatasync and POSIX_FADV_DONTNEED: the kernel keeps pages that a process has mapped, is writing back, or holds locked", st.ResidentAfter, st.TotalBytes)
	default:
		st.Effective = RegimePartial
		st.Note = fmt.Sprintf("%d of %d bytes resident after reading the files through: the kernel reclaimed the rest (memory pressure, a memory limit or proactive reclaim such as DAMON)", st.ResidentAfter, st.TotalBytes)
	}
	return st, nil
}

// openRegular opens every path for reading and returns the files with
// their sizes. Anything but a regular file is refused: the page-cache
// regime of a directory or a device means nothing to a workload.
func openRegular(paths []string) ([]*os.File, []int64, error) {
	files := make([]*os.File, 0, len(paths))
	sizes := make([]int64, 0, len(paths))
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			closeFiles(files)
			return nil, nil, err
		}
		fi, err := f.Stat()
		if err == nil && !fi.Mode().IsRegular() {
			err = fmt.Errorf("%s: not a regular file (%s)", p, fi.Mode().Type())
		}
		if err != nil {
			f.Close()
			closeFiles(files)
			return nil, nil, err
		}
		files = append(files, f)
		sizes = append(sizes, fi.Size())
	}
	return files, sizes, nil
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// residency sums fileResidency over open files.
func residency(files []*os.File, sizes []int64) (Residency, error) {
	var r Residency
	for i, f := range files {
		n, err := fileResidency(f, sizes[i])
		if err != nil {
			return Residency{}, fmt.Errorf("%s: %w", f.Name(), err)
		}
		r.ResidentBytes += n
		r.TotalBytes += sizes[i]
	}
	return r, nil
}

// readThrough reads f from start to end, which leaves its pages in the page
// cache (as far as memory allows). A large buffer keeps the syscall count,
// which a window does not see (prep precedes it) but which costs time, low.
func readThrough(f *os.File) error {
	buf := make([]byte, 1<<20)
	var off int64
	for {
		n, err := f.ReadAt(buf, off)
		off += int64(n)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
