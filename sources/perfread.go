package sources

import (
	"encoding/binary"
	"fmt"
	"time"
)

// This file holds the arithmetic of perf_event counting, apart from the
// system calls, so that it can be tested on recorded read buffers on any
// host.

// sample is one read of one group (one monitored thread and the threads it
// spawned): the group's enabled and running times and each event's count, in
// the group's event order. Every field is cumulative since the group opened.
type sample struct {
	enabled, running uint64
	counts           []uint64
}

// groupReadSize is the size of a group read of n events with read_format
// PERF_FORMAT_GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID.
func groupReadSize(n int) int { return 8 * (3 + 2*n) }

// eventReadSize is the size of a single event's read with read_format
// TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID.
const eventReadSize = 8 * 4

// parseGroupRead decodes a read(2) of a group leader opened with read_format
// PERF_FORMAT_GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID, in host byte
// order:
//
//	u64 nr; u64 time_enabled; u64 time_running; { u64 value; u64 id } [nr]
//
// For an inherited group the kernel has already added the counts and times
// of every live inherited child and of every exited one. Each value lands in
// s.counts at the index of its id in ids; a group that does not hold exactly
// the events of ids is an error.
func parseGroupRead(b []byte, ids []uint64, s *sample) error {
	ne := binary.NativeEndian
	if len(b) < 24 {
		return fmt.Errorf("perf group read: %d bytes, want at least 24", len(b))
	}
	nr := ne.Uint64(b)
	if nr != uint64(len(ids)) || len(b) != groupReadSize(len(ids)) {
		return fmt.Errorf("perf group read: %d events in %d bytes, want %d events in %d bytes", nr, len(b), len(ids), groupReadSize(len(ids)))
	}
	s.enabled, s.running = ne.Uint64(b[8:]), ne.Uint64(b[16:])
	if cap(s.counts) < len(ids) {
		s.counts = make([]uint64, len(ids))
	}
	s.counts = s.counts[:len(ids)]
	for i := 0; i < len(ids); i++ {
		v, id := ne.Uint64(b[24+16*i:]), ne.Uint64(b[32+16*i:])
		j := indexOf(ids, id)
		if j < 0 {
			return fmt.Errorf("perf group read: unexpected event id %d", id)
		}
		s.counts[j] = v
	}
	return nil
}

// parseEventRead decodes a read(2) of one event opened with read_format
// TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID (kernels before 4.13 refuse
// PERF_FORMAT_GROUP on inherited events):
//
//	u64 value; u64 time_enabled; u64 time_running; u64 id
func parseEventRead(b []byte, wantID uint64) (value, enabled, running uint64, err error) {
	ne := binary.NativeEndian
	if len(b) != eventReadSize {
		return 0, 0, 0, fmt.Errorf("perf read: %d bytes, want %d", len(b), eventReadSize)
	}
	if id := ne.Uint64(b[24:]); id != wantID {
		return 0, 0, 0, fmt.Errorf("perf read: event id %d, want %d", id, wantID)
	}
	return ne.Uint64(b), ne.Uint64(b[8:]), ne.Uint64(b[16:]), nil
}

func indexOf(ids []uint64, id uint64) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// minScaledRunning is the least counter running time a multiplexed bracket
// must have to be reported: a 0.58 ms slice was once measured 5.7 times off.
const minScaledRunning = uint64(time.Millisecond)

// bracketReading turns the samples of every group, read before the bracket's
// enable and after its disable, into the bracket's reading of metrics (the
// groups' events, in order). It never resets a counter: the deltas of
// cumulative reads are what the bracket counted, inherited children
// included.
//
//   - A group whose time_enabled did not advance belonged to threads that
//     did not run during the bracket: it adds nothing.
//   - A group that was enabled but never running (time_running == 0) never
//     got the PMU: the bracket has no value, rather than a zero or a guess.
//   - A group that ran part of the time was multiplexed: its counts are
//     scaled by enabled/running and the metrics are marked Estimated; such a
//     bracket with under minScaledRunning of counter time has no value.
func bracketReading(metrics []string, before, after []sample) Reading {
	r := newReading()
	sums := make([]float64, len(metrics))
	var enabled, running uint64
	scaled := false
	for g := range after {
		b, a := before[g], after[g]
		if a.enabled < b.enabled || a.running < b.running {
			return unavailableReading(metrics, "perf times went backwards between reads")
		}
		de, dr := a.enabled-b.enabled, a.running-b.running
		if de == 0 {
			continue
		}
		if dr == 0 {
			return unavailableReading(metrics, "not counted: a monitored thread ran but its counter group never got the PMU (time_running == 0)")
		}
		scale := 1.0
		if dr < de {
			scaled = true
			scale = float64(de) / float64(dr)
		}
		for i := range metrics {
			if a.counts[i] < b.counts[i] {
				return unavailableReading(metrics, "perf count went backwards between reads")
			}
			sums[i] += float64(a.counts[i]-b.counts[i]) * scale
		}
		enabled += de
		running += dr
	}
	switch {
	case enabled == 0:
		return unavailableReading(metrics, "not counted: time_enabled did not advance (no monitored thread ran while the counters were enabled)")
	case scaled && running < minScaledRunning:
		return unavailableReading(metrics, fmt.Sprintf("multiplexed bracket with %.3f ms of counter time (under 1 ms is not scaled)", float64(running)/1e6))
	}
	for i, m := range metrics {
		r.Values[m] = sums[i]
		if scaled {
			r.Estimated[m] = true
		}
	}
	return r
}
