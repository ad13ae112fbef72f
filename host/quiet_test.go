package host

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/benchsup/benchsup/sources"
)

func TestQuiescenceConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     QuiescenceConfig
		wantErr string
	}{
		{name: "zero is the default", cfg: QuiescenceConfig{}},
		{name: "full", cfg: QuiescenceConfig{MaxAverage: 1, MaxCore: 0.9, Stable: time.Second, Poll: time.Second, Timeout: time.Second}},
		{name: "average over 1", cfg: QuiescenceConfig{MaxAverage: 20}, wantErr: "average limit 20"},
		{name: "negative core", cfg: QuiescenceConfig{MaxCore: -0.5}, wantErr: "per-CPU limit -0.5"},
		{name: "timeout under stable", cfg: QuiescenceConfig{Stable: 2 * time.Second, Timeout: time.Second}, wantErr: "shorter than the stable interval"},
		{name: "poll over timeout", cfg: QuiescenceConfig{Poll: 20 * time.Second}, wantErr: "longer than the timeout"},
		{name: "negative", cfg: QuiescenceConfig{Stable: -1}, wantErr: "negative duration"},
		{name: "negative cpu", cfg: QuiescenceConfig{CPUs: []int{-1}}, wantErr: "CPU -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrQuiescenceConfig) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
	d := QuiescenceConfig{}.WithDefaults()
	if d.MaxAverage != 0.20 || d.MaxCore != 0.50 || d.Stable != time.Second || d.Poll != 100*time.Millisecond || d.Timeout != 15*time.Second {
		t.Errorf("defaults = %+v", d)
	}
}

// The decision over fixed sequences of observations.
func TestQuietGate(t *testing.T) {
	cfg := QuiescenceConfig{Stable: 300 * time.Millisecond}.WithDefaults()
	obs := func(avg, core float64) Observation {
		return Observation{Interval: 100 * time.Millisecond, Average: avg, Busiest: core, BusiestCPU: 1}
	}
	tests := []struct {
		name     string
		seq      []Observation
		openAt   int // index of the observation that opens the gate; -1 never
		wantAvg  float64
		wantCore float64
	}{
		{"quiet throughout", []Observation{obs(0.1, 0.2), obs(0.15, 0.3), obs(0.05, 0.1)}, 2, 0.15, 0.3},
		{"limits are inclusive", []Observation{obs(0.2, 0.5), obs(0.2, 0.5), obs(0.2, 0.5)}, 2, 0.2, 0.5},
		{"average too high", []Observation{obs(0.3, 0.3), obs(0.3, 0.3), obs(0.3, 0.3), obs(0.3, 0.3)}, -1, 0, 0},
		{"one hot core hides in the average", []Observation{obs(0.1, 0.9), obs(0.1, 0.9), obs(0.1, 0.9), obs(0.1, 0.9)}, -1, 0, 0},
		{"a break restarts the count", []Observation{obs(0.1, 0.1), obs(0.1, 0.1), obs(0.9, 0.9), obs(0.1, 0.2), obs(0.12, 0.1), obs(0.1, 0.1)}, 5, 0.12, 0.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := quietGate{cfg: cfg}
			opened := -1
			for i := range tc.seq {
				if g.observe(&tc.seq[i]) {
					opened = i
					break
				}
			}
			if opened != tc.openAt {
				t.Fatalf("opened at %d, want %d (%+v)", opened, tc.openAt, tc.seq)
			}
			if opened >= 0 && (g.maxAvg != tc.wantAvg || g.maxCore != tc.wantCore || g.maxCoreCPU != 1) {
				t.Errorf("stable interval max = %v, %v (cpu%d); want %v, %v", g.maxAvg, g.maxCore, g.maxCoreCPU, tc.wantAvg, tc.wantCore)
			}
		})
	}
}

// fakeHost is a host whose per-call busy shares are scripted: call i adds
// 100 ticks per CPU with share[i] of them busy on cpu1 and a tenth of that
// on cpu0; the script's last entry repeats.
type fakeHost struct {
	share []float64
	calls int
	cur   sources.HostCPU
}

func (f *fakeHost) read() (sources.HostCPU, error) {
	if f.calls == 0 {
		f.cur = sources.HostCPU{Total: sources.CPUTimes{CPU: -1}, PerCPU: []sources.CPUTimes{{CPU: 0}, {CPU: 1}}, Tick: sources.DefaultTick}
	} else {
		s := f.share[min(f.calls-1, len(f.share)-1)]
		busy := []int64{int64(10 * s), int64(100 * s)}
		f.cur.PerCPU = append([]sources.CPUTimes(nil), f.cur.PerCPU...)
		for i := range f.cur.PerCPU {
			f.cur.PerCPU[i].Busy += busy[i]
			f.cur.PerCPU[i].Idle += 100 - busy[i]
			f.cur.Total.Busy += busy[i]
			f.cur.Total.Idle += 100 - busy[i]
		}
	}
	f.calls++
	return f.cur, nil
}

