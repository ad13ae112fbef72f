//go:build linux && (mips || mipsle || mips64 || mips64le)

package worker

// moreRlimits are the limits package syscall has no names for, numbered as
// in Linux's arch/mips resource.h.
var moreRlimits = []rlimitResource{
	{"RLIMIT_RSS", 7}, {"RLIMIT_NPROC", 8}, {"RLIMIT_MEMLOCK", 9}, {"RLIMIT_LOCKS", 10},
	{"RLIMIT_SIGPENDING", 11}, {"RLIMIT_MSGQUEUE", 12}, {"RLIMIT_NICE", 13}, {"RLIMIT_RTPRIO", 14}, {"RLIMIT_RTTIME", 15},
}
