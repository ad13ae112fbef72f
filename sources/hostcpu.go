package sources

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"
)

// Host CPU busy time, as the kernel accounts it in /proc/stat: what the
// supervisor's quiescence preflight and the interference watch read. The
// counters are cumulative ticks of USER_HZ (almost always 100 Hz, 10 ms), so
// a reading means something only as the difference of two (Sub), and a
// difference over a few ticks is mostly quantization (ForeignShare).

// CPUTimes is one CPU's (or the whole host's) cumulative time in ticks.
//
// Busy is user+nice+system+irq+softirq+steal. Steal is time the hypervisor
// gave to another guest while this CPU had work: foreign to us, so busy.
// Guest and guest_nice are already inside user and nice, and are not added
// again. Idle is idle+iowait: a CPU waiting for I/O runs nothing.
type CPUTimes struct {
	CPU  int   `json:"cpu"` // -1 for the host total
	Busy int64 `json:"busy"`
	Idle int64 `json:"idle"`
}

// HostCPU is one read of /proc/stat, or the difference of two.
type HostCPU struct {
	Total CPUTimes `json:"total"`
	// PerCPU holds the CPUs /proc/stat lists, in ascending CPU number. An
	// offline CPU has no line, so the index equals the CPU number only
	// while every CPU is online: use CPUTimes.CPU, or CPU(n).
	PerCPU []CPUTimes `json:"perCpu"`
	// Tick is nanoseconds per tick: 1e9/USER_HZ.
	Tick int64 `json:"tickNs"`
}

// DefaultTick is 1e9/USER_HZ for USER_HZ = 100, which Linux exports to user
// space on every architecture; ReadHostCPU asks the kernel (AT_CLKTCK)
// and falls back to it.
const DefaultTick = int64(10 * time.Millisecond)

// ErrProcStat is wrapped by every error ParseProcStat returns.
var ErrProcStat = errors.New("malformed /proc/stat")

// ParseProcStat reads the cpu lines of a /proc/stat snapshot. Lines with
// fewer than the ten columns of current kernels are accepted down to the
// four every kernel has (user nice system idle); the missing columns count
// as not accounted, not as measured zeros. Tick is DefaultTick: the text
// does not say, so ReadHostCPU sets it.
func ParseProcStat(data []byte) (HostCPU, error) {
	h := HostCPU{Tick: DefaultTick}
	sawTotal := false
	for n, line := range bytes.Split(data, []byte("\n")) {
		// Only cpu lines are split into fields: the intr line alone holds
		// a count per interrupt, thousands of them on a large host.
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("cpu")) {
			continue
		}
		fields := bytes.Fields(line)
		name := string(fields[0])
		t := CPUTimes{CPU: -1}
		if name != "cpu" {
			cpu, err := strconv.Atoi(name[len("cpu"):])
			if err != nil || cpu < 0 {
				return HostCPU{}, fmt.Errorf("%w: line %d: %q is not cpuN", ErrProcStat, n+1, name)
			}
			t.CPU = cpu
		}
		cols := fields[1:]
		if len(cols) < 4 {
			return HostCPU{}, fmt.Errorf("%w: line %d: %s has %d columns, want at least 4", ErrProcStat, n+1, name, len(cols))
		}
		var v [8]int64 // user nice system idle iowait irq softirq steal
		for i := 0; i < len(v) && i < len(cols); i++ {
			x, err := strconv.ParseInt(string(cols[i]), 10, 64)
			if err != nil || x < 0 {
				return HostCPU{}, fmt.Errorf("%w: line %d: %s column %d: %q is not a tick count", ErrProcStat, n+1, name, i+1, cols[i])
			}
			v[i] = x
		}
		t.Busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
		t.Idle = v[3] + v[4]
		if t.CPU < 0 {
			if sawTotal {
				return HostCPU{}, fmt.Errorf("%w: line %d: a second cpu total line", ErrProcStat, n+1)
			}
			sawTotal = true
			h.Total = t
			continue
		}
		h.PerCPU = append(h.PerCPU, t)
	}
	if !sawTotal {
		return HostCPU{}, fmt.Errorf("%w: no cpu total line", ErrProcStat)
	}
	// slices, not sort.Slice, whose reflection go test's binary does not
	// reach (docs/design.md#injection).
	slices.SortFunc(h.PerCPU, func(a, b CPUTimes) int { return cmp.Compare(a.CPU, b.CPU) })
	for i := 1; i < len(h.PerCPU); i++ {
		if h.PerCPU[i].CPU == h.PerCPU[i-1].CPU {
			return HostCPU{}, fmt.Errorf("%w: cpu%d listed twice", ErrProcStat, h.PerCPU[i].CPU)
		}
	}
	return h, nil
}

