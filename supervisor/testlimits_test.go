package supervisor

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

func limitLog(test string, restored bool) protocol.Log {
	text := test + " lowered RLIMIT_FSIZE from unlimited to 0; the worker set it back after it"
	if !restored {
		text = test + " lowered RLIMIT_FSIZE from unlimited to 0 and lowered its hard limit from unlimited to 0; it could not be set back"
	}
	return protocol.Log{Text: text, Test: test, Limit: "RLIMIT_FSIZE", Restored: restored}
}

// TestTestPackageChargesTheCodesOwnLimits: a limit a test set on its own
// process is that test's, never the host's; a limit the worker could not
// set back sends the tests after it to a new child.
func TestTestPackageChargesTheCodesOwnLimits(t *testing.T) {
	cantWrite := func(s *supervisor, errno string) string {
		path := filepath.Join(s.tmp, "benchsup-testlog-1")
		return "testing: can't write " + path + ": write " + path + ": " + errno + "\n"
	}
	tests := []struct {
		name string
		// first is the first child, given the supervisor (for its scratch
		// directory); the later children run what is left and pass.
		first     func(s *supervisor) scriptedChild
		want      map[string]rundoc.Outcome
		wantError map[string]string // a substring of the row's error
		noted     string            // the test whose row notes the limit
		reruns    []string          // the tests the second child runs
	}{
		{
			name: "set back, and testing's log failed for it at exit",
			first: func(s *supervisor) scriptedChild {
				return scriptedChild{steps: []any{ev("run", "TestA"), ev("pass", "TestA"),
					ev("run", "TestLimit"), limitLog("TestLimit", true), ev("pass", "TestLimit"),
					ev("run", "TestB"), ev("pass", "TestB")}, stderr: cantWrite(s, "file too large"), exit: 2}
			},
			want:      map[string]rundoc.Outcome{"TestA": "ok", "TestLimit": "exit", "TestB": "ok"},
			wantError: map[string]string{"TestLimit": "the child failed after this test changed its resource limits (TestLimit lowered RLIMIT_FSIZE"},
			noted:     "TestLimit",
		},
		{
			name: "a full disk after a limit changed is still no host fault",
			first: func(s *supervisor) scriptedChild {
				return scriptedChild{steps: []any{ev("run", "TestLimit"), limitLog("TestLimit", true), ev("pass", "TestLimit"),
					ev("run", "TestA"), ev("pass", "TestA"), ev("run", "TestB"), ev("pass", "TestB")},
					stderr: cantWrite(s, "no space left on device"), exit: 2}
			},
			want:  map[string]rundoc.Outcome{"TestA": "ok", "TestLimit": "exit", "TestB": "ok"},
			noted: "TestLimit",
		},
		{
			name: "not set back: the tests after it run again in a new child",
			first: func(*supervisor) scriptedChild {
				return scriptedChild{steps: []any{ev("run", "TestA"), ev("pass", "TestA"),
					ev("run", "TestLimit"), limitLog("TestLimit", false), ev("pass", "TestLimit"),
					ev("run", "TestB"), outputEv("TestB", "benchsup: not run in this process\n"), ev("skip", "TestB")}}
			},
			want:   map[string]rundoc.Outcome{"TestA": "ok", "TestLimit": "ok", "TestB": "ok"},
			noted:  "TestLimit",
			reruns: []string{"TestB"},
		},
		{
			name: "not set back, its result lost, and testing's log failed",
			first: func(s *supervisor) scriptedChild {
				return scriptedChild{steps: []any{ev("run", "TestA"), ev("pass", "TestA"),
					ev("run", "TestLimit"), limitLog("TestLimit", false), ev("run", "TestB"), ev("skip", "TestB")},
					stderr: cantWrite(s, "file too large"), exit: 2}
			},
			want:      map[string]rundoc.Outcome{"TestA": "ok", "TestLimit": "exit", "TestB": "ok"},
			wantError: map[string]string{"TestLimit": "the child failed after this test changed its resource limits"},
			noted:     "TestLimit",
			reruns:    []string{"TestB"},
		},
		{
			name: "not set back, its result lost, the child ended well",
			first: func(*supervisor) scriptedChild {
				return scriptedChild{steps: []any{ev("run", "TestA"), ev("pass", "TestA"),
					ev("run", "TestLimit"), limitLog("TestLimit", false), ev("run", "TestB"), ev("skip", "TestB")}}
			},
			want:      map[string]rundoc.Outcome{"TestA": "ok", "TestLimit": rundoc.OutcomeTestFail, "TestB": "ok"},
			wantError: map[string]string{"TestLimit": "no result: testing's report of this test was lost to the resource limits it changed"},
			noted:     "TestLimit",
			reruns:    []string{"TestB"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scriptedSupervisor(t, Config{}, nil)
			cs := &children{play: func(req protocol.Request) scriptedChild {
				if len(req.Config.Skip) == 0 {
					return tt.first(s)
				}
				var steps []any
				for _, name := range []string{"TestA", "TestLimit", "TestB"} {
					if !strings.Contains(","+strings.Join(req.Config.Skip, ",")+",", ","+name+",") {
						steps = append(steps, ev("run", name), ev("pass", name))
					}
				}
				return scriptedChild{steps: steps}
			}}
			s.start = cs.start
			all := s.testPackage(context.Background(), fakePackage("example.com/p", nil, []string{"TestA", "TestLimit", "TestB"}))
			rows := rowsByName(all)
			for name, want := range tt.want {
				assert.Equal(t, want, rows[name].Outcome, "%s: %s", name, deref(rows[name].Error))
			}
			for name, want := range tt.wantError {
				assert.Contains(t, deref(rows[name].Error), want, name)
			}
			for _, r := range all {
				assert.NotEqual(t, rundoc.Outcome("parent-io"), r.Outcome, "%s %s: %s", r.Kind, r.Name, deref(r.Error))
				assert.NotContains(t, deref(r.Error), "host", "%s %s", r.Kind, r.Name)
			}
			require.NotEmpty(t, rows[tt.noted].Notes, "the row of the test that set the limit names it")
			assert.Contains(t, rows[tt.noted].Notes[0], tt.noted+" lowered RLIMIT_FSIZE from unlimited to 0")
			if tt.reruns != nil {
				require.GreaterOrEqual(t, len(cs.reqs), 2)
				assert.NotContains(t, cs.reqs[1].Config.Skip, "TestB", "the test after the limit runs in the new child")
				assert.Contains(t, cs.reqs[1].Config.Skip, "TestLimit")
				assert.NotContains(t, rows["TestB"].Output, "not run in this process", "the skipped run is not its result")
			}
		})
	}
}

