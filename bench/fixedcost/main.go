//go:build linux

// Command fixedcost measures what benchsup costs beyond the benchmark it
// runs, side by side with go test, and prints the table
// docs/measurement.md's "Fixed cost" section quotes.
//
//	go run ./bench/fixedcost            # 11 runs of each command in each condition
//	go run ./bench/fixedcost -runs=21
//
// It writes a module of one package with one benchmark that does almost
// nothing, builds benchsup once (./cmd/benchsup), and times
//
//	go test -run '^$' -bench . -benchtime=1x
//	benchsup run --bench --repetitions=1 -benchtime=1x ./...
//
// in two conditions: warm (nothing changed since the last run: go test
// finds its build cached, benchsup its remembered go command answers and
// its test binary; docs/design.md, "Remembered answers"), and after a
// one-line edit of the package's source before every run (both commands
// compile and link the test binary again). Each command first runs once
// per condition, then the two alternate, runs times each, so that a drift
// of the host moves both.
//
// CPU is user plus system time of the whole process tree: this command
// makes itself the child subreaper (prctl PR_SET_CHILD_SUBREAPER), so a
// process that outlives its parent (benchsup's reaper, which outlives the
// run by design, or a go command's helper) is reparented here and waited
// for; the rusage of every reaped descendant then reaches this process's
// RUSAGE_CHILDREN, and a run's CPU is its difference across the run. Wall
// is from start until the command itself exits. Each cell is the median
// over runs, with the range in brackets; the ratio is of medians.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/benchsup/benchsup/bench/internal/treecost"
)

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), "benchsup-fixedcost"), "work directory (benchsup's binary and the module go in it)")
	runs := flag.Int("runs", 11, "measured runs of each command per condition")
	prebuilt := flag.String("benchsup", "", "measure this benchsup binary instead of building ./cmd/benchsup")
	flag.Parse()
	if err := run(*dir, *prebuilt, *runs, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fixedcost:", err)
		os.Exit(1)
	}
}

const goMod = "module example.com/fixedcost\n\ngo 1.24\n"

// source is the package; edit changes one line of it.
func source(edit int) string {
	return fmt.Sprintf(`package fixedcost

// Edit is the line a one-line edit changes.
var Edit = %d

// Sum adds 0..n-1.
func Sum(n int) int {
	s := 0
	for i := range n {
		s += i
	}
	return s
}
`, edit)
}

const benchmark = `package fixedcost

import "testing"

func BenchmarkSum(b *testing.B) {
	for b.Loop() {
		Sum(100)
	}
}
`

func run(dir, bin string, runs int, out io.Writer) error {
	if runs < 1 {
		return fmt.Errorf("-runs must be at least 1, got %d", runs)
	}
	bin, err := treecost.Setup(dir, bin)
	if err != nil {
		return err
	}
	mod := filepath.Join(dir, "module")
	if err := os.RemoveAll(mod); err != nil {
		return err
	}
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return err
	}
	edits := 0
	edit := func() error {
		edits++
		return os.WriteFile(filepath.Join(mod, "sum.go"), []byte(source(edits)), 0o644)
	}
	if err := edit(); err != nil {
		return err
	}
	for name, text := range map[string]string{"go.mod": goMod, "sum_test.go": benchmark} {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			return err
		}
	}

	cmds := []struct {
		name string
		args []string
	}{
		{"go test -run '^$' -bench . -benchtime=1x", []string{"go", "test", "-run", "^$", "-bench", ".", "-benchtime=1x"}},
		{"benchsup run --bench --repetitions=1 -benchtime=1x ./...", []string{bin, "run", "--bench", "--repetitions=1", "-benchtime=1x", "./..."}},
	}
	conditions := []struct {
		name   string
		before func() error
	}{
		{"warm", func() error { return nil }},
		{"after a one-line edit", edit},
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "condition\tcommand\twall\tCPU\twall ratio\tCPU ratio\t\n")
	for _, c := range conditions {
		res := make([]measured, len(cmds))
		for _, cmd := range cmds { // first runs: fill the caches
			if err := c.before(); err != nil {
				return err
			}
			if _, err := time1(mod, cmd.args); err != nil {
				return err
			}
		}
		for i := 0; i < runs; i++ {
			for j := range cmds {
				k := (i + j) % len(cmds) // alternate which goes first
				if err := c.before(); err != nil {
					return err
				}
				s, err := time1(mod, cmds[k].args)
				if err != nil {
					return err
				}
				res[k].wall = append(res[k].wall, s.wall)
				res[k].cpu = append(res[k].cpu, s.cpu)
			}
		}
		for k, cmd := range cmds {
			ratioW, ratioC := "", ""
			if k > 0 {
				ratioW = fmt.Sprintf("%.2f×", treecost.Median(res[k].wall).Seconds()/treecost.Median(res[0].wall).Seconds())
				ratioC = fmt.Sprintf("%.2f×", treecost.Median(res[k].cpu).Seconds()/treecost.Median(res[0].cpu).Seconds())
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", c.name, cmd.name, treecost.Spread(res[k].wall), treecost.Spread(res[k].cpu), ratioW, ratioC)
		}
	}
	return tw.Flush()
}

type measured struct{ wall, cpu []time.Duration }

type sample struct{ wall, cpu time.Duration }

// time1 runs one command to its end and waits for every descendant it
// left; a failing command is an error (the module's benchmark passes).
func time1(dir string, args []string) (sample, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	s, err := treecost.Run(cmd)
	return sample{s.Wall, s.CPU}, err
}
