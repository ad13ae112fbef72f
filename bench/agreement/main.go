// Command agreement measures how far benchsup's medians are from `go test
// -bench`'s on the same host, on a pinned corpus of public modules'
// benchmarks, and prints the table docs/measurement.md quotes.
//
//	go run ./bench/agreement                 # the corpus, benchsup's defaults
//	go run ./bench/agreement -sweep=5ms,50ms,200ms -only=segmentio,fastjson
//	go run ./bench/agreement -heldout          # modules nothing was tuned on
//	go run ./bench/agreement -ablate           # the ablation study (ablate.go)
//
// For each module (downloaded from the Go module proxy at a pinned version
// and copied to a writable directory) it builds the package's test binary
// once, then runs, interleaved so that drift of the host hits both tools:
// the binary with -test.count=5 (go test's default 1 s benchtime), benchsup
// with its defaults, the binary again with -test.count=5, and `go test
// -bench` once more (count 1, through the go command, timed for the
// wall-time comparison). go test's median is over its 10 runs; its own
// disagreement is the difference between the medians of its two blocks of 5.
// A benchmark agrees when benchsup's median is within 3% of go test's or
// within go test's own disagreement, whichever is larger.
//
// go test's -count runs share one process, so they never show how much a
// fresh process moves a result (heap and code placement, the state of the
// host when it started). The binary is therefore also run in 5 fresh
// processes of one 1 s run each; a benchmark whose benchsup median lies
// within the range of those is "within go test's process range".
//
// benchsup's test binary is go test's build plus the injected worker, so
// its code sits at other addresses; for loops of a few nanoseconds code
// alignment alone moves results by tens of percent. To tell that from a
// difference of method, the binary benchsup measured is also run the way
// go test runs its own (-test.count=5, 1 s), after benchsup: the
// "benchsup's binary, go test's method" column. A row whose benchsup
// median agrees with that column but not with go test's is a layout
// difference ("layout"), not a measuring one.
//
// With -sweep, benchsup runs once per listed sample time (same budget of
// five processes) between the two go test blocks instead, which shows how
// the sample time biases allocating code.
//
// It writes nothing into the repository; its work directory (-dir) holds
// the copies, binaries, outputs and a results.json.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/benchsup/benchsup/rundoc"
)

// target is one package of one module and the benchmarks selected in it.
type target struct {
	short  string // a name for -only and the table
	module string // path@version, as the module proxy serves it
	pkg    string // package directory relative to the module root
	bench  string // -bench pattern, selecting leaves exactly
	covers string // what the entry is in the corpus for
}

// corpus is pinned: the same versions give the same code to every reader.
var corpus = []target{
	{short: "xxhash", module: "github.com/cespare/xxhash/v2@v2.3.0", pkg: ".",
		bench: `^BenchmarkSum64$/^(4B|100B|4KB|10MB)$`, covers: "zero allocations, sub-benchmarks"},
	{short: "segmentio", module: "github.com/segmentio/encoding@v0.5.4", pkg: "json",
		bench:  `^Benchmark(UnmarshalInt64|UnmarshalArrayMixed|CodeUnmarshal|CodeMarshal)$`,
		covers: "JSON decoding and encoding, allocation-heavy; Code* decompress a 1.9 MB corpus before ResetTimer"},
	{short: "fastjson", module: "github.com/valyala/fastjson@v1.6.10", pkg: ".",
		bench: `^BenchmarkParse$/^(canada|twitter)$/^(stdjson-map|fastjson)$`, covers: "JSON parsing, encoding/json next to an arena parser, MB/s"},
	{short: "bidi", module: "golang.org/x/text@v0.44.0", pkg: "unicode/bidi",
		bench: `^BenchmarkOrder$/^EuropeanNumber$/^(1000|100000)$`, covers: "b.Loop in sub-benchmarks"},
	{short: "currency", module: "golang.org/x/text@v0.44.0", pkg: "currency",
		bench: `^BenchmarkString$`, covers: "b.Loop, top level"},
	{short: "uuid", module: "github.com/google/uuid@v1.6.0", pkg: ".",
		bench: `^Benchmark(Parse|New|UUID_String)$`, covers: "small allocating calls; New reads crypto/rand"},
	{short: "html", module: "golang.org/x/net@v0.62.0", pkg: "html",
		bench: `^Benchmark(Parser|HighLevelTokenizer)$`, covers: "HTML parsing, allocation-heavy, reads testdata before ResetTimer"},
}

