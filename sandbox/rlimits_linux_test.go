package sandbox

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLimitsText(t *testing.T) {
	inf := rlimInfinity
	for _, tc := range []struct {
		name    string
		changes []LimitChange
		sig     syscall.Signal
		want    string
	}{
		{"none", nil, syscall.SIGKILL, ""},
		{"soft only", []LimitChange{{Resource: "RLIMIT_FSIZE", WasSoft: inf, WasHard: inf, Soft: 0, Hard: inf}}, 0,
			"; it had lowered RLIMIT_FSIZE from unlimited to 0"},
		{"hard only", []LimitChange{{Resource: "RLIMIT_AS", WasSoft: 100, WasHard: inf, Soft: 100, Hard: 200}}, 0,
			"; it had lowered RLIMIT_AS's hard limit from unlimited to 200"},
		{"cpu killed", []LimitChange{{Resource: "RLIMIT_CPU", WasSoft: inf, WasHard: inf, Soft: 1, Hard: 2}}, syscall.SIGKILL,
			"; it had lowered RLIMIT_CPU from unlimited to 1 s and lowered its hard limit from unlimited to 2 s, and the kernel kills a process past its hard CPU time limit with SIGKILL"},
		{"cpu soft only, killed", []LimitChange{{Resource: "RLIMIT_CPU", WasSoft: inf, WasHard: inf, Soft: 1, Hard: inf}}, syscall.SIGKILL,
			"; it had lowered RLIMIT_CPU from unlimited to 1 s"},
		{"two", []LimitChange{
			{Resource: "RLIMIT_NPROC", WasSoft: 50, WasHard: 50, Soft: 5, Hard: 50},
			{Resource: "RLIMIT_RTTIME", WasSoft: inf, WasHard: inf, Soft: 10, Hard: inf}}, 0,
			"; it had lowered RLIMIT_NPROC from 50 to 5, lowered RLIMIT_RTTIME from unlimited to 10 µs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, limitsText(tc.changes, tc.sig))
		})
	}
}
