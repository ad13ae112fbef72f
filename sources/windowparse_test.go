package sources

import (
	"strings"
	"testing"
)

// Recorded on a Linux 6.18 x86_64 VM (the development host).
const (
	schedstatRecorded = "138185 241858 3\n"
	psiIORecorded     = "some avg10=0.00 avg60=0.06 avg300=0.09 total=9445012\nfull avg10=0.00 avg60=0.04 avg300=0.02 total=4142329\n"
	// cpu.pressure before Linux 5.13 had no "full" line.
	psiCPUOldRecorded = "some avg10=11.13 avg60=15.97 avg300=15.78 total=858398985\n"
	mountinfoRecorded = `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
23 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs devtmpfs rw,size=4096k
31 22 0:27 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
35 31 0:31 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:13 - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	procCgroupRecorded = `9:name=systemd:/
4:memory:/process_api/d5c5247ed21ddef333c4cb895029aa16
1:cpu:/
0::/
`
)

func TestParseSchedstat(t *testing.T) {
	for _, tc := range []struct {
		in        string
		run, wait int64
		bad       bool
	}{
		{in: schedstatRecorded, run: 138185, wait: 241858},
		{in: "5 6", run: 5, wait: 6},               // no timeslice field
		{in: "5 6 7 8\n", run: 5, wait: 6},         // a future field
		{in: "0 0 0\n", run: 0, wait: 0},           // sched_info off: parsed; ReadThreadTimes judges
		{in: "", bad: true},                        // empty
		{in: "\n", bad: true},                      // blank
		{in: "17\n", bad: true},                    // one field
		{in: "a b c\n", bad: true},                 // not numbers
		{in: "-1 2 3\n", bad: true},                // negative
		{in: "1.5 2 3\n", bad: true},               // not an integer
		{in: "9223372036854775808 1 1", bad: true}, // over int64
	} {
		run, wait, err := parseSchedstat([]byte(tc.in))
		if tc.bad {
			if err == nil {
				t.Errorf("parseSchedstat(%q) = %d, %d; want an error", tc.in, run, wait)
			}
			continue
		}
		if err != nil || run != tc.run || wait != tc.wait {
			t.Errorf("parseSchedstat(%q) = %d, %d, %v; want %d, %d", tc.in, run, wait, err, tc.run, tc.wait)
		}
	}
}

func TestParsePSI(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         string
		some, full int64
		haveFull   bool
		bad        string // a fragment of the error, when one is wanted
	}{
		{name: "io", in: psiIORecorded, some: 9445012000, full: 4142329000, haveFull: true},
		{name: "cpu before 5.13", in: psiCPUOldRecorded, some: 858398985000},
		{name: "brief", in: "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=678", some: 12345000, full: 678000, haveFull: true},
		{name: "future line and key", in: "some total=1 avg1=0.5\nlater avg10=1 total=x\nfull total=2\n", some: 1000, full: 2000, haveFull: true},
		{name: "zeros", in: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", haveFull: true},
		{name: "empty", in: "", bad: `no "some" line`},
		{name: "full only", in: "full avg10=0.00 total=678\n", bad: `no "some" line`},
		{name: "no total", in: "some avg10=0.00 avg60=0.00 avg300=0.00\n", bad: "no total="},
		{name: "empty total", in: "some total=\n", bad: "malformed total"},
		{name: "bad total", in: "some total=12x\n", bad: "malformed total"},
		{name: "negative total", in: "some total=-5\n", bad: "malformed total"},
		{name: "ns overflow", in: "some total=9223372036854776\n", bad: "malformed total"},
		{name: "two some", in: "some total=1\nsome total=2\n", bad: "two"},
		{name: "bad full", in: "some total=1\nfull total=z\n", bad: "malformed total"},
		{name: "binary", in: "\x00\xff some total=1", bad: `no "some" line`},
	} {
		some, full, haveFull, err := parsePSI([]byte(tc.in))
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.bad)
			}
			continue
		}
		if err != nil || some != tc.some || full != tc.full || haveFull != tc.haveFull {
			t.Errorf("%s: got %d, %d, %v, %v; want %d, %d, %v", tc.name, some, full, haveFull, err, tc.some, tc.full, tc.haveFull)
		}
	}
}

func TestParseMountinfoCgroup2(t *testing.T) {
	got, err := parseMountinfoCgroup2([]byte(mountinfoRecorded))
	if err != nil || len(got) != 1 || got[0] != (cgroup2Mount{root: "/", point: "/sys/fs/cgroup/unified"}) {
		t.Fatalf("recorded: %+v, %v", got, err)
	}
	// A unified host, a bind-mounted subtree with an escaped space, no
	// optional fields, and no final newline.
	got, err = parseMountinfoCgroup2([]byte("30 24 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n" +
		`99 30 0:26 /bench\040jobs /mnt/cg\040x rw - cgroup2 cgroup2 rw`))
	want := []cgroup2Mount{{"/", "/sys/fs/cgroup"}, {"/bench jobs", "/mnt/cg x"}}
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("unified: %+v, %v", got, err)
	}
	if got, err := parseMountinfoCgroup2([]byte("22 1 254:0 / / rw - ext4 /dev/vda rw\n")); err != nil || len(got) != 0 {
		t.Errorf("no cgroup2: %+v, %v", got, err)
	}
	for _, bad := range []string{
		"22 1 254:0 / /\n", // short
		"22 1 254:0 / / rw shared:1 ext4 /dev/vda rw\n", // no separator
		"22 1 254:0 / / rw -\n",                         // no fstype
		`41 31 0:38 /\04 /x rw - cgroup2 cgroup2 rw`,    // truncated escape
		`41 31 0:38 / /x\999 rw - cgroup2 cgroup2 rw`,   // not octal
	} {
		if got, err := parseMountinfoCgroup2([]byte(bad)); err == nil {
			t.Errorf("parseMountinfoCgroup2(%q) = %+v; want an error", bad, got)
		}
	}
}

func TestParseProcCgroupV2(t *testing.T) {
	for _, tc := range []struct {
		in, path string
		ok, bad  bool
	}{
		{in: procCgroupRecorded, path: "/", ok: true},
		{in: "0::/benchsup/child-7\n", path: "/benchsup/child-7", ok: true},
		{in: "4:memory:/x\n1:cpu:/\n"},   // v1 only
		{in: ""},                         // nothing
		{in: "0::benchsup\n", bad: true}, // not absolute
		{in: "0::\n", bad: true},         // empty path
	} {
		path, ok, err := parseProcCgroupV2([]byte(tc.in))
		if (err != nil) != tc.bad || path != tc.path || ok != tc.ok {
			t.Errorf("parseProcCgroupV2(%q) = %q, %v, %v", tc.in, path, ok, err)
		}
	}
}

func TestCgroupDir(t *testing.T) {
	whole := []cgroup2Mount{{"/", "/sys/fs/cgroup/unified"}}
	sub := []cgroup2Mount{{"/jobs", "/mnt/cg/"}}
	for _, tc := range []struct {
		mounts []cgroup2Mount
		path   string
		dir    string
		ok     bool
	}{
		{whole, "/a/b", "/sys/fs/cgroup/unified/a/b", true},
		{append(sub, whole...), "/a", "/sys/fs/cgroup/unified/a", true}, // the whole hierarchy wins
		{sub, "/jobs/7", "/mnt/cg/7", true},
		{sub, "/jobs", "/mnt/cg/", true},
		{sub, "/jobsx/7", "", false}, // a prefix of the name is not a parent
		{sub, "/other", "", false},
	} {
		dir, ok := cgroupDir(tc.mounts, tc.path)
		if dir != tc.dir || ok != tc.ok {
			t.Errorf("cgroupDir(%+v, %q) = %q, %v; want %q, %v", tc.mounts, tc.path, dir, ok, tc.dir, tc.ok)
		}
	}
}

func TestParseCapEff(t *testing.T) {
	if c, err := parseCapEff([]byte("Name:\tx\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\n")); err != nil || c != 0x1ffffffffff {
		t.Errorf("root: %x, %v", c, err)
	}
	for _, bad := range []string{"", "Name:\tx\n", "CapEff:\tzz\n"} {
		if _, err := parseCapEff([]byte(bad)); err == nil {
			t.Errorf("parseCapEff(%q): no error", bad)
		}
	}
}

// FuzzWindowParsers: no input makes a parser panic. Its seeds run with
// every go test.
func FuzzWindowParsers(f *testing.F) {
	for _, s := range []string{schedstatRecorded, psiIORecorded, psiCPUOldRecorded, mountinfoRecorded, procCgroupRecorded,
		"some total=", "- cgroup2", `1 2 3 \ \0 \01 - cgroup2`, "0::", "CapEff:"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		parseSchedstat(b)
		parsePSI(b)
		if ms, err := parseMountinfoCgroup2(b); err == nil {
			if p, ok, err := parseProcCgroupV2(b); err == nil && ok {
				cgroupDir(ms, p)
			}
		}
		parseCapEff(b)
	})
}
