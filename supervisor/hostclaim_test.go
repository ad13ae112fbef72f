package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/sources"
)

func TestCheckHost(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string // "" for none
	}{
		{name: "nothing asked", cfg: Config{Mode: ModeTest}},
		{name: "claim in test mode", cfg: Config{Mode: ModeTest, Claim: &host.ClaimConfig{}}},
		{name: "preflight in bench mode", cfg: Config{Mode: ModeBench, Quiescence: &host.QuiescenceConfig{}}},
		{name: "preflight in test mode", cfg: Config{Mode: ModeTest, Quiescence: &host.QuiescenceConfig{}}, wantErr: "Quiescence: guards measurements"},
		{name: "limit out of range", cfg: Config{Mode: ModeBench, Quiescence: &host.QuiescenceConfig{MaxAverage: 20}}, wantErr: "average limit 20"},
		{name: "timeout under stable", cfg: Config{Mode: ModeBench, Quiescence: &host.QuiescenceConfig{Stable: time.Minute}}, wantErr: "shorter than the stable interval"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkHost(tc.cfg)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != "Quiescence" || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("checkHost = %v, want a ConfigError on Quiescence saying %q", err, tc.wantErr)
			}
		})
	}
}

// busyHost is /proc/stat of two CPUs whose busy shares over each read are
// share[0] (cpu0) and share[1] (cpu1), as cumulative ticks.
type busyHost struct {
	mu    sync.Mutex
	share [2]float64
	cur   sources.HostCPU
	reads int
}

func (b *busyHost) read() (sources.HostCPU, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reads == 0 {
		b.cur = sources.HostCPU{Total: sources.CPUTimes{CPU: -1}, PerCPU: []sources.CPUTimes{{CPU: 0}, {CPU: 1}}, Tick: sources.DefaultTick}
	}
	b.reads++
	per := append([]sources.CPUTimes(nil), b.cur.PerCPU...)
	for i := range per {
		busy := int64(100 * b.share[i])
		per[i].Busy += busy
		per[i].Idle += 100 - busy
		b.cur.Total.Busy += busy
		b.cur.Total.Idle += 100 - busy
	}
	b.cur.PerCPU = per
	return b.cur, nil
}

