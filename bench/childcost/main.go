// Command childcost measures what a benchsup child costs beyond its timed
// work, on a generated module of trivial benchmarks (1,000 in 20 packages
// by default), and prints the figures docs/measurement.md quotes (its
// section "What a fresh process costs").
//
//	go run ./bench/childcost                       # benchsup's defaults
//	go run ./bench/childcost -packages=4 -benchmarks=10 -- --sample-time=50ms
//
// Arguments after -- are passed to `benchsup run --bench`. For every
// process of every benchmark it reads, from the run's JSON document, the
// process's wall time (spawn to reaped, the supervisor's clock) and the
// elapsed time of its samples; a trivial benchmark has no setup, so the
// difference is the process's fixed cost. It also times the whole run and
// the part of it outside the measuring children (resolving, building,
// discovering and calibrating).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/benchsup/benchsup/rundoc"
)

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), "benchsup-childcost"), "work directory (the generated module goes in it)")
	packages := flag.Int("packages", 20, "packages in the generated module")
	benchmarks := flag.Int("benchmarks", 50, "benchmarks per package")
	flag.Parse()
	if err := run(*dir, *packages, *benchmarks, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "childcost:", err)
		os.Exit(1)
	}
}

func run(dir string, packages, benchmarks int, extra []string, out io.Writer) error {
	mod := filepath.Join(dir, "trivial")
	if err := generate(mod, packages, benchmarks); err != nil {
		return err
	}
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return fmt.Errorf("finding the benchsup module: %w", err)
	}
	bin := filepath.Join(dir, "benchsup")
	build := exec.Command("go", "build", "-o", bin, "./cmd/benchsup")
	build.Dir = strings.TrimSpace(string(root))
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building benchsup: %v: %s", err, b)
	}
	doc := filepath.Join(dir, "run.json")
	args := append([]string{"run", "--bench", "--json=" + doc}, extra...)
	args = append(args, "./...")
	cmd := exec.Command(bin, args...)
	cmd.Dir = mod
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("benchsup %s: %w", strings.Join(args, " "), err)
	}
	total := time.Since(start)
	data, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	var d rundoc.Document
	if err := json.Unmarshal(data, &d); err != nil {
		return err
	}
	var fixed, fraction []float64
	var childWall, timed float64
	for _, r := range d.Rows {
		for _, p := range r.Processes {
			var t float64
			for _, s := range p.Samples {
				t += float64(s.ElapsedNs)
			}
			if len(p.Samples) == 0 || p.WallNs <= 0 {
				continue
			}
			fixed = append(fixed, (float64(p.WallNs)-t)/1e6)
			fraction = append(fraction, t/float64(p.WallNs))
			childWall += float64(p.WallNs)
			timed += t
		}
	}
	if len(fixed) == 0 {
		return fmt.Errorf("no measured process in %s", doc)
	}
	slices.Sort(fixed)
	slices.Sort(fraction)
	q := func(xs []float64, p float64) float64 { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
	fmt.Fprintf(out, "%d benchmarks in %d packages, %d measuring processes; knobs: %d processes × %d samples of %v\n\n",
		len(d.Rows), packages, len(fixed), d.Meta.Knobs.Repetitions, d.Meta.Knobs.SampleCount, time.Duration(d.Meta.Knobs.SampleTimeNs))
	fmt.Fprintln(out, "| per measuring process | median | p90 | worst |")
	fmt.Fprintln(out, "|---|---:|---:|---:|")
	fmt.Fprintf(out, "| fixed cost (wall − timed samples) | %.1f ms | %.1f ms | %.1f ms |\n", q(fixed, 0.5), q(fixed, 0.9), fixed[len(fixed)-1])
	fmt.Fprintf(out, "| timed share of wall | %.1f%% | %.1f%% (p10) | %.1f%% |\n", 100*q(fraction, 0.5), 100*q(fraction, 0.1), 100*fraction[0])
	fmt.Fprintf(out, "\nwhole run %.1f s: measuring children %.1f s (%.1f s of it timed), everything else %.1f s (resolve, build, discover, calibrate)\n",
		total.Seconds(), childWall/1e9, timed/1e9, total.Seconds()-childWall/1e9)
	return nil
}

// generate writes a module of packages × benchmarks trivial benchmarks.
func generate(dir string, packages, benchmarks int) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/trivial\n\ngo 1.22\n"), 0o644); err != nil {
		return err
	}
	for p := range packages {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%02d\n\nimport \"testing\"\n\nvar sink int\n", p)
		for i := range benchmarks {
			fmt.Fprintf(&b, "\nfunc BenchmarkTrivial%03d(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += i ^ %d\n\t}\n}\n", i, i)
		}
		pkg := filepath.Join(dir, fmt.Sprintf("p%02d", p))
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(pkg, "p_test.go"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
