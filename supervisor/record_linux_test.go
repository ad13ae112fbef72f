//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// TestRecordProgram runs plain programs (no record package) through
// Record: the outcome is the process's, an end at --for is ok with its
// note, a program without spans gets the note, and the snapshot seam is
// called while the program runs, and Watch gets the child.
func TestRecordProgram(t *testing.T) {
	t.Parallel() // mostly waiting on programs: beside the other slow ones
	cases := []struct {
		name    string
		script  string
		forD    time.Duration
		want    rundoc.Outcome
		note    string
		snapped bool
	}{
		{"exit 0", "exit 0", 0, rundoc.OutcomeOK, "no spans: /bin/sh did not use the record package", false},
		{"exit 3", "exit 3", 0, "exit", "no spans", false},
		{"ended at --for", "sleep 30", 700 * time.Millisecond, rundoc.OutcomeOK, "ended at --for=700ms as asked: ended by SIGTERM", true},
		// The shell must have run its trap before --for ends: 300 ms is
		// a start a busy host missed, and 3 s is one load does not reach
		// (the subtests run in parallel, so it costs little).
		{"SIGTERM ignored", "trap '' TERM; sleep 30", 3 * time.Second, rundoc.OutcomeOK, "ended by SIGKILL (SIGTERM was not heeded", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			snaps, watched, ended := 0, 0, 0
			doc, err := Record(context.Background(), RecordConfig{
				Program: "/bin/sh", Args: []string{"-c", c.script}, For: c.forD, Grace: 300 * time.Millisecond,
				Snapshots: func(s RecordSnapshot) {
					mu.Lock()
					defer mu.Unlock()
					if s.Elapsed <= 0 || len(s.Identities) != 0 {
						t.Errorf("snapshot %+v of a program without spans", s)
					}
					snaps++
				},
				SnapshotEvery: 100 * time.Millisecond,
				Watch: func(c *sandbox.Child) func() {
					if c == nil || c.PID() == 0 {
						t.Errorf("Watch got no running child: %v", c)
					}
					watched++
					return func() { ended++ }
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Meta.Mode != rundoc.ModeRecord || len(doc.Rows) != 1 || doc.Rows[0].Kind != rundoc.KindProgram {
				t.Fatalf("document %+v", doc.Meta)
			}
			r := doc.Rows[0]
			if r.Outcome != c.want {
				t.Errorf("outcome %s (%v), want %s", r.Outcome, r.Error, c.want)
			}
			if !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want one with %q", r.Notes, c.note)
			}
			mu.Lock()
			defer mu.Unlock()
			if watched != 1 || ended != 1 {
				t.Errorf("Watch called %d times, its end %d: want once each", watched, ended)
			}
			if c.snapped && snaps == 0 {
				t.Error("no snapshot while the program ran")
			}
			var buf bytes.Buffer
			if err := rundoc.WriteJSON(&buf, *doc); err != nil {
				t.Fatal(err)
			}
			if _, _, err := rundoc.ReadDocument(&buf); err != nil {
				t.Errorf("the document does not read back: %v", err)
			}
		})
	}
}
