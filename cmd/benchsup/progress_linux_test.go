package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLiveUsageOffWhenNotLive(t *testing.T) {
	var buf bytes.Buffer
	u := startLiveUsage(report.NewProgress(&buf, false), false, time.Millisecond)
	assert.Nil(t, u)
	assert.Nil(t, u.watcher(), "no watching: the supervisor runs children as without a display")
	u.close() // must not panic
	time.Sleep(5 * time.Millisecond)
	assert.Zero(t, buf.Len())
}

// TestLiveUsageShowsTheRunningChild drives the ticker by hand over a real
// child: the first reading shows its memory and no CPU, the second both;
// once the child has ended its figures are gone from the line, and with
// two children running at once none is shown.
func TestLiveUsageShowsTheRunningChild(t *testing.T) {
	path, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("no sleep here: %v", err)
	}
	var buf bytes.Buffer
	p := report.NewProgress(&buf, true)
	l := startLiveUsage(p, true, time.Hour) // ticks by hand below
	defer l.close()
	p.Update("p.BenchmarkX", 1, 2)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := func() *sandbox.Child {
		c, err := sandbox.StartContext(ctx, sandbox.Config{Path: path, Args: []string{"30"}})
		require.NoError(t, err)
		return c
	}
	c := start()
	end := l.watcher()(c)

	last := func() string {
		s := buf.String()
		return s[strings.LastIndex(s, "\r"):]
	}
	l.tick()
	assert.Contains(t, last(), "cpu — rss ", "one reading: memory only")
	assert.NotContains(t, last(), "rss —")
	time.Sleep(50 * time.Millisecond)
	l.tick()
	assert.Regexp(t, `cpu \d+% \(\d+\.\d\d cores\) rss `, last())

	other := start()
	endOther := l.watcher()(other)
	l.tick()
	assert.NotContains(t, last(), "cpu", "two children: neither is the running one")
	endOther()

	end()
	l.tick()
	assert.NotContains(t, last(), "cpu", "an ended child's usage is not shown")
	cancel()
	c.Wait()
	other.Wait()
}
