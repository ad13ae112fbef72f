//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchsup/benchsup/sandbox"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSignalFromTheRun: a SIGTERM that a process of the run sends benchsup
// (code under test that found its pid) does not interrupt the run, and is
// named; one from benchsup itself still does (TestSignalContext).
func TestSignalFromTheRun(t *testing.T) {
	if !sandbox.SenderReadable {
		t.Skip("a signal's sender cannot be read on this platform")
	}
	var stderr syncBuffer
	ctx, stop := signalContext(&stderr)
	defer stop()
	// The shell stays alive while its signal is read, as a test does.
	cmd := exec.Command("/bin/sh", "-c", "kill -TERM "+strconv.Itoa(os.Getpid())+"; sleep 30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "ignored SIGTERM from pid "+strconv.Itoa(cmd.Process.Pid)) {
		if ctx.Err() != nil {
			t.Fatalf("a signal from a descendant interrupted the run: %v", interruption(ctx))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the signal was not named; stderr: %q", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ctx.Err() != nil {
		t.Fatalf("interrupted: %v", interruption(ctx))
	}
}
