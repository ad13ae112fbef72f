package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/benchsup/benchsup/rundoc"
)

// Test2JSONEvent is one line of the stream go test -json prints (the
// events of cmd/test2json, field for field), with benchsup's additions in
// fields of their own, which go test's readers (gotestsum, tparse, CI
// annotations) ignore.
type Test2JSONEvent struct {
	Time *time.Time `json:",omitempty"`
	// ImportPath names the build a build-output or build-fail event is
	// about ("pkg [pkg.test]"), as go test prints it.
	ImportPath string `json:",omitempty"`
	// Action is start, run, pause, cont, pass, fail, skip, output, bench,
	// build-output or build-fail (cmd/test2json's actions).
	Action  string `json:"Action"`
	Package string `json:",omitempty"`
	Test    string `json:",omitempty"`
	// Elapsed is seconds, as go test reads them from testing's lines;
	// absent when not measured (never 0 for unknown).
	Elapsed *float64 `json:",omitempty"`
	Output  *string  `json:",omitempty"`
	// FailedBuild is the build whose failure failed the package.
	FailedBuild string `json:",omitempty"`

	// BenchsupClass is the outcome class of a failed test or package
	// ("signal", "test-timeout", "build-failure", ...; docs/output.md),
	// on its fail event; absent for a plain failure ("fail").
	BenchsupClass string `json:",omitempty"`
	// BenchsupError is benchsup's one-line account of that failure.
	BenchsupError string `json:",omitempty"`
	// BenchsupNotes are the row's notes (crash attribution, withheld
	// environment variables, ...).
	BenchsupNotes []string `json:",omitempty"`
}

// WriteTest2JSON writes a run as go test -json prints it: per package, in
// the document's order, a start event, then every test (test mode) or
// benchmark result line (bench mode) as test2json reads them from
// testing's verbose output, then the package's PASS or FAIL and its
// ok/FAIL line as output events and its pass, fail or skip
// (docs/output.md#go-test--json). Each package's events are written
// together (Test2JSONStream writes them as packages finish); their Time is
// when they were written.
//
// A test's run, output and end events are rebuilt from its row: its
// output holds its subtests' report lines (--- PASS: TestX/a), from which
// each subtest gets its own run and end events, in order. A test that
// called t.Parallel (Row.Paused) gets its pause and cont events right
// after its run: the document keeps that it waited, not what ran
// meanwhile. What the document does not keep is not invented: the rows of
// --against builds are not written.
func WriteTest2JSON(w io.Writer, doc rundoc.Document) error {
	return NewTest2JSONStream(w).Finish(doc)
}

// Test2JSONStream writes a test run's go test -json stream as the run
// goes: each package's events once its rows are final (Result), in the
// order packages finish, as go test -json writes a package when its test
// binary exits; Finish writes the packages not written yet, in the
// document's order (every package of a benchmark run, whose rows are
// final only when the schedule ends). It is safe for concurrent use.
type Test2JSONStream struct {
	mu      sync.Mutex
	t       *test2json
	pending map[string][]rundoc.Row
	written map[string]bool
}

// NewTest2JSONStream returns a stream to w.
func NewTest2JSONStream(w io.Writer) *Test2JSONStream {
	return &Test2JSONStream{t: &test2json{w: bufio.NewWriter(w), now: time.Now},
		pending: map[string][]rundoc.Row{}, written: map[string]bool{}}
}

// Result takes a final row of a test run (the supervisor's result event)
// and writes its package when the row is the package's last: the status
// row of a package whose tests ran, or the row of one that ran nothing
// (no test files, nothing selected, not built). Rows of other builds
// (--against) are not written.
func (s *Test2JSONStream) Result(r rundoc.Row) {
	if r.Build != "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written[r.Package] {
		return
	}
	s.pending[r.Package] = append(s.pending[r.Package], r)
	if r.Kind != rundoc.KindPackage {
		return
	}
	switch r.Outcome {
	case rundoc.OutcomeOK, rundoc.OutcomeTestFail, rundoc.OutcomeSkipped, rundoc.OutcomeBuildFailure:
		s.t.pkg(rundoc.Meta{Mode: rundoc.ModeTest}, r.Package, s.pending[r.Package])
		delete(s.pending, r.Package)
		s.written[r.Package] = true
		if s.t.err == nil {
			s.t.err = s.t.w.Flush()
		}
	}
}