func TestLimitLogRecordsOnlyLimits(t *testing.T) {
	tests := []struct {
		name       string
		logs       []protocol.Log
		wantOrder  []string
		wantHalted string
		dropped    protocol.TestEvent // an event that afterHalt drops, if any
		kept       protocol.TestEvent
	}{
		{name: "a plain log is no limit", logs: []protocol.Log{{Text: "a process held stdout"}}},
		{name: "restored", logs: []protocol.Log{limitLog("TestA", true), limitLog("TestA", true)}, wantOrder: []string{"TestA"}},
		{name: "the first that stays changed halts", logs: []protocol.Log{limitLog("TestA", true), limitLog("TestB", false), limitLog("TestC", false)},
			wantOrder: []string{"TestA", "TestB", "TestC"}, wantHalted: "TestB",
			dropped: ev("run", "TestC"), kept: ev("pass", "TestB/sub")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &testRun{}
			for _, l := range tt.logs {
				tr.limitLog(l)
			}
			assert.Equal(t, tt.wantOrder, tr.limits.order)
			assert.Equal(t, tt.wantHalted, tr.haltedBy())
			assert.Equal(t, len(tt.wantOrder) > 0, tr.changedLimits())
			if tt.dropped.Test != "" {
				assert.True(t, tr.afterHalt(tt.dropped))
				assert.False(t, tr.afterHalt(tt.kept))
			}
			if len(tt.wantOrder) > 0 {
				assert.Len(t, tr.limits.notes[tt.wantOrder[0]], 1, "a repeated text is kept once")
			}
		})
	}
}

func TestScratchWriteFailedIsNotAFileSizeLimit(t *testing.T) {
	s := scriptedSupervisor(t, Config{}, nil)
	path := filepath.Join(s.tmp, "benchsup-testlog-1")
	tests := []struct {
		errno string
		host  bool
	}{
		{"no space left on device", true},
		{"file too large", false},
	}
	for _, tt := range tests {
		t.Run(tt.errno, func(t *testing.T) {
			out := scriptedChild{stderr: "testing: can't write " + path + ": write " + path + ": " + tt.errno + "\n", exit: 2}
			cs := &children{play: func(protocol.Request) scriptedChild { return out }}
			o := cs.start(context.Background(), sandbox.Config{}, protocol.Request{}, func(protocol.Message) {})
			assert.Equal(t, tt.host, s.scratchWriteFailed(o) != "")
		})
	}
}
