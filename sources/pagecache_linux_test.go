//go:build linux

package sources

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// diskDir returns a directory on a disk-backed file system, where the page
// cache can be emptied and filled: t.TempDir unless that is tmpfs or ramfs
// (whose pages are always resident), then a directory under /var/tmp.
func diskDir(t *testing.T) string {
	t.Helper()
	memoryFS := func(dir string) (bool, string) {
		var fs unix.Statfs_t
		if err := unix.Statfs(dir, &fs); err != nil {
			t.Fatal(err)
		}
		switch uint32(fs.Type) { // int32 on 32-bit hosts, where RAMFS_MAGIC overflows it
		case unix.TMPFS_MAGIC:
			return true, "tmpfs"
		case unix.RAMFS_MAGIC:
			return true, "ramfs"
		}
		return false, ""
	}
	dir := t.TempDir()
	mem, kind := memoryFS(dir)
	if !mem {
		return dir
	}
	alt, err := os.MkdirTemp("/var/tmp", "benchsup-pagecache-")
	if err != nil {
		t.Skipf("t.TempDir is on %s and /var/tmp is unusable (%v): no disk-backed directory to test the page cache in", kind, err)
	}
	t.Cleanup(func() { os.RemoveAll(alt) })
	if mem, kind2 := memoryFS(alt); mem {
		t.Skipf("t.TempDir and /var/tmp are both in memory (%s, %s): no disk-backed directory to test the page cache in", kind, kind2)
	}
	return alt
}

func readBytes(t *testing.T) float64 {
	t.Helper()
	p, err := ReadProcessTimes()
	if err != nil {
		t.Fatal(err)
	}
	v, ok := p.Counts["read-bytes"]
	if !ok {
		t.Skipf("no read_bytes accounting: %s", p.IOAbsence)
	}
	return v
}

