package integration

import (
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSameNames: samenames GOTEST BENCHSUP checks that benchsup selected
// exactly the benchmarks go test reported. GOTEST is the output of
// `go test -run=^$ -bench=PATTERN -benchtime=1x -cpu=1` (its result lines,
// without the -N GOMAXPROCS suffix under -cpu=1); BENCHSUP is either the
// output of `benchsup list` (its benchmark and workload lines) or a JSON
// document of `benchsup run` (its benchmark rows).
func cmdSameNames(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: samenames GOTEST_OUTPUT LIST_OUTPUT|RUN_JSON")
	}
	text := ts.ReadFile(args[0])
	if !strings.Contains(text, "\nPASS\n") && !strings.HasPrefix(text, "PASS\n") {
		ts.Fatalf("%s is not the output of a passing go test run:\n%s", args[0], text)
	}
	var want []string
	for line := range strings.Lines(text) {
		if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[0], "Benchmark") && strings.Contains(line, "\t") {
			want = append(want, f[0])
		}
	}
	var got []string
	if strings.HasSuffix(args[1], ".json") {
		for _, r := range readDoc(ts, args[1]).Rows {
			if r.Kind == "benchmark" {
				got = append(got, r.Name)
			}
		}
	} else {
		for line := range strings.Lines(ts.ReadFile(args[1])) {
			if f := strings.Split(strings.TrimRight(line, "\n"), "\t"); len(f) == 3 && (f[1] == "benchmark" || f[1] == "workload") {
				got = append(got, f[2])
			}
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) { // a name listed twice is a difference too
		ts.Fatalf("benchsup selected\n\t%s\ngo test reported\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	ts.Logf("%d benchmarks, as go test", len(got))
}
