//go:build linux

package sources

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// fakePerf stands in for the kernel's perf_event subsystem: it hands out
// descriptors, keeps groups, and accrues time and counts whenever a group is
// disabled after being enabled, so that tests can play hosts this one is not.
type fakePerf struct {
	mu     sync.Mutex
	nextFD int
	nextID uint64
	events map[int]*fakeEvent
	opens  []fakeOpen

	// openErr, when set, decides each open's outcome.
	openErr func(a *perfEventAttr, pid, groupFD int) error
	// fraction is the share of its enabled time a group of n events gets
	// on the PMU (1: exact; < 1: multiplexed; 0: never scheduled).
	fraction func(n int) float64
	// period is the enabled time, in ns, one enable/disable pair accrues.
	period uint64
}

type fakeOpen struct {
	attr    perfEventAttr
	pid     int
	groupFD int
}

type fakeEvent struct {
	attr    perfEventAttr
	id      uint64
	leader  *fakeEvent
	members []*fakeEvent // leader only: itself first, then its siblings
	on      bool

	count, enabled, running uint64
}

func newFakePerf() *fakePerf {
	return &fakePerf{nextFD: 1000, nextID: 7, events: map[int]*fakeEvent{}, period: 5e6}
}

// rate is the fake's count per microsecond of running time for an event:
// instructions twice cycles, so ipc is 2.
func rate(a perfEventAttr) uint64 { return a.Config + 1 }

func (f *fakePerf) open(a *perfEventAttr, pid, cpu, groupFD, flags int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.openErr != nil {
		if err := f.openErr(a, pid, groupFD); err != nil {
			return -1, err
		}
	}
	f.opens = append(f.opens, fakeOpen{*a, pid, groupFD})
	ev := &fakeEvent{attr: *a, id: f.nextID}
	f.nextID += 3
	if groupFD >= 0 {
		ev.leader = f.events[groupFD]
		if ev.leader == nil {
			return -1, unix.EBADF
		}
		ev.leader.members = append(ev.leader.members, ev)
	} else {
		ev.members = []*fakeEvent{ev}
	}
	fd := f.nextFD
	f.nextFD++
	f.events[fd] = ev
	return fd, nil
}

func (f *fakePerf) ioctl(fd int, req uint, arg int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ev := f.events[fd]
	if ev == nil || ev.leader != nil || arg != perfIOCFlagGroup {
		return unix.EINVAL
	}
	switch req {
	case perfEventIOCEnable:
		ev.on = true
	case perfEventIOCDisable:
		if ev.on {
			frac := 1.0
			if f.fraction != nil {
				frac = f.fraction(len(ev.members))
			}
			running := uint64(float64(f.period) * frac)
			for _, m := range ev.members {
				m.enabled += f.period
				m.running += running
				m.count += running / 1000 * rate(m.attr)
			}
		}
		ev.on = false
	default:
		return unix.EINVAL
	}
	return nil
}

func (f *fakePerf) id(fd int) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ev := f.events[fd]; ev != nil {
		return ev.id, nil
	}
	return 0, unix.EBADF
}

func (f *fakePerf) read(fd int, p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ev := f.events[fd]
	if ev == nil {
		return 0, unix.EBADF
	}
	var words []uint64
	if ev.attr.ReadFormat&perfFormatGroup != 0 {
		if ev.leader != nil {
			return 0, unix.EINVAL // the fake reads groups through leaders only
		}
		words = []uint64{uint64(len(ev.members)), ev.enabled, ev.running}
		for _, m := range ev.members {
			words = append(words, m.count, m.id)
		}
	} else {
		words = []uint64{ev.count, ev.enabled, ev.running, ev.id}
	}
	if len(p) < 8*len(words) {
		return 0, unix.ENOSPC
	}
	for i, w := range words {
		binary.NativeEndian.PutUint64(p[8*i:], w)
	}
	return 8 * len(words), nil
}

func (f *fakePerf) close(fd int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.events[fd] == nil {
		return unix.EBADF
	}
	delete(f.events, fd)
	return nil
}

// openFDs counts the descriptors still open.
func (f *fakePerf) openFDs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.events)
}

// useFake installs f as the kernel for the rest of the test, on a made-up
// host: threads 100 and 101, a PMU inventory without a cpu PMU,
// perf_event_paranoid 2, no tracefs. It returns the kernel to adjust.
func useFake(t *testing.T, f *fakePerf) *kernel {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"task/100", "task/101", "devices/software", "devices/tracepoint", "devices/breakpoint"} {
		must(os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	must(os.WriteFile(filepath.Join(dir, "paranoid"), []byte("2\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "mounts"), []byte("proc /proc proc rw 0 0\n"), 0o644))
	saved := sys
	k := &kernel{
		perfOpen: f.open,
		ioctl:    f.ioctl,
		eventID:  f.id,
		read:     f.read,
		close:    f.close,
		rusage:   saved.rusage,

		eventSources: filepath.Join(dir, "devices"),
		paranoid:     filepath.Join(dir, "paranoid"),
		taskDir:      filepath.Join(dir, "task"),
		procIO:       saved.procIO,
		mounts:       filepath.Join(dir, "mounts"),
		tracefs:      []string{filepath.Join(dir, "tracing"), filepath.Join(dir, "debug/tracing")},
	}
	sys = k
	t.Cleanup(func() { sys = saved })
	return k
}

// addThread makes tid appear in the fake host's thread list.
func addThread(t *testing.T, k *kernel, tid int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(k.taskDir, strconv.Itoa(tid)), 0o755); err != nil {
		t.Fatal(err)
	}
}
