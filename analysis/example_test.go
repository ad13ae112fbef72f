package analysis_test

import (
	"fmt"
	"os"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

func readDoc(path string) *rundoc.Document {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	doc, _, err := rundoc.ReadDocument(f)
	if err != nil {
		panic(err)
	}
	return doc
}

// Compare two saved run documents, as benchsup compare does: nothing is
// run, and the same documents and seed give the same comparison.
func ExampleCompare() {
	old := readDoc("testdata/old.json")
	new := readDoc("testdata/new.json")
	c, err := analysis.Compare(old, new, analysis.CompareConfig{Bootstrap: analysis.Bootstrap{Seed: 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Three processes a side are too few for the 95% asked (their
	// bootstrap intervals cover the truth less often than they say): the
	// rows with an interval are inconclusive and say what a verdict needs.
	for _, r := range c.Rows {
		if r.Metric == rundoc.MetricTime {
			fmt.Printf("%s: %s", r.Name, r.Verdict)
			if r.Shortfall != "" {
				fmt.Printf(" (%s)", r.Shortfall)
			}
			fmt.Println()
		}
	}
	// Output:
	// BenchmarkCount/size=1KiB: inconclusive (3 processes a side; 95% needs 5)
	// BenchmarkCount/size=64KiB: inconclusive (3 processes a side; 95% needs 5)
	// BenchmarkCountFile: unavailable
}

// Summarize the samples of three processes: the summary's center is the
// median across processes, each process counting once however many
// samples it took.
func ExampleSummarize() {
	proc := func(index int, nsPerOp ...int64) rundoc.ProcessResult {
		p := rundoc.ProcessResult{Index: index, Outcome: rundoc.OutcomeOK}
		for _, ns := range nsPerOp {
			p.Samples = append(p.Samples, rundoc.Sample{Iterations: 1000, ElapsedNs: ns * 1000})
		}
		p.NsPerOp, _ = analysis.NsPerOp(p.Samples) // within the process
		return p
	}
	s := analysis.Summarize([]rundoc.ProcessResult{proc(0, 100, 102, 101), proc(1, 120, 118), proc(2, 99, 100, 98)})
	fmt.Printf("median %.0f ns/op over %d processes (%d samples), range %.0f to %.0f\n",
		s.MedianNs, s.Processes, s.Samples, s.MinNs, s.MaxNs)
	// Output:
	// median 101 ns/op over 3 processes (8 samples), range 98 to 120
}

// Find the sweep families among a run's rows and fit them: a family of
// sub-benchmarks over a size, its selected model and the observed
// exponent beside it. What it says is empirical scaling over the measured
// range, not proof of big-O.
func ExampleSweeps() {
	row := func(name string, ns float64) rundoc.Row {
		return rundoc.Row{Package: "example.com/sort", Name: name, Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK,
			Summary: &rundoc.Summary{Processes: 5, MedianNs: ns}}
	}
	doc := &rundoc.Document{Rows: []rundoc.Row{
		row("BenchmarkSort/n=1Ki", 21_000), row("BenchmarkSort/n=4Ki", 98_000),
		row("BenchmarkSort/n=16Ki", 470_000), row("BenchmarkSort/n=64Ki", 2_150_000),
		row("BenchmarkSort/n=256Ki", 9_700_000), row("BenchmarkSort/n=1Mi", 43_000_000),
		row("BenchmarkLookup/n=10", 20), row("BenchmarkLookup/n=100", 21),
	}}
	for _, sw := range analysis.Sweeps(doc.Rows) {
		fmt.Printf("%s: %s", sw.Family, sw.Status)
		if sw.Selected != nil {
			fmt.Printf(" %s, exponent %.2f over %s–%s", sw.Selected.Text(), *sw.ObservedExponent,
				analysis.FormatSweepValue(sw.Range.MinExact), analysis.FormatSweepValue(sw.Range.MaxExact))
		} else {
			fmt.Printf(" (%s)", sw.Reason)
		}
		fmt.Println()
	}
	// Output:
	// BenchmarkSort/n=*: fitted n log n, exponent 1.10 over 1Ki–1Mi
	// BenchmarkLookup/n=*: unavailable (2 points with a measured time; a fit needs at least 4)
}
