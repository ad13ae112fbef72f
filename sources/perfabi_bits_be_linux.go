//go:build linux && (mips || mips64 || ppc64 || s390x)

package sources

// The masks of perf_event_attr's bitfield word (disabled, inherit, ...:
// include/uapi/linux/perf_event.h) on big-endian architectures, whose C
// compilers allocate bitfields from the most significant bit: the first
// field, disabled, is bit 63.
const (
	perfBitDisabled      uint64 = 1 << (63 - 0) // disabled
	perfBitInherit       uint64 = 1 << (63 - 1) // inherit
	perfBitExcludeKernel uint64 = 1 << (63 - 5) // exclude_kernel
	perfBitExcludeHv     uint64 = 1 << (63 - 6) // exclude_hv
)
