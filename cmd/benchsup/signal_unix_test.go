//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestSignalContext(t *testing.T) {
	tests := []struct {
		sig    syscall.Signal
		status int
		text   string
	}{
		{syscall.SIGINT, 130, "interrupted (SIGINT): the results above are partial"},
		{syscall.SIGTERM, 143, "interrupted (SIGTERM): the results above are partial"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			ctx, stop := signalContext(io.Discard)
			defer stop()
			if err := interruption(ctx); err != nil {
				t.Fatalf("interruption before any signal = %v", err)
			}
			if err := syscall.Kill(os.Getpid(), tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("%v did not cancel the context", tt.sig)
			}
			var sig interrupted
			if err := interruption(ctx); !errors.As(err, &sig) || sig.status() != tt.status || err.Error() != tt.text {
				t.Fatalf("interruption = %v (status %d), want %q and status %d", err, sig.status(), tt.text, tt.status)
			}
		})
	}
}
