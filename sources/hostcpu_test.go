package sources

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		total   CPUTimes
		per     []CPUTimes
		wantErr string
	}{
		{
			name: "current kernel, guest inside user",
			// user nice system idle iowait irq softirq steal guest guest_nice
			in:    "cpu  100 10 50 800 20 3 4 5 70 1\ncpu0 60 5 30 400 10 2 2 3 40 1\ncpu1 40 5 20 400 10 1 2 2 30 0\nintr 1 2 3\nctxt 9\n",
			total: CPUTimes{CPU: -1, Busy: 100 + 10 + 50 + 3 + 4 + 5, Idle: 820},
			per:   []CPUTimes{{0, 60 + 5 + 30 + 2 + 2 + 3, 410}, {1, 40 + 5 + 20 + 1 + 2 + 2, 410}},
		},
		{
			name:  "2.4 kernel: four columns",
			in:    "cpu 10 0 5 85\ncpu0 10 0 5 85\n",
			total: CPUTimes{CPU: -1, Busy: 15, Idle: 85},
			per:   []CPUTimes{{0, 15, 85}},
		},
		{
			name:  "offline cpu1: numbers kept, sorted",
			in:    "cpu 3 0 0 3\ncpu2 2 0 0 1\ncpu0 1 0 0 2\n",
			total: CPUTimes{CPU: -1, Busy: 3, Idle: 3},
			per:   []CPUTimes{{0, 1, 2}, {2, 2, 1}},
		},
		{name: "no total", in: "cpu0 1 2 3 4\n", wantErr: "no cpu total line"},
		{name: "too few columns", in: "cpu 1 2 3\n", wantErr: "want at least 4"},
		{name: "not a number", in: "cpu 1 2 x 4\n", wantErr: `"x" is not a tick count`},
		{name: "negative", in: "cpu 1 2 -3 4\n", wantErr: "is not a tick count"},
		{name: "bad cpu name", in: "cpu 1 2 3 4\ncpux 1 2 3 4\n", wantErr: `"cpux" is not cpuN`},
		{name: "duplicate cpu", in: "cpu 1 2 3 4\ncpu0 1 2 3 4\ncpu0 1 2 3 4\n", wantErr: "cpu0 listed twice"},
		{name: "empty", in: "", wantErr: "no cpu total line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ParseProcStat([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrProcStat) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want ErrProcStat mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Total != tc.total {
				t.Errorf("Total = %+v, want %+v", h.Total, tc.total)
			}
			if len(h.PerCPU) != len(tc.per) {
				t.Fatalf("PerCPU = %+v, want %+v", h.PerCPU, tc.per)
			}
			for i := range tc.per {
				if h.PerCPU[i] != tc.per[i] {
					t.Errorf("PerCPU[%d] = %+v, want %+v", i, h.PerCPU[i], tc.per[i])
				}
			}
			if h.Tick != DefaultTick {
				t.Errorf("Tick = %d, want DefaultTick", h.Tick)
			}
		})
	}
}

// A real snapshot (a 2-CPU Linux 6.x host) parses, and its per-CPU lines
// add up to the total: the columns were assigned to busy and idle alike.
func TestParseProcStatSnapshot(t *testing.T) {
	data, err := os.ReadFile("testdata/hostcpu/stat-2cpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseProcStat(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.PerCPU) != 2 || h.PerCPU[0].CPU != 0 || h.PerCPU[1].CPU != 1 {
		t.Fatalf("PerCPU = %+v, want cpu0 and cpu1", h.PerCPU)
	}
	var busy, idle int64
	for _, c := range h.PerCPU {
		busy += c.Busy
		idle += c.Idle
	}
	// The kernel sums the total from the same per-CPU counters, but
	// rounds each sum and each CPU's column to ticks separately: allow a
	// tick per column per CPU (six busy columns, two idle).
	if d := busy - h.Total.Busy; d < -12 || d > 12 {
		t.Errorf("per-CPU busy sums to %d, total says %d", busy, h.Total.Busy)
	}
	if d := idle - h.Total.Idle; d < -4 || d > 4 {
		t.Errorf("per-CPU idle sums to %d, total says %d", idle, h.Total.Idle)
	}
}