// Finish writes, from the final document, every package not written yet,
// in the document's order, and returns the first write error.
func (s *Test2JSONStream) Finish(doc rundoc.Document) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pkgs []string
	for _, r := range doc.Rows {
		if r.Build == "" && !s.written[r.Package] && !slices.Contains(pkgs, r.Package) {
			pkgs = append(pkgs, r.Package)
		}
	}
	for _, pkg := range pkgs {
		var rows []rundoc.Row
		for _, r := range doc.Rows {
			if r.Package == pkg && r.Build == "" {
				rows = append(rows, r)
			}
		}
		s.t.pkg(doc.Meta, pkg, rows)
		s.written[pkg] = true
	}
	if s.t.err == nil {
		s.t.err = s.t.w.Flush()
	}
	if s.t.err != nil {
		return fmt.Errorf("report: writing the go test -json stream: %w", s.t.err)
	}
	return nil
}

type test2json struct {
	w   *bufio.Writer
	now func() time.Time
	err error
}

func (t *test2json) emit(ev Test2JSONEvent) {
	if t.err != nil {
		return
	}
	now := t.now()
	ev.Time = &now
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // test2json writes <, > and & as they are
	if t.err = enc.Encode(ev); t.err == nil {
		_, t.err = t.w.Write(b.Bytes())
	}
}

func (t *test2json) output(pkg, test, line string) {
	t.emit(Test2JSONEvent{Action: "output", Package: pkg, Test: test, Output: &line})
}

// pkg writes one package's events.
func (t *test2json) pkg(meta rundoc.Meta, pkg string, rows []rundoc.Row) {
	var status, skipped *rundoc.Row
	var buildFailed []rundoc.Row
	var outside []rundoc.Row // failures outside any test
	for i, r := range rows {
		if r.Kind != rundoc.KindPackage {
			continue
		}
		switch {
		case r.Outcome == rundoc.OutcomeSkipped:
			skipped = &rows[i]
		case r.Outcome == rundoc.OutcomeBuildFailure:
			buildFailed = append(buildFailed, r)
		case r.Outcome == rundoc.OutcomeOK || r.Outcome == rundoc.OutcomeTestFail:
			status = &rows[i]
		default:
			outside = append(outside, r)
		}
	}
	if len(buildFailed) > 0 {
		// go test writes the compiler's output as build events before the
		// package starts, then fails the package naming the build.
		build := pkg + " [" + pkg + ".test]"
		for _, r := range buildFailed {
			lines := []string{"# " + build}
			if r.Error != nil {
				lines = append(lines, *r.Error)
			}
			for _, l := range splitLines(r.Output) {
				if r.Error == nil || l != *r.Error {
					lines = append(lines, l)
				}
			}
			for _, l := range lines {
				s := l + "\n"
				t.emit(Test2JSONEvent{ImportPath: build, Action: "build-output", Output: &s})
			}
		}
		t.emit(Test2JSONEvent{ImportPath: build, Action: "build-fail"})
		t.emit(Test2JSONEvent{Action: "start", Package: pkg})
		t.output(pkg, "", "FAIL\t"+pkg+" [build failed]\n")
		t.emit(Test2JSONEvent{Action: "fail", Package: pkg, FailedBuild: build,
			BenchsupClass: string(rundoc.OutcomeBuildFailure), BenchsupError: errText(buildFailed[0])})
		return
	}
	t.emit(Test2JSONEvent{Action: "start", Package: pkg})
	if skipped != nil && len(outside) == 0 && !slices.ContainsFunc(rows, func(r rundoc.Row) bool { return r.Kind != rundoc.KindPackage }) {
		reason := "no test files"
		if skipped.Skipped != nil && *skipped.Skipped != "" {
			reason = oneLine(*skipped.Skipped)
		}
		if reason == rundoc.NoTestFiles {
			t.output(pkg, "", "?   \t"+pkg+"\t["+reason+"]\n")
			t.emit(Test2JSONEvent{Action: "skip", Package: pkg})
			return
		}
		// The tests (or benchmarks) ran nothing: go test runs the binary
		// and says so; benchsup starts no child, so there is no time.
		t.output(pkg, "", "testing: warning: "+reason+"\n")
		t.output(pkg, "", "PASS\n")
		t.output(pkg, "", "ok  \t"+pkg+"\t["+reason+"]\n")
		t.emit(Test2JSONEvent{Action: "pass", Package: pkg})
		return
	}
	failed := len(outside) > 0
	if meta.Mode == rundoc.ModeBench {
		t.benchHeader(meta, pkg)
	}
	started := map[string]bool{}
	width := 0 // testing pads the names of a package's result lines alike
	for _, r := range rows {
		if r.Kind == rundoc.KindBenchmark {
			width = max(width, len(r.Name)+len(procSuffix(meta)))
		}
	}
	for _, r := range rows {
		switch r.Kind {
		case rundoc.KindPackage:
			continue
		case rundoc.KindTest:
			failed = t.test(pkg, r) || failed
		default:
			failed = t.bench(meta, pkg, r, started, width) || failed
		}
	}
	for _, r := range outside {
		// A failure outside any test (a child that died in TestMain, ...)
		// is the package's output, as go test prints a panic there.
		t.output(pkg, "", outcomeLine(r)+"\n")
		for _, l := range splitLines(r.Output) {
			t.output(pkg, "", l+"\n")
		}
		for _, n := range r.Notes {
			t.output(pkg, "", "note: "+oneLine(n)+"\n")
		}
	}
	if status != nil {
		// What happened to the package's children outside any one test
		// (the limits they reached, what they left running).
		for _, n := range status.Notes {
			if !slices.ContainsFunc(outside, func(r rundoc.Row) bool { return slices.Contains(r.Notes, n) }) {
				t.output(pkg, "", "note: "+oneLine(n)+"\n")
			}
		}
	}
	failed = failed || (status != nil && status.Outcome == rundoc.OutcomeTestFail)
	var elapsed *float64
	took := ""
	if status != nil && status.ElapsedNs != nil {
		elapsed = ptrTo(roundSeconds(*status.ElapsedNs, 3))
		took = "\t" + strconv.FormatFloat(float64(*status.ElapsedNs)/1e9, 'f', 3, 64) + "s"
	}
	end := Test2JSONEvent{Action: "pass", Package: pkg, Elapsed: elapsed}
	if failed {
		t.output(pkg, "", "FAIL\n")
		t.output(pkg, "", "FAIL\t"+pkg+took+"\n")
		end.Action = "fail"
		if len(outside) > 0 {
			end.BenchsupClass, end.BenchsupError, end.BenchsupNotes = string(outside[0].Outcome), errText(outside[0]), outside[0].Notes
		}
	} else {
		t.output(pkg, "", "PASS\n")
		t.output(pkg, "", "ok  \t"+pkg+took+"\n")
	}
	t.emit(end)
}

