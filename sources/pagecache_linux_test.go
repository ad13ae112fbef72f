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
	if warm.Effective != RegimeWarm || warm.ResidentAfter != size || warm.TotalBytes != size || warm.Note != "" {
		t.Errorf("warm stamp %+v", warm)
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
	if warmRead > size/16 {
		t.Errorf("reading the warm file: read_bytes grew by %.0f, want about 0", warmRead)
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
