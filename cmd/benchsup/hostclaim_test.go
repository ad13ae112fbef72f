package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/supervisor"
)

// applyHostArgs parses args as run's host flags (and --fail-on) and
// applies them to a Config of the given mode.
func applyHostArgs(t *testing.T, mode supervisor.Mode, args ...string) (supervisor.Config, string, error) {
	t.Helper()
	var stderr bytes.Buffer
	cfg := supervisor.Config{Mode: mode}
	var applied error
	app := &cli.App{
		Name:      "benchsup",
		ErrWriter: &stderr,
		Flags:     append(hostFlags(), &cli.StringFlag{Name: "fail-on"}),
		Action:    func(c *cli.Context) error { applied = applyHost(c, &cfg); return nil },
	}
	if err := app.Run(append([]string{"benchsup"}, args...)); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	if cfg.Waiting != nil {
		cfg.Waiting("waiting for a test")
	}
	return cfg, stderr.String(), applied
}

func TestApplyHost(t *testing.T) {
	bench, test := supervisor.ModeBench, supervisor.ModeTest
	tests := []struct {
		name        string
		mode        supervisor.Mode
		args        []string
		wantErr     string // a usage error containing this; "" for none
		claim       bool
		quiet       bool
		wantTimeout time.Duration // the preflight's, when quiet
	}{
		{name: "nothing", mode: bench},
		{name: "claim", mode: test, args: []string{"--claim"}, claim: true},
		{name: "claim settings", mode: bench, args: []string{"--claim", "--claim-dir=/tmp/x", "--claim-timeout=1m"}, claim: true},
		{name: "claim dir without claim", mode: bench, args: []string{"--claim-dir=/tmp/x"}, wantErr: "--claim-dir sets the host claim: add --claim"},
		{name: "negative claim timeout", mode: bench, args: []string{"--claim", "--claim-timeout=-1s"}, wantErr: "--claim-timeout must not be negative"},
		{name: "quiescence", mode: bench, args: []string{"--quiescence"}, quiet: true, wantTimeout: host.DefaultTimeout},
		{name: "quiescence settings", mode: bench, args: []string{"--quiescence", "--quiescence-timeout=3s", "--quiet-average=10%", "--quiet-core=90", "--quiet-stable=2s"}, quiet: true, wantTimeout: 3 * time.Second},
		{name: "quiescence in test mode", mode: test, args: []string{"--quiescence"}, wantErr: "--quiescence guards measurements: add --bench"},
		{name: "setting without quiescence", mode: bench, args: []string{"--quiet-core=90%"}, wantErr: "--quiet-core sets the quiescence preflight: add --quiescence"},
		{name: "limit over 100", mode: bench, args: []string{"--quiescence", "--quiet-average=120%"}, wantErr: "--quiet-average must be a percentage in (0, 100]"},
		{name: "limit not a number", mode: bench, args: []string{"--quiescence", "--quiet-core=most"}, wantErr: "--quiet-core must be a percentage"},
		{name: "zero timeout", mode: bench, args: []string{"--quiescence", "--quiescence-timeout=0s"}, wantErr: "--quiescence-timeout must be positive"},
		{name: "timeout under stable", mode: bench, args: []string{"--quiescence", "--quiescence-timeout=1s", "--quiet-stable=2s"}, wantErr: "shorter than --quiet-stable"},
		{name: "gate default", mode: bench, args: []string{"--fail-on=slower"}, quiet: true, wantTimeout: gateQuiescenceTimeout},
		{name: "gate with a timeout", mode: bench, args: []string{"--fail-on=slower", "--quiescence-timeout=30s"}, quiet: true, wantTimeout: 30 * time.Second},
		{name: "gate opted out", mode: bench, args: []string{"--fail-on=slower", "--quiescence=false"}},
		{name: "gate asked explicitly", mode: bench, args: []string{"--fail-on=slower", "--quiescence"}, quiet: true, wantTimeout: host.DefaultTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, stderr, err := applyHostArgs(t, tc.mode, tc.args...)
			if tc.wantErr != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("applyHost(%q) = %v, want a one-line usage error with %q", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if stderr != "benchsup: waiting for a test\n" {
				t.Errorf("Waiting printed %q", stderr)
			}
			if (cfg.Claim != nil) != tc.claim {
				t.Errorf("claim = %+v, want one: %v", cfg.Claim, tc.claim)
			}
			if (cfg.Quiescence != nil) != tc.quiet {
				t.Fatalf("quiescence = %+v, want one: %v", cfg.Quiescence, tc.quiet)
			}
			if q := cfg.Quiescence; q != nil {
				if q.Timeout != tc.wantTimeout {
					t.Errorf("preflight timeout %v, want %v", q.Timeout, tc.wantTimeout)
				}
				if err := q.Validate(); err != nil || q.MaxAverage <= 0 || q.MaxAverage > 1 || q.MaxCore <= 0 || q.MaxCore > 1 {
					t.Errorf("preflight %+v: limits must be fractions (%v)", q, err)
				}
			}
		})
	}
	// The values, where the flags give them.
	cfg, _, _ := applyHostArgs(t, bench, "--quiescence", "--quiet-average=10%", "--quiet-core=90", "--quiet-stable=2s", "--claim", "--claim-dir=/tmp/x", "--claim-timeout=0")
	if q := cfg.Quiescence; q.MaxAverage != 0.10 || q.MaxCore != 0.90 || q.Stable != 2*time.Second {
		t.Errorf("preflight %+v, want limits 10%% and 90%% over 2s", q)
	}
	if c := cfg.Claim; c.Dir != "/tmp/x" || c.Timeout >= 0 || c.Command == "" {
		t.Errorf("claim %+v, want dir /tmp/x, no wait (--claim-timeout=0), a command for others to see", c)
	}

	// A gate's default wait says where it comes from, once.
	var stderr bytes.Buffer
	app := &cli.App{Name: "benchsup", ErrWriter: &stderr, Flags: append(hostFlags(), &cli.StringFlag{Name: "fail-on"}),
		Action: func(c *cli.Context) error {
			cfg := supervisor.Config{Mode: bench}
			if err := applyHost(c, &cfg); err != nil {
				return err
			}
			for range 2 {
				cfg.Waiting("waiting for a quiet host: 90% average, cpu0 99% (limits 20%, 50%)")
			}
			return nil
		}}
	if err := app.Run([]string{"benchsup", "--fail-on=slower"}); err != nil {
		t.Fatal(err)
	}
	want := "benchsup: waiting for a quiet host: 90% average, cpu0 99% (limits 20%, 50%); a --fail-on run waits for one unless given --quiescence=false\n" +
		"benchsup: waiting for a quiet host: 90% average, cpu0 99% (limits 20%, 50%)\n"
	if stderr.String() != want {
		t.Errorf("a gate's waiting lines:\n%s\nwant:\n%s", stderr.String(), want)
	}
}
