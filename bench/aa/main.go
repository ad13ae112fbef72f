// Command aa measures how often a comparison of two runs of the same code
// (A/A) calls a difference: benchsup compare's hierarchical bootstrap
// against benchstat's Mann-Whitney test on the same runs' samples pooled
// across processes (benchstat -ignore benchsup-process), which docs/comparing.md
// quotes side by side.
//
//	go run ./bench/aa                       # the demo module, 6 runs, 5 samples per process
//	go run ./bench/aa -dir=DIR -runs=8 -samples=1
//
// It runs `benchsup run --bench` -runs times on the module, one after
// another, then compares every pair of runs (run i as old, run j > i as
// new): for each benchmark measured in both, benchsup's interval at 95%
// either excludes 1 (a false positive: the code is the same) or not, and
// its verdict at the default threshold is faster, slower, equivalent or
// inconclusive; benchstat's p-value on the pooled samples is below its
// default alpha of 0.05 (a false positive) or not.
//
// Pairs of runs share runs, so the comparisons are not independent: the
// rates describe these runs on this host, not a long-run probability.
// It writes nothing into the repository; -work holds the run documents.
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"golang.org/x/perf/benchmath"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/rundoc"
)

func main() {
	dir := flag.String("dir", "demo", "the module to run")
	runs := flag.Int("runs", 6, "runs of the module")
	samples := flag.Int("samples", 5, "samples per process")
	work := flag.String("work", "", "where the run documents go (default: a new temporary directory)")
	bench := flag.String("bench", ".", "the benchmarks to run")
	against := flag.Bool("against", false, "run `--against=HEAD` (the module must be committed): count the verdicts of each run's own paired comparison")
	flag.Parse()
	if *against {
		if err := runAgainst(*dir, *work, *bench, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "aa:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*dir, *work, *bench, *runs, *samples); err != nil {
		fmt.Fprintln(os.Stderr, "aa:", err)
		os.Exit(1)
	}
}

func run(dir, work, bench string, runs, samples int) error {
	bin, work, err := setup(work)
	if err != nil {
		return err
	}
	var docs []*rundoc.Document
	for i := range runs {
		doc, err := runOnce(bin, filepath.Join(work, fmt.Sprintf("run-%d.json", i)), i, runs,
			"run", "--bench="+bench, "-C", dir, fmt.Sprintf("--samples=%d", samples), "--metrics=none")
		if err != nil {
			return err
		}
		docs = append(docs, doc)
	}

	t := newTally()
	bstatSignificant := 0
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			c, err := analysis.Compare(docs[i], docs[j], analysis.CompareConfig{Bootstrap: analysis.Bootstrap{Seed: uint64(i*100 + j)}})
			if err != nil {
				return err
			}
			for _, r := range t.add(c) {
				a, b := pooled(docs[i], r.Package, r.Name), pooled(docs[j], r.Package, r.Name)
				cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(a, &benchmath.DefaultThresholds), benchmath.NewSample(b, &benchmath.DefaultThresholds))
				if cmp.P < benchmath.DefaultThresholds.CompareAlpha {
					bstatSignificant++
				}
			}
		}
	}
	fmt.Printf("A/A: %d runs of %s, %d sample(s) per process; %d comparisons of a benchmark between two runs\n", runs, dir, samples, t.total)
	fmt.Printf("benchsup compare, 95%% interval excludes 1:        %s\n", t.pct(t.significant))
	fmt.Printf("benchsup compare, verdict faster or slower (±%g%%): %s\n", 100*analysis.DefaultThreshold, t.pct(t.called))
	fmt.Printf("benchsup compare verdicts: %v\n", t.verdicts)
	fmt.Printf("benchstat (pooled samples, Mann-Whitney), p < 0.05: %s\n", t.pct(bstatSignificant))
	printReach(t.reach)
	fmt.Printf("run documents: %s\n", work)
	return nil
}

// setup builds benchsup into work, a new temporary directory when "".
func setup(work string) (bin, dir string, err error) {
	if work == "" {
		if work, err = os.MkdirTemp("", "benchsup-aa-"); err != nil {
			return "", "", err
		}
	}
	bin = filepath.Join(work, "benchsup")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/benchsup").CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("building benchsup: %v\n%s", err, out)
	}
	return bin, work, nil
}

