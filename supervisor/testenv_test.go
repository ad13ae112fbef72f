package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/sandbox"
)

func TestWithheld(t *testing.T) {
	parent := map[string]string{"MY_TOKEN": "x", "HOME": "/home/u", "KEPT": "k", "GONE": "g", "SETV": "s", "OTHER": "o"}
	lookup := func(name string) (string, bool) { v, ok := parent[name]; return v, ok }
	read := []string{"MY_TOKEN", "HOME", "NOT_SET_HERE", "KEPT", "GONE", "SETV", protocol.EnvFD, sandbox.EnvRun, "OTHER"}
	tests := []struct {
		name   string
		policy sandbox.EnvPolicy
		want   []string
	}{
		{"strict: what the parent has and the base does not pass", sandbox.EnvPolicy{},
			[]string{"MY_TOKEN", "KEPT", "GONE", "SETV", "OTHER"}},
		{"kept, removed and set names are the user's choice", sandbox.EnvPolicy{Keep: []string{"KEPT"}, Remove: []string{"GONE"}, Set: []string{"SETV=1"}},
			[]string{"MY_TOKEN", "OTHER"}},
		{"inherit withholds nothing", sandbox.EnvPolicy{Inherit: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, withheld(read, tt.policy, lookup))
		})
	}
}

func TestReadTestLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	log := "# test log\ngetenv INIT\n" +
		"getenv benchsup-test run TestA\ngetenv A\nstat /x\ngetenv B\ngetenv A\n" +
		"getenv benchsup-test run TestP\ngetenv BOTH\ngetenv benchsup-test end TestA\n" +
		"getenv P\nopen /y\nchdir /z\ngetenv benchsup-test end TestP\ngetenv LATE\n"
	require.NoError(t, os.WriteFile(path, []byte(log), 0o644))
	assert.Equal(t, map[string][]string{
		"":      {"INIT", "LATE"},
		"TestA": {"A", "B", "BOTH"},
		"TestP": {"BOTH", "P"},
	}, readTestLog(path), "each variable once per test running when it was read, in the order first read; other actions ignored")
	assert.NoFileExists(t, path, "the log is removed once read")
	assert.Nil(t, readTestLog(path), "a child that wrote no log (it crashed) read nothing known")
}

func TestEnvNote(t *testing.T) {
	assert.Empty(t, envNote(nil))
	one := envNote([]string{"MY_TOKEN"})
	assert.Contains(t, one, "read MY_TOKEN, which is set where benchsup runs")
	assert.Contains(t, one, "pass it with --env-keep=MY_TOKEN")
	two := envNote([]string{"A", "B"})
	assert.Contains(t, two, "read A, B, which are set")
	assert.Contains(t, two, "pass them with --env-keep=A --env-keep=B")
}

// TestTestPackageEnvHint: a child's test log names a variable benchsup's
// environment has and the strict policy withheld; the failed test's row
// says how to keep it, a passing one's says nothing, and a policy that
// keeps it gets no hint.
func TestTestPackageEnvHint(t *testing.T) {
	t.Setenv("BENCHSUP_TEST_TOKEN", "secret")
	start := func(ctx context.Context, cfg sandbox.Config, req protocol.Request, observe func(protocol.Message)) sandbox.Outcome {
		var log string
		for _, a := range cfg.Args {
			if v, ok := strings.CutPrefix(a, "-test.testlogfile="); ok {
				log = v
			}
		}
		if log == "" {
			t.Errorf("no -test.testlogfile in %q", cfg.Args)
		} else if err := os.WriteFile(log, []byte("# test log\ngetenv benchsup-test run TestNeedsToken\ngetenv BENCHSUP_TEST_TOKEN\ngetenv HOME\n"+
			"getenv benchsup-test end TestNeedsToken\ngetenv benchsup-test run TestOther\ngetenv benchsup-test end TestOther\n"+
			"getenv benchsup-test run TestFailsToo\ngetenv benchsup-test end TestFailsToo\n"), 0o644); err != nil {
			t.Error(err)
		}
		for _, e := range []protocol.TestEvent{
			ev("run", "TestNeedsToken"), outputEv("TestNeedsToken", "    x_test.go:5: no token\n"), ev("fail", "TestNeedsToken"),
			ev("run", "TestOther"), ev("pass", "TestOther"),
			ev("run", "TestFailsToo"), outputEv("TestFailsToo", "    x_test.go:9: other reason\n"), ev("fail", "TestFailsToo"),
		} {
			observe(e)
		}
		return sandbox.Outcome{Class: sandbox.ClassSuccess}
	}
	for _, keep := range []bool{false, true} {
		cfg := Config{}
		if keep {
			cfg.Env.Keep = []string{"BENCHSUP_TEST_TOKEN"}
		}
		s := scriptedSupervisor(t, cfg, nil)
		s.start = start
		rows := rowsByName(s.testPackage(context.Background(), fakePackage("example.com/env", nil, []string{"TestNeedsToken", "TestOther", "TestFailsToo"})))
		if keep {
			assert.Empty(t, rows["TestNeedsToken"].Notes, "kept: nothing to say")
			continue
		}
		require.Len(t, rows["TestNeedsToken"].Notes, 1)
		assert.Contains(t, rows["TestNeedsToken"].Notes[0], "--env-keep=BENCHSUP_TEST_TOKEN")
		assert.NotContains(t, rows["TestNeedsToken"].Notes[0], "HOME", "HOME is in the strict base")
		assert.Empty(t, rows["TestOther"].Notes, "a passing test gets no hint")
		assert.Empty(t, rows["TestFailsToo"].Notes, "a failed test that did not read it gets no hint")
	}
}
