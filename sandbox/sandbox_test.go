package sandbox

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/protocol"
)

func TestTailBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, limit := range []int{1, 7, 64, 1000} {
		for trial := range 50 {
			tb := newTailBuffer(limit)
			var all []byte
			for range rng.IntN(20) {
				p := make([]byte, rng.IntN(3*limit+2))
				for i := range p {
					p[i] = byte(rng.Uint32())
				}
				n, err := tb.Write(p)
				require.NoError(t, err)
				require.Equal(t, len(p), n)
				all = append(all, p...)
				assert.LessOrEqual(t, cap(tb.buf), max(limit, 512), "memory is bounded by the limit")
			}
			want := all[max(0, len(all)-limit):]
			got := tb.Capture()
			if !bytes.Equal(want, got.Tail) {
				t.Fatalf("limit %d trial %d: tail %x, want %x", limit, trial, got.Tail, want)
			}
			assert.EqualValues(t, len(all), got.Total)
			assert.Equal(t, got.Total-int64(len(got.Tail)), got.Omitted)
		}
	}
}

func TestHeadBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, limit := range []int{1, 7, 64, 1000} {
		for trial := range 50 {
			var all []byte
			chunks := make([][]byte, rng.IntN(20))
			for i := range chunks {
				chunks[i] = make([]byte, rng.IntN(3*limit+2))
				for j := range chunks[i] {
					chunks[i][j] = byte(rng.Uint32())
				}
				all = append(all, chunks[i]...)
			}
			from := int64(rng.IntN(len(all) + 2)) // may lie past the end
			hb := newHeadBuffer(limit, from)
			off := int64(0)
			for _, c := range chunks {
				hb.writeAt(off, c)
				off += int64(len(c))
				assert.LessOrEqual(t, cap(hb.buf), max(limit, 512), "memory is bounded by the limit")
			}
			var after []byte
			if from < int64(len(all)) {
				after = all[from:]
			}
			got := hb.stacks()
			want := after[:min(limit, len(after))]
			if !bytes.Equal(want, got.Head) {
				t.Fatalf("limit %d trial %d from %d: head %x, want %x", limit, trial, from, got.Head, want)
			}
			assert.True(t, got.Requested)
			assert.EqualValues(t, len(after), got.Total)
			assert.Equal(t, got.Total-int64(len(got.Head)), got.Omitted)
		}
	}
}

func TestDeadlines(t *testing.T) {
	t0 := time.Now()
	d := newDeadlines(t0, 2*time.Second, 10*time.Second)
	assert.Equal(t, t0.Add(2*time.Second), d.startup())
	assert.Equal(t, t0.Add(10*time.Second), d.total())

	cutoff := t0.Add(5 * time.Second)
	assert.Equal(t, d.startup(), d.read(false, time.Time{}), "the Hello is outstanding")
	assert.Equal(t, d.total(), d.read(true, time.Time{}))
	assert.Equal(t, cutoff, d.read(true, cutoff), "the drain deadline cuts the total one short")
	assert.Equal(t, d.startup(), d.read(false, cutoff), "but never extends a deadline")

	assert.Equal(t, &TimeoutError{Phase: PhaseStartup, Limit: 2 * time.Second}, d.timeout(PhaseStartup))
	assert.Equal(t, &TimeoutError{Phase: PhaseExecution, Limit: 10 * time.Second}, d.timeout(PhaseExecution))

	clamped := newDeadlines(t0, time.Minute, time.Second)
	assert.Equal(t, clamped.total(), clamped.startup(), "the startup deadline never lies past the total one")
	assert.Equal(t, time.Second, clamped.timeout(PhaseStartup).Limit)
}

