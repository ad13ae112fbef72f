package worker

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

// fakeLimits is a process's limits in memory.
type fakeLimits struct {
	now    map[int]rlimit
	setErr error
	sets   int
}

func (f *fakeLimits) get(id int) (rlimit, error) {
	l, ok := f.now[id]
	if !ok {
		return rlimit{}, errors.New("no such resource")
	}
	return l, nil
}

func (f *fakeLimits) set(id int, l rlimit) error {
	f.sets++
	if f.setErr != nil {
		return f.setErr
	}
	f.now[id] = l
	return nil
}

func TestLimitWatchCheck(t *testing.T) {
	const fsize, nofile = 1, 7
	res := []rlimitResource{{"RLIMIT_FSIZE", fsize}, {"RLIMIT_NOFILE", nofile}, {"RLIMIT_GONE", 99}}
	start := map[int]rlimit{fsize: {rlimInfinity, rlimInfinity}, nofile: {1024, 4096}}
	tests := []struct {
		name     string
		change   map[int]rlimit
		setErr   error
		want     []string // the texts, in resource order
		restored []bool
		after    map[int]rlimit // the limits after the check
	}{
		{name: "unchanged", after: start},
		{name: "soft lowered", change: map[int]rlimit{fsize: {0, rlimInfinity}},
			want:     []string{"TestX lowered RLIMIT_FSIZE from unlimited to 0; the worker set it back after it"},
			restored: []bool{true}, after: start},
		{name: "soft raised", change: map[int]rlimit{nofile: {4096, 4096}},
			want:     []string{"TestX raised RLIMIT_NOFILE from 1024 to 4096; the worker set it back after it"},
			restored: []bool{true}, after: start},
		{name: "hard lowered", change: map[int]rlimit{nofile: {16, 16}},
			want: []string{"TestX lowered RLIMIT_NOFILE from 1024 to 16 and lowered its hard limit from 4096 to 16; " +
				"it could not be set back (its hard limit was lowered, which only a privileged process may raise again)"},
			restored: []bool{false}, after: map[int]rlimit{fsize: start[fsize], nofile: {16, 16}}},
		{name: "hard alone lowered", change: map[int]rlimit{fsize: {rlimInfinity, 1 << 20}},
			want: []string{"TestX lowered RLIMIT_FSIZE's hard limit from unlimited to 1048576; " +
				"it could not be set back (its hard limit was lowered, which only a privileged process may raise again)"},
			restored: []bool{false}, after: map[int]rlimit{fsize: {rlimInfinity, 1 << 20}, nofile: start[nofile]}},
		{name: "hard raised", change: map[int]rlimit{nofile: {1024, 8192}},
			want:     []string{"TestX raised RLIMIT_NOFILE's hard limit from 4096 to 8192; the worker set it back after it"},
			restored: []bool{true}, after: start},
		{name: "set refused", change: map[int]rlimit{fsize: {0, rlimInfinity}}, setErr: errors.New("operation not permitted"),
			want:     []string{"TestX lowered RLIMIT_FSIZE from unlimited to 0; it could not be set back (setting it back failed: operation not permitted)"},
			restored: []bool{false}, after: map[int]rlimit{fsize: {0, rlimInfinity}, nofile: start[nofile]}},
		{name: "two", change: map[int]rlimit{fsize: {0, rlimInfinity}, nofile: {3, 4096}},
			want: []string{"TestX lowered RLIMIT_FSIZE from unlimited to 0; the worker set it back after it",
				"TestX lowered RLIMIT_NOFILE from 1024 to 3; the worker set it back after it"},
			restored: []bool{true, true}, after: start},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLimits{now: map[int]rlimit{}}
			for id, l := range start {
				f.now[id] = l
			}
			lw := newLimitWatch(res, f.get, f.set)
			assert.Len(t, lw.res, 2, "a resource that cannot be read is not watched")
			for id, l := range tt.change {
				f.now[id] = l
			}
			f.setErr = tt.setErr
			var texts []string
			var restored []bool
			for _, c := range lw.check() {
				texts = append(texts, c.text("TestX"))
				restored = append(restored, c.restored)
			}
			assert.Equal(t, tt.want, texts)
			assert.Equal(t, tt.restored, restored)
			assert.Equal(t, tt.after, f.now)
			assert.Empty(t, lw.check(), "a second check finds nothing new")
		})
	}
	t.Run("nil watch", func(t *testing.T) {
		var lw *limitWatch
		assert.Empty(t, lw.check())
	})
}

func TestTestLimitsHalt(t *testing.T) {
	tests := []struct {
		name       string
		change     rlimit
		wantHalted string
		restored   bool
	}{
		{"restored: the next test runs here", rlimit{0, rlimInfinity}, "", true},
		{"hard limit lowered: the rest run in a fresh process", rlimit{0, 0}, "TestSetsLimit", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLimits{now: map[int]rlimit{1: {rlimInfinity, rlimInfinity}}}
			var sent []protocol.Log
			tl := &testLimits{watch: newLimitWatch([]rlimitResource{{"RLIMIT_FSIZE", 1}}, f.get, f.set),
				send: func(l protocol.Log) { sent = append(sent, l) }}
			tl.after("TestBefore")
			assert.Empty(t, sent)
			f.now[1] = tt.change
			tl.after("TestSetsLimit")
			require.Len(t, sent, 1)
			assert.Equal(t, "TestSetsLimit", sent[0].Test)
			assert.Equal(t, "RLIMIT_FSIZE", sent[0].Limit)
			assert.Equal(t, tt.restored, sent[0].Restored)
			assert.Contains(t, sent[0].Text, "TestSetsLimit lowered RLIMIT_FSIZE from unlimited to 0")
			assert.Equal(t, tt.wantHalted, tl.haltedBy())
			assert.Contains(t, sent[0].Text, "what it printed under that limit may be missing")
			if !tt.restored {
				assert.Contains(t, sent[0].Text, "; the tests after it ran in a fresh process")
			}
		})
	}
	t.Run("nil", func(t *testing.T) {
		var tl *testLimits
		tl.after("TestX")
		assert.Equal(t, "", tl.haltedBy())
	})
}
