package integration

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/benchsup/benchsup/host"
)

// The timing tests that run side by side do so in lanes: each holds one
// CPU (laneCPUs) for its whole run, and every process it starts is
// confined to that CPU, so no lane loads another's. benchsup, confined
// so, watches its lane's CPU alone (docs/design.md#host-claim-and-quiescence).

// freeLanes holds the CPUs of the lanes no test holds; made once.
var freeLanes = sync.OnceValues(func() (chan int, error) {
	cpus, err := laneCPUs()
	if err != nil {
		return nil, err
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("no CPU to run on")
	}
	free := make(chan int, len(cpus))
	for _, c := range cpus {
		free <- c
	}
	return free, nil
})

// takeLane waits for a free lane and confines the calling goroutine, and
// every process it starts from now on, to the lane's CPU (pinThread).
// release frees the lane; it must run on the same goroutine.
func takeLane() (cpu int, release func(), err error) {
	free, err := freeLanes()
	if err != nil {
		return 0, nil, fmt.Errorf("the timing tests' lanes: %w", err)
	}
	cpu = <-free
	unpin, err := pinThread(cpu)
	if err != nil {
		free <- cpu
		return 0, nil, err
	}
	return cpu, func() {
		unpin()
		free <- cpu
	}, nil
}

// inLane makes t a parallel test that holds a lane until it ends, and
// returns the lane's CPU. t's goroutine is confined to it (takeLane); the
// cleanup that frees the lane runs on that goroutine, after the test.
func inLane(t *testing.T) (cpu int) {
	t.Helper()
	t.Parallel()
	cpu, release, err := takeLane()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return cpu
}

// quietHostTimeout bounds each of waitQuietHost's two waits: past it the
// timing tests run anyway, and its scripts judge what they measured.
const quietHostTimeout = 3 * time.Minute

// waitQuietHost waits, before the timing tests, until no other test loads
// the host. The timing suite runs with -p 1, but someone may run it with
// more, or beside go test ./...: other packages' test binaries then run
// beside this one, and when TestEndToEnd's tests still shared the run with
// the timing ones, worker's tests ran from 1.6 s to 14 s into the timing
// phase on a fresh clone, and a comparison in a lane saw up to 58% foreign
// CPU in its samples and missed its 30% slowdown. The host's load alone
// does not tell: a wait for 0.5 s of quiet CPUs ended as worker's tests
// began. So first the go command's other children (goSiblings: the other
// test binaries and what builds them) must be gone, then the CPUs quiet,
// as benchsup's --quiescence waits before it measures.
func waitQuietHost(t *testing.T) {
	t.Helper()
	start := time.Now()
	waitGoSiblings(t)
	cfg := host.QuiescenceConfig{Stable: 500 * time.Millisecond, Timeout: quietHostTimeout}
	_, err := host.WaitQuiet(t.Context(), cfg, nil, nil)
	switch {
	case errors.Is(err, host.ErrNotQuiet):
		t.Logf("the timing suite runs on a busy host: %v", err)
	case err != nil:
		t.Logf("the timing suite runs without waiting for a quiet host: %v", err)
	}
	if waited := time.Since(start); waited > time.Second {
		t.Logf("the timing suite waited %v for the other tests to end and the host to go quiet", waited.Round(time.Millisecond))
	}
}

// waitGoSiblings waits until the go command has had no other child for
// half a second: between two packages it starts the next action at once.
func waitGoSiblings(t *testing.T) {
	const poll, settled = 100 * time.Millisecond, 5
	deadline := time.Now().Add(quietHostTimeout)
	for clear := 0; clear < settled; time.Sleep(poll) {
		n, ok, err := goSiblings()
		switch {
		case err != nil:
			t.Logf("the timing suite does not wait for other packages' tests: %v", err)
			return
		case !ok:
			return
		case n == 0:
			clear++
		case time.Now().After(deadline):
			t.Logf("the timing suite runs beside %d other processes of go test after %v", n, quietHostTimeout)
			return
		default:
			clear = 0
		}
	}
}
