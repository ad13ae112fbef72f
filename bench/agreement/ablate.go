package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/worker"
)

// The ablation study (-ablate) takes the benchmarks benchsup measured
// above go test (small allocating calls of held-out modules, and this
// corpus's outliers) and undoes one difference between a benchsup child
// and go test at a time, each variant in fresh processes, in rounds whose
// order rotates, so that each variant's ratio to go test's binary is
// paired with a go test run of the same minutes:
//
//	go test          go test's binary, -benchtime=1s, one fresh process each
//	go test 200ms    the same at benchsup's sample time: the sample length alone
//	benchsup         benchsup's defaults (--metrics=none)
//	binary           benchsup's test binary run by go test's method: the
//	                 worker's code linked but not run (code layout)
//	ramp             benchsup with the timed run ramped as go test ramps
//	nocapture        benchsup with no stdout pipe or reader goroutine during
//	                 a top-level leaf's timed run
//	no reads         benchsup with --interference=off (no reads between samples)
//	environment      benchsup with --env-inherit instead of the strict environment
//	same N           benchsup with --benchtime=Nx, N go test's final N that round
//	before, binary before
//	                 with -before=BIN, another build of benchsup (an earlier
//	                 commit) and its test binary by go test's method: a fix
//	                 measured against what it fixed, in the same rounds
//
// A variant's figure in a round is the median of its processes; the table
// gives the median over rounds of its ratio to go test's, and the range of
// those ratios.
var ablationCorpus = []target{
	{short: "decimal", module: "github.com/shopspring/decimal@v1.6.0", pkg: ".",
		bench: `^Benchmark(NewFromFloat|Decimal_NewFromString)$`, covers: "small allocating calls, top level (issue: 1.076, 1.054)"},
	{short: "toml", module: "github.com/BurntSushi/toml@v1.6.0", pkg: ".",
		bench: `^Benchmark(Encode|Decode)$/^(spec-1\.1\.0|integer)$`, covers: "allocating sub-benchmarks (issue: 1.232, 1.049, 1.034)"},
	{short: "xxhash", module: "github.com/cespare/xxhash/v2@v2.3.0", pkg: ".",
		bench: `^BenchmarkSum64$/^4B$`, covers: "3 ns, zero allocations: layout"},
	{short: "segmentio", module: "github.com/segmentio/encoding@v0.5.4", pkg: "json",
		bench: `^Benchmark(UnmarshalInt64|UnmarshalArrayMixed)$`, covers: "small allocating decodes"},
	{short: "bidi", module: "golang.org/x/text@v0.44.0", pkg: "unicode/bidi",
		bench: `^BenchmarkOrder$/^EuropeanNumber$/^1000$`, covers: "corpus outlier (1.25)"},
	{short: "fastjson", module: "github.com/valyala/fastjson@v1.6.10", pkg: ".",
		bench: `^BenchmarkParse$/^canada$/^(stdjson-map|fastjson)$`, covers: "corpus outliers (1.36, 1.08)"},
	{short: "uuid", module: "github.com/google/uuid@v1.6.0", pkg: ".",
		bench: `^Benchmark(Parse|New)$`, covers: "tens of ns, top level; agreed on 2026-12-01, above go test after issue 20"},
}

// allVariants in the order of the table; go test is the reference.
var allVariants = []string{"go test", "go test 200ms", "benchsup", "binary", "ramp", "nocapture", "no reads", "environment", "same N"}

// ablationResult is one benchmark's figures: per variant, per round, the
// median of that round's processes.
type ablationResult struct {
	Target string                 `json:"target"`
	Name   string                 `json:"name"`
	Rounds map[string][]float64   `json:"roundsNs"`
	Procs  map[string][][]float64 `json:"processesNs"`
	GoN    []int                  `json:"goTestFinalN"`
	Layout *layout                `json:"layout,omitempty"`
	// LayoutErr says why Layout is missing.
	LayoutErr string `json:"layoutError,omitempty"`
}

