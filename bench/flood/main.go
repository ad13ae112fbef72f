//go:build linux

// Command flood measures how benchsup carries a flood of short lines on a
// child's stdout, side by side with go test, and prints the table
// docs/measurement.md's "What a fresh process costs" quotes.
//
//	go run ./bench/flood                     # 10,000,000 lines, 3 runs of each command
//	go run ./bench/flood -lines=1000000 -runs=5
//
// It writes a module of one package with one benchmark and one test that
// each print -lines lines (fmt.Println(i), one write each, as most code
// prints), builds benchsup once (./cmd/benchsup), and times, alternating
// which goes first,
//
//	go test -run '^$' -bench . -benchtime=1x -benchmem
//	benchsup run --bench --repetitions=1 -benchtime=1x ./...
//	go test -count=1 -run TestFlood
//	benchsup run --run TestFlood ./...
//
// Every command's stdout goes to a file, as a CI log does: go test then
// hands the file to the test binary, which writes into it directly.
//
// Wall is from start until the command exits; CPU is user plus system
// time of the whole process tree (this command is the child subreaper, as
// bench/fixedcost is). The per-process column is the part that carries
// the flood: for go test, the test binary's time as go test prints it on
// its "ok" line; for benchsup, the wall time of the benchmark's measuring
// process (spawn to reaped; a benchmark run also starts a discovery
// process, which runs the benchmark once more: it is in the command's
// wall) and, in test mode, the package's child (its row's elapsedNs). The
// benchmark's own time per op is printed too, as each harness reports it.
// Cells are medians over runs with the range; ratios are of medians.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/benchsup/benchsup/bench/internal/treecost"
	"github.com/benchsup/benchsup/rundoc"
)

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), "benchsup-flood"), "work directory (benchsup's binary, the module and the commands' output go in it)")
	lines := flag.Int("lines", 10_000_000, "lines the benchmark and the test each print")
	runs := flag.Int("runs", 3, "measured runs of each command")
	prebuilt := flag.String("benchsup", "", "measure this benchsup binary instead of building ./cmd/benchsup")
	flag.Parse()
	if err := run(*dir, *prebuilt, *lines, *runs, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "flood:", err)
		os.Exit(1)
	}
}

const goMod = "module example.com/flood\n\ngo 1.24\n"

func source(lines int) string {
	return fmt.Sprintf(`package flood

import (
	"fmt"
	"testing"
)

const lines = %d

func BenchmarkFlood(b *testing.B) {
	for range b.N {
		for i := range lines {
			fmt.Println(i)
		}
	}
}

func TestFlood(t *testing.T) {
	for i := range lines {
		fmt.Println(i)
	}
}
`, lines)
}

// command is one of the four timed commands; perProcess reads its
// per-process time and its benchmark's time per op (0: none) once it ran.
type command struct {
	mode, name string
	args       []string
	perProcess func(stdout string) (proc, perOp time.Duration, err error)
}

func run(dir, bin string, lines, runs int, out io.Writer) error {
	if runs < 1 || lines < 1 {
		return fmt.Errorf("-runs and -lines must be at least 1")
	}
	bin, err := treecost.Setup(dir, bin)
	if err != nil {
		return err
	}
	mod := filepath.Join(dir, "module")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return err
	}
	for name, text := range map[string]string{"go.mod": goMod, "flood_test.go": source(lines)} {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	doc := filepath.Join(dir, "run.json")
	timeout := "--timeout=30m"
	cmds := []command{
		{"benchmark", "go test -run '^$' -bench . -benchtime=1x -benchmem", []string{"go", "test", "-run", "^$", "-bench", ".", "-benchtime=1x", "-benchmem"}, goTestTimes},
		{"benchmark", "benchsup run --bench --repetitions=1 -benchtime=1x ./...", []string{bin, "run", "--bench", "--repetitions=1", "-benchtime=1x", timeout, "--json=" + doc, "./..."}, docTimes(doc)},
		{"test", "go test -count=1 -run TestFlood", []string{"go", "test", "-count=1", "-run", "TestFlood"}, goTestTimes},
		{"test", "benchsup run --run TestFlood ./...", []string{bin, "run", "--run", "TestFlood", timeout, "--json=" + doc, "./..."}, docTimes(doc)},
	}
	logPath := filepath.Join(dir, "stdout.log")
	res := make([]measured, len(cmds))
	for _, c := range cmds { // first runs: build, fill the caches
		if _, err := time1(mod, logPath, c); err != nil {
			return err
		}
	}
	for i := range runs {
		for j := range cmds {
			// Alternate, within each mode, which command goes first.
			k := j
			if i%2 == 1 {
				k = j ^ 1
			}
			s, err := time1(mod, logPath, cmds[k])
			if err != nil {
				return err
			}
			res[k].add(s)
		}
	}
	fmt.Fprintf(out, "%d lines, %d runs, %s\n", lines, runs, time.Now().UTC().Format("2006-01-02"))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "mode\tcommand\twall\tCPU\tper process\ttime/op\twall ratio\tCPU ratio\tper-process ratio\t\n")
	for k, c := range cmds {
		ratios := "\t\t"
		if k%2 == 1 {
			ref := res[k-1]
			ratios = fmt.Sprintf("%.2f×\t%.2f×\t%.2f×", ratio(res[k].wall, ref.wall), ratio(res[k].cpu, ref.cpu), ratio(res[k].proc, ref.proc))
		}
		perOp := "—"
		if slices.Max(res[k].perOp) > 0 {
			perOp = treecost.Spread(res[k].perOp)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.mode, c.name, treecost.Spread(res[k].wall), treecost.Spread(res[k].cpu), treecost.Spread(res[k].proc), perOp, ratios)
	}
	return tw.Flush()
}

