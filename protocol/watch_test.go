package protocol

import (
	"testing"
	"time"
)

func TestWatchForeignShare(t *testing.T) {
	tick := int64(10 * time.Millisecond)
	watch := func(busyTicks int64, own, wall time.Duration, cpus int) *Watch {
		return &Watch{HostBusyTicks: busyTicks, TickNs: tick, OwnCPUNs: int64(own), WallNs: int64(wall), CPUs: cpus}
	}
	tests := []struct {
		name   string
		w      *Watch
		want   float64
		wantOK bool
	}{
		// 1 s on 4 CPUs = 400 ticks of capacity; 100 busy ticks, 0.5 s ours.
		{"quarter busy, half ours", watch(100, 500*time.Millisecond, time.Second, 4), 0.125, true},
		{"all ours", watch(100, time.Second, time.Second, 4), 0, true},
		{"own above busy: quantization clamps to 0", watch(10, 150*time.Millisecond, time.Second, 1), 0, true},
		{"busier than capacity clamps to 1", watch(200, 0, time.Second, 1), 1, true},
		{"under five ticks: not answered", watch(4, 0, 4*time.Duration(tick), 1), 0, false},
		{"exactly five ticks", watch(5, 0, 5*time.Duration(tick), 1), 1, true},
		{"no cpus", watch(5, 0, time.Second, 0), 0, false},
		{"no tick", &Watch{WallNs: int64(time.Second), CPUs: 1}, 0, false},
		{"no reading", nil, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.w.ForeignShare()
			if ok != tc.wantOK || (ok && (got < tc.want-1e-12 || got > tc.want+1e-12)) {
				t.Errorf("ForeignShare = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
