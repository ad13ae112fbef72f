package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/benchsup/benchsup/rundoc"
)

// ClaimConfig sets a host claim.
type ClaimConfig struct {
	// Dir holds the lock files; "" is DefaultClaimDir().
	Dir string
	// CPUs are the CPUs the run will use (its --cpus); nil claims every
	// online CPU, the machine-wide claim that excludes every other run.
	CPUs []int
	// Timeout bounds the wait for CPUs another run holds: zero is
	// DefaultClaimTimeout, negative does not wait at all.
	Timeout time.Duration
	// Poll is the time between attempts while waiting (zero:
	// DefaultClaimPoll). The wait is idle in between.
	Poll time.Duration
	// Command is recorded for other runs to show whom they wait for, as
	// "benchsup run ./...".
	Command string
}

// Claim defaults.
const (
	DefaultClaimTimeout = 10 * time.Minute
	DefaultClaimPoll    = 250 * time.Millisecond
)

// ClaimDirEnv names the environment variable that overrides the default
// claim directory, for hosts whose runs do not share /run/lock (containers
// given a common mount, systemd services with PrivateTmp=).
const ClaimDirEnv = "BENCHSUP_CLAIM_DIR"

// ErrClaimTimeout is wrapped by *ClaimTimeoutError.
var ErrClaimTimeout = errors.New("host claim timed out")

// OwnerRecord is the one JSON line a claim writes into each lock file it
// holds (see the package documentation for the format).
type OwnerRecord struct {
	PID     int    `json:"pid"`
	Host    string `json:"host"`
	Started string `json:"started"` // RFC 3339, when the claim was taken
	CPUs    string `json:"cpus"`    // the whole claim, kernel list format
	Cmd     string `json:"cmd"`
}

// parseRecord reads the first line of a lock file; false when there is
// none (the file is new, released, or being written) or it is not a record.
// Any user can write the file: its strings are cut to maxRecordField bytes
// and stripped of control characters (terminal escapes) before they reach
// a message.
func parseRecord(data []byte) (OwnerRecord, bool) {
	line, _, _ := strings.Cut(string(data), "\n")
	var r OwnerRecord
	if strings.TrimSpace(line) == "" || json.Unmarshal([]byte(line), &r) != nil || r.PID <= 0 {
		return OwnerRecord{}, false
	}
	for _, f := range []*string{&r.Host, &r.Started, &r.CPUs, &r.Cmd} {
		*f = printable(*f)
	}
	return r, true
}

// maxRecordField bounds each string of an owner record shown in a message.
const maxRecordField = 200

// printable is s with every control or non-printing character replaced by
// U+FFFD, cut to maxRecordField bytes (on a character boundary, "…" added).
func printable(s string) string {
	cut := false
	if len(s) > maxRecordField {
		s = strings.ToValidUTF8(s[:maxRecordField], "")
		cut = true
	}
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
	if cut {
		s += "…"
	}
	return s
}

// Holder describes who holds a CPU a claim waits for.
type Holder struct {
	CPU  int    `json:"cpu"`
	Path string `json:"path"`
	// Record is the owner record in the file, nil when it holds none.
	Record *OwnerRecord `json:"record,omitempty"`
	// LockPID is the process that took the lock, from /proc/locks; 0 when
	// not visible (another PID namespace).
	LockPID int `json:"lockPid,omitempty"`
	// Note says what is odd about the holder, if anything: the lock taken
	// by another process than the record names, the taker gone while a
	// process that inherited its descriptor holds on, the holder stopped.
	Note string `json:"note,omitempty"`
}

// String names the holder for a message: "cpu1 is held by pid 4242 on
// build7 since 2026-12-01T23:40:00Z (benchsup run ./...)".
func (h Holder) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cpu%d is held", h.CPU)
	switch {
	case h.Record != nil:
		fmt.Fprintf(&b, " by pid %d", h.Record.PID)
		if h.Record.Host != "" {
			fmt.Fprintf(&b, " on %s", h.Record.Host)
		}
		if h.Record.Started != "" {
			fmt.Fprintf(&b, " since %s", h.Record.Started)
		}
		if h.Record.Cmd != "" {
			fmt.Fprintf(&b, " (%s)", h.Record.Cmd)
		}
	case h.LockPID != 0:
		fmt.Fprintf(&b, " by pid %d", h.LockPID)
	default:
		b.WriteString(" by a process this one cannot see")
	}
	if h.Note != "" {
		b.WriteString("; ")
		b.WriteString(h.Note)
	}
	return b.String()
}

func (h Holder) same(o Holder) bool {
	return h.CPU == o.CPU && h.LockPID == o.LockPID && recordPID(h.Record) == recordPID(o.Record) && h.Note == o.Note
}

// recordPID is r's PID, 0 without a record.
func recordPID(r *OwnerRecord) int {
	if r == nil {
		return 0
	}
	return r.PID
}

// ClaimTimeoutError is Claim's error when another run held a CPU for the
// whole timeout.
type ClaimTimeoutError struct {
	Holder Holder
	Waited time.Duration
}

func (e *ClaimTimeoutError) Error() string {
	return fmt.Sprintf("%v after %v: %v", ErrClaimTimeout, e.Waited.Round(time.Millisecond), e.Holder)
}

func (e *ClaimTimeoutError) Unwrap() error { return ErrClaimTimeout }

// HostClaim is a held claim. Release it when the run ends; if the process
// dies first, the kernel releases the locks with it.
type HostClaim struct {
	report rundoc.HostClaim
	mu     sync.Mutex // Release may come from a signal handler's goroutine
	files  []*os.File
}

// Report returns what the claim records, as the run's document holds it.
func (c *HostClaim) Report() rundoc.HostClaim { return c.report }

func (cfg ClaimConfig) withDefaults() ClaimConfig {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultClaimTimeout
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultClaimPoll
	}
	return cfg
}
