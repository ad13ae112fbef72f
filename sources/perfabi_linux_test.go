//go:build linux

package sources

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The package's own definitions of the kernel ABI (perfabi_*.go, sys_linux.go,
// fadvise_*.go, errnoname_linux.go) must agree with golang.org/x/sys/unix,
// which the tests may import and the package may not.

// TestPerfEventAttrLayout checks perfEventAttr field by field, padding
// included, against unix.PerfEventAttr: same size, and each field at the
// same offset with the same size and kind, under the same name but for Go
// spelling (Read_format is ReadFormat).
func TestPerfEventAttrLayout(t *testing.T) {
	mine, theirs := reflect.TypeOf(perfEventAttr{}), reflect.TypeOf(unix.PerfEventAttr{})
	if mine.Size() != theirs.Size() || uintptr(perfAttrSize) != theirs.Size() {
		t.Errorf("size %d (declared %d), unix.PerfEventAttr %d", mine.Size(), perfAttrSize, theirs.Size())
	}
	if mine.NumField() != theirs.NumField() {
		t.Fatalf("%d fields, unix.PerfEventAttr %d", mine.NumField(), theirs.NumField())
	}
	for i := 0; i < theirs.NumField(); i++ {
		want := theirs.Field(i)
		t.Run(want.Name, func(t *testing.T) {
			got := mine.Field(i)
			if !strings.EqualFold(got.Name, strings.ReplaceAll(want.Name, "_", "")) && got.Name != want.Name {
				t.Errorf("field %d is %s, unix has %s", i, got.Name, want.Name)
			}
			if got.Offset != want.Offset {
				t.Errorf("offset %d, unix %d", got.Offset, want.Offset)
			}
			if got.Type.Size() != want.Type.Size() || got.Type.Kind() != want.Type.Kind() {
				t.Errorf("type %s, unix %s", got.Type, want.Type)
			}
		})
	}
}

