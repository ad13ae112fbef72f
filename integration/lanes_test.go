package integration

import (
	"fmt"
	"sync"
	"testing"
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
