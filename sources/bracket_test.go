package sources

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logCounter records its edges in a shared log; as an edgedCounter it also
// splits Start and Stop into their four edges.
type logCounter struct {
	name    string
	log     *[]string
	metrics []string
	failAt  string // an edge that fails: "start", "stop", "arm", "enable", "disable", "collect"
	value   float64
}

func (c *logCounter) Source() string    { return c.name }
func (c *logCounter) Report() Report    { return Report{Source: c.name, Available: true} }
func (c *logCounter) Metrics() []string { return c.metrics }
func (c *logCounter) Close() error      { return nil }
func (c *logCounter) edge(e string) error {
	*c.log = append(*c.log, c.name+"."+e)
	if c.failAt == e {
		return errors.New(e + " failed")
	}
	return nil
}
func (c *logCounter) reading() Reading {
	r := newReading()
	for _, m := range c.metrics {
		r.Values[m] = c.value
	}
	return r
}
func (c *logCounter) Start() error { return c.edge("start") }
func (c *logCounter) Stop() (Reading, error) {
	if err := c.edge("stop"); err != nil {
		return unavailableReading(c.metrics, err.Error()), err
	}
	return c.reading(), nil
}

type edgedCounter struct{ logCounter }

func (c *edgedCounter) Start() error { panic("a bracket uses the edges") }
func (c *edgedCounter) Stop() (Reading, error) {
	panic("a bracket uses the edges")
}
func (c *edgedCounter) arm() error     { return c.edge("arm") }
func (c *edgedCounter) enable() error  { return c.edge("enable") }
func (c *edgedCounter) disable() error { return c.edge("disable") }
func (c *edgedCounter) collect() (Reading, error) {
	if err := c.edge("collect"); err != nil {
		return unavailableReading(c.metrics, err.Error()), err
	}
	return c.reading(), nil
}

func TestBracketEdgeOrder(t *testing.T) {
	var log []string
	hw := &edgedCounter{logCounter{name: "hw", log: &log, metrics: []string{"instructions"}, value: 1}}
	t0 := &logCounter{name: "t0", log: &log, metrics: []string{"minflt"}, value: 2}
	sw := &edgedCounter{logCounter{name: "sw", log: &log, metrics: []string{"page-faults"}, value: 3}}
	b := NewBracket([]Counter{hw, t0, sw})
	assert.Equal(t, []string{"instructions", "minflt", "page-faults"}, b.Metrics())
	b.Start()
	log = append(log, "BODY")
	r := b.Stop()
	assert.Equal(t, []string{
		"hw.arm", "sw.arm", // opening reads, nothing counting yet
		"t0.start",               // snapshots outside every perf window
		"hw.enable", "sw.enable", // perf windows open last...
		"BODY",
		"sw.disable", "hw.disable", // ...and close first, nested
		"t0.stop",
		"hw.collect", "sw.collect", // closing reads after every window closed
	}, log)
	assert.Equal(t, map[string]float64{"instructions": 1, "minflt": 2, "page-faults": 3}, r.Values)
	assert.Empty(t, r.Unavailable)
}

func TestBracketFailures(t *testing.T) {
	for _, edge := range []string{"arm", "enable", "disable", "collect", "start", "stop"} {
		t.Run(edge, func(t *testing.T) {
			var log []string
			sw := &edgedCounter{logCounter{name: "sw", log: &log, metrics: []string{"page-faults"}, value: 3}}
			t0 := &logCounter{name: "t0", log: &log, metrics: []string{"minflt"}, value: 2}
			if edge == "start" || edge == "stop" {
				t0.failAt = edge
			} else {
				sw.failAt = edge
			}
			b := NewBracket([]Counter{sw, t0})
			b.Start()
			r := b.Stop()
			failed, kept := "page-faults", "minflt"
			if edge == "start" || edge == "stop" {
				failed, kept = kept, failed
			}
			require.Contains(t, r.Unavailable, failed)
			assert.Contains(t, r.Unavailable[failed], edge+" failed")
			assert.NotContains(t, r.Values, failed)
			assert.Contains(t, r.Values, kept, "the other counter still counts")

			log = nil
			b.Start()
			r = b.Stop()
			assert.Contains(t, r.Unavailable[failed], edge+" failed", "a failed counter stays out, with its reason")
			assert.Contains(t, r.Values, kept)
			for _, l := range log {
				assert.NotContains(t, l, map[string]string{"page-faults": "sw.", "minflt": "t0."}[failed], "no edge of a counter that left")
			}
		})
	}
}