// TestABIConstants checks every constant the package defines for the kernel
// against its golang.org/x/sys/unix counterpart on this architecture.
// (The func _ below checks the same at compile time on every architecture.)
func TestABIConstants(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"PERF_TYPE_HARDWARE", perfTypeHardware, unix.PERF_TYPE_HARDWARE},
		{"PERF_TYPE_SOFTWARE", perfTypeSoftware, unix.PERF_TYPE_SOFTWARE},
		{"PERF_TYPE_TRACEPOINT", perfTypeTracepoint, unix.PERF_TYPE_TRACEPOINT},
		{"PERF_TYPE_RAW", perfTypeRaw, unix.PERF_TYPE_RAW},
		{"PERF_COUNT_HW_CPU_CYCLES", perfCountHWCPUCycles, unix.PERF_COUNT_HW_CPU_CYCLES},
		{"PERF_COUNT_HW_INSTRUCTIONS", perfCountHWInstructions, unix.PERF_COUNT_HW_INSTRUCTIONS},
		{"PERF_COUNT_HW_CACHE_REFERENCES", perfCountHWCacheReferences, unix.PERF_COUNT_HW_CACHE_REFERENCES},
		{"PERF_COUNT_HW_CACHE_MISSES", perfCountHWCacheMisses, unix.PERF_COUNT_HW_CACHE_MISSES},
		{"PERF_COUNT_HW_BRANCH_INSTRUCTIONS", perfCountHWBranchInstructions, unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
		{"PERF_COUNT_HW_BRANCH_MISSES", perfCountHWBranchMisses, unix.PERF_COUNT_HW_BRANCH_MISSES},
		{"PERF_COUNT_SW_TASK_CLOCK", perfCountSWTaskClock, unix.PERF_COUNT_SW_TASK_CLOCK},
		{"PERF_COUNT_SW_PAGE_FAULTS", perfCountSWPageFaults, unix.PERF_COUNT_SW_PAGE_FAULTS},
		{"PERF_COUNT_SW_CONTEXT_SWITCHES", perfCountSWContextSwitches, unix.PERF_COUNT_SW_CONTEXT_SWITCHES},
		{"PERF_COUNT_SW_CPU_MIGRATIONS", perfCountSWCPUMigrations, unix.PERF_COUNT_SW_CPU_MIGRATIONS},
		{"PERF_FORMAT_TOTAL_TIME_ENABLED", perfFormatTotalTimeEnabled, unix.PERF_FORMAT_TOTAL_TIME_ENABLED},
		{"PERF_FORMAT_TOTAL_TIME_RUNNING", perfFormatTotalTimeRunning, unix.PERF_FORMAT_TOTAL_TIME_RUNNING},
		{"PERF_FORMAT_ID", perfFormatID, unix.PERF_FORMAT_ID},
		{"PERF_FORMAT_GROUP", perfFormatGroup, unix.PERF_FORMAT_GROUP},
		{"PERF_FLAG_FD_CLOEXEC", perfFlagFDCloexec, unix.PERF_FLAG_FD_CLOEXEC},
		{"PERF_IOC_FLAG_GROUP", perfIOCFlagGroup, unix.PERF_IOC_FLAG_GROUP},
		{"PERF_EVENT_IOC_ENABLE", uint64(perfEventIOCEnable), unix.PERF_EVENT_IOC_ENABLE},
		{"PERF_EVENT_IOC_DISABLE", uint64(perfEventIOCDisable), unix.PERF_EVENT_IOC_DISABLE},
		{"PERF_EVENT_IOC_ID", uint64(perfEventIOCID), unix.PERF_EVENT_IOC_ID},
		{"PerfBitDisabled", perfBitDisabled, unix.PerfBitDisabled},
		{"PerfBitInherit", perfBitInherit, unix.PerfBitInherit},
		{"PerfBitExcludeKernel", perfBitExcludeKernel, unix.PerfBitExcludeKernel},
		{"PerfBitExcludeHv", perfBitExcludeHv, unix.PerfBitExcludeHv},
		{"AT_FDCWD", bitsOf(atFDCWD), bitsOf(unix.AT_FDCWD)},
		{"AT_EACCESS", atEACCESS, unix.AT_EACCESS},
		{"W_OK", wOK, unix.W_OK},
		{"RUSAGE_SELF", rusageSelf, unix.RUSAGE_SELF},
		{"RUSAGE_THREAD", rusageThread, unix.RUSAGE_THREAD},
		{"FADV_DONTNEED", fadvDontneed, unix.FADV_DONTNEED},
		{"FADV_WILLNEED", fadvWillneed, unix.FADV_WILLNEED},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("%#x, unix has %#x", c.got, c.want)
			}
		})
	}
}

// bitsOf is v's two's complement bits, for the table of TestABIConstants.
func bitsOf(v int64) uint64 { return uint64(v) }

