package sources

import (
	"encoding/binary"
	"strings"
	"testing"
)

// groupBuf lays out a read of a group opened with read_format
// PERF_FORMAT_GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID, as the kernel
// writes it: nr, time_enabled, time_running, then {value, id} per event.
func groupBuf(enabled, running uint64, valueIDs ...uint64) []byte {
	words := append([]uint64{uint64(len(valueIDs) / 2), enabled, running}, valueIDs...)
	b := make([]byte, 8*len(words))
	for i, w := range words {
		binary.NativeEndian.PutUint64(b[8*i:], w)
	}
	return b
}

func TestParseGroupRead(t *testing.T) {
	ids := []uint64{40, 41, 42}
	var s sample
	// The kernel lists siblings in its own order: values go by id.
	if err := parseGroupRead(groupBuf(5000, 4000, 7, 42, 100, 40, 50, 41), ids, &s); err != nil {
		t.Fatal(err)
	}
	if s.enabled != 5000 || s.running != 4000 || s.counts[0] != 100 || s.counts[1] != 50 || s.counts[2] != 7 {
		t.Errorf("sample %+v", s)
	}
	for _, tc := range []struct {
		name string
		buf  []byte
		want string
	}{
		{"short", make([]byte, 16), "at least 24"},
		{"wrong nr", groupBuf(1, 1, 1, 40, 2, 41), "want 3 events"},
		{"truncated", groupBuf(1, 1, 1, 40, 2, 41, 3, 42)[:60], "want 3 events"},
		{"foreign id", groupBuf(1, 1, 1, 40, 2, 41, 3, 99), "unexpected event id 99"},
	} {
		if err := parseGroupRead(tc.buf, ids, &s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestParseEventRead(t *testing.T) {
	b := make([]byte, 32)
	for i, w := range []uint64{123, 9000, 8000, 77} {
		binary.NativeEndian.PutUint64(b[8*i:], w)
	}
	v, e, r, err := parseEventRead(b, 77)
	if err != nil || v != 123 || e != 9000 || r != 8000 {
		t.Errorf("parseEventRead = %d %d %d %v", v, e, r, err)
	}
	if _, _, _, err := parseEventRead(b, 78); err == nil {
		t.Error("wrong id accepted")
	}
	if _, _, _, err := parseEventRead(b[:24], 77); err == nil {
		t.Error("short read accepted")
	}
}

// samplesOf parses group reads of the two events (ids 1, 2) per thread.
func samplesOf(t *testing.T, bufs ...[]byte) []sample {
	t.Helper()
	out := make([]sample, len(bufs))
	for i, b := range bufs {
		if err := parseGroupRead(b, []uint64{1, 2}, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestBracketReading(t *testing.T) {
	metrics := []string{"instructions", "cycles"}
	ms := uint64(1e6)
	for _, tc := range []struct {
		name          string
		before, after [][]byte
		values        map[string]float64 // nil: unavailable
		estimated     bool
		why           string
	}{
		{
			name:   "exact, two threads",
			before: [][]byte{groupBuf(10*ms, 10*ms, 1000, 1, 500, 2), groupBuf(0, 0, 0, 1, 0, 2)},
			after:  [][]byte{groupBuf(15*ms, 15*ms, 4000, 1, 2000, 2), groupBuf(2*ms, 2*ms, 600, 1, 300, 2)},
			values: map[string]float64{"instructions": 3600, "cycles": 1800},
		},
		{
			name:   "idle thread adds nothing",
			before: [][]byte{groupBuf(0, 0, 0, 1, 0, 2), groupBuf(7, 7, 9, 1, 9, 2)},
			after:  [][]byte{groupBuf(3*ms, 3*ms, 30, 1, 10, 2), groupBuf(7, 7, 9, 1, 9, 2)},
			values: map[string]float64{"instructions": 30, "cycles": 10},
		},
		{
			name:      "multiplexed: scaled per thread, then summed",
			before:    [][]byte{groupBuf(0, 0, 0, 1, 0, 2), groupBuf(0, 0, 0, 1, 0, 2)},
			after:     [][]byte{groupBuf(4*ms, 2*ms, 1000, 1, 500, 2), groupBuf(3*ms, 3*ms, 300, 1, 100, 2)},
			values:    map[string]float64{"instructions": 2300, "cycles": 1100},
			estimated: true,
		},
		{
			name:   "never running",
			before: [][]byte{groupBuf(0, 0, 0, 1, 0, 2)},
			after:  [][]byte{groupBuf(4*ms, 0, 0, 1, 0, 2)},
			why:    "time_running == 0",
		},
		{
			name:   "one thread never running",
			before: [][]byte{groupBuf(0, 0, 0, 1, 0, 2), groupBuf(0, 0, 0, 1, 0, 2)},
			after:  [][]byte{groupBuf(4*ms, 4*ms, 10, 1, 10, 2), groupBuf(1*ms, 0, 0, 1, 0, 2)},
			why:    "time_running == 0",
		},
		{
			name:   "multiplexed under 1 ms",
			before: [][]byte{groupBuf(0, 0, 0, 1, 0, 2)},
			after:  [][]byte{groupBuf(2*ms, 580000, 100, 1, 50, 2)},
			why:    "0.580 ms of counter time",
		},
		{
			name:   "exact under 1 ms is fine",
			before: [][]byte{groupBuf(0, 0, 0, 1, 0, 2)},
			after:  [][]byte{groupBuf(100, 100, 5, 1, 3, 2)},
			values: map[string]float64{"instructions": 5, "cycles": 3},
		},
		{
			name:   "never enabled",
			before: [][]byte{groupBuf(5, 5, 1, 1, 1, 2)},
			after:  [][]byte{groupBuf(5, 5, 1, 1, 1, 2)},
			why:    "time_enabled did not advance",
		},
		{
			name:   "backwards",
			before: [][]byte{groupBuf(5*ms, 5*ms, 10, 1, 10, 2)},
			after:  [][]byte{groupBuf(6*ms, 6*ms, 9, 1, 11, 2)},
			why:    "went backwards",
		},
	} {
		r := bracketReading(metrics, samplesOf(t, tc.before...), samplesOf(t, tc.after...))
		for _, m := range metrics {
			v, ok := r.Values[m]
			if tc.values == nil {
				if ok || !strings.Contains(r.Unavailable[m], tc.why) {
					t.Errorf("%s: %s = %v (%v), reason %q; want unavailable %q", tc.name, m, v, ok, r.Unavailable[m], tc.why)
				}
				continue
			}
			if !ok || v != tc.values[m] || r.Estimated[m] != tc.estimated {
				t.Errorf("%s: %s = %v (%v), estimated %v; want %v, estimated %v", tc.name, m, v, ok, r.Estimated[m], tc.values[m], tc.estimated)
			}
		}
	}
}