// CPU returns the times of CPU n, and false when h has no line for it.
func (h HostCPU) CPU(n int) (CPUTimes, bool) {
	i := sort.Search(len(h.PerCPU), func(i int) bool { return h.PerCPU[i].CPU >= n })
	if i < len(h.PerCPU) && h.PerCPU[i].CPU == n {
		return h.PerCPU[i], true
	}
	return CPUTimes{}, false
}

// Sub returns a-b, the ticks spent between read b and the later read a.
// CPUs are matched by number; a CPU present on only one side (it went
// offline or came online in between) is left out, since its interval is
// not the other CPUs'. A counter that went backwards (the kernel's
// iowait estimate can) contributes zero rather than a negative time.
//
// The difference's Total is the sum of the matched CPUs' differences, not
// the difference of the host lines: the kernel sums its host line at
// another instant than it prints the CPU lines, and over 100 ms a tick
// between them is 5% of two CPUs, enough to show a busy host where every
// CPU was idle. Only without any CPU line is the host line used.
func (a HostCPU) Sub(b HostCPU) HostCPU {
	if len(a.PerCPU) == 0 {
		return HostCPU{Total: subTimes(a.Total, b.Total), Tick: a.Tick}
	}
	d := HostCPU{Total: CPUTimes{CPU: -1}, Tick: a.Tick}
	for _, t := range a.PerCPU {
		if u, ok := b.CPU(t.CPU); ok {
			c := subTimes(t, u)
			d.PerCPU = append(d.PerCPU, c)
			d.Total.Busy += c.Busy
			d.Total.Idle += c.Idle
		}
	}
	return d
}

func subTimes(a, b CPUTimes) CPUTimes {
	return CPUTimes{CPU: a.CPU, Busy: nonNegative(a.Busy - b.Busy), Idle: nonNegative(a.Idle - b.Idle)}
}

func nonNegative(x int64) int64 {
	if x < 0 {
		return 0
	}
	return x
}

// Only returns h restricted to the listed CPUs, its Total recomputed as
// their sum: how a run placed on a CPU set watches that set. CPUs h has no
// line for are left out.
func (h HostCPU) Only(cpus []int) HostCPU {
	r := HostCPU{Total: CPUTimes{CPU: -1}, Tick: h.Tick}
	for _, t := range h.PerCPU {
		for _, c := range cpus {
			if t.CPU == c {
				r.PerCPU = append(r.PerCPU, t)
				r.Total.Busy += t.Busy
				r.Total.Idle += t.Idle
				break
			}
		}
	}
	return r
}

// BusyShare returns busy/(busy+idle) of a difference (Sub) for the host and
// for each CPU (aligned with PerCPU). ok is false when the interval holds
// no ticks for the host or for any one CPU: too short to say anything.
func (h HostCPU) BusyShare() (avg float64, perCPU []float64, ok bool) {
	share := func(t CPUTimes) (float64, bool) {
		all := t.Busy + t.Idle
		if all <= 0 {
			return 0, false
		}
		return float64(t.Busy) / float64(all), true
	}
	avg, ok = share(h.Total)
	if !ok {
		return 0, nil, false
	}
	perCPU = make([]float64, len(h.PerCPU))
	for i, t := range h.PerCPU {
		if perCPU[i], ok = share(t); !ok {
			return 0, nil, false
		}
	}
	return avg, perCPU, true
}
