package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/supervisor"
)

func TestNoMatchGate(t *testing.T) {
	skipped := func(pkg, reason string) rundoc.Row {
		return rundoc.Row{Package: pkg, Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeSkipped, Skipped: &reason}
	}
	bench := supervisor.Config{Mode: supervisor.ModeBench, Bench: "Typo"}
	none := func(string) bool { return false }
	runSet := func(f string) bool { return f == "run" }
	value := func(f string) string { return map[string]string{"run": "TestTypo", "skip": "X"}[f] }
	nothingRows := []rundoc.Row{
		skipped("a", rundoc.NoBenchmarksToRun), skipped("b", rundoc.NoTestFiles), skipped("c", rundoc.NoTestsToRun),
	}
	tests := []struct {
		name string
		sel  selection
		rows []rundoc.Row
		want string // "" for no error
	}{
		{"bench matches nothing anywhere", selectionOf(bench, none, value, false), nothingRows,
			"--bench=Typo matched no benchmark in 3 packages searched (--allow-empty accepts an empty run)"},
		{"allowed", selectionOf(bench, none, value, true), nothingRows, ""},
		{"one package matched", selectionOf(bench, none, value, false),
			append(nothingRows[:2:2], rundoc.Row{Package: "c", Name: "BenchmarkX", Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK}), ""},
		{"a build failure is no empty run", selectionOf(bench, none, value, false),
			append(nothingRows[:2:2], rundoc.Row{Package: "c", Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeBuildFailure}), ""},
		{"another build's rows do not count", selectionOf(bench, none, value, false),
			append(nothingRows[:1:1], rundoc.Row{Package: "a", Build: "HEAD~1", Name: "BenchmarkX", Kind: rundoc.KindBenchmark, Outcome: rundoc.OutcomeOK}),
			"--bench=Typo matched no benchmark in 1 package searched (--allow-empty accepts an empty run)"},
		{"run matches no test", selectionOf(supervisor.Config{}, runSet, value, false), nothingRows[1:],
			"--run=TestTypo matched no test in 2 packages searched (--allow-empty accepts an empty run)"},
		{"run and skip", selectionOf(supervisor.Config{}, func(string) bool { return true }, value, false), nothingRows[1:],
			"--run=TestTypo with --skip=X matched no test"},
		{"a shard may be empty", selectionOf(supervisor.Config{Mode: supervisor.ModeBench, Bench: "Typo", Shard: supervisor.Shard{Index: 2, Count: 3}}, none, value, false), nothingRows, ""},
		{"test mode selecting everything", selectionOf(supervisor.Config{}, none, value, false), nothingRows, ""},
		{"no rows", selectionOf(bench, none, value, false), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.sel.errNoMatch(&rundoc.Document{Rows: tt.rows})
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tt.want)
			}
		})
	}
}
