package worker

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

var (
	setupRuns int   // BenchmarkFixtureSetup's setup, per call of the function
	halfSink  []int // BenchmarkFixtureHalfAlloc's allocations escape here
)

func init() {
	RegisterBenchmark("BenchmarkFixtureSetup", func(b *testing.B) {
		setupRuns++ // an expensive setup before ResetTimer
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
		}
	})
	RegisterBenchmark("BenchmarkFixtureHalfAlloc", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if i%2 == 0 {
				halfSink = make([]int, 4)
			}
		}
	})
	RegisterBenchmark("BenchmarkFixtureNoTime", func(b *testing.B) {
		b.Run("zeroed", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
			}
			b.ReportMetric(0, "ns/op") // replaces the time testing prints
		})
	})
}

// TestSetupOncePerSample: with SkipProbe (an expensive setup), testing's
// probe run at N=1 is skipped for a leaf, so the setup of a top-level
// benchmark runs once per sample, and once per process with the default
// single sample; without it the probe runs first, as under go test.
func TestSetupOncePerSample(t *testing.T) {
	for _, samples := range []int{1, 3} {
		for _, skip := range []bool{true, false} {
			setupRuns = 0
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureSetup"},
				Config: protocol.RequestConfig{Iterations: 1000, Samples: samples, SkipProbe: skip}})
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1)
			require.Len(t, r[0].Samples, samples)
			want := samples
			if !skip {
				want = 2 * samples // the probe, then the sample
			}
			assert.Equal(t, want, setupRuns, "samples %d, skip probe %v", samples, skip)
		}
	}
	t.Run("N = 1: the probe run is the sample", func(t *testing.T) {
		setupRuns = 0
		msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureSetup"},
			Config: protocol.RequestConfig{Iterations: 1, Samples: 1}})
		require.Len(t, only[protocol.Result](msgs), 1)
		assert.Equal(t, 1, setupRuns)
	})
}

// TestExactTotals: the totals of a top-level leaf are read from B, so a
// fractional allocs/op survives (testing prints 0 allocs/op for 0.5).
func TestExactTotals(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureHalfAlloc"},
		Config: protocol.RequestConfig{Iterations: 1000, Samples: 2}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1)
	for _, s := range r[0].Samples {
		assert.True(t, s.Exact)
		assert.Equal(t, int64(1000), s.Iterations)
		require.NotNil(t, s.Allocs)
		// One allocation every other iteration: 0.5 allocs/op, which the
		// printed line truncates to 0. The runtime's counters are
		// process-wide, so the test's own goroutines (the supervisor side
		// of the pipe) may add a few.
		assert.GreaterOrEqual(t, *s.Allocs, uint64(500))
		assert.Less(t, *s.Allocs, uint64(550))
		assert.GreaterOrEqual(t, *s.AllocBytes, uint64(500*32))
	}
	t.Run("a sub-benchmark leaf has only the printed line", func(t *testing.T) {
		msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: "BenchmarkFixtureTable/n=x"},
			Config: protocol.RequestConfig{Iterations: 100, Samples: 1}})
		r := only[protocol.Result](msgs)
		require.Len(t, r, 1)
		assert.False(t, r[0].Samples[0].Exact)
	})
}

// TestDiscoveryCalibrates: with a sample target, discovery lists every
// benchmark leaf with one N for all its processes and the runs it was
// chosen from; a leaf that reports no time is listed with the reason.
func TestDiscoveryCalibrates(t *testing.T) {
	target := 2 * time.Millisecond
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover,
		Config: protocol.RequestConfig{Bench: "FixtureSetup|FixtureTable|FixtureNoTime|FixtureSkip$", MinSampleNs: int64(target)}})
	listed := map[string]protocol.Listed{}
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			listed[id.Name] = id
		}
	}
	for _, name := range []string{"BenchmarkFixtureSetup", "BenchmarkFixtureTable/n=x", "BenchmarkFixtureTable/n=xxxxxxxxxx"} {
		l, ok := listed[name]
		require.True(t, ok, name)
		assert.Positive(t, l.Iterations, name)
		assert.GreaterOrEqual(t, len(l.Calibration), confirmRuns, name)
		assert.Empty(t, l.Problem, name)
	}
	assert.True(t, listed["BenchmarkFixtureSetup"].Calibration[0].Exact)
	assert.Positive(t, listed["BenchmarkFixtureSetup"].SetupNs, "what a call spends outside its timer is measured")
	noTime := listed["BenchmarkFixtureNoTime/zeroed"]
	assert.Zero(t, noTime.Iterations)
	assert.Contains(t, noTime.Problem, "reports no elapsed time")
	assert.Contains(t, listed["BenchmarkFixtureSkip"].Skipped, "fixture skips")
}

