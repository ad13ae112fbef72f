package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sources"
)

// QuiescenceConfig sets the quiescence preflight. A zero field takes its
// default, so QuiescenceConfig{} is the default gate.
type QuiescenceConfig struct {
	// MaxAverage is the highest busy share of the watched CPUs taken
	// together, a fraction (default 0.20): broad load.
	MaxAverage float64
	// MaxCore is the highest busy share of any one watched CPU (default
	// 0.50): one saturated CPU that many idle ones would hide.
	MaxCore float64
	// Stable is how long both limits must hold without a break (default 1s).
	Stable time.Duration
	// Poll is the time between reads of /proc/stat (default 100ms). A poll
	// shorter than the kernel's tick is merged with the next.
	Poll time.Duration
	// Timeout bounds the whole wait (default 15s).
	Timeout time.Duration
	// CPUs are the CPUs watched; nil watches them all (a run that is not
	// placed can be slowed by load anywhere).
	CPUs []int
}

// Quiescence defaults.
const (
	DefaultMaxAverage = 0.20
	DefaultMaxCore    = 0.50
	DefaultStable     = time.Second
	DefaultPoll       = 100 * time.Millisecond
	DefaultTimeout    = 15 * time.Second
)

// ErrQuiescenceConfig is wrapped by Validate's errors.
var ErrQuiescenceConfig = errors.New("bad quiescence settings")

// ErrNotQuiet is wrapped by *NotQuietError: the host did not stay under the
// limits for the stable interval before the timeout.
var ErrNotQuiet = errors.New("host not quiet")

