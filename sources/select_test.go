package sources

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSelect(t *testing.T) {
	defaults := "instructions,ipc,branch-misses,task-clock,minflt,syscr"
	var concrete []string
	for _, d := range catalog {
		if !isPattern(d.Name) {
			concrete = append(concrete, d.Name)
		}
	}
	all := strings.Join(concrete, ",")
	tableKnown := runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64")
	for _, tc := range []struct {
		list, names string
		warns       []string // substrings, one per expected warning
		help        bool
	}{
		{"", defaults, nil, false},
		{"  ", defaults, nil, false},
		{"ipc", "ipc", nil, false},
		{"task-clock, instructions", "instructions,task-clock", nil, false},
		{"minflt,minflt,,", "minflt", nil, false},
		{"cache-*", "cache-references,cache-misses", nil, false},
		{"*-misses", "branch-misses,cache-misses", nil, false},
		{"c?cles", "cycles", nil, false},
		{"all", all, nil, false},
		{"none", "", nil, false},
		{"none,ipc", "ipc", nil, false},
		{"all,sc:read", all + ",syscalls:read", nil, false},
		{"?", "", nil, true},
		{"help", "", nil, true},
		{"ipc,help", "ipc", nil, true},
		{"sc:write,syscalls:read,sc:read,ipc", "ipc,syscalls:write,syscalls:read", nil, false},
		{"raw:r00c0,instructions,raw:r1A", "instructions,raw:r00c0,raw:r1a", nil, false},
		{"raw:r1A,raw:r1a", "raw:r1a", nil, false},
		{"raw:rzz", "", []string{`"raw:rzz"`, "not hexadecimal"}, false},
		{"raw:r", "", []string{"1 to 16 hexadecimal digits"}, false},
		{"raw:r00000000000000001", "", []string{"1 to 16"}, false},
		{"bogus,ipc", "ipc", []string{`"bogus"`, "matched nothing"}, false},
		{"nothing*", "", []string{"matched nothing"}, false},
		{"[", "", []string{"bad pattern"}, false},
		{"sc:*", "", []string{"not globbed"}, false},
		{"sc:Read", "", []string{"not a syscall name"}, false},
		{"syscalls:", "", []string{"no syscall named"}, false},
	} {
		names, warns, help := Select(tc.list)
		if got := strings.Join(names, ","); got != tc.names || help != tc.help {
			t.Errorf("Select(%q) = %q, help %v; want %q, help %v", tc.list, got, help, tc.names, tc.help)
		}
		if len(tc.warns) == 0 && len(warns) != 0 || len(tc.warns) > 0 && len(warns) != 1 {
			t.Errorf("Select(%q) warnings %q", tc.list, warns)
			continue
		}
		for _, w := range tc.warns {
			if !strings.Contains(warns[0], w) {
				t.Errorf("Select(%q) warning %q lacks %q", tc.list, warns[0], w)
			}
		}
	}
	names, warns, _ := Select("sc:frobnicate,ipc")
	if tableKnown {
		if strings.Join(names, ",") != "ipc" || len(warns) != 1 || !strings.Contains(warns[0], "no syscall named") {
			t.Errorf("unknown syscall: %q, %q", names, warns)
		}
	} else if strings.Join(names, ",") != "ipc,syscalls:frobnicate" || len(warns) != 0 {
		t.Errorf("syscall without a table: %q, %q", names, warns)
	}
}

func TestSelectWarnsOncePerSelector(t *testing.T) {
	_, warns, _ := Select("a,b,raw:rq,sc:Bad")
	if len(warns) != 4 {
		t.Errorf("warnings %q, want 4", warns)
	}
}

func TestCountable(t *testing.T) {
	defaults := []string{"instructions", "ipc", "branch-misses", "task-clock", "minflt", "syscr"}
	tests := []struct {
		name    string
		reports []Report
		want    []string
	}{
		{"every source counts", []Report{{Source: SourcePerfHW, Available: true}, {Source: SourcePerfSW, Available: true}, {Source: SourceTier0, Available: true}},
			defaults},
		{"no PMU (this development VM)", []Report{
			{Source: SourcePerfHW, Absences: []Absence{{Capability: CapCounting, Metrics: []string{"instructions"}, Reason: "ENOENT"}}},
			{Source: SourcePerfSW, Available: true}, {Source: SourceTier0, Available: true}},
			[]string{"task-clock", "minflt", "syscr"}},
		{"the branch pair dropped from the group", []Report{
			{Source: SourcePerfHW, Available: true, Absences: []Absence{{Capability: CapCounting, Metrics: []string{"branches", "branch-misses"}, Reason: "multiplexed"}}},
			{Source: SourcePerfSW, Available: true}, {Source: SourceTier0, Available: true}},
			[]string{"instructions", "ipc", "task-clock", "minflt", "syscr"}},
		{"no perf at all, no I/O accounting", []Report{
			{Source: SourcePerfHW}, {Source: SourcePerfSW},
			{Source: SourceTier0, Available: true, Absences: []Absence{{Capability: CapIOAccounting, Metrics: []string{"syscr"}, Reason: "ENOENT"}}}},
			[]string{"minflt"}},
		{"a source not probed is not counted", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, countable(defaults, tt.reports))
		})
	}
	got, _, _ := Select("")
	assert.Equal(t, defaults, got, "the catalog's default set, before the host is asked")
}
