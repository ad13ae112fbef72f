// Package statsconv converts between the run document's sample and
// statistic types (rundoc.Sample, rundoc.Stats) and internal/stats', which
// have the same fields: the document names only its own types, and
// internal/stats stays free of imports because the worker carries it.
package statsconv

import (
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/rundoc"
)

// Samples is ss as internal/stats samples; nil stays nil.
func Samples(ss []rundoc.Sample) []stats.Sample {
	if ss == nil {
		return nil
	}
	out := make([]stats.Sample, len(ss))
	for i, s := range ss {
		out[i] = stats.Sample(s)
	}
	return out
}

// DocSamples is ss as the document's samples; nil stays nil.
func DocSamples(ss []stats.Sample) []rundoc.Sample {
	if ss == nil {
		return nil
	}
	out := make([]rundoc.Sample, len(ss))
	for i, s := range ss {
		out[i] = rundoc.Sample(s)
	}
	return out
}

// DocStats is st as the document's statistics.
func DocStats(st stats.Stats) rundoc.Stats { return rundoc.Stats(st) }

// Stats is st as internal/stats statistics.
func Stats(st rundoc.Stats) stats.Stats { return stats.Stats(st) }
