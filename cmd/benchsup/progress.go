package main

import (
	"sync"
	"time"

	"github.com/benchsup/benchsup/internal/liveusage"
	"github.com/benchsup/benchsup/report"
	"github.com/benchsup/benchsup/sandbox"
)

// usagePeriod is the time between the progress line's readings of the
// running child's usage, and its repaints.
const usagePeriod = time.Second

// liveUsage keeps the progress line's usage figures current: every period
// it reads the usage of the child running, when exactly one runs (several
// run at once in test mode and discovery: none is "the" child), and
// repaints the line. It runs only while the line is drawn on a terminal,
// so piped output never sees it.
type liveUsage struct {
	p       *report.Progress
	mu      sync.Mutex
	running map[*sandbox.Child]*liveusage.Tracker
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// startLiveUsage starts the ticker repainting p every period when live is
// true; nil when it is false.
func startLiveUsage(p *report.Progress, live bool, period time.Duration) *liveUsage {
	if !live {
		return nil
	}
	l := &liveUsage{p: p, running: map[*sandbox.Child]*liveusage.Tracker{}, stop: make(chan struct{}), done: make(chan struct{})}
	go l.loop(period)
	return l
}

// watcher returns watch, for supervisor.Config.Watch; nil for a nil l.
func (l *liveUsage) watcher() func(*sandbox.Child) func() {
	if l == nil {
		return nil
	}
	return l.watch
}

// watch is supervisor.Config.Watch: c runs until the returned function is
// called.
func (l *liveUsage) watch(c *sandbox.Child) func() {
	l.mu.Lock()
	l.running[c] = &liveusage.Tracker{}
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		delete(l.running, c)
		l.mu.Unlock()
	}
}

func (l *liveUsage) loop(period time.Duration) {
	defer close(l.done)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.tick()
		}
	}
}

// tick reads the running child's usage, if one runs alone, and repaints.
func (l *liveUsage) tick() {
	l.mu.Lock()
	var c *sandbox.Child
	if len(l.running) == 1 {
		for c = range l.running {
		}
	}
	l.mu.Unlock()
	var u sandbox.Usage
	var err error
	if c != nil {
		u, err = c.Usage() // outside the lock: /proc may be slow
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// The usage is shown only while its child still runs: once it has
	// ended, the line may already name the next.
	var live *report.LiveUsage
	if tr, ok := l.running[c]; ok && c != nil {
		tr.Add(u, err)
		live, _ = tr.Live()
	}
	l.p.SetUsage(live)
}

// close stops the ticker, once; the caller then clears the line. A nil l
// has none.
func (l *liveUsage) close() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		close(l.stop)
		<-l.done
	})
}
