// Package measure holds benchsup's measurement models and their statistics:
// samples stored as raw totals, per-process summaries (median, median
// absolute deviation, min, max of ns/op) and the across-process summary that
// treats each fresh process as one unit of variance.
//
// Every function here is pure: it takes numbers and returns numbers, so it is
// tested with fixed inputs. Rates are derived in methods that guard a zero or
// negative iteration count and say "not available" instead of returning 0.
//
// What it deliberately does not do: it runs nothing, reads no clock and no
// counter, and never pools samples of different processes into one stream
// (rule 5 of DESIGN.md): the across-process summary is computed from
// per-process medians only.
package measure