// heldOut (-heldout) are modules neither the corpus nor the ablation study
// (ablate.go) ever used: whatever was tuned on those is checked on these.
var heldOut = []target{
	{short: "semver", module: "github.com/Masterminds/semver/v3@v3.5.0", pkg: ".",
		bench: `^BenchmarkNewConstraint(Range|Union)$|^BenchmarkCheckVersionRange$`, covers: "small allocating parses"},
	{short: "mux", module: "github.com/gorilla/mux@v1.8.1", pkg: ".",
		bench: `^Benchmark(Mux|ManyPathVariables)$`, covers: "HTTP routing, allocating"},
	{short: "ulid", module: "github.com/oklog/ulid/v2@v2.1.2", pkg: ".",
		bench: `^Benchmark(Parse|String|Marshal)$`, covers: "tens of ns, zero or one allocation"},
}

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), "benchsup-agreement"), "work directory")
	only := flag.String("only", "", "comma-separated corpus entries to run (default: all)")
	sweep := flag.String("sweep", "", "comma-separated benchsup sample times to compare instead of the defaults")
	held := flag.Bool("heldout", false, "measure the held-out modules (heldOut) instead of the corpus")
	ablation := flag.Bool("ablate", false, "run the ablation study (ablate.go) instead of the agreement corpus")
	rounds := flag.Int("rounds", 4, "with -ablate: rounds of every variant")
	procs := flag.Int("processes", 3, "with -ablate: fresh processes per variant and round")
	which := flag.String("variants", "", "with -ablate: comma-separated variants to run besides go test (default: all)")
	before := flag.String("before", "", "with -ablate: a benchsup binary of an earlier commit, measured alongside (its defaults and its test binary)")
	flag.Parse()
	var err error
	if *ablation {
		err = ablate(*dir, *only, *before, *which, *rounds, *procs, os.Stdout)
	} else {
		targets := corpus
		if *held {
			targets = heldOut
		}
		err = run(targets, *dir, *only, *sweep, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agreement:", err)
		os.Exit(1)
	}
}

// result is one benchmark's figures.
type result struct {
	Target     string             `json:"target"`
	Name       string             `json:"name"`
	GoTest     []float64          `json:"goTestNsPerOp"`    // 10 runs, in order
	GoTestMed  float64            `json:"goTestMedianNs"`   // median of the 10
	GoTestSelf float64            `json:"goTestSelf"`       // |median(first 5) - median(last 5)| / median
	Benchsup   map[string]float64 `json:"benchsupMedianNs"` // by setting ("default" or a sample time)
	// SameBinary is the median of 5 runs of benchsup's own test binary
	// (first setting) under go test's method; 0 when not measured.
	SameBinary float64 `json:"sameBinaryGoTestNs"`
	// Fresh are go test's results in 5 fresh processes, one 1 s run each.
	Fresh []float64 `json:"goTestFreshProcessesNs"`
}

// timing is one target's wall times.
type timing struct {
	Target   string             `json:"target"`
	GoTest   float64            `json:"goTestSeconds"`   // go test -bench, count 1, through the go command
	Benchsup map[string]float64 `json:"benchsupSeconds"` // by setting
}

func run(targets []target, dir, only, sweep string, out io.Writer) error {
	bin, err := buildBenchsup(dir)
	if err != nil {
		return err
	}
	settings := []string{"default"}
	if sweep != "" {
		settings = strings.Split(sweep, ",")
	}
	var results []result
	var timings []timing
	for _, t := range targets {
		if only != "" && !slices.Contains(strings.Split(only, ","), t.short) {
			continue
		}
		fmt.Fprintf(os.Stderr, "agreement: %s (%s %s)\n", t.short, t.module, t.pkg)
		rs, tm, err := measureTarget(dir, bin, t, settings)
		if err != nil {
			return fmt.Errorf("%s: %w", t.short, err)
		}
		results = append(results, rs...)
		timings = append(timings, tm)
	}
	data, err := json.MarshalIndent(map[string]any{"host": host(), "settings": settings, "results": results, "timings": timings}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), data, 0o644); err != nil {
		return err
	}
	writeTable(out, settings, results, timings)
	return nil
}

// buildBenchsup builds this checkout's benchsup into the work directory dir.
func buildBenchsup(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	repo, err := repoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "benchsup")
	if err := command(repo, "go", "build", "-o", bin, "./cmd/benchsup"); err != nil {
		return "", fmt.Errorf("building benchsup: %w", err)
	}
	return bin, nil
}