func TestPrepareColdThenWarm(t *testing.T) {
	const size = 8<<20 + 1000 // not a whole number of pages: the tail page counts its bytes only
	path := filepath.Join(diskDir(t), "workload.dat")
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// Just written, the file is in the cache (dirty): cold must write it
	// back before it can drop it.
	r, err := Resident(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalBytes != size || r.ResidentBytes != size {
		t.Errorf("freshly written: %+v, want all %d bytes resident", r, size)
	}

	cold, err := Prepare(RegimeCold, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cold stamp: %+v", cold)
	if cold.Requested != RegimeCold || cold.TotalBytes != size || cold.ResidentBefore != size {
		t.Errorf("cold stamp %+v", cold)
	}
	switch cold.Effective {
	case RegimeCold:
		if cold.ResidentAfter != 0 || cold.Note != "" {
			t.Errorf("cold stamp %+v", cold)
		}
		if r, err := Resident(path); err != nil || r.ResidentBytes != 0 {
			t.Errorf("after cold: %+v, %v", r, err)
		}
	case RegimePartial:
		if cold.Note == "" || cold.ResidentAfter <= 0 {
			t.Errorf("partial cold stamp without a reason: %+v", cold)
		}
	default:
		t.Fatalf("cold stamp %+v", cold)
	}

	before := readBytes(t)
	got, err := os.ReadFile(path)
	if err != nil || len(got) != size {
		t.Fatal(len(got), err)
	}
	coldRead := readBytes(t) - before
	t.Logf("reading the cold file: read_bytes +%.0f (file %d bytes)", coldRead, size)
	if cold.Effective == RegimeCold && (coldRead < size*0.9 || coldRead > size*2) {
		t.Errorf("reading the cold file: read_bytes grew by %.0f, want about %d", coldRead, size)
	}

	// Evict again, so that warm has something to do.
	if st, err := Prepare(RegimeCold, path); err != nil || st.ResidentBefore != size {
		t.Fatalf("second cold: %+v, %v", st, err)
	}
	warm, err := Prepare(RegimeWarm, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("warm stamp: %+v", warm)
	// The host may reclaim a page between the read and the count (this
	// VM runs DAMON, which pages out cold memory, and a run of the suite saw one
	// page of 2049 gone): warm then says partial, with its reason.
	missing := float64(size - warm.ResidentAfter)
	switch warm.Effective {
	case RegimeWarm:
		if warm.ResidentAfter != size || warm.TotalBytes != size || warm.Note != "" {
			t.Errorf("warm stamp %+v", warm)
		}
	case RegimePartial:
		if warm.Note == "" || warm.ResidentAfter <= 0 || warm.TotalBytes != size {
			t.Errorf("partial warm stamp without a reason: %+v", warm)
		}
	default:
		t.Fatalf("warm stamp %+v", warm)
	}
	if cold.Effective == RegimeCold && warm.ResidentBefore != 0 {
		t.Errorf("warm after cold: ResidentBefore %d", warm.ResidentBefore)
	}
	before = readBytes(t)
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	warmRead := readBytes(t) - before
	t.Logf("reading the warm file: read_bytes +%.0f", warmRead)
	if warmRead > missing+size/16 {
		t.Errorf("reading the warm file: read_bytes grew by %.0f, want about %.0f (what was not resident)", warmRead, missing)
	}

	steady, err := Prepare(RegimeSteady, path)
	if err != nil || steady.Effective != RegimeSteady || steady.ResidentBefore != size || steady.ResidentAfter != size {
		t.Errorf("steady: %+v, %v", steady, err)
	}
}

func TestPrepareSeveralFilesAndEdges(t *testing.T) {
	dir := diskDir(t)
	a, b, empty := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "empty")
	writeFile(t, a, strings.Repeat("a", 3*4096))
	writeFile(t, b, "b")
	writeFile(t, empty, "")

	st, err := Prepare(RegimeCold, a, b, empty)
	if err != nil || st.TotalBytes != 3*4096+1 || st.ResidentBefore != 3*4096+1 {
		t.Fatalf("cold: %+v, %v", st, err)
	}
	st, err = Prepare(RegimeWarm, a, b, empty)
	if err != nil || st.Effective != RegimeWarm || st.ResidentAfter != 3*4096+1 {
		t.Errorf("warm: %+v, %v", st, err)
	}
	if r, err := Resident(empty); err != nil || r != (Residency{}) {
		t.Errorf("empty file: %+v, %v", r, err)
	}
	if st, err := Prepare(RegimeWarm); err != nil || st.Effective != RegimeWarm || st.Note == "" {
		t.Errorf("no files: %+v, %v", st, err)
	}

	if _, err := Prepare("hot", a); err == nil || !strings.Contains(err.Error(), `"hot"`) {
		t.Errorf("unknown regime: %v", err)
	}
	missing := filepath.Join(dir, "missing")
	if _, err := Prepare(RegimeCold, a, missing); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Resident(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
}

func TestResidencyUnobservable(t *testing.T) {
	path := filepath.Join(diskDir(t), "x")
	writeFile(t, path, strings.Repeat("x", 10000))
	if why := residencyHidden(mustOpen(t, path)); why != "" {
		t.Errorf("own file hidden: %s", why)
	}

	// A host whose seccomp filter refuses mincore.
	saved := mincore
	defer func() { mincore = saved }()
	mincore = func(unsafe.Pointer, uintptr, *byte) error { return unix.ENOSYS }
	if r, err := Resident(path); !errors.Is(err, ErrNoResidency) || !strings.Contains(err.Error(), path) {
		t.Errorf("Resident without mincore: %+v, %v", r, err)
	}
	for _, regime := range []Regime{RegimeCold, RegimeWarm, RegimeSteady} {
		st, err := Prepare(regime, path)
		want := RegimeUnverified
		if regime == RegimeSteady {
			want = RegimeSteady
		}
		if err != nil || st.Effective != want || st.ResidentBefore != -1 || st.ResidentAfter != -1 ||
			st.TotalBytes != 10000 || !strings.Contains(st.Note, "mincore") {
			t.Errorf("%s without mincore: %+v, %v", regime, st, err)
		}
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestPrepareColdOnTmpfs prepares a file on tmpfs (/dev/shm) cold: its
// pages cannot be evicted, so the stamp must say so and never claim cold.
func TestPrepareColdOnTmpfs(t *testing.T) {
	var fs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &fs); err != nil {
		t.Skipf("no /dev/shm here (%v): no tmpfs to test on", err)
	}
	if uint32(fs.Type) != unix.TMPFS_MAGIC {
		t.Skipf("/dev/shm is not tmpfs here (f_type 0x%x)", uint32(fs.Type))
	}
	dir, err := os.MkdirTemp("/dev/shm", "benchsup-pagecache-")
	if err != nil {
		t.Skipf("/dev/shm is not writable: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "data")
	writeFile(t, path, strings.Repeat("s", 1<<20))

	st, err := Prepare(RegimeCold, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cold on tmpfs: %+v", st)
	if st.Requested != RegimeCold || st.Effective != RegimeNotEvictable {
		t.Errorf("cold on tmpfs: effective %q, want %q", st.Effective, RegimeNotEvictable)
	}
	for _, want := range []string{path, "tmpfs", "memory only", "cannot evict"} {
		if !strings.Contains(st.Note, want) {
			t.Errorf("note %q does not say %q", st.Note, want)
		}
	}
	if st.ResidentAfter != 1<<20 || st.TotalBytes != 1<<20 {
		t.Errorf("residency after %d of %d, want every byte resident", st.ResidentAfter, st.TotalBytes)
	}

	// With residency unobservable, statfs alone still forbids "cold".
	saved := mincore
	defer func() { mincore = saved }()
	mincore = func(unsafe.Pointer, uintptr, *byte) error { return unix.ENOSYS }
	st, err = Prepare(RegimeCold, path)
	if err != nil || st.Effective != RegimeNotEvictable || !strings.Contains(st.Note, "tmpfs") || !strings.Contains(st.Note, "mincore") {
		t.Errorf("cold on tmpfs without mincore: %+v, %v", st, err)
	}

	// Warm and steady on tmpfs are what they say.
	mincore = saved
	if st, err := Prepare(RegimeWarm, path); err != nil || st.Effective != RegimeWarm {
		t.Errorf("warm on tmpfs: %+v, %v", st, err)
	}
}

// TestPrepareColdIgnored plays file systems on which cold cannot work, on a
// disk-backed file: one that ignores POSIX_FADV_DONTNEED, a memory-only one
// (by its statfs type), and a mix of a memory-only and a disk-backed file.
func TestPrepareColdIgnored(t *testing.T) {
	dir := diskDir(t)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, a, strings.Repeat("a", 5*4096))
	writeFile(t, b, strings.Repeat("b", 3*4096))

	savedEvict, savedType := evict, statfsType
	t.Cleanup(func() { evict, statfsType = savedEvict, savedType })

	t.Run("advice ignored", func(t *testing.T) {
		if st, err := Prepare(RegimeWarm, a); err != nil || st.Effective != RegimeWarm {
			t.Fatalf("warm: %+v, %v", st, err)
		}
		evict = func(*os.File) error { return nil }
		defer func() { evict = savedEvict }()
		st, err := Prepare(RegimeCold, a)
		if err != nil || st.Effective != RegimeNotEvictable {
			t.Fatalf("cold, advice ignored: %+v, %v", st, err)
		}
		for _, want := range []string{"evicted nothing", "20480 of 20480 bytes resident before", "f_type 0x"} {
			if !strings.Contains(st.Note, want) {
				t.Errorf("note %q does not say %q", st.Note, want)
			}
		}
	})
	t.Run("memory-only file system", func(t *testing.T) {
		statfsType = func(int) (uint32, error) { return 0x858458f6, nil } // ramfs
		defer func() { statfsType = savedType }()
		st, err := Prepare(RegimeCold, a)
		if err != nil || st.Effective != RegimeNotEvictable || !strings.Contains(st.Note, a+" is on ramfs") {
			t.Errorf("cold on ramfs: %+v, %v", st, err)
		}
	})
	t.Run("one of two files in memory", func(t *testing.T) {
		if _, err := Prepare(RegimeWarm, a, b); err != nil {
			t.Fatal(err)
		}
		fa := mustOpen(t, a)
		var sa unix.Stat_t
		if err := unix.Fstat(int(fa.Fd()), &sa); err != nil {
			t.Fatal(err)
		}
		statfsType = func(fd int) (uint32, error) {
			var st unix.Stat_t
			if err := unix.Fstat(fd, &st); err == nil && st.Ino == sa.Ino {
				return 0x01021994, nil // a plays tmpfs
			}
			return savedType(fd)
		}
		evict = func(f *os.File) error {
			if f.Name() == a {
				return nil // tmpfs keeps it
			}
			return savedEvict(f)
		}
		defer func() { statfsType, evict = savedType, savedEvict }()
		st, err := Prepare(RegimeCold, a, b)
		if err != nil || st.Effective != RegimePartial || !strings.Contains(st.Note, a+" is on tmpfs") || strings.Contains(st.Note, b) {
			t.Errorf("cold, a on tmpfs and b on disk: %+v, %v", st, err)
		}
	})
}
