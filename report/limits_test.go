package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLimitsHeaderText(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    *Limits
		want string
	}{
		{"none", nil, ""},
		{"peaks only", &Limits{MemoryCgroup: "v1"}, ""},
		{"memory", &Limits{MemoryBytes: 64 << 20, MemoryCgroup: "v1"}, "memory 64 MiB (cgroup v1, swap off) per child"},
		{"both", &Limits{MemoryBytes: 3 << 29, Pids: 64, MemoryCgroup: "v2", PidsCgroup: "v2"},
			"memory 1536 MiB (cgroup v2, swap off), pids 64 (cgroup v2) per child"},
		{"odd size", &Limits{MemoryBytes: 1<<20 + 1, MemoryCgroup: "v1"}, "memory 1048577 bytes (cgroup v1, swap off) per child"},
		{"pids, no cgroup recorded", &Limits{Pids: 8}, "pids 8 (no cgroup) per child"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, limitsText(tc.l))
		})
	}
}
