package analysis

import (
	"github.com/benchsup/benchsup/rundoc"
)

// BenchKey names a benchmark function across runs: its package and its
// top-level name.
func BenchKey(pkg, fn string) string { return pkg + " " + fn }

// Durations returns the time each benchmark function of doc took: the
// wall time of all its processes, sub-benchmarks included, by BenchKey
// (the working tree's rows only). It is what Balance takes.
func Durations(doc *rundoc.Document) map[string]int64 {
	d := map[string]int64{}
	for _, r := range doc.Rows {
		if r.Kind == rundoc.KindPackage || r.Build != "" || r.Name == "" {
			continue
		}
		k := BenchKey(r.Package, FunctionOf(r.Name))
		for _, p := range r.Processes {
			d[k] += p.WallNs
		}
	}
	return d
}
