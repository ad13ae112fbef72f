//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package worker

// moreRlimits are the limits package syscall has no names for, numbered as
// in Linux's asm-generic/resource.h.
var moreRlimits = []rlimitResource{
	{"RLIMIT_RSS", 5}, {"RLIMIT_NPROC", 6}, {"RLIMIT_MEMLOCK", 8}, {"RLIMIT_LOCKS", 10},
	{"RLIMIT_SIGPENDING", 11}, {"RLIMIT_MSGQUEUE", 12}, {"RLIMIT_NICE", 13}, {"RLIMIT_RTPRIO", 14}, {"RLIMIT_RTTIME", 15},
}