// This function fails to compile, on whichever architecture it is built for,
// if a definition differs from golang.org/x/sys/unix's: an index other
// than 0 is out of range, and a negative one overflows. So
// GOARCH=<arch> go vet ./sources checks every architecture from any host.
func _() {
	var x [1]struct{}
	var a perfEventAttr
	var u unix.PerfEventAttr
	_ = x[unsafe.Sizeof(a)-unsafe.Sizeof(u)]
	_ = x[unsafe.Offsetof(a.Type)-unsafe.Offsetof(u.Type)]
	_ = x[unsafe.Offsetof(a.Size)-unsafe.Offsetof(u.Size)]
	_ = x[unsafe.Offsetof(a.Config)-unsafe.Offsetof(u.Config)]
	_ = x[unsafe.Offsetof(a.Sample)-unsafe.Offsetof(u.Sample)]
	_ = x[unsafe.Offsetof(a.SampleType)-unsafe.Offsetof(u.Sample_type)]
	_ = x[unsafe.Offsetof(a.ReadFormat)-unsafe.Offsetof(u.Read_format)]
	_ = x[unsafe.Offsetof(a.Bits)-unsafe.Offsetof(u.Bits)]
	_ = x[unsafe.Offsetof(a.Wakeup)-unsafe.Offsetof(u.Wakeup)]
	_ = x[unsafe.Offsetof(a.BpType)-unsafe.Offsetof(u.Bp_type)]
	_ = x[unsafe.Offsetof(a.Ext1)-unsafe.Offsetof(u.Ext1)]
	_ = x[unsafe.Offsetof(a.Ext2)-unsafe.Offsetof(u.Ext2)]
	_ = x[unsafe.Offsetof(a.BranchSampleType)-unsafe.Offsetof(u.Branch_sample_type)]
	_ = x[unsafe.Offsetof(a.SampleRegsUser)-unsafe.Offsetof(u.Sample_regs_user)]
	_ = x[unsafe.Offsetof(a.SampleStackUser)-unsafe.Offsetof(u.Sample_stack_user)]
	_ = x[unsafe.Offsetof(a.ClockID)-unsafe.Offsetof(u.Clockid)]
	_ = x[unsafe.Offsetof(a.SampleRegsIntr)-unsafe.Offsetof(u.Sample_regs_intr)]
	_ = x[unsafe.Offsetof(a.AuxWatermark)-unsafe.Offsetof(u.Aux_watermark)]
	_ = x[unsafe.Offsetof(a.SampleMaxStack)-unsafe.Offsetof(u.Sample_max_stack)]
	_ = x[unsafe.Offsetof(a.AuxSampleSize)-unsafe.Offsetof(u.Aux_sample_size)]
	_ = x[unsafe.Offsetof(a.SigData)-unsafe.Offsetof(u.Sig_data)]

	_ = x[perfTypeHardware-unix.PERF_TYPE_HARDWARE]
	_ = x[perfTypeSoftware-unix.PERF_TYPE_SOFTWARE]
	_ = x[perfTypeTracepoint-unix.PERF_TYPE_TRACEPOINT]
	_ = x[perfTypeRaw-unix.PERF_TYPE_RAW]
	_ = x[perfCountHWCPUCycles-unix.PERF_COUNT_HW_CPU_CYCLES]
	_ = x[perfCountHWInstructions-unix.PERF_COUNT_HW_INSTRUCTIONS]
	_ = x[perfCountHWCacheReferences-unix.PERF_COUNT_HW_CACHE_REFERENCES]
	_ = x[perfCountHWCacheMisses-unix.PERF_COUNT_HW_CACHE_MISSES]
	_ = x[perfCountHWBranchInstructions-unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS]
	_ = x[perfCountHWBranchMisses-unix.PERF_COUNT_HW_BRANCH_MISSES]
	_ = x[perfCountSWTaskClock-unix.PERF_COUNT_SW_TASK_CLOCK]
	_ = x[perfCountSWPageFaults-unix.PERF_COUNT_SW_PAGE_FAULTS]
	_ = x[perfCountSWContextSwitches-unix.PERF_COUNT_SW_CONTEXT_SWITCHES]
	_ = x[perfCountSWCPUMigrations-unix.PERF_COUNT_SW_CPU_MIGRATIONS]
	_ = x[perfFormatTotalTimeEnabled-unix.PERF_FORMAT_TOTAL_TIME_ENABLED]
	_ = x[perfFormatTotalTimeRunning-unix.PERF_FORMAT_TOTAL_TIME_RUNNING]
	_ = x[perfFormatID-unix.PERF_FORMAT_ID]
	_ = x[perfFormatGroup-unix.PERF_FORMAT_GROUP]
	_ = x[perfFlagFDCloexec-unix.PERF_FLAG_FD_CLOEXEC]
	_ = x[perfIOCFlagGroup-unix.PERF_IOC_FLAG_GROUP]
	_ = x[perfEventIOCEnable-unix.PERF_EVENT_IOC_ENABLE]
	_ = x[perfEventIOCDisable-unix.PERF_EVENT_IOC_DISABLE]
	_ = x[perfEventIOCID-unix.PERF_EVENT_IOC_ID]
	_ = x[perfBitDisabled-unix.PerfBitDisabled]
	_ = x[perfBitInherit-unix.PerfBitInherit]
	_ = x[perfBitExcludeKernel-unix.PerfBitExcludeKernel]
	_ = x[perfBitExcludeHv-unix.PerfBitExcludeHv]
	_ = x[atFDCWD-unix.AT_FDCWD]
	_ = x[atEACCESS-unix.AT_EACCESS]
	_ = x[wOK-unix.W_OK]
	_ = x[rusageSelf-unix.RUSAGE_SELF]
	_ = x[rusageThread-unix.RUSAGE_THREAD]
	_ = x[fadvDontneed-unix.FADV_DONTNEED]
	_ = x[fadvWillneed-unix.FADV_WILLNEED]
}

