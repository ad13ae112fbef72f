package analysis

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/rundoc"
)

// realRows reads a testdata/names file's result lines as a run document's
// rows: the name without testing's "-P" suffix (ParseResultName reads it
// off, as the supervisor's worker never prints one), its ns/op as the
// median.
func realRows(t *testing.T, file string) []rundoc.Row {
	t.Helper()
	procs, _ := strconv.Atoi(procsOf.FindStringSubmatch(file)[1])
	f, err := os.Open(filepath.Join("testdata", "names", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []rundoc.Row
	pkg := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = p
			continue
		}
		fields := strings.Split(line, "\t")
		if !strings.HasPrefix(line, "Benchmark") || len(fields) < 3 {
			continue
		}
		n := ParseResultName(strings.TrimSpace(fields[0]), procs)
		n.Procs = 0
		ns, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(fields[2]), " ns/op"), 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", file, line, err)
		}
		rows = append(rows, rundoc.Row{Package: pkg, Name: n.String(), Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK,
			Summary: &rundoc.Summary{Processes: 1, MedianNs: ns}})
	}
	return rows
}

// TestFindSweepsRealNames finds the families among the names of real runs
// (testdata/names/README): the demo's size=1KiB and size=64KiB, x/text's
// bare sizes under a bare case name, xxhash's byte sizes with decimal
// suffixes (4B..10MB), toml's nested groups (no numbers: no family), and
// the edge module's grid of two keys with a "#01" duplicate, at -cpu 1 and
// -cpu 4 (the "-4" suffix read off by ParseResultName).
func TestFindSweepsRealNames(t *testing.T) {
	type want struct {
		family, parameter string
		values            []string // exact values, in the rows' order
		status            rundoc.SweepStatus
		reason            string
	}
	for _, tc := range []struct {
		file string
		want []want
	}{
		{"demo.cpu2.txt", []want{{"BenchmarkCount/size=*", "size", []string{"1024", "65536"}, rundoc.SweepUnavailable, "2 points with a measured time; a fit needs at least 4"}}},
		{"text.cpu2.txt", []want{
			{"BenchmarkOrder/UnmatchedIsolateInitiator/*", "", []string{"1000", "10000", "100000"}, rundoc.SweepUnavailable, "3 points"},
			{"BenchmarkOrder/EuropeanNumber/*", "", []string{"1000", "10000", "100000"}, rundoc.SweepUnavailable, "3 points"},
			{"BenchmarkOrder/EuropeanTerminator/*", "", []string{"1000", "10000", "100000"}, rundoc.SweepUnavailable, "3 points"},
		}},
		{"toml.cpu2.txt", nil},
		{"xxhash.cpu2.txt", []want{
			// -benchtime=1x: one iteration each, times no model fits.
			{"BenchmarkSum64/*", "", []string{"4", "16", "100", "4000", "10000000"}, rundoc.SweepPoorFit, "misses the points"},
			{"BenchmarkSum64String/*", "", []string{"4", "16", "100", "4000", "10000000"}, rundoc.SweepPoorFit, "misses the points"},
			{"BenchmarkDigestBytes/*", "", []string{"4", "16", "100", "4000", "10000000"}, rundoc.SweepPoorFit, "misses the points"},
			{"BenchmarkDigestString/*", "", []string{"4", "16", "100", "4000", "10000000"}, rundoc.SweepPoorFit, "misses the points"},
		}},
		{"edge.cpu1.txt", []want{
			{"BenchmarkGrid/impl=fnv/n=*", "n", []string{"8", "1024", "1048576"}, rundoc.SweepUnavailable, "3 points"},
			{"BenchmarkGrid/impl=xxh/n=*", "n", []string{"8", "1024", "1048576"}, rundoc.SweepUnavailable, "3 points"},
			{"BenchmarkGrid/impl=crc/n=*", "n", []string{"8", "8"}, rundoc.SweepUnavailable,
				"BenchmarkGrid/impl=crc/n=8 and BenchmarkGrid/impl=crc/n=8#01 have one value, 8"},
		}},
		{"edge.cpu4.txt", []want{
			{"BenchmarkGrid/impl=fnv/n=*", "n", []string{"8", "1024", "1048576"}, rundoc.SweepUnavailable, "3 points"},
			{"BenchmarkGrid/impl=xxh/n=*", "n", []string{"8", "1024", "1048576"}, rundoc.SweepUnavailable, "3 points"},
			{"BenchmarkGrid/impl=crc/n=*", "n", []string{"8", "8"}, rundoc.SweepUnavailable, "have one value, 8"},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			fams := FindSweeps(realRows(t, tc.file))
			if len(fams) != len(tc.want) {
				var got []string
				for _, f := range fams {
					got = append(got, f.Family)
				}
				t.Fatalf("families %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				f := fams[i]
				var values []string
				for _, p := range f.Points {
					values = append(values, p.ValueExact)
				}
				if f.Family != w.family || f.Parameter != w.parameter || strings.Join(values, ",") != strings.Join(w.values, ",") {
					t.Errorf("family %d: %s (parameter %q) values %v, want %s (%q) %v", i, f.Family, f.Parameter, values, w.family, w.parameter, w.values)
				}
				sw := FitSweep(f.Points)
				if sw.Status != w.status || !strings.Contains(sw.Reason, w.reason) {
					t.Errorf("%s: %s (%s), want %s (%s)", f.Family, sw.Status, sw.Reason, w.status, w.reason)
				}
			}
		})
	}
}