func TestVerdict(t *testing.T) {
	d := newDeadlines(time.Now(), time.Second, time.Minute)
	classOf := func(v *verdict) Class {
		f := facts{status: exitStatus{known: true, exited: true, code: 2}}
		v.record(&f)
		c, _ := f.classify()
		return c
	}
	t.Run("hello first: the startup deadline passes, the total one ends it", func(t *testing.T) {
		var v verdict
		now := time.Now()
		require.True(t, v.hello(now))
		end, decided := v.expire(d, false)
		assert.False(t, end)
		assert.False(t, decided)
		end, decided = v.expire(d, true)
		assert.True(t, end)
		assert.True(t, decided, "a timeout that decides asks for stacks")
		assert.Equal(t, now, v.record(&facts{}))
		assert.Equal(t, ClassExecTimeout, classOf(&v))
	})
	t.Run("startup deadline first: the hello is late", func(t *testing.T) {
		var v verdict
		end, decided := v.expire(d, false)
		assert.True(t, end)
		assert.True(t, decided)
		assert.False(t, v.hello(time.Now()))
		assert.True(t, v.record(&facts{}).IsZero())
		assert.Equal(t, ClassStartupTimeout, classOf(&v))
	})
	t.Run("no hello at the total deadline is a startup timeout", func(t *testing.T) {
		var v verdict
		_, decided := v.expire(d, true)
		assert.True(t, decided)
		assert.Equal(t, ClassStartupTimeout, classOf(&v))
	})
	t.Run("a violation first: the deadline ends it without reclassifying", func(t *testing.T) {
		var v verdict
		v.hello(time.Now())
		malformed := &protocol.MalformedError{Reason: "x"}
		v.fail(malformed, nil)
		v.fail(&protocol.MalformedError{Reason: "later"}, nil)
		end, decided := v.expire(d, true)
		assert.True(t, end)
		assert.False(t, decided, "no stacks for a child killed for another reason")
		var f facts
		v.record(&f)
		assert.Same(t, malformed, f.protoErr, "the first violation counts")
		assert.Equal(t, ClassMalformed, classOf(&v))
	})
	t.Run("canceled first", func(t *testing.T) {
		var v verdict
		v.cancel(ErrCanceled)
		_, decided := v.expire(d, true)
		assert.False(t, decided)
		assert.Equal(t, ClassCanceled, classOf(&v))
	})
	t.Run("a timeout is not reclassified by a later cancel", func(t *testing.T) {
		var v verdict
		v.hello(time.Now())
		v.expire(d, true)
		v.cancel(ErrCanceled)
		assert.Equal(t, ClassExecTimeout, classOf(&v))
	})
	t.Run("lost ends nothing", func(t *testing.T) {
		var v verdict
		v.hello(time.Now())
		v.lost(&IOError{Op: "wait", Err: ErrLostChild})
		_, decided := v.expire(d, true)
		assert.True(t, decided)
	})
}

func TestDrainNote(t *testing.T) {
	w := 250 * time.Millisecond
	assert.Empty(t, drainNote(w, false, false, false))
	assert.Equal(t, "stdout still open 250ms after the child was reaped, held by a process outside its containment: closed without reading to the end",
		drainNote(w, true, false, false))
	assert.Contains(t, drainNote(w, true, true, false), "stdout and stderr still open")
	assert.Contains(t, drainNote(w, true, true, true), "stdout, stderr and the protocol endpoint still open")
	assert.Contains(t, drainNote(w, false, false, true), "the protocol endpoint still open")
}

func TestEnvBuild(t *testing.T) {
	parent := []string{
		"PATH=/bin", "HOME=/root", "SECRET=x", "GOGC=off", "PWD=/old",
		"HOME=/shadowed", // the first occurrence wins, as for os.Getenv
		"malformed",
	}
	tests := []struct {
		name   string
		policy EnvPolicy
		dir    string
		want   []string
		desc   string
	}{
		{"strict", EnvPolicy{}, "", []string{protocol.EnvFD + "=3", "HOME=/root", "PATH=/bin"}, "strict"},
		{"keep", EnvPolicy{Keep: []string{"GOGC", "ABSENT"}}, "",
			[]string{protocol.EnvFD + "=3", "GOGC=off", "HOME=/root", "PATH=/bin"}, "strict keep=ABSENT,GOGC"},
		{"remove then set", EnvPolicy{Remove: []string{"PATH"}, Set: []string{"PATH=/x", "A=1", "A=2"}}, "",
			[]string{"A=2", protocol.EnvFD + "=3", "HOME=/root", "PATH=/x"}, "strict remove=PATH set=A,PATH"},
		{"inherit", EnvPolicy{Inherit: true, Remove: []string{"SECRET"}}, "/new",
			[]string{protocol.EnvFD + "=3", "GOGC=off", "HOME=/root", "PATH=/bin", "PWD=/new"}, "inherit remove=SECRET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := tt.policy.build(parent, tt.dir)
			require.NoError(t, err)
			assert.Equal(t, tt.want, env)
			assert.Equal(t, tt.desc, tt.policy.describe())
		})
	}

	a, err := (&EnvPolicy{Set: []string{"A=1"}}).build(parent, "")
	require.NoError(t, err)
	b, err := (&EnvPolicy{Set: []string{"A=2"}}).build(parent, "")
	require.NoError(t, err)
	assert.Equal(t, namesHash(a), namesHash(b), "values do not enter the hash")
	c, err := (&EnvPolicy{Set: []string{"B=1"}}).build(parent, "")
	require.NoError(t, err)
	assert.NotEqual(t, namesHash(a), namesHash(c))

	for _, bad := range []EnvPolicy{
		{Keep: []string{""}},
		{Keep: []string{"A=B"}},
		{Remove: []string{"A\x00"}},
		{Remove: []string{protocol.EnvFD}},
		{Set: []string{"A"}},
		{Set: []string{"=1"}},
		{Set: []string{"A=\x00"}},
	} {
		_, err := bad.build(parent, "")
		var ce *ConfigError
		assert.ErrorAs(t, err, &ce, "%+v", bad)
		assert.ErrorIs(t, err, ErrInvalidConfig)
	}
	assert.Equal(t, []string{"HOME", "PATH", "TMPDIR"}, StrictBase())
}

