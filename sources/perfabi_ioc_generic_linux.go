//go:build linux && (386 || amd64 || arm || arm64 || loong64 || riscv64 || s390x)

package sources

// The ioctl request encoding of include/uapi/asm-generic/ioctl.h, which
// these architectures use unchanged: a 14-bit size field and 2 direction
// bits, _IOC_NONE 0 and _IOC_READ 2.
const (
	iocNone     = 0
	iocRead     = 2
	iocSizeBits = 14
)