// TestErrnoNames checks the errno-name table against unix.ErrnoName on this
// architecture, and what a name outside it reads as.
func TestErrnoNames(t *testing.T) {
	if len(errnoNames) == 0 {
		t.Fatal("empty table")
	}
	for e, name := range errnoNames {
		t.Run(name, func(t *testing.T) {
			if want := unix.ErrnoName(e); errnoName(e) != want {
				t.Errorf("errno %d: %q, unix.ErrnoName %q", int(e), errnoName(e), want)
			}
		})
	}
	// The errnos reasons switch on must all be named.
	for _, e := range []syscall.Errno{unix.ENOENT, unix.ENODEV, unix.EOPNOTSUPP, unix.EINVAL, unix.EACCES,
		unix.EPERM, unix.ENOSYS, unix.EMFILE, unix.ENFILE, unix.EBUSY, unix.ESRCH} {
		if _, ok := errnoNames[e]; !ok {
			t.Errorf("%s (%d) missing from the table", unix.ErrnoName(e), int(e))
		}
	}
	if got := errnoName(unix.EXDEV); got != "errno "+strconv.Itoa(int(unix.EXDEV)) {
		t.Errorf("EXDEV, outside the table: %q", got)
	}
}

// TestSyscallWrappers makes the wrapped system calls on this host: they
// must reach the kernel with their arguments where it expects them.
func TestSyscallWrappers(t *testing.T) {
	t.Run("gettid", func(t *testing.T) {
		if got, want := gettid(), unix.Gettid(); got != want {
			t.Errorf("gettid %d, unix.Gettid %d", got, want)
		}
	})
	t.Run("getrusage", func(t *testing.T) {
		var ru syscall.Rusage
		if err := getrusage(rusageThread, &ru); err != nil {
			t.Fatalf("RUSAGE_THREAD: %v", err)
		}
		if err := getrusage(rusageSelf, &ru); err != nil {
			t.Fatalf("RUSAGE_SELF: %v", err)
		}
	})
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	t.Run("fadvise", func(t *testing.T) {
		for _, advice := range []int{fadvWillneed, fadvDontneed} {
			if err := fadvise(fd, 4096, 1<<20, advice); err != nil {
				t.Errorf("advice %d: %v", advice, err)
			}
		}
		// Misplaced arguments would show: an advice the kernel does not
		// know is EINVAL, and so is a negative length.
		if err := fadvise(fd, 0, 0, 99); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("advice 99: %v, want EINVAL", err)
		}
		if err := fadvise(fd, 0, -1, fadvWillneed); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("length -1: %v, want EINVAL", err)
		}
		if err := fadvise(-1, 0, 0, fadvWillneed); !errors.Is(err, syscall.EBADF) {
			t.Errorf("fd -1: %v, want EBADF", err)
		}
	})
	t.Run("faccessat", func(t *testing.T) {
		if err := faccessatEffective(atFDCWD, path, wOK); err != nil {
			t.Errorf("own file not writable: %v", err)
		}
		if err := faccessatEffective(atFDCWD, filepath.Join(path, "x"), wOK); !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("path under a file: %v, want ENOTDIR", err)
		}
	})
	t.Run("mincore", func(t *testing.T) {
		m, err := syscall.Mmap(fd, 0, 1<<20, syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Munmap(m)
		_ = m[0] // fault the first page in
		vec := make([]byte, (1<<20)/syscall.Getpagesize())
		if err := sysMincore(unsafe.Pointer(&m[0]), uintptr(len(m)), &vec[0]); err != nil {
			t.Fatal(err)
		}
		if vec[0]&1 == 0 {
			t.Error("the page just read is not resident")
		}
	})
}
