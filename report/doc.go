// Package report renders a run's Document: the terminal table, the live
// progress line, the JSON document, and the Go benchmark format that
// benchstat reads; and it reads saved documents back.
//
// Every renderer reads only the Document; none measures, recomputes
// statistics beyond formatting, or drops a row. Unavailable values render as
// an em dash in tables and null in JSON, never as 0, and the table names
// the reason for each one (a source's header line or a note below it).
// Counted metrics of diagnostic class render in a block of their own, never
// as headline columns; a multiplex-scaled estimate carries a ≈ prefix.
//
// Workload windows (Document.Windows: a single run's wall-clock time
// decomposed into on-CPU and off-CPU shares) appear in the table and the
// JSON document only. The Go benchmark format is for benchmarks: benchstat
// has no model for a single-run decomposition, so WriteBenchfmt leaves
// windows out. The system-wide PSI stall of a window is a diagnostic,
// shown apart from the decomposition and never attributed to it.
//
// The JSON documents it writes (a run's, a comparison's) end with a
// checksum of their content, and stream out, never held whole twice.
// Reading one back (ReadDocument, ReadComparison) treats it as untrusted
// input: it verifies the checksum, the schema and the domain of every
// value, and refuses what fails with one line naming it; a document
// without a checksum (an older one) is read, and the reader says so
// rather than printing.
//
// What it deliberately does not do: run anything, decide exit status, or
// change a number's meaning between formats.
package report
