//go:build linux && (ppc64 || ppc64le || mips || mipsle || mips64 || mips64le)

package sources

// The ioctl request encoding of arch/powerpc/include/uapi/asm/ioctl.h and
// arch/mips/include/uapi/asm/ioctl.h: a 13-bit size field and 3 direction
// bits, _IOC_NONE 1 and _IOC_READ 2. A no-argument request such as
// PERF_EVENT_IOC_ENABLE is therefore 0x20002400 here, not 0x2400.
const (
	iocNone     = 1
	iocRead     = 2
	iocSizeBits = 13
)
