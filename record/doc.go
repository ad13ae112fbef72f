// Package record measures work a program decides to do (requests into a
// server, messages through a consumer, jobs in a pool) rather than a loop
// a harness drives: the program marks where each piece of work begins
// and ends, and the recorder keeps exact counts and a bounded sample of
// the durations (docs/design.md#recording).
//
//	rec := record.New(record.Config{})    // reservoir of 10,000 spans per identity
//	req := rec.Register("request")        // identities first
//	rec.Start()
//	s := req.Begin()                      // a Span, a value
//	s.Finish(record.Success)              // or Failure, Timeout, Canceled
//	rec.Stop()                            // spans still running count as unfinished
//	results := rec.Results()
//
// or, for a net/http server, Handler(req, mux).
//
// # The contract
//
// Identities are registered before Start (Register panics after, with the
// reason; a name registered twice is the same identity), and each reserves
// its retention then, so the boundary path, Begin and Finish, allocates
// nothing and takes no lock held across the work: each is a few atomic
// operations and one read of the monotonic clock (offsets from Start, in
// int64 nanoseconds). Finish reads the end time before it touches any
// storage, so counting and retention are not inside the span. Spans may
// overlap and may finish on another goroutine than they began on.
// Finishing a Span variable twice counts once; a copy finished again
// counts again (the Span holds no shared state).
//
// Per identity the counts of success, failure, timeout, canceled and
// unfinished spans, observations (finished spans), retained and omitted
// are exact whatever is retained, and so are the minimum, maximum and mean
// duration (tracked at every Finish). Retention is bounded: a reservoir
// (the default; a uniform sample of all observations, seeded by
// Config.Seed so a run that finishes its spans in the same order keeps
// the same ones), the first N, or the latest N. The percentiles (median,
// p90, p95, p99, type 7) and the median's distribution-free
// order-statistic interval are of individual spans, every outcome
// included, unlike a benchmark row's median of per-process medians; when
// retention omitted spans they are of the retained sample, and the
// summary's percentilesOver says so.
//
// Results are read once Stop has returned; Snapshot reads a running
// recorder (completed and active spans, errors, and the rolling median and
// p95 of the latest 256 spans per identity) without making Begin or
// Finish wait. With Config.Output set, Stop writes the results there as
// JSON (the shape of a run document's recordings) or CSV, and returns the
// write's error rather than panicking.
//
// # What it costs
//
// Begin+Finish measured beside two time.Now calls in the same `go test
// -bench` run (BenchmarkBeginFinish, BenchmarkTimeNowTwice,
// BenchmarkTimeSinceTwice; medians, three runs on a shared 2-core amd64
// VM at load 3 to 5): on one goroutine 0.65 to 0.76 times two time.Now
// calls (time.Now reads the wall clock too; 1.15 to 1.4 times two
// monotonic reads, time.Since); with two goroutines recording one
// identity 0.8 to 1.7 times, the identity's counters moving between the
// cores' caches (the less certain figure on that loaded host). It
// allocates nothing.
//
// Under benchsup (`benchsup record -- PROGRAM`, or a test run by
// `benchsup run`) the recorder delivers as it records: New maps the
// shared region whose descriptor BENCHSUP_RECORD_FD names, Start
// publishes the identities there (a second recorder's "request" becomes
// "request#2"), the exact counters live in it, and Finish writes each
// finished span to its ring (a ticket, a compare-and-swap, five stores:
// no system call, no allocation). The supervisor drains the ring while
// the program runs and once after it exits, so a crash, a SIGKILL or the
// end of --for loses no finished span; spans the ring overwrote before a
// drain are counted, not kept. Measured beside the recorder alone in the
// same `go test -bench` run (BenchmarkBeginFinish's ring=on and ring=off,
// reservoir; medians of five runs on a 2-core VM at load 14 to 17, so
// the spread is wide): one goroutine 168 ns with the ring, 103 ns
// without, 296 ns for two time.Now calls (0.57 times them) and 171 ns for
// two time.Since; two goroutines 260 ns, 203 ns and 282 ns. Under
// benchsup run (ring=supervised: the real region, drained meanwhile;
// three processes at 80-90% foreign CPU) one goroutine took 145 ns and
// two time.Now calls 360 ns: no figure from that host separates the
// ring's cost from its noise.
// Outside benchsup nothing changes: Stop writes where Config says, and a
// crash before Stop loses the spans. Supervised says which applies.
//
// It draws no live terminal (Snapshot is what one polls) and measures no
// CPU or memory per span.
//
// It imports only the standard library, so importing it adds nothing to
// a program's build list.
package record
