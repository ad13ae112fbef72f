package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/benchsup/benchsup/sandbox"
)

// interrupted is a run that a signal ended early. run prints it after the
// partial results and exits with 128 plus the signal's number, as a shell
// reports a process the signal killed (130 for SIGINT, 143 for SIGTERM).
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string {
	return fmt.Sprintf("interrupted (%s): the results above are partial", signalName(e.sig))
}

func (e interrupted) status() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitFailed
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// signalContext returns a context canceled, with an interrupted cause, by
// the first SIGINT or SIGTERM from outside the run. Only the first is
// caught: a second one ends benchsup at once, as the signal's default
// does, and the run's reaper cleans up what it started (see startRun).
// A signal sent by a process of the run itself (code under test that
// found benchsup's pid: children signal benchsup's shim, their parent,
// not benchsup) is not an interruption: it is named on stderr and the run
// goes on. Where the sender cannot be read (see sandbox.WatchSender), or
// it was gone before it could be placed, every signal interrupts. stop
// releases the signals.
func signalContext(stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	watched := sandbox.WatchSender(syscall.SIGINT) == nil
	watched = sandbox.WatchSender(syscall.SIGTERM) == nil && watched
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				if watched {
					if pid, _, ok := sandbox.SignalSender(sig.(syscall.Signal)); ok {
						if name, ours := ofThisRun(pid); ours {
							fmt.Fprintf(stderr, "benchsup: ignored %s from pid %d (%s), a process of the code under test: only a signal from outside the run interrupts it\n", signalName(sig), pid, name)
							continue
						}
					}
				}
				signal.Stop(ch)
				cancel(interrupted{sig})
				return
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(ch)
		cancel(nil)
	}
}

// interruption is the error of a run whose context a signal canceled, or
// nil.
func interruption(ctx context.Context) error {
	var sig interrupted
	if errors.As(context.Cause(ctx), &sig) {
		return sig
	}
	return nil
}