// test writes one top-level test's events and reports whether it failed.
func (t *test2json) test(pkg string, r rundoc.Row) (failed bool) {
	top := r.Name
	tree := &testTree{t: t, pkg: pkg, started: map[string]bool{}, known: map[string]bool{top: true}, paused: r.Paused}
	for _, name := range r.Paused {
		tree.known[name] = true
	}
	for _, l := range splitLines(r.Output) {
		l = strings.TrimLeft(l, " ")
		if name, ok := strings.CutPrefix(l, "=== NAME"); ok {
			tree.known[strings.TrimSpace(name)] = true
		} else if _, name, _, ok := reportLine(l); ok {
			tree.known[name] = true
		}
	}
	tree.start(top)
	cur := top
	for _, l := range splitLines(r.Output) {
		trimmed := strings.TrimLeft(l, " ")
		if name, ok := strings.CutPrefix(trimmed, "=== NAME"); ok {
			name = strings.TrimSpace(name)
			if name == "" {
				name = top
			}
			if !tree.started[name] {
				tree.start(name)
			} else if name != cur {
				t.output(pkg, name, "=== NAME  "+name+"\n")
			}
			cur = name
			continue
		}
		if action, name, secs, ok := reportLine(trimmed); ok && name != top && strings.HasPrefix(name, top+"/") {
			tree.start(name)
			t.output(pkg, name, trimmed+"\n")
			t.emit(Test2JSONEvent{Action: action, Package: pkg, Test: name, Elapsed: secs})
			tree.open = slices.DeleteFunc(tree.open, func(s string) bool { return s == name })
			if i := strings.LastIndexByte(name, '/'); i > 0 {
				cur = name[:i]
			}
			continue
		}
		t.output(pkg, cur, l+"\n")
	}
	var secs *float64
	took := ""
	if r.ElapsedNs != nil {
		secs = ptrTo(roundSeconds(*r.ElapsedNs, 2))
		took = " (" + testElapsed(r.ElapsedNs) + ")"
	}
	end := Test2JSONEvent{Package: pkg, Test: top, Elapsed: secs}
	switch r.Outcome {
	case rundoc.OutcomeOK:
		end.Action = "pass"
		t.output(pkg, top, "--- PASS: "+top+took+"\n")
	case rundoc.OutcomeSkipped:
		end.Action = "skip"
		t.output(pkg, top, "--- SKIP: "+top+took+"\n")
	default:
		failed = true
		end.Action = "fail"
		if r.Outcome != rundoc.OutcomeTestFail {
			// A crash or a hang: testing printed no end for the tests
			// still running; benchsup's account of it is their output.
			end.BenchsupClass, end.BenchsupError, end.BenchsupNotes = string(r.Outcome), errText(r), r.Notes
			t.output(pkg, top, "    "+outcomeLine(r)+"\n")
			for _, n := range r.Notes {
				t.output(pkg, top, "    note: "+oneLine(n)+"\n")
			}
			for i := len(tree.open) - 1; i >= 0; i-- {
				if name := tree.open[i]; name != top {
					t.output(pkg, name, "--- FAIL: "+name+"\n")
					t.emit(Test2JSONEvent{Action: "fail", Package: pkg, Test: name, BenchsupClass: string(r.Outcome)})
				}
			}
		}
		t.output(pkg, top, "--- FAIL: "+top+took+"\n")
	}
	t.emit(end)
	return failed
}

