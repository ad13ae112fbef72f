// Package stats holds benchsup's measurement models and their statistics:
// a sample's raw totals (Sample), one process's summary (Process, Stats,
// Summarize), the summary across processes (Combine, Across,
// MedianInterval), a window's decomposition and its summary across
// processes (Decompose, Breakdown, SummarizeWindow), and the combination of
// counted metrics (CountedAcross, BelowNoise).
//
// # Contract
//
// Every function is pure: it takes numbers and returns numbers, modifies
// none of its inputs, and is tested with fixed inputs. Nothing fabricates a
// value: a summary of nothing, or of a NaN or an infinity, reports false;
// rates are derived in methods that guard a zero iteration count and say
// "not available" (false) instead of returning 0; an unmeasured quantity
// is nil, never 0. The process is the unit (docs/design.md, "Rules every
// number obeys", rule 5): samples of different processes are never pooled
// into one stream, and every across-process summary is computed from one
// value per process.
//
// The JSON encodings of Stats and Sample are part of benchsup's report
// document (package report embeds them): their field names and shapes do
// not change without rundoc.SchemaVersion.
//
// # Why it is internal
//
// These are the supervisor's and the report's numbers, not something a
// benchmark author calls: exported from measure they would be part of the
// author API and its compatibility promise. The worker uses a few of them (Summarize, BelowNoise,
// Decompose), so the package is part of the worker's closure: the
// supervisor copies it with the worker into the measured module (see
// docs/design.md#injection), so it imports only the standard library and
// compiles at Go 1.22.
package stats