// measureTarget prepares t and runs the interleaved sequence.
func measureTarget(dir, bin string, t target, settings []string) ([]result, timing, error) {
	modDir, err := prepare(dir, t)
	if err != nil {
		return nil, timing{}, err
	}
	pkgDir := filepath.Join(modDir, t.pkg)
	testBin := filepath.Join(dir, t.short+".test")
	if err := command(pkgDir, "go", "test", "-c", "-o", testBin, "."); err != nil {
		return nil, timing{}, fmt.Errorf("building the test binary: %w", err)
	}
	goTest := func() ([]byte, error) {
		return output(pkgDir, testBin, "-test.run=^$", "-test.bench="+t.bench, "-test.benchmem", "-test.count=5")
	}
	first, err := goTest()
	if err != nil {
		return nil, timing{}, err
	}
	tm := timing{Target: t.short, Benchsup: map[string]float64{}}
	docs := map[string]*rundoc.Document{}
	for _, s := range settings {
		args := []string{"run", "--bench=" + t.bench, "--metrics=none", "--json=" + filepath.Join(dir, t.short+"-"+s+".json"), "."}
		if s != "default" {
			args = append(args[:len(args)-1], "--sample-time="+s, ".")
		}
		start := time.Now()
		if err := command(pkgDir, bin, args...); err != nil {
			return nil, timing{}, fmt.Errorf("benchsup %s: %w", strings.Join(args, " "), err)
		}
		tm.Benchsup[s] = time.Since(start).Seconds()
		doc, err := readDoc(filepath.Join(dir, t.short+"-"+s+".json"))
		if err != nil {
			return nil, timing{}, err
		}
		docs[s] = doc
	}
	fresh := map[string][]float64{}
	for range 5 {
		out, err := output(pkgDir, testBin, "-test.run=^$", "-test.bench="+t.bench, "-test.benchmem", "-test.count=1")
		if err != nil {
			return nil, timing{}, err
		}
		one, err := parseGoTest(out)
		if err != nil {
			return nil, timing{}, err
		}
		for name, v := range one {
			fresh[name] = append(fresh[name], v...)
		}
	}
	var same map[string][]float64
	if doc := docs[settings[0]]; doc != nil && len(doc.Meta.Provenance.Builds) > 0 && doc.Meta.Provenance.Builds[0].Binary != "" {
		out, err := output(pkgDir, doc.Meta.Provenance.Builds[0].Binary, "-test.run=^$", "-test.bench="+t.bench, "-test.benchmem", "-test.count=5")
		if err != nil {
			return nil, timing{}, err
		}
		if same, err = parseGoTest(out); err != nil {
			return nil, timing{}, err
		}
	}
	second, err := goTest()
	if err != nil {
		return nil, timing{}, err
	}
	start := time.Now()
	if err := command(pkgDir, "go", "test", "-run=^$", "-bench="+t.bench, "-benchmem", "."); err != nil {
		return nil, timing{}, err
	}
	tm.GoTest = time.Since(start).Seconds()

	a, err := parseGoTest(first)
	if err != nil {
		return nil, timing{}, err
	}
	c, err := parseGoTest(second)
	if err != nil {
		return nil, timing{}, err
	}
	var results []result
	for _, name := range sortedKeys(a) {
		all := append(slices.Clone(a[name]), c[name]...)
		med := median(all)
		r := result{Target: t.short, Name: name, GoTest: all, GoTestMed: med,
			GoTestSelf: math.Abs(median(a[name])-median(c[name])) / med, Benchsup: map[string]float64{}}
		if v := same[name]; len(v) > 0 {
			r.SameBinary = median(v)
		}
		r.Fresh = fresh[name]
		for s, doc := range docs {
			for _, row := range doc.Rows {
				if row.Name == name && row.Summary != nil {
					r.Benchsup[s] = row.Summary.MedianNs
				}
			}
		}
		results = append(results, r)
	}
	return results, tm, nil
}

// prepare downloads t's module from the module proxy and copies it to a
// writable directory, once.
func prepare(dir string, t target) (string, error) {
	dst := filepath.Join(dir, "src", strings.ReplaceAll(t.module, "/", "_"))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); err == nil {
		return dst, nil
	}
	var info struct{ Dir string }
	data, err := output(dir, "go", "mod", "download", "-json", t.module)
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(data, &info); err != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v", t.module, err)
	}
	if err := command(dir, "cp", "-r", info.Dir, dst); err != nil {
		return "", err
	}
	if err := command(dir, "chmod", "-R", "u+w", dst); err != nil {
		return "", err
	}
	return dst, nil
}

