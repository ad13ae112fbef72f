package measure

import (
	"testing"

	"github.com/benchsup/benchsup/internal/hooks"
)

// Regime is a page-cache state a workload asks for its files.
type Regime string

// The page-cache regimes.
const (
	// Cold: each file is flushed (fdatasync) and dropped from the page
	// cache (POSIX_FADV_DONTNEED), so the window reads it from the disk.
	// Where that cannot work (a file on tmpfs or another memory-only file
	// system, or a file system that ignores the advice) the window's
	// regime is not-evictable, never cold, and its note says why.
	Cold Regime = "cold"
	// Warm: each file is read through, so the window finds it cached.
	Warm Regime = "warm"
	// Steady: nothing is done; the window finds whatever state earlier
	// work left.
	Steady Regime = "steady"
)

// Workload measures body as a workload: one measured window (or several,
// see W.Window) per fresh process, where the question is not ns/op but
// where the wall-clock time of one run went.
//
// Under plain `go test` the body runs as the test or benchmark it is written
// in would run it (once in a Test, b.N times in a Benchmark), with no probe,
// no measurement and no cache manipulation. Under `benchsup run --bench`,
// a workload written in a Benchmark function is discovered and measured in
// its own fresh processes; --repetitions gives more processes.
func Workload(tb testing.TB, body func(w *W), opts ...WorkloadOption) {
	tb.Helper()
	cfg := workloadConfig{reps: 1}
	for _, o := range opts {
		o(&cfg)
	}
	if r := hooks.Current(); r != nil {
		if s, run := r.StartWorkload(tb, cfg.reps); s != nil {
			w := &W{session: s}
			defer s.End()
			for i := 0; i < cfg.reps; i++ {
				s.Rep(i)
				body(w)
				if w.windows > 0 {
					break // in-body windows repeat their own closures
				}
			}
			return
		} else if !run {
			return // discovery: the identity is noted, the body not run
		}
	}
	w := &W{}
	if b, ok := tb.(*testing.B); ok {
		for i := 0; i < b.N; i++ {
			body(w)
		}
		return
	}
	body(w)
}

// WorkloadOption configures a Workload.
type WorkloadOption func(*workloadConfig)

type workloadConfig struct {
	reps int
}

// Reps repeats the measured work n times inside one window: the whole
// body, or each W.Window closure. n < 1 is treated as 1.
func Reps(n int) WorkloadOption {
	return func(c *workloadConfig) { c.reps = max(n, 1) }
}

// W is a workload's handle on its measurement.
type W struct {
	session hooks.WorkloadSession // nil: not measured (plain go test)
	windows int
}

// Window measures f (times the workload's reps) as one named window; the
// rest of the body is setup. With no Window call, the whole body is the
// window. An empty name takes the workload's name (then "#2", "#3", ...);
// others are "<workload>/<name>". Outside a measurement f runs once.
func (w *W) Window(name string, f func()) {
	w.windows++
	if w.session == nil {
		f()
		return
	}
	w.session.Window(name, f)
}

// Files prepares the named files in a page-cache regime now, verifies what
// was achieved, and stamps the next measured window only: the verified state
// is stale once a window has run against it. A later call before any window
// replaces the pending stamp. Called inside an open window, or on a
// repetition after the first, the preparation is skipped and the window's
// note says so. Outside a measurement it does nothing at all: an ordinary
// test run must not evict anyone's page cache.
func (w *W) Files(regime Regime, paths ...string) {
	if w.session != nil {
		w.session.Files(string(regime), paths)
	}
}