var (
	longLeaf = strings.Repeat("x", 5000)
	holder   *exec.Cmd // BenchmarkFixtureHoldsStdout's process
)

func init() {
	RegisterBenchmark("BenchmarkFixturePrints", func(b *testing.B) {
		fmt.Printf("%s-%d   \t       1\t    999999 ns/op\n", b.Name(), runtime.GOMAXPROCS(0))
		for i := 0; i < b.N; i += 1 + b.N/20 {
			fmt.Print(".")
		}
	})
	RegisterBenchmark("BenchmarkFixtureProcs", func(b *testing.B) {
		b.Run("sub", func(b *testing.B) {
			runtime.GOMAXPROCS(1) // left so: the test restores it
			for i := 0; i < b.N; i++ {
			}
		})
	})
	RegisterBenchmark("BenchmarkFixtureGoexit", func(b *testing.B) {
		b.Run("sub", func(b *testing.B) { runtime.Goexit() })
	})
	RegisterBenchmark("BenchmarkFixtureGoexitParent", func(b *testing.B) {
		runtime.Goexit() // before its leaf
		b.Run("leaf", func(b *testing.B) {})
	})
	RegisterBenchmark("BenchmarkFixtureLong", func(b *testing.B) {
		b.Run(longLeaf, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
			}
		})
	})
	RegisterBenchmark("BenchmarkFixtureClosesStdout", func(b *testing.B) {
		b.Run("sub", func(b *testing.B) {
			os.Stdout.Close() // the worker's capture pipe
			for i := 0; i < b.N; i++ {
			}
		})
	})
	RegisterBenchmark("BenchmarkFixtureNaN", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
		}
		b.ReportMetric(math.NaN(), "ratio")
		b.ReportMetric(1, "widgets/op")
	})
	RegisterBenchmark("BenchmarkFixtureHoldsStdout", func(b *testing.B) {
		if holder == nil {
			holder = exec.Command("sleep", "30")
			holder.Stdout = os.Stdout
			if err := holder.Start(); err != nil {
				b.Fatal(err)
			}
		}
		for i := 0; i < b.N; i++ {
		}
	})
}

// TestBenchmarkOutputFaults: what a benchmark prints, or does to
// GOMAXPROCS or to its stdout, does not confuse the worker, and a
// benchmark that ends through runtime.Goexit is named for it.
func TestBenchmarkOutputFaults(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	defer func() {
		if holder != nil {
			holder.Process.Kill()
			holder.Wait()
		}
	}()
	for _, tc := range []struct {
		name, bench string
		check       func(t *testing.T, msgs []protocol.Message)
		// awaits is how often the worker gives a panic the time to end
		// the process: a sub-benchmark's 0 iterations may be a panic
		// unwinding on testing's goroutine, the wrapper's Goexit not.
		awaits int
	}{
		{"result-shaped lines and dots", "BenchmarkFixturePrints", func(t *testing.T, msgs []protocol.Message) {
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1, "%v", msgs)
			assert.Equal(t, int64(1000), r[0].Samples[0].Iterations)
		}, 0},
		// testing names results by its -test.cpu list, fixed at m.Run,
		// whatever an earlier benchmark left GOMAXPROCS at.
		{"GOMAXPROCS left at 1", "BenchmarkFixtureProcs/sub", func(t *testing.T, msgs []protocol.Message) {
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1, "%v", msgs)
			assert.Len(t, r[0].Samples, 2)
		}, 0},
		{"runtime.Goexit", "BenchmarkFixtureGoexit/sub", func(t *testing.T, msgs []protocol.Message) {
			f := only[protocol.Failure](msgs)
			require.Len(t, f, 1, "%v", msgs)
			assert.Contains(t, f[0].Message, "called runtime.Goexit")
		}, 1},
		{"runtime.Goexit in the parent", "BenchmarkFixtureGoexitParent/leaf", func(t *testing.T, msgs []protocol.Message) {
			f := only[protocol.Failure](msgs)
			require.Len(t, f, 1, "%v", msgs)
			assert.Contains(t, f[0].Message, "BenchmarkFixtureGoexitParent called runtime.Goexit")
		}, 0},
		{"os.Stdout closed", "BenchmarkFixtureClosesStdout/sub", func(t *testing.T, msgs []protocol.Message) {
			f := only[protocol.Failure](msgs)
			require.Len(t, f, 1, "%v", msgs)
			assert.Contains(t, f[0].Message, "closed os.Stdout")
		}, 0},
		{"NaN metric", "BenchmarkFixtureNaN", func(t *testing.T, msgs []protocol.Message) {
			r := only[protocol.Result](msgs)
			require.Len(t, r, 1, "%v", msgs)
			for _, s := range r[0].Samples {
				assert.True(t, s.Exact)
				assert.Equal(t, []protocol.Metric{{Unit: "ratio", Unmeasured: "the benchmark reported NaN (b.ReportMetric)"}, {Unit: "widgets/op", Value: 1}}, s.Extra)
			}
		}, 0},
		{"a process holds stdout", "BenchmarkFixtureHoldsStdout", func(t *testing.T, msgs []protocol.Message) {
			require.Len(t, only[protocol.Result](msgs), 1, "%v", msgs)
			assert.Equal(t, []protocol.Log{{Text: HeldStdoutNote}}, only[protocol.Log](msgs), "said once")
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.bench == "BenchmarkFixtureProcs/sub" {
				runtime.GOMAXPROCS(1) // as a benchmark run before it left it
			}
			awaited := 0
			defer func(f func()) { awaitPanic = f }(awaitPanic)
			awaitPanic = func() { awaited++ }
			start := time.Now()
			msgs := exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: tc.bench},
				Config: protocol.RequestConfig{Iterations: 1000, Samples: 2}})
			tc.check(t, msgs)
			assert.Equal(t, tc.awaits, awaited, "waits for a panic")
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

