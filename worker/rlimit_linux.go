package worker

import "syscall"

// processLimits watches this process's limits.
func processLimits() *limitWatch {
	res := []rlimitResource{
		{"RLIMIT_CPU", syscall.RLIMIT_CPU},
		{"RLIMIT_FSIZE", syscall.RLIMIT_FSIZE},
		{"RLIMIT_DATA", syscall.RLIMIT_DATA},
		{"RLIMIT_STACK", syscall.RLIMIT_STACK},
		{"RLIMIT_CORE", syscall.RLIMIT_CORE},
		{"RLIMIT_NOFILE", syscall.RLIMIT_NOFILE},
		{"RLIMIT_AS", syscall.RLIMIT_AS},
	}
	return newLimitWatch(append(res, moreRlimits...), func(id int) (rlimit, error) {
		var l syscall.Rlimit
		err := syscall.Getrlimit(id, &l)
		return rlimit{l.Cur, l.Max}, err
	}, func(id int, l rlimit) error {
		return syscall.Setrlimit(id, &syscall.Rlimit{Cur: l.cur, Max: l.max})
	})
}
