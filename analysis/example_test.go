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
	for _, r := range c.Rows {
		if r.Metric == rundoc.MetricTime {
			fmt.Printf("%s: %s\n", r.Name, r.Verdict)
		}
	}
	// Output:
	// BenchmarkCount/size=1KiB: inconclusive
	// BenchmarkCount/size=64KiB: slower
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
