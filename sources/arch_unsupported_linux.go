//go:build linux && !(386 || amd64 || arm || arm64 || loong64 || mips || mips64 || mips64le || mipsle || ppc64 || ppc64le || riscv64 || s390x)

package sources

import (
	"errors"
	"runtime"
	"unsafe"
)

// On a Linux architecture this package does not define the perf ABI,
// ioctl encoding and fadvise calling convention for (see perfabi_linux.go),
// every system call that depends on them fails with errArch before it is
// made, so each source that needs one reports an absence such as
// "perf_event_open(PERF_TYPE_HARDWARE, instructions): not supported by this
// build on linux/<arch>"; page-cache residency (mincore) and eviction
// (fadvise) fail saying the same. tier0 and the window readers, which need
// none of it, work as on any Linux.
//
// The constants below exist only so that the architecture-independent code
// compiles. They are not this architecture's values and never reach its
// kernel: every call that would carry them refuses first.
const (
	iocNone     = 0
	iocRead     = 0
	iocSizeBits = 0

	perfBitDisabled      uint64 = 0
	perfBitInherit       uint64 = 0
	perfBitExcludeKernel uint64 = 0
	perfBitExcludeHv     uint64 = 0

	fadvDontneed = 0
)

func perfEventOpen(*perfEventAttr, int, int, int, int) (int, error) { return -1, errArch }
func ioctlSetInt(int, uint, int) error                              { return errArch }
func perfEventID(int) (uint64, error)                               { return 0, errArch }
func sysMincore(unsafe.Pointer, uintptr, *byte) error               { return errArch }
func fadvise(int, int64, int64, int) error                          { return errArch }

// errArch is the error of a system call this build cannot make on this
// architecture: its numbers, argument layout or structure layouts are not
// defined here for it.
var errArch = errors.New("not supported by this build on linux/" + runtime.GOARCH)
