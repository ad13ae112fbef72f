package supervisor

import (
	"errors"
	"fmt"
	"time"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
)

// InterferenceConfig is the watch for foreign load between samples
// (docs/design.md#interference). The zero value observes: it annotates
// disturbed samples and changes nothing. Only benchmark samples are
// watched; with --against each process of a pair watches its own samples
// (the pair's two processes run back to back, and a pair is never split).
type InterferenceConfig struct {
	// Off turns the watch off.
	Off bool
	// Response is protocol.ResponseObserve (the default when empty),
	// ResponseRetake or ResponsePause.
	Response string
	// MaxForeign is the foreign share of the watched CPUs' capacity over a
	// sample above which it is disturbed; zero is DefaultMaxForeign.
	MaxForeign float64
	// MaxRetakes bounds the samples one process retakes; zero is
	// DefaultMaxRetakes.
	MaxRetakes int
	// PauseMax bounds one process's total wait for quiet, Settle how long
	// quiet must last (pause only); zero is the default.
	PauseMax, Settle time.Duration
}

// Interference defaults.
const (
	DefaultMaxForeign = 0.10
	DefaultMaxRetakes = 25
	DefaultPauseMax   = 30 * time.Second
	DefaultSettle     = 250 * time.Millisecond
)

// ErrInterferenceConfig is wrapped by InterferenceConfig.Validate's errors.
var ErrInterferenceConfig = errors.New("bad interference settings")

// WithDefaults returns c with each zero field set to its default.
func (c InterferenceConfig) WithDefaults() InterferenceConfig {
	if c.Response == "" {
		c.Response = protocol.ResponseObserve
	}
	if c.MaxForeign == 0 {
		c.MaxForeign = DefaultMaxForeign
	}
	if c.MaxRetakes == 0 {
		c.MaxRetakes = DefaultMaxRetakes
	}
	if c.PauseMax == 0 {
		c.PauseMax = DefaultPauseMax
	}
	if c.Settle == 0 {
		c.Settle = DefaultSettle
	}
	return c
}

// Validate checks c after defaults, as the child will: the request's own
// validation (protocol) bounds every field, and a default is never
// negative or zero where zero would not do.
func (c InterferenceConfig) Validate() error {
	if c.Off {
		return nil
	}
	req := protocol.Request{Mode: protocol.ModeBenchmark, Config: protocol.RequestConfig{Interference: c.request(nil)}}
	if err := req.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInterferenceConfig, err)
	}
	return nil
}

// request is the policy a benchmark child gets, watching cpus (nil: every
// CPU); nil when the watch is off.
func (c InterferenceConfig) request(cpus []int) *protocol.Interference {
	if c.Off {
		return nil
	}
	c = c.WithDefaults()
	return &protocol.Interference{Response: c.Response, MaxForeign: c.MaxForeign, MaxRetakes: c.MaxRetakes,
		SettleNs: int64(c.Settle), PauseMaxNs: int64(c.PauseMax), CPUs: cpus}
}

// Policy is what Meta.Interference records of c for a benchmark run; nil
// when the watch is off.
func (c InterferenceConfig) Policy() *rundoc.InterferencePolicy {
	if c.Off {
		return nil
	}
	c = c.WithDefaults()
	p := &rundoc.InterferencePolicy{Response: c.Response, MaxForeign: c.MaxForeign, MaxRetakes: c.MaxRetakes, Scope: rundoc.InterferenceScope}
	if c.Response == protocol.ResponsePause {
		p.SettleNs, p.PauseMaxNs = int64(c.Settle), int64(c.PauseMax)
	}
	return p
}

// watched copies the watch's reading of each protocol sample onto its
// stats sample: the foreign share when the window could tell, and the
// worker's decision.
func watched(dst []rundoc.Sample, src []protocol.Sample) {
	for i := range dst {
		w := src[i].Watch
		if w == nil {
			continue
		}
		if share, ok := w.ForeignShare(); ok {
			dst[i].Foreign = &share
		}
		dst[i].Disturbed = w.Disturbed
	}
}

// processInterference is what the watch saw and did in one process's
// result, and its retaken samples; nil when no watch ran.
func processInterference(res *protocol.Result) (*rundoc.ProcessInterference, []rundoc.Sample) {
	if res.Interference == nil {
		return nil, nil
	}
	o := res.Interference
	in := &rundoc.ProcessInterference{Retakes: len(res.Retaken), Pauses: o.Pauses, PausedNs: o.PausedNs,
		BudgetExhausted: o.BudgetExhausted, Problem: o.Problem}
	for _, set := range [][]protocol.Sample{res.Samples, res.Retaken} {
		for _, s := range set {
			if s.Watch == nil {
				continue
			}
			in.Samples++
			if s.Watch.Disturbed {
				in.Disturbed++
			}
			share, ok := s.Watch.ForeignShare()
			if !ok {
				in.TooShort++
				continue
			}
			if in.MaxForeign == nil || share > *in.MaxForeign {
				in.MaxForeign = &share
			}
		}
	}
	retaken := samples(res.Retaken)
	watched(retaken, res.Retaken)
	return in, retaken
}