func ablate(dir, only, before, which string, rounds, procs int, out io.Writer) error {
	variants := slices.Clone(allVariants)
	if before != "" {
		variants = append(variants, "before", "binary before")
	}
	if which != "" {
		keep := strings.Split(which, ",")
		for _, v := range keep {
			if !slices.Contains(variants, v) {
				return fmt.Errorf("no variant %q (have %s)", v, strings.Join(variants, ", "))
			}
		}
		variants = slices.DeleteFunc(variants, func(v string) bool { return v != "go test" && !slices.Contains(keep, v) })
	}
	bin, err := buildBenchsup(dir)
	if err != nil {
		return err
	}
	var all []*ablationResult
	for _, t := range ablationCorpus {
		if only != "" && !slices.Contains(strings.Split(only, ","), t.short) {
			continue
		}
		fmt.Fprintf(os.Stderr, "ablation: %s (%s %s)\n", t.short, t.module, t.pkg)
		rs, err := ablateTarget(dir, bin, before, variants, t, rounds, procs)
		if err != nil {
			return fmt.Errorf("%s: %w", t.short, err)
		}
		all = append(all, rs...)
	}
	data, err := json.MarshalIndent(map[string]any{"host": host(), "rounds": rounds, "processes": procs, "results": all}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "ablation.json"), data, 0o644); err != nil {
		return err
	}
	writeAblation(out, variants, all)
	return nil
}