func TestWaitQuietBusyThenQuiet(t *testing.T) {
	f := &fakeHost{share: []float64{0.9, 0.9, 0.9, 0.1}}
	var seen []Observation
	cfg := QuiescenceConfig{Stable: 10 * time.Millisecond, Poll: 2 * time.Millisecond, Timeout: 5 * time.Second}
	rep, err := WaitQuiet(context.Background(), cfg, f.read, func(o Observation) { seen = append(seen, o) })
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 3 || seen[0].Quiet || seen[0].BusiestCPU != 1 || seen[0].Busiest != 0.9 || seen[0].Average != 0.495 {
		t.Fatalf("waiting saw %+v; want three busy intervals first (cpu1 90%%, average 49.5%%)", seen)
	}
	if got := seen[0].String(); got != "50% average, cpu1 90%" {
		t.Errorf("String = %q", got)
	}
	if rep.Polls != f.calls-1 || rep.Polls < 4 || rep.WaitedNs < int64(cfg.Stable) {
		t.Errorf("report %+v after %d reads", rep, f.calls)
	}
	if rep.StableAverage == nil || *rep.StableAverage != 0.055 || *rep.StableBusiest != 0.1 || *rep.StableBusiestCPU != 1 {
		t.Errorf("stable interval = %v %v %v", rep.StableAverage, rep.StableBusiest, rep.StableBusiestCPU)
	}
	if rep.MaxAverage != 0.20 || rep.MaxCore != 0.50 || rep.StableNs != int64(cfg.Stable) || rep.CPUs != "" {
		t.Errorf("limits in report: %+v", rep)
	}
}

func TestWaitQuietAlwaysBusy(t *testing.T) {
	f := &fakeHost{share: []float64{0.9}}
	cfg := QuiescenceConfig{Stable: 10 * time.Millisecond, Poll: 2 * time.Millisecond, Timeout: 30 * time.Millisecond}
	rep, err := WaitQuiet(context.Background(), cfg, f.read, nil)
	var nq *NotQuietError
	if !errors.Is(err, ErrNotQuiet) || !errors.As(err, &nq) {
		t.Fatalf("err = %v, want *NotQuietError", err)
	}
	if !nq.HaveLast || nq.Last.BusiestCPU != 1 || nq.Last.Busiest != 0.9 || nq.Waited < cfg.Timeout || rep.StableAverage != nil {
		t.Errorf("error %+v, report %+v", nq, rep)
	}
	for _, want := range []string{"host not quiet after", "50% average (limit 20%)", "busiest cpu1 90% (limit 50%)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

// Watching cpu0 only: cpu1's load does not count.
func TestWaitQuietWatchedCPUs(t *testing.T) {
	f := &fakeHost{share: []float64{0.9}}
	cfg := QuiescenceConfig{Stable: 4 * time.Millisecond, Poll: 2 * time.Millisecond, Timeout: time.Second, CPUs: []int{0}}
	rep, err := WaitQuiet(context.Background(), cfg, f.read, nil)
	if err != nil || rep.CPUs != "0" || *rep.StableBusiestCPU != 0 {
		t.Fatalf("%+v, %v", rep, err)
	}
	cfg.CPUs = []int{5}
	if _, err := WaitQuiet(context.Background(), cfg, (&fakeHost{share: []float64{0}}).read, nil); err == nil || !strings.Contains(err.Error(), "cpu5 is not online") {
		t.Errorf("offline CPU: %v", err)
	}
}

func TestWaitQuietCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := WaitQuiet(ctx, QuiescenceConfig{}, (&fakeHost{share: []float64{0.9}}).read, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// The real /proc/stat: only the shape of the answer, since this host's
// load is not ours to know.
func TestWaitQuietLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/stat")
	}
	cfg := QuiescenceConfig{MaxAverage: 1, MaxCore: 1, Stable: 50 * time.Millisecond, Poll: 20 * time.Millisecond, Timeout: 2 * time.Second}
	rep, err := WaitQuiet(context.Background(), cfg, nil, nil)
	if err != nil {
		t.Fatal(err) // limits of 100% always hold
	}
	if rep.Polls < 1 || rep.WaitedNs < int64(cfg.Stable) || rep.StableAverage == nil || *rep.StableAverage < 0 || *rep.StableAverage > 1 || *rep.StableBusiest < *rep.StableAverage-1e-9 {
		t.Errorf("report %+v", rep)
	}
}

// TestWaitQuietAverageOfCPULines: the host's own line is summed at another
// instant than the CPUs' lines, and may hold a tick they do not; the
// average is taken over the CPUs' lines, so it never exceeds the busiest.
func TestWaitQuietAverageOfCPULines(t *testing.T) {
	calls := 0
	read := func() (sources.HostCPU, error) {
		calls++
		n := int64(calls)
		return sources.HostCPU{
			Total:  sources.CPUTimes{CPU: -1, Busy: n, Idle: 19 * n}, // a tick each read the CPU lines lack
			PerCPU: []sources.CPUTimes{{CPU: 0, Idle: 10 * n}, {CPU: 1, Idle: 10 * n}},
			Tick:   sources.DefaultTick,
		}, nil
	}
	cfg := QuiescenceConfig{Stable: 4 * time.Millisecond, Poll: time.Millisecond, Timeout: 5 * time.Second}
	rep, err := WaitQuiet(context.Background(), cfg, read, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.StableAverage == nil || *rep.StableAverage != 0 || *rep.StableBusiest != 0 {
		t.Errorf("stable average %v, busiest %v: want 0 and 0, from the CPU lines", rep.StableAverage, rep.StableBusiest)
	}
}