// TestLongName: a name longer than protocol.MaxNameLen is listed by its
// ShortName with the whole name beside it, and a request carrying the
// whole name measures it.
func TestLongName(t *testing.T) {
	full := "BenchmarkFixtureLong/" + longLeaf
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover, Config: protocol.RequestConfig{Bench: "FixtureLong$"}})
	var listed []protocol.Listed
	for _, l := range only[protocol.Listing](msgs) {
		listed = append(listed, l.Identities...)
	}
	require.Len(t, listed, 1)
	assert.Equal(t, protocol.ShortName(full), listed[0].Name)
	assert.LessOrEqual(t, len(listed[0].Name), protocol.MaxNameLen)
	assert.Equal(t, full, listed[0].FullName)

	msgs = exchange(t, protocol.Request{Mode: protocol.ModeBenchmark, Identity: protocol.Identity{Name: listed[0].Name}, FullName: full,
		Config: protocol.RequestConfig{Iterations: 100, Samples: 1}})
	r := only[protocol.Result](msgs)
	require.Len(t, r, 1, "%v", msgs)
	assert.Equal(t, listed[0].Name, r[0].Identity.Name, "the wire keeps the bounded name")
	assert.Equal(t, int64(100), r[0].Samples[0].Iterations)
}

func init() {
	RegisterBenchmark("BenchmarkFixtureManyLong", func(b *testing.B) {
		for i := 0; i < 60; i++ {
			b.Run(fmt.Sprintf("%s%03d", strings.Repeat("y", 40000), i), func(b *testing.B) {})
		}
	})
	RegisterBenchmark("BenchmarkFixtureHugeName", func(b *testing.B) {
		b.Run(strings.Repeat("z", protocol.MaxTextLen+10), func(b *testing.B) {})
	})
}

// TestLongNameListing: many long names are listed in frames within the
// protocol's bound, and a name too long for a request is listed with the
// reason it cannot be measured.
func TestLongNameListing(t *testing.T) {
	msgs := exchange(t, protocol.Request{Mode: protocol.ModeDiscover, Config: protocol.RequestConfig{Bench: "Fixture(ManyLong|HugeName)$"}})
	var listed []protocol.Listed
	frames := 0
	for _, l := range only[protocol.Listing](msgs) {
		frames++
		listed = append(listed, l.Identities...)
	}
	require.Len(t, listed, 61)
	assert.Greater(t, frames, 2, "2.4 MB of names do not fit one frame")
	for _, l := range listed[:60] {
		assert.Len(t, l.FullName, len("BenchmarkFixtureManyLong/")+40003)
	}
	assert.Equal(t, "BenchmarkFixtureHugeName/zzz", listed[60].Name[:28])
	assert.Empty(t, listed[60].FullName, "too long to carry")

	msgs = exchange(t, protocol.Request{Mode: protocol.ModeDiscover, Config: protocol.RequestConfig{Bench: "FixtureHugeName$", MinSampleNs: int64(time.Millisecond)}})
	var problem string
	for _, l := range only[protocol.Listing](msgs) {
		for _, id := range l.Identities {
			problem += id.Problem
		}
	}
	assert.Contains(t, problem, "longer than a request carries")
}

func TestOutsideTimer(t *testing.T) {
	for _, tc := range []struct {
		name        string
		wall, timed time.Duration
		want        time.Duration
	}{
		{"setup outside the timer", 120 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond},
		{"no setup", 20 * time.Millisecond, 20 * time.Millisecond, 0},
		{"the timer started before the call was timed", 20 * time.Millisecond, 22300 * time.Microsecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outsideTimer(tc.wall, tc.timed); got != tc.want {
				t.Errorf("outsideTimer(%v, %v) = %v, want %v", tc.wall, tc.timed, got, tc.want)
			}
		})
	}
}