func ablateTarget(dir, bin, before string, variants []string, t target, rounds, procs int) ([]*ablationResult, error) {
	modDir, err := prepare(dir, t)
	if err != nil {
		return nil, err
	}
	pkgDir := filepath.Join(modDir, t.pkg)
	testBin := filepath.Join(dir, t.short+".test")
	if err := command(pkgDir, "go", "test", "-c", "-o", testBin, "."); err != nil {
		return nil, fmt.Errorf("building the test binary: %w", err)
	}
	// One benchsup run first: it builds (and names) benchsup's binary.
	doc, err := benchsupRun(dir, bin, pkgDir, t.short+"-first", "--bench="+t.bench, "--repetitions=1")
	if err != nil {
		return nil, err
	}
	if len(doc.Meta.Provenance.Builds) == 0 || doc.Meta.Provenance.Builds[0].Binary == "" {
		return nil, fmt.Errorf("benchsup's document names no test binary")
	}
	ownBin := doc.Meta.Provenance.Builds[0].Binary
	var beforeBin string
	if before != "" {
		d, err := benchsupRun(dir, before, pkgDir, t.short+"-before-first", "--bench="+t.bench, "--repetitions=1")
		if err != nil {
			return nil, err
		}
		if len(d.Meta.Provenance.Builds) == 0 || d.Meta.Provenance.Builds[0].Binary == "" {
			return nil, fmt.Errorf("the earlier benchsup's document names no test binary")
		}
		beforeBin = d.Meta.Provenance.Builds[0].Binary
	}
	results := map[string]*ablationResult{}
	res := func(name string) *ablationResult {
		if results[name] == nil {
			results[name] = &ablationResult{Target: t.short, Name: name, Rounds: map[string][]float64{}, Procs: map[string][][]float64{}}
		}
		return results[name]
	}
	for _, row := range doc.Rows {
		res(row.Name)
	}
	record := func(variant string, byName map[string][]float64) {
		for name, vs := range byName {
			r := res(name)
			r.Rounds[variant] = append(r.Rounds[variant], median(vs))
			r.Procs[variant] = append(r.Procs[variant], vs)
		}
	}
	fresh := func(binary, benchtime string) (map[string][]float64, map[string][]int, error) {
		ns, iters := map[string][]float64{}, map[string][]int{}
		for range procs {
			o, err := output(pkgDir, binary, "-test.run=^$", "-test.bench="+t.bench, "-test.benchmem", "-test.benchtime="+benchtime, "-test.count=1")
			if err != nil {
				return nil, nil, err
			}
			v, n, err := parseGoTestN(o)
			if err != nil {
				return nil, nil, err
			}
			for name := range v {
				ns[name] = append(ns[name], v[name]...)
				iters[name] = append(iters[name], n[name]...)
			}
		}
		return ns, iters, nil
	}
	cli := func(label string, extra ...string) (map[string][]float64, error) {
		args := append([]string{"--bench=" + t.bench, "--repetitions=" + strconv.Itoa(procs)}, extra...)
		b := bin
		if label == "before" {
			b = before
		}
		d, err := benchsupRun(dir, b, pkgDir, t.short+"-"+strings.ReplaceAll(label, " ", "-"), args...)
		if err != nil {
			return nil, err
		}
		return processMedians(d), nil
	}
	for round := range rounds {
		var goN map[string][]int
		// go test first in every round: same N needs its N; the other
		// variants rotate.
		ns, iters, err := fresh(testBin, "1s")
		if err != nil {
			return nil, err
		}
		record("go test", ns)
		goN = iters
		rest := slices.Clone(variants[1:])
		k := round % len(rest)
		rest = append(rest[k:], rest[:k]...)
		for _, v := range rest {
			var got map[string][]float64
			switch v {
			case "go test 200ms":
				got, _, err = fresh(testBin, "200ms")
			case "binary":
				got, _, err = fresh(ownBin, "1s")
			case "benchsup", "before":
				got, err = cli(v)
			case "binary before":
				got, _, err = fresh(beforeBin, "1s")
			case "ramp", "nocapture":
				got, err = cli(v, "--env-set", worker.StudyEnv+"="+v)
			case "no reads":
				got, err = cli(v, "--interference=off")
			case "environment":
				got, err = cli(v, "--env-inherit")
			case "same N":
				got = map[string][]float64{}
				for name, ns := range goN {
					n := int(median(intsToFloats(ns)))
					d, err := benchsupRun(dir, bin, pkgDir, t.short+"-sameN", "--bench="+exactBench(name), "--repetitions="+strconv.Itoa(procs), "--benchtime="+strconv.Itoa(n)+"x")
					if err != nil {
						return nil, err
					}
					for k, vs := range processMedians(d) {
						got[k] = vs
					}
					res(name).GoN = append(res(name).GoN, n)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", v, err)
			}
			record(v, got)
		}
		fmt.Fprintf(os.Stderr, "ablation: %s round %d of %d done\n", t.short, round+1, rounds)
	}
	for name, r := range results {
		modPath, err := output(pkgDir, "go", "list", "-f", "{{.ImportPath}}", ".")
		if err != nil {
			return nil, err
		}
		fn := strings.TrimSpace(string(modPath)) + "." + strings.SplitN(name, "/", 2)[0]
		l, err := layoutOf(testBin, ownBin, fn)
		if err != nil { // declared in the external test package?
			fn = strings.TrimSpace(string(modPath)) + "_test." + strings.SplitN(name, "/", 2)[0]
			l, err = layoutOf(testBin, ownBin, fn)
		}
		if err != nil {
			r.LayoutErr = err.Error()
		} else {
			r.Layout = &l
		}
	}
	var out []*ablationResult
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range results {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, results[name])
	}
	return out, nil
}

// benchsupRun runs benchsup's run command (metrics off: counting passes
// come after the samples and cost time) with args and reads its document.
func benchsupRun(dir, bin, pkgDir, label string, args ...string) (*rundoc.Document, error) {
	path := filepath.Join(dir, label+".json")
	all := append([]string{"run", "--metrics=none", "--json=" + path}, args...)
	if err := command(pkgDir, bin, append(all, ".")...); err != nil {
		return nil, fmt.Errorf("benchsup %s: %w", strings.Join(all, " "), err)
	}
	return readDoc(path)
}

// processMedians returns, per row, the median sample of each process.
func processMedians(doc *rundoc.Document) map[string][]float64 {
	out := map[string][]float64{}
	for _, row := range doc.Rows {
		if row.Summary == nil {
			continue
		}
		for _, p := range row.Processes {
			if p.Outcome != rundoc.OutcomeOK {
				continue
			}
			var ns []float64
			for _, s := range p.Samples {
				if v, ok := s.NsPerOp(); ok {
					ns = append(ns, v)
				}
			}
			if len(ns) > 0 {
				out[row.Name] = append(out[row.Name], median(ns))
			}
		}
	}
	return out
}

