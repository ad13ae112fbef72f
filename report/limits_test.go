package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
)

func TestLimitsHeaderText(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    *rundoc.Limits
		want string
	}{
		{"none", nil, ""},
		{"peaks only", &rundoc.Limits{MemoryCgroup: "v1"}, ""},
		{"memory", &rundoc.Limits{MemoryBytes: 64 << 20, MemoryCgroup: "v1"}, "memory 64 MiB (cgroup v1, swap off) per child"},
		{"both", &rundoc.Limits{MemoryBytes: 3 << 29, Pids: 64, MemoryCgroup: "v2", PidsCgroup: "v2"},
			"memory 1536 MiB (cgroup v2, swap off), pids 64 (cgroup v2) per child"},
		{"odd size", &rundoc.Limits{MemoryBytes: 1<<20 + 1, MemoryCgroup: "v1"}, "memory 1048577 bytes (cgroup v1, swap off) per child"},
		{"pids, no cgroup recorded", &rundoc.Limits{Pids: 8}, "pids 8 (no cgroup) per child"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, limitsText(tc.l))
		})
	}
}
