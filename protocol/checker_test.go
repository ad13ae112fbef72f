package protocol

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckerSequences(t *testing.T) {
	id := Identity{Package: "p", Name: "BenchmarkX"}
	hello := Hello{ProtocolVersion: Version}
	bench := Request{Mode: ModeBenchmark, Identity: id, Repetition: 2, Seed: 7, Config: RequestConfig{Samples: 2}}
	result := Result{Identity: id, Repetition: 2, Seed: 7, Samples: []Sample{{Iterations: 1, ElapsedNs: 1}}}
	tests := []struct {
		name    string
		req     Request
		msgs    []Message
		wantErr string // "" means the whole sequence is accepted; else the error of the last message
		done    bool
	}{
		{"benchmark happy path", bench, []Message{Ready{Identity: id}, Progress{Phase: PhaseCalibration}, Log{}, result, Done{}}, "", true},
		{"skip then log then done", bench, []Message{Ready{Identity: id}, Skip{Reason: "r"}, Log{}, Done{}}, "", true},
		{"failure then done", bench, []Message{Ready{Identity: id}, Failure{Class: FailurePanic}, Done{}}, "", true},
		{"discover listing", Request{Mode: ModeDiscover, Identity: Identity{Package: "p"}}, []Message{Ready{Identity: Identity{Package: "p"}}, Listing{}, Listing{}, Done{}}, "", true},
		{"test events", Request{Mode: ModeTest}, []Message{Ready{}, TestEvent{Action: TestRun}, TestEvent{Action: TestPass}, Done{}}, "", true},
		{"work before ready", bench, []Message{result}, "expected ready", false},
		{"ready for another identity", bench, []Message{Ready{Identity: Identity{Name: "BenchmarkY"}}}, "ready for", false},
		{"result after skip", bench, []Message{Ready{Identity: id}, Skip{}, result}, "only log and done", false},
		{"two failures", bench, []Message{Ready{Identity: id}, Failure{Class: FailureFatal}, Failure{Class: FailureFatal}}, "only log and done", false},
		{"changed limit while working", Request{Mode: ModeTest}, []Message{Ready{}, Log{Text: "TestX lowered RLIMIT_FSIZE", Test: "TestX", Limit: "RLIMIT_FSIZE"}, Done{}}, "", true},
		{"changed limit after a failure", bench, []Message{Ready{Identity: id}, Failure{Class: FailureFatal}, Log{Test: "BenchmarkX", Limit: "RLIMIT_FSIZE", Restored: true}, Done{}}, "", true},
		{"changed limit before ready", bench, []Message{Log{Test: "BenchmarkX", Limit: "RLIMIT_FSIZE"}}, "before the worker was ready", false},
		{"message after done", bench, []Message{Ready{Identity: id}, Done{}, Log{}}, "after done", true},
		{"second hello", bench, []Message{Ready{Identity: id}, hello}, "unexpected", false},
		// TestMain calling m.Run twice: the same Request served again.
		{"hello again after done", Request{Mode: ModeTest}, []Message{Ready{}, TestEvent{Action: TestRun}, Done{},
			Hello{ProtocolVersion: Version, Again: 2}, Ready{}, TestEvent{Action: TestRun}, TestEvent{Action: TestFail}, Done{}}, "", true},
		{"hello again in the middle", Request{Mode: ModeTest}, []Message{Ready{}, TestEvent{Action: TestRun}, Done{},
			Hello{ProtocolVersion: Version, Again: 2}, Ready{}}, "", false},
		{"hello again before done", bench, []Message{Ready{Identity: id}, Hello{ProtocolVersion: Version, Again: 2}}, "unexpected", false},
		{"hello again skipping a series", bench, []Message{Ready{Identity: id}, Done{}, Hello{ProtocolVersion: Version, Again: 3}}, "hello again 3 after series 1", true},
		{"hello again from another pid", bench, []Message{Ready{Identity: id}, Done{}, Hello{ProtocolVersion: Version, PID: 9, Again: 2}}, "another worker", true},
		{"hello again, then work before ready", bench, []Message{Ready{Identity: id}, Done{}, Hello{ProtocolVersion: Version, Again: 2}, result}, "expected ready", false},
		{"result wrong repetition", bench, []Message{Ready{Identity: id}, Result{Identity: id, Repetition: 1, Seed: 7, Samples: result.Samples}}, "repetition 1, requested 2", false},
		{"result wrong seed", bench, []Message{Ready{Identity: id}, Result{Identity: id, Repetition: 2, Seed: 8, Samples: result.Samples}}, "seed 8", false},
		{"result wrong identity", bench, []Message{Ready{Identity: id}, Result{Identity: Identity{Name: "Z"}, Repetition: 2, Seed: 7, Samples: result.Samples}}, "result for", false},
		{"result without samples", bench, []Message{Ready{Identity: id}, Result{Identity: id, Repetition: 2, Seed: 7}}, "no samples", false},
		{"more samples than requested", bench, []Message{Ready{Identity: id}, Result{Identity: id, Repetition: 2, Seed: 7, Samples: make([]Sample, 3)}}, "3 samples, requested 2", false},
		{"pinned iterations disagree", Request{Mode: ModeBenchmark, Identity: id, Config: RequestConfig{Iterations: 10}}, []Message{Ready{Identity: id}, Result{Identity: id, Samples: []Sample{{Iterations: 9}}}}, "9 iterations, requested 10", false},
		{"retaken without a watch", bench, []Message{Ready{Identity: id}, Result{Identity: id, Repetition: 2, Seed: 7, Samples: result.Samples, Retaken: result.Samples}}, "without a watch", false},
		{"retakes past the budget", watched(bench, ResponseRetake, 1), []Message{Ready{Identity: id}, Result{Identity: id, Repetition: 2, Seed: 7, Samples: result.Samples,
			Retaken: make([]Sample, 2), Interference: &InterferenceOutcome{}}}, "2 samples retaken, budget 1", false},
		{"retakes by an observer", watched(bench, ResponseObserve, 5), []Message{Ready{Identity: id}, Result{Identity: id, Repetition: 2, Seed: 7, Samples: result.Samples,
			Retaken: make([]Sample, 1), Interference: &InterferenceOutcome{}}}, "watch that observes", false},
		{"retakes within the budget", watched(bench, ResponsePause, 2), []Message{Ready{Identity: id}, Result{Identity: id, Repetition: 2, Seed: 7, Samples: result.Samples,
			Retaken: make([]Sample, 2), Interference: &InterferenceOutcome{Pauses: 1}}, Done{}}, "", true},
		{"listing in benchmark mode", bench, []Message{Ready{Identity: id}, Listing{}}, "listing in benchmark mode", false},
		{"result in discover mode", Request{Mode: ModeDiscover}, []Message{Ready{}, result}, "result in discover mode", false},
		{"test event in benchmark mode", bench, []Message{Ready{Identity: id}, TestEvent{Action: TestRun}}, "test event in benchmark mode", false},
		{"workload windows", Request{Mode: ModeWorkload, Identity: id}, []Message{Ready{Identity: id}, Window{Reps: 1, Scope: "thread"}, Window{Reps: 1, Scope: "thread"}, Done{}}, "", true},
		{"window in benchmark mode", bench, []Message{Ready{Identity: id}, Window{Reps: 1, Scope: "thread"}}, "window in benchmark mode", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Checker
			require.NoError(t, c.Check(hello))
			require.NoError(t, c.Sent(tt.req))
			var err error
			for i, m := range tt.msgs {
				err = c.Check(m)
				if i < len(tt.msgs)-1 {
					require.NoError(t, err, "message %d (%s)", i, m.Kind())
				}
			}
			if tt.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrMalformed)
				assert.Contains(t, err.Error(), tt.wantErr)
			}
			assert.Equal(t, tt.done, c.Done())
		})
	}
}