type measured struct{ wall, cpu, proc, perOp []time.Duration }

func (m *measured) add(s sample) {
	m.wall, m.cpu, m.proc, m.perOp = append(m.wall, s.wall), append(m.cpu, s.cpu), append(m.proc, s.proc), append(m.perOp, s.perOp)
}

type sample struct{ wall, cpu, proc, perOp time.Duration }

// time1 runs one command to its end, its stdout into logPath, and waits
// for every descendant it left; a failing command is an error (the
// module's benchmark and test pass).
func time1(dir, logPath string, c command) (sample, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return sample{}, err
	}
	defer log.Close()
	cmd := exec.Command(c.args[0], c.args[1:]...)
	cmd.Dir = dir
	cmd.Stdout = log
	run, err := treecost.Run(cmd)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w", c.name, err)
	}
	stdout, err := tail(logPath, 64<<10)
	if err != nil {
		return sample{}, err
	}
	proc, perOp, err := c.perProcess(stdout)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w", c.name, err)
	}
	return sample{run.Wall, run.CPU, proc, perOp}, nil
}

var (
	okLine     = regexp.MustCompile(`(?m)^ok  \t\S+\t([0-9.]+)s`)
	resultLine = regexp.MustCompile(`(?m)^BenchmarkFlood\S*\s+\d+\s+(\d+) ns/op`)
)

// goTestTimes reads the test binary's time from go test's "ok" line and
// the benchmark's ns/op from its result line.
func goTestTimes(stdout string) (time.Duration, time.Duration, error) {
	m := okLine.FindStringSubmatch(stdout)
	if m == nil {
		return 0, 0, errors.New("no ok line in go test's output")
	}
	secs, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, 0, err
	}
	var perOp time.Duration
	if r := resultLine.FindStringSubmatch(stdout); r != nil {
		ns, _ := strconv.ParseInt(r[1], 10, 64)
		perOp = time.Duration(ns)
	}
	return time.Duration(secs * float64(time.Second)), perOp, nil
}

// docTimes reads, from benchsup's run document, the measuring process's
// wall time and median time per op (a benchmark row), or the package
// row's elapsed time (test mode).
func docTimes(path string) func(string) (time.Duration, time.Duration, error) {
	return func(string) (time.Duration, time.Duration, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, 0, err
		}
		var d rundoc.Document
		if err := json.Unmarshal(b, &d); err != nil {
			return 0, 0, err
		}
		for _, r := range d.Rows {
			if r.Outcome != "ok" {
				return 0, 0, fmt.Errorf("row %s is %s", r.Name, r.Outcome)
			}
		}
		for _, r := range d.Rows {
			switch {
			case r.Kind == rundoc.KindBenchmark && len(r.Processes) == 1 && r.Summary != nil:
				return time.Duration(r.Processes[0].WallNs), time.Duration(r.Summary.MedianNs), nil
			case r.Kind == rundoc.KindPackage && r.ElapsedNs != nil:
				return time.Duration(*r.ElapsedNs), 0, nil
			}
		}
		return 0, 0, errors.New("the run document has no measuring process nor package row")
	}
}

// tail is the last n bytes of the file at path.
func tail(path string, n int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	off := max(0, fi.Size()-n)
	b := make([]byte, fi.Size()-off)
	k, err := f.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return string(b[:k]), nil
}

func ratio(a, b []time.Duration) float64 {
	return treecost.Median(a).Seconds() / treecost.Median(b).Seconds()
}
