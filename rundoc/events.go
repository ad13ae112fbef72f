package rundoc

// EventSchemaVersion is the version of the event stream's objects; it
// changes whenever a field is removed, renamed or retyped, or a kind
// changes meaning.
const EventSchemaVersion = 1

// Event kinds, in the order a run emits them: builds, then discoveries,
// then the processes (each start before its end) with results as rows
// become final, then comparisons and done. A run that fails early stops
// anywhere in that order; done comes last when the caller emits it.
const (
	// EventBuild: a test binary was compiled, or failed to. Package,
	// Build, Outcome ("ok" or "build-failure") and, on failure, Error
	// (the compiler's first line; the row's output holds the rest).
	EventBuild = "build"
	// EventDiscovery: what a package will run. Package, Build and
	// Identities: in bench mode the benchmark leaves found (and
	// calibrated) by discovery, in the order the schedule uses; in test
	// mode the top-level tests and examples the -run pattern selects, as
	// the source declares them (subtests are not known before they run).
	// Identities is absent when none was found. In bench mode the
	// discovery children (phase "discover") run before this event, which
	// reports what they found; every other child of the package follows it.
	EventDiscovery = "discovery"
	// EventProcessStart: a child is about to be spawned. Package, Name
	// (the benchmark leaf, or the benchmark function a discovery child
	// lists; "" for a test-mode child, which runs the package's tests),
	// Build, Process (the repetition index of a measuring child; absent
	// otherwise) and Phase (what the child does: "discover", "benchmark",
	// "workload" or "test"). PID is absent: the supervisor learns it when
	// the child is reaped, and process-end carries it.
	EventProcessStart = "process-start"
	// EventProcessEnd: the child was reaped. The fields of its
	// process-start, plus PID (absent when none was spawned), Outcome,
	// Error (the one-line account of a failure), Skipped (a skip's
	// reason) and WallNs (spawn to reaped; absent when none was spawned).
	// In test mode one child runs many tests: a failing outcome here is
	// the process's, and the rows say which test it is charged to.
	EventProcessEnd = "process-end"
	// EventResult: a row is final, exactly as the document will hold it.
	// Package, Name, Build, Outcome and Row. Rows come as they become
	// final: test rows when their package's children are done, benchmark
	// rows when the schedule ends (repetitions interleave, so every
	// identity's last process runs in the last round), package rows
	// (skipped, not built) after the builds. Every row of the final
	// document has exactly one result event.
	EventResult = "result"
	// EventComparison: one comparison of the run (--against, --baseline),
	// in Comparison, emitted by the caller once it is made.
	EventComparison = "comparison"
	// EventDone: the run ended and its document is complete: Counts (rows
	// by outcome; absent when there are none) and Failed (whether any row
	// is an error, Document.Failed). Error says why the run ended early
	// (interrupted), or why there is no document (the run could not
	// happen; then Counts and Failed are absent). Emitted by the caller,
	// last.
	EventDone = "done"
)

// Event is one line of the event stream: newline-delimited JSON that an
// editor or a CI annotation can follow while a long run goes on. Fields a
// kind does not use are absent (see each kind's constant). The stream is a
// live view only: the final document is the record, and nothing in it
// depends on the stream.
type Event struct {
	Schema int    `json:"schema"` // EventSchemaVersion, set by the writer
	Seq    int64  `json:"seq"`    // 1, 2, ... in write order, set by the writer
	Time   string `json:"time"`   // RFC 3339 with milliseconds, UTC, set by the writer
	Kind   string `json:"kind"`   // one of the Event* kinds

	Package string `json:"package,omitempty"`
	Name    string `json:"name,omitempty"`
	// Build is the --against revision a build, child or row belongs to;
	// "" (absent) for the working tree.
	Build string `json:"build,omitempty"`
	// Phase is what a child does: "discover", "benchmark", "workload" or
	// "test" (protocol.Mode).
	Phase   string  `json:"phase,omitempty"`
	Process *int    `json:"process,omitempty"` // repetition index
	PID     int     `json:"pid,omitempty"`
	Outcome Outcome `json:"outcome,omitempty"`
	Error   *string `json:"error,omitempty"`
	Skipped *string `json:"skipped,omitempty"`
	// WallNs is a child's spawn to reaped, the supervisor's monotonic
	// clock; absent when none was spawned, never 0 for unmeasured.
	WallNs *int64 `json:"wallNs,omitempty"`

	Identities []string        `json:"identities,omitempty"`
	Row        *Row            `json:"row,omitempty"`
	Comparison *Comparison     `json:"comparison,omitempty"`
	Counts     map[Outcome]int `json:"counts,omitempty"`
	Failed     *bool           `json:"failed,omitempty"`
}

// ResultEvent is the result event of a final row.
func ResultEvent(r Row) Event {
	return Event{Kind: EventResult, Package: r.Package, Name: r.Name, Build: r.Build, Outcome: r.Outcome, Row: &r}
}

// ComparisonEvent is the comparison event of a comparison the run made.
func ComparisonEvent(c Comparison) Event {
	return Event{Kind: EventComparison, Comparison: &c}
}

// DoneEvent is the done event of a complete document: its rows counted by
// outcome, and whether the run failed.
func DoneEvent(d Document) Event {
	var counts map[Outcome]int
	for _, r := range d.Rows {
		if counts == nil {
			counts = map[Outcome]int{}
		}
		counts[r.Outcome]++
	}
	failed := d.Failed()
	return Event{Kind: EventDone, Counts: counts, Failed: &failed}
}