// parseGoTest returns ns/op by benchmark name (without the -P suffix).
func parseGoTest(out []byte) (map[string][]float64, error) {
	values, _, err := parseGoTestN(out)
	return values, err
}

func readDoc(path string) (*rundoc.Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc rundoc.Document
	return &doc, json.Unmarshal(data, &doc)
}

// writeTable prints docs/measurement.md's markdown table.
func writeTable(w io.Writer, settings []string, results []result, timings []timing) {
	fmt.Fprintf(w, "host: %s\n\n", host())
	header := "| benchmark | go test median (10 runs) | go test's own disagreement |"
	sep := "|---|---:|---:|"
	for _, s := range settings {
		header += fmt.Sprintf(" benchsup %s | ratio |", s)
		sep += "---:|---:|"
	}
	fmt.Fprintln(w, header+" go test, 5 fresh processes: range | benchsup's binary, go test's method | ratio to go test | agrees |")
	fmt.Fprintln(w, sep+"---:|---:|---:|---|")
	agree, inRange, layout, total := 0, 0, 0, 0
	for _, r := range results {
		line := fmt.Sprintf("| %s %s | %s | %.1f%% |", r.Target, r.Name, ns(r.GoTestMed), 100*r.GoTestSelf)
		ok := true
		for _, s := range settings {
			b, have := r.Benchsup[s]
			if !have {
				line += " — | — |"
				ok = false
				continue
			}
			ratio := b / r.GoTestMed
			line += fmt.Sprintf(" %s | %.3f |", ns(b), ratio)
			if math.Abs(ratio-1) > math.Max(0.03, r.GoTestSelf) {
				ok = false
			}
		}
		freshCell := " — |"
		lo, hi := math.NaN(), math.NaN()
		if len(r.Fresh) > 0 {
			lo, hi = slices.Min(r.Fresh), slices.Max(r.Fresh)
			freshCell = fmt.Sprintf(" %s–%s |", ns(lo), ns(hi))
		}
		sameCell := freshCell + " — | — |"
		if r.SameBinary > 0 {
			sameCell = freshCell + fmt.Sprintf(" %s | %.3f |", ns(r.SameBinary), r.SameBinary/r.GoTestMed)
		}
		verdict := "yes"
		switch b, have := r.Benchsup[settings[0]]; {
		case ok:
			agree++
		case have && b >= lo && b <= hi:
			verdict = "within go test's process range"
			inRange++
		case have && r.SameBinary > 0 && math.Abs(b/r.SameBinary-1) <= math.Max(0.03, r.GoTestSelf):
			verdict = "layout"
			layout++
		default:
			verdict = "**no**"
		}
		total++
		fmt.Fprintln(w, line+sameCell+" "+verdict+" |")
	}
	fmt.Fprintf(w, "\n%d of %d within max(3%%, go test's own disagreement); %d more within the range of go test's own fresh processes; %d more agree with benchsup's own binary run by go test's method (a code layout difference)\n\n",
		agree, total, inRange, layout)
	fmt.Fprintln(w, "| target | go test -bench (count 1) | benchsup | ratio |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	var gt, bs float64
	for _, t := range timings {
		for _, s := range settings {
			fmt.Fprintf(w, "| %s (%s) | %.1f s | %.1f s | %.2f |\n", t.Target, s, t.GoTest, t.Benchsup[s], t.Benchsup[s]/t.GoTest)
			bs += t.Benchsup[s]
		}
		gt += t.GoTest
	}
	fmt.Fprintf(w, "| all | %.1f s | %.1f s | %.2f |\n", gt*float64(len(settings)), bs, bs/(gt*float64(len(settings))))
}

func ns(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.4g ms", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.4g µs", v/1e3)
	}
	return fmt.Sprintf("%.4g ns", v)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func sortedKeys(m map[string][]float64) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func host() string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %s, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, cpu, runtime.NumCPU(), runtime.Version())
}

// repoRoot is the benchsup checkout this command runs from.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the benchsup module: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func command(dir string, name string, args ...string) error {
	_, err := output(dir, name, args...)
	return err
}

func output(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, firstLines(stderr.String()))
	}
	return out, nil
}

func firstLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = lines[:5]
	}
	return strings.Join(lines, "; ")
}