func TestSubAndBusyShare(t *testing.T) {
	before := HostCPU{Total: CPUTimes{-1, 100, 100}, PerCPU: []CPUTimes{{0, 50, 50}, {1, 50, 50}, {2, 0, 0}}, Tick: DefaultTick}
	after := HostCPU{Total: CPUTimes{-1, 130, 170}, PerCPU: []CPUTimes{{0, 75, 55}, {1, 55, 48}, {3, 9, 9}}, Tick: DefaultTick}
	d := after.Sub(before)
	// The total is the matched CPUs' (25+5 busy, 5+0 idle), not the host
	// lines' difference (30, 70), which the kernel sums at another instant
	// and which counts cpu2 and cpu3 too.
	if d.Total != (CPUTimes{-1, 30, 5}) {
		t.Errorf("Total = %+v", d.Total)
	}
	// cpu2 went offline and cpu3 came online: neither has an interval.
	// cpu1's idle went backwards (iowait can): zero, not negative.
	want := []CPUTimes{{0, 25, 5}, {1, 5, 0}}
	if len(d.PerCPU) != len(want) || d.PerCPU[0] != want[0] || d.PerCPU[1] != want[1] {
		t.Fatalf("PerCPU = %+v, want %+v", d.PerCPU, want)
	}
	avg, per, ok := d.BusyShare()
	if !ok || avg != 30.0/35 || len(per) != 2 || per[0] != 25.0/30 || per[1] != 1 {
		t.Errorf("BusyShare = %v %v %v", avg, per, ok)
	}
	if _, _, ok := before.Sub(before).BusyShare(); ok {
		t.Error("BusyShare of an empty interval: ok")
	}
	// Without CPU lines, the host lines are all there is.
	bare := HostCPU{Total: CPUTimes{-1, 130, 170}, Tick: DefaultTick}.Sub(HostCPU{Total: CPUTimes{-1, 100, 100}, Tick: DefaultTick})
	if bare.Total != (CPUTimes{-1, 30, 70}) || bare.PerCPU != nil {
		t.Errorf("Sub without CPU lines = %+v", bare)
	}
	only := d.Only([]int{1, 7})
	if only.Total != (CPUTimes{-1, 5, 0}) || len(only.PerCPU) != 1 || only.PerCPU[0].CPU != 1 {
		t.Errorf("Only(1,7) = %+v", only)
	}
}

func TestReadHostCPULive(t *testing.T) {
	a, err := ReadHostCPU()
	if runtime.GOOS != "linux" {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("off Linux: err = %v, want ErrUnsupported", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if a.Tick <= 0 || a.Tick > int64(time.Second) || len(a.PerCPU) == 0 || a.Total.Busy+a.Total.Idle <= 0 {
		t.Fatalf("implausible read: %+v", a)
	}
	own0, err := ProcessCPU()
	if err != nil {
		t.Fatal(err)
	}
	// Burn some CPU so both readers have something to show.
	deadline := time.Now().Add(60 * time.Millisecond)
	for x := 0; time.Now().Before(deadline); x++ {
		_ = x * x
	}
	own1, err := ProcessCPU()
	if err != nil {
		t.Fatal(err)
	}
	if own1 <= own0 {
		t.Errorf("ProcessCPU did not advance over a busy loop: %v then %v", own0, own1)
	}
	b, err := ReadHostCPU()
	if err != nil {
		t.Fatal(err)
	}
	d := b.Sub(a)
	if d.Total.Busy+d.Total.Idle <= 0 {
		t.Errorf("no ticks over 60 ms: %+v", d)
	}
}
