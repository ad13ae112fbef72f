//go:build linux

package sources

import "unsafe"

// The perf_event ABI this package speaks, defined here rather than taken
// from golang.org/x/sys/unix so that the package imports only the standard
// library (see the package doc). Everything below is the same on every Linux
// architecture except what depends on the architecture's ioctl encoding and
// on the order of C bitfields: those are defined per family in
// perfabi_ioc_*_linux.go and perfabi_bits_*_linux.go, and an architecture
// this file set does not know gets none of it (arch_unsupported_linux.go).
// perfabi_linux_test.go checks every value against golang.org/x/sys/unix.

// perfEventAttr is struct perf_event_attr of include/uapi/linux/perf_event.h,
// as of PERF_ATTR_SIZE_VER7 (128 bytes): the layout golang.org/x/sys/unix
// v0.50.0 uses for PerfEventAttr, field for field. Unions are named for
// their first member or, like the kernel's bitfield word, for what they
// hold. Every field of a 64-bit type falls on an 8-byte boundary, so the
// layout is the same where Go aligns uint64 to 4 bytes (386, arm, mips).
type perfEventAttr struct {
	Type             uint32
	Size             uint32
	Config           uint64
	Sample           uint64 // sample_period or sample_freq
	SampleType       uint64
	ReadFormat       uint64
	Bits             uint64 // disabled, inherit, ...: the perfBit* masks
	Wakeup           uint32 // wakeup_events or wakeup_watermark
	BpType           uint32
	Ext1             uint64 // bp_addr, kprobe_func, uprobe_path or config1
	Ext2             uint64 // bp_len, kprobe_addr, probe_offset or config2
	BranchSampleType uint64
	SampleRegsUser   uint64
	SampleStackUser  uint32
	ClockID          int32
	SampleRegsIntr   uint64
	AuxWatermark     uint32
	SampleMaxStack   uint16
	_                uint16 // __reserved_2
	AuxSampleSize    uint32
	_                uint32 // __reserved_3
	SigData          uint64
}

// perfAttrSize is what the attr's Size field declares to the kernel.
const perfAttrSize = uint32(unsafe.Sizeof(perfEventAttr{}))

// enum perf_type_id.
const (
	perfTypeHardware   = 0 // PERF_TYPE_HARDWARE
	perfTypeSoftware   = 1 // PERF_TYPE_SOFTWARE
	perfTypeTracepoint = 2 // PERF_TYPE_TRACEPOINT
	perfTypeRaw        = 4 // PERF_TYPE_RAW
)

// enum perf_hw_id.
const (
	perfCountHWCPUCycles          = 0 // PERF_COUNT_HW_CPU_CYCLES
	perfCountHWInstructions       = 1 // PERF_COUNT_HW_INSTRUCTIONS
	perfCountHWCacheReferences    = 2 // PERF_COUNT_HW_CACHE_REFERENCES
	perfCountHWCacheMisses        = 3 // PERF_COUNT_HW_CACHE_MISSES
	perfCountHWBranchInstructions = 4 // PERF_COUNT_HW_BRANCH_INSTRUCTIONS
	perfCountHWBranchMisses       = 5 // PERF_COUNT_HW_BRANCH_MISSES
)

// enum perf_sw_ids.
const (
	perfCountSWTaskClock       = 1 // PERF_COUNT_SW_TASK_CLOCK
	perfCountSWPageFaults      = 2 // PERF_COUNT_SW_PAGE_FAULTS
	perfCountSWContextSwitches = 3 // PERF_COUNT_SW_CONTEXT_SWITCHES
	perfCountSWCPUMigrations   = 4 // PERF_COUNT_SW_CPU_MIGRATIONS
)

// enum perf_event_read_format.
const (
	perfFormatTotalTimeEnabled = 1 << 0 // PERF_FORMAT_TOTAL_TIME_ENABLED
	perfFormatTotalTimeRunning = 1 << 1 // PERF_FORMAT_TOTAL_TIME_RUNNING
	perfFormatID               = 1 << 2 // PERF_FORMAT_ID
	perfFormatGroup            = 1 << 3 // PERF_FORMAT_GROUP
)

const (
	// perfFlagFDCloexec is perf_event_open's PERF_FLAG_FD_CLOEXEC.
	perfFlagFDCloexec = 1 << 3
	// perfIOCFlagGroup is PERF_IOC_FLAG_GROUP, the argument that applies
	// an enable or disable to the leader's whole group.
	perfIOCFlagGroup = 1 << 0
)

// The perf ioctls: _IO('$', 0), _IO('$', 1) and _IOR('$', 7, __u64 *) in
// include/uapi/linux/perf_event.h. The request number of _IOR carries the
// size of its type, here a pointer: 4 or 8 bytes by architecture. The
// direction values and the size field's width are the architecture's
// (iocNone, iocRead, iocSizeBits).
const (
	perfEventIOCEnable  = uint(iocNone<<iocDirShift | '$'<<iocTypeShift | 0<<iocNRShift)
	perfEventIOCDisable = uint(iocNone<<iocDirShift | '$'<<iocTypeShift | 1<<iocNRShift)
	perfEventIOCID      = uint(iocRead<<iocDirShift | '$'<<iocTypeShift | 7<<iocNRShift | unsafe.Sizeof((*uint64)(nil))<<iocSizeShift)
)

// The fields of an ioctl request number, as _IOC lays them out: number,
// type and size from the low bits up, the direction above them.
const (
	iocNRShift   = 0
	iocTypeShift = iocNRShift + 8
	iocSizeShift = iocTypeShift + 8
	iocDirShift  = iocSizeShift + iocSizeBits
)
