package sources

import (
	"strings"
	"testing"
)

// procIORecorded is /proc/self/io as read on a Linux 6.18 x86_64 VM.
const procIORecorded = `rchar: 6976
wchar: 0
syscr: 10
syscw: 0
read_bytes: 0
write_bytes: 0
cancelled_write_bytes: 0
`

func TestParseProcIO(t *testing.T) {
	var s ioSnapshot
	if err := parseProcIO([]byte(procIORecorded), &s); err != nil {
		t.Fatal(err)
	}
	want := [len(procIOFields)]uint64{6976, 0, 10, 0, 0, 0}
	if s.v != want {
		t.Errorf("values %v, want %v", s.v, want)
	}
	for i, h := range s.have {
		if !h {
			t.Errorf("%s not found", procIOFields[i].key)
		}
	}

	// Older kernel: no storage-layer fields; a future field; no final newline.
	if err := parseProcIO([]byte("rchar: 1\nfuture_field: 9\nsyscr: 18446744073709551615"), &s); err != nil {
		t.Fatal(err)
	}
	if !s.have[0] || s.v[2] != 18446744073709551615 || s.have[4] || s.have[5] {
		t.Errorf("partial file parsed as %+v", s)
	}

	for _, bad := range []string{"rchar: -1\n", "rchar: 18446744073709551616\n", "syscr:\n", "wchar: 1x\n"} {
		if err := parseProcIO([]byte(bad), &s); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("parseProcIO(%q) error %v", bad, err)
		}
	}
}

func TestParseProcIODoesNotAllocate(t *testing.T) {
	b := []byte(procIORecorded)
	var s ioSnapshot
	if n := testing.AllocsPerRun(100, func() { parseProcIO(b, &s) }); n != 0 {
		t.Errorf("%v allocations per parse", n)
	}
}

func TestParseTracepointID(t *testing.T) {
	for in, want := range map[string]uint64{"17\n": 17, " 600 ": 600} {
		if got, err := parseTracepointID([]byte(in)); err != nil || got != want {
			t.Errorf("parseTracepointID(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "x\n", "-1"} {
		if _, err := parseTracepointID([]byte(bad)); err == nil {
			t.Errorf("parseTracepointID(%q): no error", bad)
		}
	}
}