// testTree is one top-level test's tests as its events are written.
type testTree struct {
	t       *test2json
	pkg     string
	open    []string        // started tests that have not ended, in start order
	started map[string]bool // by full name
	known   map[string]bool // the tests the row names: in its output, or paused
	paused  []string        // Row.Paused: the tests that called t.Parallel
}

// start starts name, after its parents that have not started, outermost
// first: testing prints each one's === RUN line before its subtests'. A
// parent is a prefix of name, ending before a slash, that is one of the
// tests the row names (known): a subtest's own name may hold a slash
// (t.Run("/x", ...) makes TestX//x), which starts no test.
func (tt *testTree) start(name string) {
	if tt.started[name] {
		return
	}
	for i := 0; i < len(name); i++ {
		if parent := name[:i]; name[i] == '/' && tt.known[parent] && !tt.started[parent] {
			tt.start(parent)
		}
	}
	tt.started[name] = true
	tt.open = append(tt.open, name)
	tt.t.emit(Test2JSONEvent{Action: "run", Package: tt.pkg, Test: name})
	tt.t.output(tt.pkg, name, "=== RUN   "+name+"\n")
	if slices.Contains(tt.paused, name) {
		// The document keeps that it waited, not when it resumed: its
		// cont follows its pause, as go test's does when nothing else
		// ran between (test2json writes the cont event before its line).
		tt.t.output(tt.pkg, name, "=== PAUSE "+name+"\n")
		tt.t.emit(Test2JSONEvent{Action: "pause", Package: tt.pkg, Test: name})
		tt.t.emit(Test2JSONEvent{Action: "cont", Package: tt.pkg, Test: name})
		tt.t.output(tt.pkg, name, "=== CONT  "+name+"\n")
	}
}

// reportLine parses testing's end line of a test, "--- PASS: TestX/a
// (0.01s)", into the test2json action, the name and the seconds (nil when
// the line has none).
func reportLine(l string) (action, name string, secs *float64, ok bool) {
	for _, f := range []struct{ prefix, action string }{{"--- PASS: ", "pass"}, {"--- FAIL: ", "fail"}, {"--- SKIP: ", "skip"}} {
		rest, found := strings.CutPrefix(l, f.prefix)
		if !found {
			continue
		}
		name, paren, _ := strings.Cut(rest, " (")
		if s, found := strings.CutSuffix(paren, "s)"); found {
			if v, err := strconv.ParseFloat(s, 64); err == nil {
				secs = &v
			}
		}
		return f.action, name, secs, name != ""
	}
	return "", "", nil, false
}

// benchHeader writes the configuration lines go test prints before a
// package's first benchmark.
func (t *test2json) benchHeader(m rundoc.Meta, pkg string) {
	t.output(pkg, "", "goos: "+m.OS+"\n")
	t.output(pkg, "", "goarch: "+m.Arch+"\n")
	t.output(pkg, "", "pkg: "+pkg+"\n")
	if m.CPU != "" {
		t.output(pkg, "", "cpu: "+oneLine(m.CPU)+"\n")
	}
}