func TestClassifyPrecedence(t *testing.T) {
	exit := func(code int) exitStatus { return exitStatus{known: true, exited: true, code: code} }
	killed := exitStatus{known: true, signal: syscall.SIGSEGV, coreDumped: true}
	startup := &TimeoutError{Phase: PhaseStartup, Limit: time.Second}
	exec := &TimeoutError{Phase: PhaseExecution, Limit: time.Minute}
	malformed := &protocol.MalformedError{Reason: "x"}
	ioErr := &IOError{Op: "send", Err: syscall.EBADF}
	failure := &protocol.Failure{Class: protocol.FailureFatal, Message: "b.Fatal"}
	skip := &protocol.Skip{Reason: "r"}
	tests := []struct {
		name  string
		f     facts
		class Class
	}{
		{"canceled beats all", facts{canceled: ErrCanceled, timeout: startup, status: killed}, ClassCanceled},
		{"startup beats exec", facts{timeout: startup, protoErr: malformed, status: killed}, ClassStartupTimeout},
		{"exec beats malformed", facts{timeout: exec, protoErr: malformed, status: killed}, ClassExecTimeout},
		{"malformed beats io", facts{protoErr: malformed, ioErr: ioErr, status: exit(1)}, ClassMalformed},
		{"exit 0 without done", facts{status: exit(0), failure: failure}, ClassMalformed},
		{"io beats signal", facts{ioErr: ioErr, status: killed}, ClassParentIO},
		{"unknown status", facts{done: true}, ClassParentIO},
		{"signal beats failure", facts{status: killed, failure: failure}, ClassSignal},
		{"failure beats exit", facts{status: exit(1), failure: failure, done: true}, ClassFailure},
		{"failure with exit 0", facts{status: exit(0), failure: failure, done: true}, ClassFailure},
		{"exit", facts{status: exit(3), done: true}, ClassExit},
		{"skipped", facts{status: exit(0), skip: skip, done: true}, ClassSkipped},
		{"success", facts{status: exit(0), done: true}, ClassSuccess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			class, err := tt.f.classify()
			assert.Equal(t, tt.class, class)
			if class == ClassSuccess || class == ClassSkipped {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
	_, err := (&facts{status: killed}).classify()
	var se *SignalError
	require.ErrorAs(t, err, &se)
	assert.True(t, se.CoreDumped)
	assert.Contains(t, err.Error(), "core dumped")
}

func TestClassString(t *testing.T) {
	want := []string{"ok", "skipped", "benchmark-failure", "exit", "signal", "startup-timeout",
		"execution-timeout", "malformed-protocol", "invalid-config", "parent-io", "canceled"}
	for i, w := range want {
		assert.Equal(t, w, Class(i).String())
	}
	assert.Equal(t, "class(99)", Class(99).String())
}

func TestErrors(t *testing.T) {
	st := &TimeoutError{Phase: PhaseStartup, Limit: 2 * time.Second}
	assert.ErrorIs(t, st, ErrStartupTimeout)
	assert.NotErrorIs(t, st, ErrExecTimeout)
	assert.True(t, st.Timeout())
	assert.EqualError(t, st, "sandbox: startup timeout: no hello within 2s")
	ex := &TimeoutError{Phase: PhaseExecution, Limit: time.Minute}
	assert.ErrorIs(t, ex, ErrExecTimeout)
	assert.EqualError(t, ex, "sandbox: execution timeout: child still running after 1m0s")

	ce := &ConfigError{Field: "Dir", Reason: "missing"}
	assert.ErrorIs(t, ce, ErrInvalidConfig)
	assert.EqualError(t, ce, "sandbox: invalid configuration: Dir: missing")

	ioe := &IOError{Op: "pipe", Err: syscall.EMFILE}
	assert.ErrorIs(t, ioe, ErrParentIO)
	assert.ErrorIs(t, ioe, syscall.EMFILE)

	fe := &FailureError{Failure: protocol.Failure{Class: protocol.FailurePanic, Message: "first line\nsecond"}}
	assert.EqualError(t, fe, "sandbox: benchmark failed (panic): first line")

	o := startFailure(&Config{}, errors.New("odd"))
	assert.Equal(t, ClassParentIO, o.Class)
	assert.ErrorIs(t, o.Err, ErrParentIO)
	assert.Equal(t, -1, o.ExitCode)
}
