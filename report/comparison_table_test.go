package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

func TestWriteComparisonTable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteComparisonTable(&buf, rundoctest.ComparisonFixture()); err != nil {
		t.Fatal(err)
	}
	rundoctest.Golden(t, "comparison.golden", buf.Bytes())
}

// TestWriteComparisonTableShortOfConfidence: a paired comparison of three
// pairs, whose intervals reach 75% of the 95% asked, holds every verdict
// back; the header says why once and the notes keep only what else rows
// say. Six pairs give verdicts and no such line.
func TestWriteComparisonTableShortOfConfidence(t *testing.T) {
	row := func(name string, pairs int, ns, factor float64, bytes uint64) (rundoc.Row, rundoc.Row) {
		side := func(f float64) rundoc.Row {
			r := rundoc.Row{Package: "example.com/p", Name: name, Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK}
			for i := range pairs {
				b, a := bytes*1000, uint64(1000)
				r.Processes = append(r.Processes, rundoc.ProcessResult{Index: i, Outcome: rundoc.OutcomeOK,
					Samples: []rundoc.Sample{{Iterations: 1000, ElapsedNs: int64(ns * f * (1 + 0.01*float64(i)) * 1000), AllocBytes: &b, Allocs: &a}}})
			}
			return r
		}
		return side(1), side(factor)
	}
	for _, tt := range []struct {
		golden string
		pairs  int
	}{{"comparison-short.golden", 3}, {"comparison-enough.golden", 6}} {
		t.Run(tt.golden, func(t *testing.T) {
			o1, n1 := row("BenchmarkSlower", tt.pairs, 100, 1.3, 64)
			o2, n2 := row("BenchmarkSteady", tt.pairs, 50, 1.001, 0)
			c, err := analysis.ComparePaired([]rundoc.Row{o1, o2}, []rundoc.Row{n1, n2}, analysis.CompareConfig{}, func(k int) bool { return k%2 == 0 })
			if err != nil {
				t.Fatal(err)
			}
			c.Old.Label, c.New.Label = "HEAD~1", "working tree"
			var buf bytes.Buffer
			if err := WriteComparisonTable(&buf, *c); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if short := strings.Contains(out, "3 pairs reach 75%; 95% needs 6"); short != (tt.pairs == 3) {
				t.Errorf("%d pairs: the shortfall line said %v:\n%s", tt.pairs, short, out)
			}
			if strings.Count(out, "needs 6") > 1 {
				t.Errorf("the shortfall is said more than once:\n%s", out)
			}
			rundoctest.Golden(t, tt.golden, buf.Bytes())

			// The HTML page's comparison header says it too, once.
			buf.Reset()
			if err := WriteHTML(&buf, HTMLReport{Run: &rundoc.Document{Schema: rundoc.SchemaVersion}, Comparisons: []rundoc.Comparison{*c}}); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			if short := strings.Count(page, "<td>confidence</td><td>short of the confidence asked: 3 pairs reach 75%; 95% needs 6 (--repetitions=6)"); short != map[bool]int{true: 1, false: 0}[tt.pairs == 3] {
				t.Errorf("%d pairs: the HTML header says the shortfall %d times", tt.pairs, short)
			}
		})
	}
}

// TestWriteComparisonTableUncompared: a counted metric no identity has on
// both sides (the default budget skipped it on a side) is one line, not a
// section of "unavailable" rows with a note each; one compared anywhere
// keeps its section.
func TestWriteComparisonTableUncompared(t *testing.T) {
	c := rundoctest.ComparisonFixture()
	unavailable := func(name, metric string) rundoc.ComparisonRow {
		return rundoc.ComparisonRow{Package: "example.com/p", Name: name, Metric: metric, Verdict: rundoc.VerdictUnavailable,
			Note: "not counted on the old side (its row's absences say why)"}
	}
	c.Rows = append(c.Rows,
		unavailable("BenchmarkSlower", "task-clock"), unavailable("BenchmarkSame", "task-clock"),
		unavailable("BenchmarkSlower", "minflt"),
		unavailable("BenchmarkSlower", "rchar"),
		rundoc.ComparisonRow{Package: "example.com/p", Name: "BenchmarkSame", Metric: "rchar", Verdict: rundoc.VerdictWithinNoise,
			Old: &rundoc.ComparedValue{Center: rundoctest.Fptr(4096)}, New: &rundoc.ComparedValue{Center: rundoctest.Fptr(4100)}, Ratio: rundoctest.Fptr(4100.0 / 4096)},
	)
	var buf bytes.Buffer
	if err := WriteComparisonTable(&buf, c); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "\nnot compared: task-clock, minflt (no identity has a value on both sides; each run's absences say why)\n") {
		t.Errorf("no line for the uncompared metrics:\n%s", out)
	}
	for _, absent := range []string{"\ntask-clock ", "\nminflt ", "(task-clock): not counted", "(minflt): not counted"} {
		if strings.Contains(out, absent) {
			t.Errorf("%q is printed:\n%s", absent, out)
		}
	}
	if !strings.Contains(out, "\nrchar ") || !strings.Contains(out, "(rchar): not counted on the old side") {
		t.Errorf("rchar, compared for one identity, lost its section or its note:\n%s", out)
	}
	rundoctest.Golden(t, "comparison-uncompared.golden", buf.Bytes())
}
