// Command speed measures benchsup's test mode side by side with
// `go test -count=1` on a warm cache, and prints the table docs/command-line.md
// quotes ("Test mode").
//
//	go run ./bench/speed                 # the demo, a generated 24-package module and a chatty package, 7 runs each
//	go run ./bench/speed -runs=11 -packages=40
//
// For each module both commands first run once (warming the build cache
// and benchsup's test binary cache), then alternately, runs times each, so
// a drift of the host moves both. Wall is the time from start to exit;
// CPU is user plus system time of the command and the processes it waited
// for (rusage of the reaped command: the compiler, the test binaries, the
// children). benchsup's reaper, which outlives the run by design, is not
// in it. Each cell is the median over runs, with the range in brackets.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), "benchsup-speed"), "work directory (benchsup's binary and the generated module go in it)")
	runs := flag.Int("runs", 7, "measured runs of each command per module")
	packages := flag.Int("packages", 24, "packages in the generated module")
	tests := flag.Int("tests", 8, "tests per generated package")
	prebuilt := flag.String("benchsup", "", "measure this benchsup binary instead of building ./cmd/benchsup")
	flag.Parse()
	if err := run(*dir, *prebuilt, *runs, *packages, *tests, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "speed:", err)
		os.Exit(1)
	}
}

// module is one module measured.
type module struct {
	name string
	dir  string
	pkgs int
}

func run(dir, bin string, runs, packages, tests int, out io.Writer) error {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return fmt.Errorf("finding the benchsup module (run this from its tree): %w", err)
	}
	src := strings.TrimSpace(string(root))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if bin == "" {
		bin = filepath.Join(dir, "benchsup")
		build := exec.Command("go", "build", "-o", bin, "./cmd/benchsup")
		build.Dir = src
		if b, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building benchsup: %v: %s", err, b)
		}
	}
	gen := filepath.Join(dir, "many")
	if err := generate(gen, packages, tests); err != nil {
		return err
	}
	chatty := filepath.Join(dir, "chatty")
	if err := generateChatty(chatty, 500, 100); err != nil {
		return err
	}
	mods := []module{
		{"demo", filepath.Join(src, "demo"), 1},
		{fmt.Sprintf("generated (%d packages)", packages), gen, packages},
		{"chatty (500 tests × 100 t.Log lines)", chatty, 1},
	}

	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "module\tcommand\twall\tCPU\twall ratio\tCPU ratio\t\n")
	for _, m := range mods {
		cmds := [][]string{
			{"go", "test", "-count=1", "./..."},
			{bin, "run", "./..."},
		}
		var res [2]measured
		for _, c := range cmds { // warm
			if _, err := time1(m.dir, c); err != nil {
				return err
			}
		}
		for i := 0; i < runs; i++ {
			for j := range cmds {
				k := (i + j) % 2 // alternate which goes first
				s, err := time1(m.dir, cmds[k])
				if err != nil {
					return err
				}
				res[k].wall = append(res[k].wall, s.wall)
				res[k].cpu = append(res[k].cpu, s.cpu)
			}
		}
		names := []string{"go test -count=1 ./...", "benchsup run ./..."}
		for k := range cmds {
			ratioW, ratioC := "", ""
			if k == 1 {
				ratioW = fmt.Sprintf("%.2f×", seconds(median(res[1].wall))/seconds(median(res[0].wall)))
				ratioC = fmt.Sprintf("%.2f×", seconds(median(res[1].cpu))/seconds(median(res[0].cpu)))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", m.name, names[k], spread(res[k].wall), spread(res[k].cpu), ratioW, ratioC)
		}
	}
	return tw.Flush()
}

type measured struct{ wall, cpu []time.Duration }

type sample struct{ wall, cpu time.Duration }

// time1 runs one command to its end; a failing command is an error (the
// modules' tests all pass).
func time1(dir string, args []string) (sample, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s in %s: %v\n%s", strings.Join(args, " "), dir, err, buf.String())
	}
	return sample{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// spread is "0.41 s [0.39–0.47]": the median and the range.
func spread(d []time.Duration) string {
	return fmt.Sprintf("%.2f s [%.2f–%.2f]", median(d).Seconds(), slices.Min(d).Seconds(), slices.Max(d).Seconds())
}

// generate writes a module of packages packages, each with a little code
// and tests tests (one with subtests, one with t.Parallel), all passing.
func generate(dir string, packages, tests int) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	files := map[string]string{"go.mod": "module example.com/many\n\ngo 1.22\n"}
	for p := 0; p < packages; p++ {
		name := fmt.Sprintf("p%02d", p)
		files[name+"/code.go"] = fmt.Sprintf(`package %[1]s

import "strings"

// Words counts the words of s.
func Words(s string) int { return len(strings.Fields(s)) }
`, name)
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\nimport \"testing\"\n\n", name)
		for t := 0; t < tests; t++ {
			switch t % 3 {
			case 0:
				fmt.Fprintf(&b, "func Test%d(t *testing.T) {\n\tif Words(\"a b c\") != 3 {\n\t\tt.Fatal(\"words\")\n\t}\n}\n\n", t)
			case 1:
				fmt.Fprintf(&b, "func Test%d(t *testing.T) {\n\tfor _, s := range []string{\"a\", \"a b\"} {\n\t\tt.Run(s, func(t *testing.T) { t.Log(Words(s)) })\n\t}\n}\n\n", t)
			case 2:
				fmt.Fprintf(&b, "func Test%d(t *testing.T) {\n\tt.Parallel()\n\t_ = Words(\"x\")\n}\n\n", t)
			}
		}
		files[name+"/code_test.go"] = b.String()
	}
	return writeFiles(dir, files)
}

// generateChatty writes a module of one package whose tests each log
// lines lines: the cost of carrying test output.
func generateChatty(dir string, tests, lines int) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("package chatty\n\nimport \"testing\"\n\n")
	for t := 0; t < tests; t++ {
		fmt.Fprintf(&b, "func Test%d(t *testing.T) {\n\tfor i := 0; i < %d; i++ {\n\t\tt.Log(\"line\", i)\n\t}\n}\n\n", t, lines)
	}
	return writeFiles(dir, map[string]string{"go.mod": "module example.com/chatty\n\ngo 1.22\n", "chatty_test.go": b.String()})
}

func writeFiles(dir string, files map[string]string) error {
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
