package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"

	"github.com/benchsup/benchsup/rundoc"
)

// Configuration keys benchsup adds to the Go benchmark format. A reader
// groups by them: benchstat -col benchsup-process compares processes.
const (
	// ConfigProcess is the repetition index of the fresh process that
	// produced the following results.
	ConfigProcess = "benchsup-process"
	// ConfigRepetitions is the number of processes asked for per
	// benchmark.
	ConfigRepetitions = "benchsup-repetitions"
	// ConfigEstimated lists, comma-separated, the counted metrics (by
	// name, as in the JSON document) whose values in the following
	// results are multiplex-scaled estimates; absent when all are exact.
	ConfigEstimated = "benchsup-estimated"
	// ConfigDiagnostic lists, comma-separated, the counted metrics of
	// the run that are diagnostic class: they explain a result and are
	// not for comparison or gating. Absent when there are none.
	ConfigDiagnostic = "benchsup-diagnostic"
)

// WriteBenchfmt writes a benchmark run (Meta.Mode == "bench") in the Go
// benchmark format, so that benchstat and the rest of golang.org/x/perf read
// it.
//
// The configuration lines are goos, goarch, pkg, cpu (when known),
// benchsup-repetitions and benchsup-process; the last changes with every
// process, so a reader can keep processes apart (docs/design.md#rules-every-number-obeys, rule 5). Each
// sample of each successful process is one result line, named as go test
// names it (BenchmarkX/sub-P, without -P when GOMAXPROCS is 1), with the
// sample's iteration count and its unrounded ns/op, MB/s, B/op and
// allocs/op (when measured) and every b.ReportMetric unit. A reported unit
// that go test also computes (ns/op, MB/s, B/op, allocs/op) replaces the
// computed value, as in go test's own output.
//
// Each counted metric (Document.Columns) that a process has a value for is
// one more value on the first result line of that process (it is one
// measurement per process, not one per sample): the process's
// per-iteration value with unit <name>/op, or a level with unit <name>
// (the metric's name followed by its column's unit). benchstat treats each
// unit on its own. A metric the process has no value for is not written.
// When some value of a process is an estimate, its results carry
// benchsup-estimated naming them; when the run counted any diagnostic
// metric, every result carries benchsup-diagnostic naming those.
//
// Because benchsup-process is file configuration, benchstat's default
// -table .config shows each process in its own table and "benchstat -col
// benchsup-process" compares processes side by side. "benchstat -ignore
// benchsup-process" pools the processes' samples as if they were
// independent, which they are not: between-process variance then reads as
// significance (an A/A run of identical code shows "significant"
// differences). benchsup's own table and JSON keep the process as the unit.
// Values are written as benchfmt.Writer formats them, with %v: the shortest
// exact form, in exponent notation for large values (1.52e+06 ns/op), which
// every benchfmt reader parses.
//
// Error and skip rows, and the failed processes of any row, are not
// written: the format has no place for them. The table and the JSON
// document carry them. Neither are workload windows (Document.Windows):
// a window is one run decomposed, not a stream of samples, and benchstat
// has no model for it; a run of workloads only writes an empty, valid
// stream.
func WriteBenchfmt(w io.Writer, doc rundoc.Document) error {
	doc = escapedData(doc)
	if doc.Meta.Mode != rundoc.ModeBench {
		return fmt.Errorf("report: WriteBenchfmt renders a %q document, not mode %q", rundoc.ModeBench, doc.Meta.Mode)
	}
	if err := rundoc.CheckFinite(doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, kv := range [][2]string{{"goos", doc.Meta.OS}, {"goarch", doc.Meta.Arch}, {"cpu", doc.Meta.CPU}} {
		if strings.ContainsAny(kv[1], "\r\n") {
			return fmt.Errorf("report: meta %s %q spans lines, which the benchmark format cannot carry", kv[0], kv[1])
		}
	}
	suffix := procSuffix(doc.Meta)

	var diagnostic []string
	for _, c := range doc.Columns {
		if c.Class != rundoc.ClassQuantitative {
			diagnostic = append(diagnostic, c.Name)
		}
	}

	bw := bufio.NewWriter(w)
	out := benchfmt.NewWriter(bw)
	for i, row := range doc.Rows {
		if row.Kind != rundoc.KindBenchmark || row.Outcome != rundoc.OutcomeOK {
			continue
		}
		if row.Name == "" || strings.ContainsFunc(row.Name+row.Package, unicode.IsSpace) {
			return fmt.Errorf("report: rows[%d]: benchmark %q of package %q is not a name the benchmark format can carry", i, row.Name, row.Package)
		}
		name := benchfmt.Name(strings.TrimPrefix(row.Name, "Benchmark") + suffix)
		for _, p := range row.Processes {
			if p.Outcome != rundoc.OutcomeOK {
				continue
			}
			counted, est, err := countedValues(doc.Columns, p)
			if err != nil {
				return fmt.Errorf("report: rows[%d] (%s) process %d: %w", i, row.Name, p.Index, err)
			}
			cfg := fileConfig(doc.Meta, row.Package, p.Index)
			cfg = appendConfig(cfg, ConfigEstimated, strings.Join(est, ","))
			cfg = appendConfig(cfg, ConfigDiagnostic, strings.Join(diagnostic, ","))
			// A fresh Result per process: benchfmt.Result indexes its
			// Config lazily, so a reused one must not have it replaced.
			res := &benchfmt.Result{Config: cfg, Name: name}
			for j, s := range p.Samples {
				if err := sampleValues(res, s); err != nil {
					return fmt.Errorf("report: rows[%d] (%s) process %d sample %d: %w", i, row.Name, p.Index, j, err)
				}
				if j > 0 {
					// One value per process: repeating it on every sample
					// line would count it as that many observations.
					counted = nil
				}
				for _, v := range counted {
					if slices.ContainsFunc(res.Values, func(have benchfmt.Value) bool { return have.Unit == v.Unit }) {
						return fmt.Errorf("report: rows[%d] (%s) process %d sample %d: counted metric unit %q is also a reported unit", i, row.Name, p.Index, j, v.Unit)
					}
					res.Values = append(res.Values, v)
				}
				if err := out.Write(res); err != nil {
					return fmt.Errorf("report: writing benchmark format: %w", err)
				}
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing benchmark format: %w", err)
	}
	return nil
}

// fileConfig returns the file configuration of the results of one process.
// The benchfmt.Writer prints only the keys that changed since the previous
// result, so a run prints its host once and then one benchsup-process line
// per process.
func fileConfig(m rundoc.Meta, pkg string, process int) []benchfmt.Config {
	var cfg []benchfmt.Config
	cfg = appendConfig(cfg, "goos", m.OS)
	cfg = appendConfig(cfg, "goarch", m.Arch)
	cfg = appendConfig(cfg, "pkg", pkg)
	cfg = appendConfig(cfg, "cpu", m.CPU)
	cfg = appendConfig(cfg, ConfigRepetitions, strconv.Itoa(m.Knobs.Repetitions))
	cfg = appendConfig(cfg, ConfigProcess, strconv.Itoa(process))
	return cfg
}

// appendConfig appends a file configuration key unless its value is empty:
// go test omits a key it does not know (an unknown cpu), and an empty value
// would read as deleting the key.
func appendConfig(cfg []benchfmt.Config, key, value string) []benchfmt.Config {
	if value == "" {
		return cfg
	}
	return append(cfg, benchfmt.Config{Key: key, Value: []byte(value), File: true})
}

// countedValues returns the values a process's counting pass adds to each
// of its result lines, in column order, and the names of those that are
// estimates. A counted metric that is not among the columns has no known
// unit, and is an error rather than a silently dropped value.
func countedValues(cols []rundoc.Column, p rundoc.ProcessResult) ([]benchfmt.Value, []string, error) {
	var vals []benchfmt.Value
	var est []string
	known := make(map[string]bool, len(cols))
	for _, c := range cols {
		known[c.Name] = true
		v, ok := p.Counted[c.Name]
		if !ok {
			continue
		}
		unit := c.Name + c.Unit
		if c.Name == "" || strings.ContainsFunc(unit, unicode.IsSpace) || strings.Contains(c.Name, ",") {
			return nil, nil, fmt.Errorf("counted metric %q is not a unit the benchmark format can carry", unit)
		}
		vals = append(vals, benchfmt.Value{Value: v, Unit: unit})
		if slices.Contains(p.Estimated, c.Name) {
			est = append(est, c.Name)
		}
	}
	for _, m := range slices.Sorted(maps.Keys(p.Counted)) {
		if !known[m] {
			return nil, nil, fmt.Errorf("counted metric %q is not among the document's columns", m)
		}
	}
	return vals, est, nil
}

// builtinUnits are the units go test computes itself, in the order it prints
// them.
var builtinUnits = []string{"ns/op", "MB/s", "B/op", "allocs/op"}

// sampleValues sets res's iteration count and values from one sample.
func sampleValues(res *benchfmt.Result, s rundoc.Sample) error {
	ns, ok := s.NsPerOp()
	if !ok {
		return fmt.Errorf("iteration count %d yields no ns/op", s.Iterations)
	}
	if int64(int(s.Iterations)) != s.Iterations {
		return fmt.Errorf("iteration count %d overflows int", s.Iterations)
	}
	res.Iters = int(s.Iterations)
	computed := map[string]float64{"ns/op": ns}
	if b, ok := s.BytesPerOp(); ok {
		computed["B/op"] = b
	}
	if a, ok := s.AllocsPerOp(); ok {
		computed["allocs/op"] = a
	}
	res.Values = res.Values[:0]
	for _, u := range builtinUnits {
		v, ok := s.Extra[u]
		if !ok {
			v, ok = computed[u]
		}
		if ok {
			res.Values = append(res.Values, benchfmt.Value{Value: v, Unit: u})
		}
	}
	extra := make([]string, 0, len(s.Extra))
	for u := range s.Extra {
		if !slices.Contains(builtinUnits, u) {
			extra = append(extra, u)
		}
	}
	slices.Sort(extra)
	for _, u := range extra {
		if u == "" || strings.ContainsFunc(u, unicode.IsSpace) {
			return fmt.Errorf("unit %q is not a unit the benchmark format can carry", u)
		}
		res.Values = append(res.Values, benchfmt.Value{Value: s.Extra[u], Unit: u})
	}
	return nil
}
