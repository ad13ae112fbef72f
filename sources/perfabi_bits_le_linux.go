//go:build linux && (386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64)

package sources

// The masks of perf_event_attr's bitfield word (disabled, inherit, ...:
// include/uapi/linux/perf_event.h) on little-endian architectures, whose C
// compilers allocate bitfields from the least significant bit.
const (
	perfBitDisabled      uint64 = 1 << 0 // disabled
	perfBitInherit       uint64 = 1 << 1 // inherit
	perfBitExcludeKernel uint64 = 1 << 5 // exclude_kernel
	perfBitExcludeHv     uint64 = 1 << 6 // exclude_hv
)
