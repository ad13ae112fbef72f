// Package analysis is benchsup's statistics over run documents: fixed
// inputs in, values out.
//
//   - Summarize: a row's summary from its processes' samples (the median
//     across processes, its order-statistic interval, the spread within
//     processes, short samples).
//   - Compare, ComparePaired, Geomeans: two runs (or two builds of one run)
//     compared identity by identity, by an independent hierarchical
//     bootstrap or paired order statistics, with exact comparisons, outlier
//     processes and a geomean per metric.
//   - Gate: the regression gate (--fail-on) over a comparison's verdicts.
//   - SummarizeWindows: workload windows summarized across processes.
//   - Durations, BenchKey: what each benchmark function cost, for sharding.
//   - FindSweeps, FitSweep, Sweeps, CompareSweeps: sub-benchmarks over a
//     size (n=1Ki, n=1Mi) found as families, the six scaling models fitted
//     to them, and compared between runs: empirical scaling over the
//     measured range, not proof of big-O.
//
// What it deliberately does not do: run processes, read or write files, or
// read clocks. It takes and returns package rundoc's types, so the
// supervisor, the compare and merge commands and any tool that holds run
// documents share one implementation. Every result is deterministic for
// its inputs (a comparison's resampling is seeded by CompareConfig).
package analysis
