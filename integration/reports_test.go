package integration

import (
	"fmt"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/benchsup/benchsup/rundoc"
)

// cmdEvents: events EVENTS.ndjson RUN.json checks an --events stream
// against the run's document: every line one event of the current schema,
// seq 1, 2, ... in line order, a build first, every process-start ended
// by a process-end of the same child with an outcome, one result per row
// of the document, and done last, saying whether the run failed.
func cmdEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: events EVENTS.ndjson RUN.json")
	}
	doc := readDoc(ts, args[1])
	evs, err := parseEvents([]byte(ts.ReadFile(args[0])))
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	for i, ev := range evs {
		if ev.Schema != rundoc.EventSchemaVersion || ev.Seq != int64(i+1) || ev.Time == "" {
			ts.Fatalf("line %d: schema %d, seq %d, time %q", i+1, ev.Schema, ev.Seq, ev.Time)
		}
	}
	if len(evs) < 3 || evs[0].Kind != rundoc.EventBuild {
		ts.Fatalf("want a build first, then more: %d events", len(evs))
	}
	child := func(ev rundoc.Event) string {
		p := -1
		if ev.Process != nil {
			p = *ev.Process
		}
		return fmt.Sprintf("%s %s %s %s %d", ev.Package, ev.Name, ev.Build, ev.Phase, p)
	}
	open := map[string]int{}
	results := 0
	for i, ev := range evs {
		switch ev.Kind {
		case rundoc.EventProcessStart:
			open[child(ev)]++
		case rundoc.EventProcessEnd:
			if open[child(ev)] == 0 {
				ts.Fatalf("event %d: process-end of %s with no start", ev.Seq, child(ev))
			}
			open[child(ev)]--
			if ev.Outcome == "" {
				ts.Fatalf("event %d: process-end without an outcome", ev.Seq)
			}
		case rundoc.EventResult:
			results++
		case rundoc.EventDone:
			if i != len(evs)-1 {
				ts.Fatalf("done is event %d of %d", ev.Seq, len(evs))
			}
			if ev.Failed == nil || *ev.Failed != doc.Failed() {
				ts.Fatalf("done says failed=%v, the document %v", ev.Failed, doc.Failed())
			}
		}
	}
	for c, n := range open {
		if n != 0 {
			ts.Fatalf("%s started and never ended", c)
		}
	}
	if results != len(doc.Rows) || evs[len(evs)-1].Kind != rundoc.EventDone {
		ts.Fatalf("%d results for %d rows; last event %s", results, len(doc.Rows), evs[len(evs)-1].Kind)
	}
}