// WithDefaults returns c with each zero field set to its default.
func (c QuiescenceConfig) WithDefaults() QuiescenceConfig {
	if c.MaxAverage == 0 {
		c.MaxAverage = DefaultMaxAverage
	}
	if c.MaxCore == 0 {
		c.MaxCore = DefaultMaxCore
	}
	if c.Stable == 0 {
		c.Stable = DefaultStable
	}
	if c.Poll == 0 {
		c.Poll = DefaultPoll
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	return c
}

// Validate checks c after defaults: limits are fractions in (0, 1], the
// durations are positive, the timeout covers the stable interval (or the
// gate could never open) and one poll.
func (c QuiescenceConfig) Validate() error {
	c = c.WithDefaults()
	switch {
	case !(c.MaxAverage > 0 && c.MaxAverage <= 1):
		return fmt.Errorf("%w: average limit %v is not a fraction in (0, 1]", ErrQuiescenceConfig, c.MaxAverage)
	case !(c.MaxCore > 0 && c.MaxCore <= 1):
		return fmt.Errorf("%w: per-CPU limit %v is not a fraction in (0, 1]", ErrQuiescenceConfig, c.MaxCore)
	case c.Stable < 0 || c.Poll < 0 || c.Timeout < 0:
		return fmt.Errorf("%w: negative duration (stable %v, poll %v, timeout %v)", ErrQuiescenceConfig, c.Stable, c.Poll, c.Timeout)
	case c.Timeout < c.Stable:
		return fmt.Errorf("%w: timeout %v is shorter than the stable interval %v", ErrQuiescenceConfig, c.Timeout, c.Stable)
	case c.Poll > c.Timeout:
		return fmt.Errorf("%w: poll interval %v is longer than the timeout %v", ErrQuiescenceConfig, c.Poll, c.Timeout)
	}
	for _, cpu := range c.CPUs {
		if cpu < 0 {
			return fmt.Errorf("%w: CPU %d", ErrQuiescenceConfig, cpu)
		}
	}
	return nil
}

// Observation is the busy share of the watched CPUs over one poll interval.
type Observation struct {
	Elapsed    time.Duration `json:"elapsedNs"`  // from the start of the wait to the end of this interval
	Interval   time.Duration `json:"intervalNs"` // this interval's length
	Average    float64       `json:"average"`    // busy share of the watched CPUs together
	BusiestCPU int           `json:"busiestCpu"`
	Busiest    float64       `json:"busiest"`    // busy share of BusiestCPU
	Quiet      bool          `json:"quiet"`      // both limits held over this interval
	QuietFor   time.Duration `json:"quietForNs"` // how long both limits have held without a break, this interval included
}

// String says what was seen, as "63% average, cpu1 98%".
func (o Observation) String() string {
	return fmt.Sprintf("%.0f%% average, cpu%d %.0f%%", 100*o.Average, o.BusiestCPU, 100*o.Busiest)
}

// NotQuietError is the preflight's verdict when the host stayed busy.
type NotQuietError struct {
	Waited     time.Duration
	MaxAverage float64
	MaxCore    float64
	// Last is the last interval observed; HaveLast is false when no
	// interval was long enough to hold a tick of every watched CPU.
	Last     Observation
	HaveLast bool
}

func (e *NotQuietError) Error() string {
	if !e.HaveLast {
		return fmt.Sprintf("%v after %v: no poll interval held a whole tick of every watched CPU", ErrNotQuiet, e.Waited.Round(time.Millisecond))
	}
	return fmt.Sprintf("%v after %v: last %.0f%% average (limit %.0f%%), busiest cpu%d %.0f%% (limit %.0f%%)",
		ErrNotQuiet, e.Waited.Round(time.Millisecond), 100*e.Last.Average, 100*e.MaxAverage, e.Last.BusiestCPU, 100*e.Last.Busiest, 100*e.MaxCore)
}

func (e *NotQuietError) Unwrap() error { return ErrNotQuiet }

// quietGate is the decision, a pure function of the observations so far:
// it opens when both limits have held over consecutive intervals adding up
// to Stable, and any interval over a limit starts the count again.
type quietGate struct {
	cfg        QuiescenceConfig
	quietFor   time.Duration
	maxAvg     float64
	maxCore    float64
	maxCoreCPU int
}

// observe judges o, setting its Quiet and QuietFor, and says whether the
// gate is now open.
func (g *quietGate) observe(o *Observation) bool {
	o.Quiet = o.Average <= g.cfg.MaxAverage && o.Busiest <= g.cfg.MaxCore
	if !o.Quiet {
		g.quietFor, g.maxAvg, g.maxCore = 0, 0, 0
		o.QuietFor = 0
		return false
	}
	if g.quietFor == 0 || o.Average > g.maxAvg {
		g.maxAvg = o.Average
	}
	if g.quietFor == 0 || o.Busiest > g.maxCore {
		g.maxCore, g.maxCoreCPU = o.Busiest, o.BusiestCPU
	}
	g.quietFor += o.Interval
	o.QuietFor = g.quietFor
	return g.quietFor >= g.cfg.Stable
}

// observation summarizes a difference of two reads; false when it holds no
// tick of some watched CPU (the interval is then merged with the next).
func observation(d sources.HostCPU, interval, elapsed time.Duration) (Observation, bool) {
	avg, per, ok := d.BusyShare()
	if !ok || len(per) == 0 {
		return Observation{}, false
	}
	o := Observation{Elapsed: elapsed, Interval: interval, Average: avg, BusiestCPU: d.PerCPU[0].CPU, Busiest: per[0]}
	for i, s := range per {
		if s > o.Busiest {
			o.Busiest, o.BusiestCPU = s, d.PerCPU[i].CPU
		}
	}
	return o, true
}

// WaitQuiet polls host CPU time until both limits of cfg have held for
// cfg.Stable, and returns what it saw. read is sources.ReadHostCPU when
// nil; waiting, when not nil, is called with each observation that did not
// end the wait, so a caller can say "waiting for a quiet host: 63%
// average, cpu1 98%". The wait is idle between polls.
//
// On timeout the error is a *NotQuietError (errors.Is ErrNotQuiet): a run
// should stop there rather than measure under known load. A canceled ctx
// ends the wait with ctx's cause. The report, the document's record of
// the preflight, is filled in either way.
//
// This is a CPU preflight, not proof of a quiet host: it does not see
// storage or memory traffic, thermal or frequency state, or load that
// starts after it returns.
func WaitQuiet(ctx context.Context, cfg QuiescenceConfig, read func() (sources.HostCPU, error), waiting func(Observation)) (rundoc.Quiescence, error) {
	if err := cfg.Validate(); err != nil {
		return rundoc.Quiescence{}, err
	}
	cfg = cfg.WithDefaults()
	if read == nil {
		read = sources.ReadHostCPU
	}
	rep := rundoc.Quiescence{
		MaxAverage: cfg.MaxAverage, MaxCore: cfg.MaxCore,
		StableNs: int64(cfg.Stable), TimeoutNs: int64(cfg.Timeout),
		CPUs: FormatCPUList(cfg.CPUs),
	}
	start := time.Now()
	prev, err := read()
	if err != nil {
		return rep, fmt.Errorf("quiescence preflight: %w", err)
	}
	for _, cpu := range cfg.CPUs {
		if _, ok := prev.CPU(cpu); !ok {
			return rep, fmt.Errorf("quiescence preflight: cpu%d is not online (no line in /proc/stat)", cpu)
		}
	}
	prevAt := start
	gate := quietGate{cfg: cfg}
	var last Observation
	haveLast := false
	timer := time.NewTimer(cfg.Poll)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			rep.WaitedNs = int64(time.Since(start))
			return rep, fmt.Errorf("quiescence preflight: %w", context.Cause(ctx))
		case <-timer.C:
		}
		cur, err := read()
		now := time.Now()
		if err != nil {
			rep.WaitedNs = int64(now.Sub(start))
			return rep, fmt.Errorf("quiescence preflight: %w", err)
		}
		rep.Polls++
		d := cur.Sub(prev) // its total is its CPUs' (sources.HostCPU.Sub)
		if cfg.CPUs != nil {
			d = d.Only(cfg.CPUs)
		}
		if o, ok := observation(d, now.Sub(prevAt), now.Sub(start)); ok {
			prev, prevAt = cur, now
			if gate.observe(&o) {
				rep.WaitedNs = int64(now.Sub(start))
				avg, core, cpu := gate.maxAvg, gate.maxCore, gate.maxCoreCPU
				rep.StableAverage, rep.StableBusiest, rep.StableBusiestCPU = &avg, &core, &cpu
				return rep, nil
			}
			last, haveLast = o, true
			if waiting != nil {
				waiting(o)
			}
		}
		if waited := now.Sub(start); waited >= cfg.Timeout {
			rep.WaitedNs = int64(waited)
			return rep, &NotQuietError{Waited: waited, MaxAverage: cfg.MaxAverage, MaxCore: cfg.MaxCore, Last: last, HaveLast: haveLast}
		}
		timer.Reset(cfg.Poll)
	}
}
