package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/host"
)

func TestExitStatus(t *testing.T) {
	notQuiet := fmt.Errorf("host not quiet after 2s: last 100%% average (limit 20%%); not measuring under known load: %w", host.ErrNotQuiet)
	for _, tc := range []struct {
		name   string
		err    error
		status int
		says   string
	}{
		{"ok", nil, exitOK, ""},
		{"failures, already reported", errFailed, exitFailed, ""},
		{"a regression, the gate said so", errRegression, exitFailed, ""},
		{"incomplete, the gate said so", errIncomplete, exitIncomplete, ""},
		{"a gate run that could not judge", unjudged{notQuiet}, exitIncomplete, "benchsup: host not quiet after 2s"},
		{"not quiet outside a gate", notQuiet, exitFailed, "benchsup: host not quiet after 2s"},
		{"usage", usagef("--x is wrong"), exitUsage, "benchsup: --x is wrong\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := exitStatus(tc.err, &stderr); got != tc.status {
				t.Errorf("status %d, want %d", got, tc.status)
			}
			if tc.says == "" && stderr.Len() > 0 || !strings.HasPrefix(stderr.String(), tc.says) || strings.Count(stderr.String(), "\n") > 1 {
				t.Errorf("stderr %q, want one line starting %q", stderr.String(), tc.says)
			}
		})
	}
}