func TestWaitQuiet(t *testing.T) {
	t.Parallel() // mostly waiting out a timeout: beside the other slow ones
	fast := host.QuiescenceConfig{Poll: 5 * time.Millisecond, Stable: 30 * time.Millisecond, Timeout: 1500 * time.Millisecond}

	t.Run("none asked", func(t *testing.T) {
		rep, err := waitQuiet(context.Background(), Config{}, nil, (&busyHost{}).read)
		if rep != nil || err != nil {
			t.Fatalf("waitQuiet without a preflight = %v, %v; want no record and no error", rep, err)
		}
	})

	t.Run("quiet host", func(t *testing.T) {
		h := &busyHost{share: [2]float64{0.05, 0.10}}
		var msgs []string
		cfg := Config{Mode: ModeBench, Quiescence: &fast, Waiting: func(m string) { msgs = append(msgs, m) }}
		rep, err := waitQuiet(context.Background(), cfg, nil, h.read)
		if err != nil {
			t.Fatal(err)
		}
		if rep == nil || rep.StableAverage == nil || rep.StableBusiest == nil || rep.StableBusiestCPU == nil {
			t.Fatalf("record %+v: want the stable interval's shares", rep)
		}
		if *rep.StableBusiestCPU != 1 || *rep.StableBusiest > rep.MaxCore || *rep.StableAverage > rep.MaxAverage {
			t.Errorf("record %+v: the busiest CPU is cpu1, and both shares are under their limits", rep)
		}
		if rep.MaxAverage != host.DefaultMaxAverage || rep.MaxCore != host.DefaultMaxCore || rep.TimeoutNs != int64(fast.Timeout) || rep.CPUs != "" {
			t.Errorf("record %+v: want the default limits, the given timeout, every CPU watched", rep)
		}
		if len(msgs) != 0 {
			t.Errorf("a quiet host made the run say it waits: %q", msgs)
		}
	})

	t.Run("the run's CPUs", func(t *testing.T) {
		// cpu0 is busy, the run's cpu1 quiet: the gate opens, and the
		// record names what it watched (cpu1 and its SMT siblings).
		watched, sibErr := withSiblings([]int{1}, host.Siblings)
		if slices.Contains(watched, 0) {
			t.Skip("cpu0 and cpu1 are SMT siblings here: the busy cpu0 is watched too")
		}
		h := &busyHost{share: [2]float64{0.98, 0.05}}
		cfg := Config{Mode: ModeBench, Quiescence: &fast}
		rep, err := waitQuiet(context.Background(), cfg, []int{1}, h.read)
		if err != nil {
			t.Fatal(err)
		}
		if want := host.FormatCPUList(watched); rep == nil || rep.CPUs != want {
			t.Fatalf("record %+v: want the watched CPUs %q", rep, want)
		}
		if sibErr != nil && !strings.Contains(rep.Note, "SMT siblings") {
			t.Errorf("record %+v: siblings unreadable (%v), and the note does not say so", rep, sibErr)
		}
	})

	t.Run("busy host times out", func(t *testing.T) {
		h := &busyHost{share: [2]float64{0.30, 0.98}}
		var msgs []string
		cfg := Config{Mode: ModeBench, Quiescence: &fast, Waiting: func(m string) { msgs = append(msgs, m) }}
		start := time.Now()
		rep, err := waitQuiet(context.Background(), cfg, nil, h.read)
		took := time.Since(start)
		var nq *host.NotQuietError
		if rep != nil || !errors.Is(err, host.ErrNotQuiet) || !errors.As(err, &nq) {
			t.Fatalf("waitQuiet = %+v, %v; want no record and a *host.NotQuietError", rep, err)
		}
		for _, want := range []string{"64% average (limit 20%)", "busiest cpu1 98% (limit 50%)", "not measuring under known load"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if took < fast.Timeout {
			t.Errorf("gave up after %v, before the %v timeout", took, fast.Timeout)
		}
		// One message at once, then at most one a second.
		if max := 1 + int(took/quietEvery); len(msgs) == 0 || len(msgs) > max {
			t.Fatalf("%d waiting messages over %v, want 1..%d: %q", len(msgs), took, max, msgs)
		}
		if want := "waiting for a quiet host: 64% average, cpu1 98% (limits 20%, 50%)"; msgs[0] != want {
			t.Errorf("waiting message %q, want %q", msgs[0], want)
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		h := &busyHost{share: [2]float64{1, 1}}
		cfg := Config{Mode: ModeBench, Quiescence: &fast, Waiting: func(string) { cancel() }}
		rep, err := waitQuiet(ctx, cfg, nil, h.read)
		if rep != nil || err != nil {
			t.Fatalf("an interrupted preflight = %v, %v; want no record and no error (the run's partial results follow)", rep, err)
		}
	})
}

func TestWithSiblings(t *testing.T) {
	smt := func(cpu int) ([]int, error) { return []int{cpu &^ 1, cpu | 1}, nil } // pairs 0-1, 2-3, ...
	got, err := withSiblings([]int{2, 0}, smt)
	if err != nil || fmt.Sprint(got) != "[0 1 2 3]" {
		t.Errorf("withSiblings(2,0) = %v, %v; want [0 1 2 3]", got, err)
	}
	broken := func(int) ([]int, error) { return nil, errors.New("no topology") }
	got, err = withSiblings([]int{3, 1, 3}, broken)
	if err == nil || fmt.Sprint(got) != "[1 3]" {
		t.Errorf("withSiblings without topology = %v, %v; want the CPUs themselves and the error", got, err)
	}
}

// A run that finds its CPU claimed waits, says for whom, and takes it once
// the holder lets go; the document records the wait.
func TestClaimHost(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the host claim is implemented for Linux only")
	}
	if c, err := claimHost(context.Background(), Config{}, nil); c != nil || err != nil || claimReport(c) != nil || c.Release() != nil {
		t.Fatalf("claimHost without a claim = %v, %v; want none, a nil record, and a Release that does nothing", c, err)
	}
	dir := t.TempDir()
	holder, err := host.Claim(context.Background(), host.ClaimConfig{Dir: dir, CPUs: []int{0}, Command: "the test's holder"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan string, 10)
	cfg := Config{
		Claim:   &host.ClaimConfig{Dir: dir, CPUs: []int{5, 6}, Poll: 10 * time.Millisecond, Command: "benchsup run"}, // CPUs: the run's win
		Waiting: func(m string) { msgs <- m },
	}
	type result struct {
		c   *host.HostClaim
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := claimHost(context.Background(), cfg, []int{0})
		done <- result{c, err}
	}()
	select {
	case m := <-msgs:
		want := fmt.Sprintf("waiting for the host claim: cpu0 is held by pid %d", os.Getpid())
		if !strings.HasPrefix(m, want) || !strings.Contains(m, "(the test's holder)") {
			t.Errorf("waiting message %q, want it to start %q and name the holder's command", m, want)
		}
	case r := <-done:
		t.Fatalf("claimHost returned %v, %v while cpu0 was held", r.c, r.err)
	case <-time.After(10 * time.Second):
		t.Fatal("no waiting message in 10s")
	}
	time.Sleep(50 * time.Millisecond)
	holder.Release()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.c.Release()
	rep := claimReport(r.c)
	if rep == nil || rep.CPUs != "0" || rep.MachineWide || rep.WaitedNs < int64(50*time.Millisecond) || len(rep.WaitedFor) == 0 || !strings.Contains(rep.WaitedFor[0], "(the test's holder)") || rep.Dir != dir {
		// The release empties the record before it unlocks, so the waiter
		// may also have seen the holder without one.
		t.Errorf("record %+v: want cpu0 only, not machine-wide, a wait of at least 50ms for the holder", rep)
	}
}