func TestCheckerHelloAgainFirst(t *testing.T) {
	var c Checker
	err := c.Check(Hello{ProtocolVersion: Version, Again: 2})
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "before the first series")
}

func TestCheckerHandshake(t *testing.T) {
	t.Run("first message must be hello", func(t *testing.T) {
		var c Checker
		err := c.Check(Log{})
		assert.ErrorIs(t, err, ErrMalformed)
		_, ok := c.Hello()
		assert.False(t, ok)
	})
	t.Run("version mismatch names both versions", func(t *testing.T) {
		var c Checker
		err := c.Check(Hello{ProtocolVersion: Version + 1, WorkerVersion: "v9"})
		var ve *VersionError
		require.ErrorAs(t, err, &ve)
		assert.ErrorIs(t, err, ErrVersion)
		assert.Equal(t, Version, ve.Supervisor)
		assert.Equal(t, Version+1, ve.Worker)
		assert.Contains(t, err.Error(), fmt.Sprintf("supervisor speaks %d", Version))
		assert.Contains(t, err.Error(), "rebuild")
	})
	t.Run("message before request", func(t *testing.T) {
		var c Checker
		require.NoError(t, c.Check(Hello{ProtocolVersion: Version}))
		h, ok := c.Hello()
		assert.True(t, ok)
		assert.Equal(t, Version, h.ProtocolVersion)
		assert.NoError(t, c.Check(Log{}), "log is allowed before the request")
		assert.ErrorIs(t, c.Check(Ready{}), ErrMalformed)
	})
	t.Run("request before hello", func(t *testing.T) {
		var c Checker
		assert.Error(t, c.Sent(Request{Mode: ModeTest}))
	})
}

// watched returns r with an interference watch of the given response and
// retake budget.
func watched(r Request, response string, maxRetakes int) Request {
	r.Config.Interference = &Interference{Response: response, MaxForeign: 0.1, MaxRetakes: maxRetakes}
	return r
}