// bench writes one benchmark leaf's events: its run, its name line and one
// result line per sample of every process that measured it, as go test
// -count prints one per run; a failure or a skip ends it as testing
// reports one. started holds the benchmark functions already run, so a
// function with sub-benchmarks starts once. It reports whether the leaf
// failed.
func (t *test2json) bench(meta rundoc.Meta, pkg string, r rundoc.Row, started map[string]bool, width int) (failed bool) {
	fn, _, sub := strings.Cut(r.Name, "/")
	if sub && !started[fn] {
		started[fn] = true
		t.emit(Test2JSONEvent{Action: "run", Package: pkg, Test: fn})
		t.output(pkg, fn, "=== RUN   "+fn+"\n")
		t.output(pkg, fn, fn+"\n")
	}
	t.emit(Test2JSONEvent{Action: "run", Package: pkg, Test: r.Name})
	t.output(pkg, r.Name, "=== RUN   "+r.Name+"\n")
	t.output(pkg, r.Name, r.Name+"\n")
	suffix := procSuffix(meta)
	for _, p := range r.Processes {
		if p.Outcome != rundoc.OutcomeOK {
			continue
		}
		for _, s := range p.Samples {
			if line, ok := resultLine(r.Name+suffix, width, s); ok {
				t.output(pkg, r.Name, line)
			}
		}
	}
	switch {
	case r.Outcome == rundoc.OutcomeOK:
		// go test -json prints no end event for a benchmark that passed.
	case r.Outcome == rundoc.OutcomeSkipped:
		t.output(pkg, r.Name, "--- SKIP: "+r.Name+"\n")
		if r.Skipped != nil {
			t.output(pkg, r.Name, "    "+oneLine(*r.Skipped)+"\n")
		}
		t.emit(Test2JSONEvent{Action: "skip", Package: pkg, Test: r.Name})
	default:
		t.output(pkg, r.Name, "--- FAIL: "+r.Name+"\n")
		t.output(pkg, r.Name, "    "+outcomeLine(r)+"\n")
		for _, l := range splitLines(r.Output) {
			t.output(pkg, r.Name, "    "+l+"\n")
		}
		ev := Test2JSONEvent{Action: "fail", Package: pkg, Test: r.Name, BenchsupError: errText(r), BenchsupNotes: r.Notes}
		if r.Outcome != rundoc.OutcomeTestFail {
			ev.BenchsupClass = string(r.Outcome)
		}
		t.emit(ev)
		return true
	}
	return false
}

// resultLine is one sample as testing prints a benchmark's result line:
// the name padded to width, the iterations, ns/op, MB/s and every
// b.ReportMetric unit, then B/op and allocs/op, in testing's formats.
func resultLine(name string, width int, s rundoc.Sample) (string, bool) {
	res := &benchfmt.Result{}
	if err := sampleValues(res, s); err != nil {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s\t%8d", width, name, res.Iters)
	var mem []benchfmt.Value
	for _, v := range res.Values {
		switch v.Unit {
		case "MB/s":
			fmt.Fprintf(&b, "\t%7.2f MB/s", v.Value)
		case "B/op", "allocs/op":
			mem = append(mem, v)
		default:
			b.WriteString("\t" + prettyValue(v.Value, v.Unit))
		}
	}
	for _, v := range mem {
		fmt.Fprintf(&b, "\t%8d %s", int64(v.Value), v.Unit)
	}
	return b.String() + "\n", true
}

// prettyValue formats a value as testing does (its prettyPrint): about
// four significant digits, right-aligned.
func prettyValue(x float64, unit string) string {
	var format string
	switch y := math.Abs(x); {
	case y == 0 || y >= 999.95:
		format = "%10.0f %s"
	case y >= 99.995:
		format = "%12.1f %s"
	case y >= 9.9995:
		format = "%13.2f %s"
	case y >= 0.99995:
		format = "%14.3f %s"
	case y >= 0.099995:
		format = "%15.4f %s"
	case y >= 0.0099995:
		format = "%16.5f %s"
	case y >= 0.00099995:
		format = "%17.6f %s"
	default:
		format = "%18.7f %s"
	}
	return fmt.Sprintf(format, x, unit)
}

// procSuffix is the -P testing appends to a benchmark's name (none when
// GOMAXPROCS is 1; zero means no child reported it, and then no process
// has samples).
func procSuffix(m rundoc.Meta) string {
	if m.GOMAXPROCS > 1 {
		return "-" + strconv.Itoa(m.GOMAXPROCS)
	}
	return ""
}

func errText(r rundoc.Row) string {
	if r.Error == nil {
		return ""
	}
	return oneLine(*r.Error)
}

func roundSeconds(ns int64, digits int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(ns)/1e9, 'f', digits, 64), 64)
	return v
}

func ptrTo[T any](v T) *T { return &v }

// splitLines is text's lines without their newlines; none for "".
func splitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