// runOnce runs benchsup with args and --json=path (run i of n) and reads
// the document. A run whose rows failed still counts: its failures are
// rows.
func runOnce(bin, path string, i, n int, args ...string) (*rundoc.Document, error) {
	cmd := exec.Command(bin, append(args, "--json="+path, "./...")...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "aa: run %d: %v (its failures are rows; continuing)\n", i, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, _, err := rundoc.ReadDocument(f)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "aa: run %d of %d done\n", i+1, n)
	return doc, nil
}

// tally counts the time rows of comparisons of identical code.
type tally struct {
	total, significant, called int
	verdicts                   map[string]int
	reach                      map[string][]float64 // per benchmark: how far each interval reaches from 1
}

func newTally() *tally {
	return &tally{verdicts: map[string]int{}, reach: map[string][]float64{}}
}

// add counts c's time rows with an interval and returns them.
func (t *tally) add(c *rundoc.Comparison) []rundoc.ComparisonRow {
	var rows []rundoc.ComparisonRow
	for _, r := range c.Rows {
		if r.Metric != rundoc.MetricTime || r.Low == nil {
			continue
		}
		t.total++
		if *r.Low > 1 || *r.High < 1 {
			t.significant++
		}
		if r.Verdict == rundoc.VerdictSlower || r.Verdict == rundoc.VerdictFaster {
			t.called++
		}
		t.verdicts[string(r.Verdict)]++
		t.reach[r.Name] = append(t.reach[r.Name], max(*r.High-1, 1-*r.Low))
		rows = append(rows, r)
	}
	return rows
}

func (t *tally) pct(n int) string {
	return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(max(t.total, 1)))
}

// printReach prints, per benchmark, the median over comparisons of how far
// the interval reaches from 1: the threshold under which an A/A
// comparison of it reads "equivalent" half the time.
func printReach(reach map[string][]float64) {
	names := slices.Sorted(maps.Keys(reach))
	fmt.Println("median reach of the interval from 1 (the threshold below which A/A reads equivalent half the time):")
	for _, n := range names {
		st, _ := stats.Summarize(reach[n])
		fmt.Printf("  %-40s %5.1f%%  (%d comparisons)\n", n, 100*st.Median, st.N)
	}
}

// pooled is every sample's ns/op of one benchmark, all processes together,
// as benchstat sees them when the process key is ignored.
func pooled(doc *rundoc.Document, pkg, name string) []float64 {
	var out []float64
	for _, r := range doc.Rows {
		if r.Package != pkg || r.Name != name {
			continue
		}
		for _, p := range r.Processes {
			for _, s := range p.Samples {
				if v, ok := s.NsPerOp(); ok {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// runAgainst runs `benchsup run --bench --against=HEAD` runs times on a
// module whose working tree is its HEAD: each run compares the same code
// with itself, in interleaved pairs.
func runAgainst(dir, work, bench string, runs int) error {
	bin, work, err := setup(work)
	if err != nil {
		return err
	}
	t := newTally()
	for i := range runs {
		doc, err := runOnce(bin, filepath.Join(work, fmt.Sprintf("against-%d.json", i)), i, runs,
			"run", "--bench="+bench, "-C", dir, "--against=HEAD", "--metrics=none")
		if err != nil {
			return err
		}
		for k := range doc.Comparisons {
			t.add(&doc.Comparisons[k])
		}
	}
	fmt.Printf("A/A --against=HEAD: %d runs of %s; %d paired comparisons of a benchmark\n", runs, dir, t.total)
	fmt.Printf("interval excludes 1:                      %s\n", t.pct(t.significant))
	fmt.Printf("verdict faster or slower (±%g%%):           %s\n", 100*analysis.DefaultThreshold, t.pct(t.called))
	fmt.Printf("verdicts: %v\n", t.verdicts)
	printReach(t.reach)
	fmt.Printf("run documents: %s\n", work)
	return nil
}