// exactBench is the -bench pattern that selects exactly the leaf name.
func exactBench(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func intsToFloats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// parseGoTestN returns ns/op by benchmark name (without the -P suffix)
// and each result's iteration count.
func parseGoTestN(out []byte) (map[string][]float64, map[string][]int, error) {
	values, iters := map[string][]float64{}, map[string][]int{}
	r := benchfmt.NewReader(bytes.NewReader(out), "go test")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		full := "Benchmark" + string(res.Name)
		if p := runtime.GOMAXPROCS(0); p > 1 {
			full = strings.TrimSuffix(full, "-"+strconv.Itoa(p))
		}
		if v, ok := res.Value("sec/op"); ok {
			values[full] = append(values[full], v*1e9)
			iters[full] = append(iters[full], res.Iters)
		}
	}
	return values, iters, r.Err()
}

// writeAblation prints each variant's ratio to go test: the median over
// rounds of the round's ratio, and their range.
func writeAblation(w io.Writer, variants []string, results []*ablationResult) {
	fmt.Fprintf(w, "host: %s\n\n", host())
	header, sep := "| benchmark | go test |", "|---|---:|"
	for _, v := range variants[1:] {
		header += " " + v + " |"
		sep += "---:|"
	}
	fmt.Fprintln(w, header+" shift of mallocgc (mod 64, 4096) | of the benchmark function |")
	fmt.Fprintln(w, sep+"---|---|")
	for _, r := range results {
		ref := r.Rounds["go test"]
		line := fmt.Sprintf("| %s %s | %s |", r.Target, r.Name, ns(median(ref)))
		for _, v := range variants[1:] {
			var ratios []float64
			for i, x := range r.Rounds[v] {
				if i < len(ref) && ref[i] > 0 {
					ratios = append(ratios, x/ref[i])
				}
			}
			if len(ratios) == 0 {
				line += " — |"
				continue
			}
			line += fmt.Sprintf(" %.3f (%.3f–%.3f) |", median(ratios), slices.Min(ratios), slices.Max(ratios))
		}
		if r.Layout != nil {
			line += " " + shiftCell(r.Layout.Malloc) + " | " + shiftCell(r.Layout.Bench) + " |"
		} else {
			line += " — | — |"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "\nEach cell: the median over rounds of the variant's median process divided by go test's in the same round, and the range of those ratios.")
}

// layout is where benchsup's binary puts code relative to go test's: the
// shift of the allocator's entry and of a benchmark's function, in bytes,
// and modulo the cache line (64) and the page (4096).
type layout struct {
	Malloc int64 `json:"mallocgcShift"`
	Bench  int64 `json:"benchmarkShift"`
}

// layoutOf reads the symbol tables of go test's binary and benchsup's and
// returns the shifts of runtime.mallocgc and of the function fn.
func layoutOf(goBin, ownBin, fn string) (layout, error) {
	addr := func(path string) (map[string]uint64, error) {
		f, err := elf.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		syms, err := f.Symbols()
		if err != nil {
			return nil, err
		}
		out := map[string]uint64{}
		for _, s := range syms {
			if s.Name == "runtime.mallocgc" || s.Name == fn {
				out[s.Name] = s.Value
			}
		}
		return out, nil
	}
	a, err := addr(goBin)
	if err != nil {
		return layout{}, err
	}
	b, err := addr(ownBin)
	if err != nil {
		return layout{}, err
	}
	if a[fn] == 0 || b[fn] == 0 || a["runtime.mallocgc"] == 0 {
		return layout{}, fmt.Errorf("no symbol %s or runtime.mallocgc in both binaries", fn)
	}
	return layout{Malloc: int64(b["runtime.mallocgc"] - a["runtime.mallocgc"]), Bench: int64(b[fn] - a[fn])}, nil
}

// shiftCell formats a shift as the table shows it: bytes, and what is
// left of it modulo 64 and 4096 (0 and 0: the same alignment).
func shiftCell(s int64) string {
	return fmt.Sprintf("%+d (%d, %d)", s, ((s%64)+64)%64, ((s%4096)+4096)%4096)
}
