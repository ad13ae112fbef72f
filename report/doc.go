// Package report renders a run's rundoc.Document and a comparison's
// rundoc.Comparison: the terminal table (WriteTable, WriteComparisonTable),
// test mode's verdicts (WriteTests), the live progress line (Progress), the
// Go benchmark format that benchstat reads (WriteBenchfmt), CSV (WriteCSV,
// WriteComparisonCSV), the self-contained HTML report (WriteHTML) and the
// event stream (EventWriter). The document itself, its JSON reader and
// writer, live in package rundoc.
//
// Every renderer reads only the Document; none measures, recomputes
// statistics beyond formatting, or drops a row. Unavailable values render as
// an em dash in tables and null in JSON, never as 0, and the table names
// the reason for each one (a source's header line or a note below it).
// Counted metrics of diagnostic class render in a block of their own, never
// as headline columns; a multiplex-scaled estimate carries a ≈ prefix.
//
// Workload windows (Document.Windows: a single run's wall-clock time
// decomposed into on-CPU and off-CPU shares) appear in the table, the
// HTML report and the JSON document only. The Go benchmark format is for benchmarks: benchstat
// has no model for a single-run decomposition, so WriteBenchfmt leaves
// windows out. The system-wide PSI stall of a window is a diagnostic,
// shown apart from the decomposition and never attributed to it.
//
// Sweeps (Document.Sweeps, fitted by package analysis) appear in the
// table and the HTML report, with the words "empirical scaling over the
// measured range, not proof of big-O", and in the wide CSV as rows of
// their own; the benchmark format leaves them out, as their points are
// its lines already. The plot draws a model's curve from the fit's coefficient;
// nothing is fitted here.
//
// A document's strings are untrusted (a document handed in, the code under
// test's names and output): every text renderer (the tables, markdown,
// CSV, the benchmark format, HTML, the live displays) shows each rune a
// terminal would act on as its Go escape (\x1b, \u202e), as testing
// rewrites names (escape.go); markdown also escapes its markup, and CSV
// prefixes a text cell a spreadsheet would evaluate (=, +, -, @, tab, CR)
// with a single quote. Numbers are never altered.
//
// What it deliberately does not do: run anything, decide exit status, or
// change a number's meaning between formats.
package report
