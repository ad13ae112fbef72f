package supervisor

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/record"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// RecordConfig configures Record: one program run contained, its
// recorder's spans read from the shared region (docs/design.md#recording).
type RecordConfig struct {
	// Program is an executable's path, or a Go main package ("./cmd/server",
	// an import path) built once with go build into a temporary directory.
	Program string
	Args    []string
	// Dir is the working directory of the build and of the program; ""
	// the current one.
	Dir string
	// For, when positive, ends the program after it: SIGTERM, Grace,
	// SIGKILL. An end at For is expected, not a failure.
	For time.Duration
	// Timeout bounds the program from spawn to exit; zero means
	// sandbox.DefaultTotalTimeout, or For with a minute to spare when that
	// is longer. A program still running at it is an execution timeout.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; zero means
	// sandbox.DefaultGrace.
	Grace time.Duration
	// Retention bounds the spans kept per identity (record.Config's
	// semantics), Spans keeps them in the document, Seed seeds the
	// reservoir.
	Retention record.Retention
	Spans     bool
	Seed      uint64
	Env       sandbox.EnvPolicy
	Cgroup    sandbox.CgroupMode
	// Shim is Config.Shim: the program runs under benchsup's shim.
	Shim bool
	// Stdout and Stderr receive the program's output as it comes (the
	// document keeps the last 64 KiB of each); nil discards it.
	Stdout, Stderr io.Writer
	// Snapshots, when not nil, is called every SnapshotEvery (default
	// 500 ms) while the program runs, from one goroutine: the seam the live
	// view draws from.
	Snapshots     func(RecordSnapshot)
	SnapshotEvery time.Duration
	// Watch, when not nil, is called with the program's child once it is
	// spawned, as Config.Watch is for test binaries; the returned function
	// is called when the child has exited.
	Watch func(*sandbox.Child) (end func())
}

// RecordSnapshot is what a live view of a recorded program shows.
type RecordSnapshot struct {
	Elapsed    time.Duration
	Identities []RecordIdentitySnapshot
	// Latest are the spans drained since the previous snapshot, at most
	// the last latestPerIdentity of each identity, identity by identity,
	// oldest first.
	Latest []RecordSpan
}

// RecordIdentitySnapshot is one identity's exact counters at a snapshot.
type RecordIdentitySnapshot struct {
	Identity  string
	Completed int64 // finished spans, every outcome
	Active    int64 // begun, not finished
	Errors    int64 // failure, timeout and canceled
}

// RecordSpan is one span of a snapshot.
type RecordSpan struct {
	Identity   string
	StartNs    int64
	DurationNs int64
	Outcome    string
}

// drainEvery is how often the supervisor drains a running child's ring:
// the ring holds 65,536 spans, so a program finishing fewer than 650,000
// spans a second loses none.
const drainEvery = 100 * time.Millisecond

// NoSpansNote is the note of a recorded program that delivered no
// identity.
func NoSpansNote(program string) string {
	return fmt.Sprintf("no spans: %s did not use the record package (import github.com/benchsup/benchsup/record)", program)
}

// spanDrain drains one child's region while it runs and once after.
type spanDrain struct {
	reg   *recordRegion
	col   *record.Collector
	mu    sync.Mutex        // guards what follows and the reader
	tails map[int]*spanTail // by identity index; nil when no live view reads them
	stop  chan struct{}
	done  chan struct{}
}

func newSpanDrain(reg *recordRegion, cfg record.Config) (*spanDrain, error) {
	col, err := record.NewCollector(cfg)
	if err != nil {
		return nil, err
	}
	return &spanDrain{reg: reg, col: col, stop: make(chan struct{}), done: make(chan struct{})}, nil
}

func (d *spanDrain) drain(final bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reg.rd.Drain(final, func(sp record.SharedSpan) {
		d.col.Add(sp)
		if d.tails == nil {
			return
		}
		t := d.tails[sp.Identity]
		if t == nil {
			t = new(spanTail)
			d.tails[sp.Identity] = t
		}
		t.add(sp)
	})
}

// run drains every drainEvery until finish.
func (d *spanDrain) run() {
	defer close(d.done)
	t := time.NewTicker(drainEvery)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
			d.drain(false)
		}
	}
}

// snapshot reads the counters and the spans drained since the last one.
func (d *spanDrain) snapshot(elapsed time.Duration) RecordSnapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := d.reg.rd.Identities()
	s := RecordSnapshot{Elapsed: elapsed}
	for _, si := range ids {
		o := si.Outcomes
		s.Identities = append(s.Identities, RecordIdentitySnapshot{Identity: si.Name, Completed: si.Observations,
			Active: o.Unfinished, Errors: o.Failure + o.Timeout + o.Canceled})
	}
	for i := range ids {
		t := d.tails[i]
		if t == nil {
			continue
		}
		t.each(func(sp record.SharedSpan) {
			s.Latest = append(s.Latest, RecordSpan{Identity: ids[i].Name, StartNs: sp.StartNs, DurationNs: sp.DurationNs, Outcome: sp.Outcome.String()})
		})
		t.n = 0
	}
	return s
}

// latestPerIdentity bounds the spans of one identity a snapshot passes
// on: enough for a live view's rolling quantiles, so that a busy identity
// never crowds out a quiet one.
const latestPerIdentity = 256

// spanTail is a ring of an identity's latest drained spans.
type spanTail struct {
	buf     [latestPerIdentity]record.SharedSpan
	next, n int
}

func (t *spanTail) add(sp record.SharedSpan) {
	t.buf[t.next] = sp
	t.next = (t.next + 1) % len(t.buf)
	t.n = min(t.n+1, len(t.buf))
}

// each calls f with the spans held, oldest first.
func (t *spanTail) each(f func(record.SharedSpan)) {
	for i := range t.n {
		f(t.buf[(t.next-t.n+i+len(t.buf))%len(t.buf)])
	}
}

// finish stops the periodic drain, drains once more with the writers
// gone (the child has exited), and returns the recordings, each with the
// source source gives its identity, with notes on what the ring lost.
func (d *spanDrain) finish(source func(record.SharedIdentity) string) ([]rundoc.Recording, []string, error) {
	close(d.stop)
	<-d.done
	d.drain(true)
	d.mu.Lock()
	defer d.mu.Unlock()
	rd := d.reg.rd
	ids := rd.Identities()
	var recs []rundoc.Recording
	var notes []string
	type key struct{ source, name string }
	seen := map[key]bool{}
	for i, r := range d.col.Results(ids) {
		rec, err := recordingOf(r, source(ids[i]))
		if err != nil {
			return nil, nil, err
		}
		// The child wrote the table and its counts: a program that wrote
		// over its region loses those identities, named, not the run.
		if err := rec.Validate(); err != nil {
			notes = append(notes, fmt.Sprintf("identity %q: the shared region held counts that cannot be (%v): not delivered", rec.Identity, err))
			continue
		}
		if k := (key{rec.Source, rec.Identity}); seen[k] {
			notes = append(notes, fmt.Sprintf("identity %q: published twice in the shared region: the second not delivered", rec.Identity))
			continue
		} else {
			seen[k] = true
		}
		recs = append(recs, rec)
	}
	if rd.Overwritten > 0 {
		notes = append(notes, fmt.Sprintf("%d spans were overwritten in the shared ring before benchsup drained them (more than %d finished within %v): counted, not retained",
			rd.Overwritten, record.SharedRingSlots, drainEvery))
	}
	if rd.Unpublished > 0 {
		notes = append(notes, fmt.Sprintf("%d spans were being written when the program ended: counted, not retained", rd.Unpublished))
	}
	if rd.Invalid > 0 {
		notes = append(notes, fmt.Sprintf("%d slots of the shared ring held no valid span: ignored", rd.Invalid))
	}
	if n := rd.NoRoom(); n > 0 {
		notes = append(notes, fmt.Sprintf("%d identities did not fit the shared table (%d identities): not delivered", n, record.SharedMaxIdentities))
	}
	return recs, notes, nil
}

// recordingOf is r as a run document's recording: the same JSON, member
// for member (rundoc does not import record).
func recordingOf(r record.Result, source string) (rundoc.Recording, error) {
	var rec rundoc.Recording
	b, err := json.Marshal(r)
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	if err != nil {
		return rec, fmt.Errorf("recording %q: %w", r.Identity, err)
	}
	rec.Source = source
	return rec, nil
}

// errForElapsed is the cause of the end of a program at --for.
var errForElapsed = errors.New("--for elapsed")

// Record runs cfg.Program contained, as a test binary is run but without
// the handshake, drains its recorder's spans while it runs and after it
// exits, and returns the run document (mode "record"): one row of kind
// "program" with the process's outcome, and the recordings.
func Record(ctx context.Context, cfg RecordConfig) (*rundoc.Document, error) {
	tmp, err := os.MkdirTemp("", "benchsup-record-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	path, err := programPath(ctx, cfg.Program, cfg.Dir, tmp)
	if err != nil {
		return nil, err
	}
	reg, err := newRecordRegion()
	if err != nil {
		return nil, err
	}
	defer reg.close()
	d, err := newSpanDrain(reg, record.Config{Retention: cfg.Retention, Spans: cfg.Spans, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	if cfg.Snapshots != nil {
		// Only snapshots pass the latest spans on; without them every
		// drained span would be copied for nothing.
		d.tails = map[int]*spanTail{}
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = max(sandbox.DefaultTotalTimeout, cfg.For+time.Minute)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if cfg.For > 0 {
		t := time.AfterFunc(cfg.For, func() { cancel(errForElapsed) })
		defer t.Stop()
	}
	start := time.Now()
	go d.run()
	stopSnaps := make(chan struct{})
	snapsDone := make(chan struct{})
	go func() {
		defer close(snapsDone)
		if cfg.Snapshots == nil {
			return
		}
		every := cfg.SnapshotEvery
		if every <= 0 {
			every = 500 * time.Millisecond
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stopSnaps:
				return
			case <-t.C:
				cfg.Snapshots(d.snapshot(time.Since(start)))
			}
		}
	}()
	// Two streams write to the writers at once, and often to one writer.
	var teeMu sync.Mutex
	tee := func(w io.Writer) io.Writer {
		if w == nil {
			return nil
		}
		return lockedWriter{&teeMu, w}
	}
	var end func()
	var started func(*sandbox.Child)
	if cfg.Watch != nil {
		started = func(c *sandbox.Child) { end = cfg.Watch(c) }
	}
	out := sandbox.RunProgramWatched(runCtx, sandbox.Config{
		Path: path, Args: cfg.Args, Dir: cfg.Dir, Env: cfg.Env, Cgroup: cfg.Cgroup,
		TotalTimeout: timeout, Grace: cfg.Grace, RecordFile: reg.f, Shim: cfg.Shim,
		StdoutTee: tee(cfg.Stdout), StderrTee: tee(cfg.Stderr),
	}, started)
	if end != nil {
		end()
	}
	close(stopSnaps)
	<-snapsDone
	recs, notes, err := d.finish(func(record.SharedIdentity) string { return cfg.Program })
	if err != nil {
		return nil, err
	}
	if out.Class == sandbox.ClassInvalidConfig || (out.Class == sandbox.ClassParentIO && out.PID == 0) {
		return nil, fmt.Errorf("running %s: %w", cfg.Program, out.Err)
	}
	forEnd := out.Class == sandbox.ClassCanceled && ctx.Err() == nil && errors.Is(context.Cause(runCtx), errForElapsed)
	row := programRow(cfg, out, forEnd)
	if len(recs) == 0 && out.PID != 0 {
		notes = append([]string{NoSpansNote(cfg.Program)}, notes...)
	}
	row.Notes = append(row.Notes, notes...)
	host, _ := os.Hostname()
	doc := &rundoc.Document{
		Schema: rundoc.SchemaVersion,
		Meta: rundoc.Meta{
			Date: time.Now().UTC().Format(time.RFC3339), Hostname: host,
			OS: runtime.GOOS, Arch: runtime.GOARCH, CPU: cpuModel(),
			BenchsupVersion: benchsupVersion(), Mode: rundoc.ModeRecord,
			Knobs:       rundoc.Knobs{TimeoutNs: int64(timeout)},
			Containment: string(out.Containment), ContainmentNote: out.ContainmentNote,
		},
		Rows:       []rundoc.Row{row},
		Recordings: recs,
	}
	doc.Meta.Environment.Policy = out.EnvPolicy
	doc.Meta.Environment.NamesHash = out.EnvNamesHash
	return doc, nil
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// programRow is the recorded program's row: its outcome in the sandbox's
// classes, except that an end at --for is ok, with a note saying how it
// ended.
func programRow(cfg RecordConfig, out sandbox.Outcome, forEnd bool) rundoc.Row {
	row := rundoc.Row{Package: cfg.Program, Name: filepath.Base(cfg.Program), Kind: rundoc.KindProgram, Outcome: outcomeOf(out.Class)}
	wall := out.Elapsed.Nanoseconds()
	row.ElapsedNs = &wall
	pr := rundoc.ProcessResult{Index: 0, PID: out.PID, Outcome: row.Outcome, WallNs: wall, Samples: []rundoc.Sample{}}
	switch {
	case forEnd:
		row.Outcome, pr.Outcome = rundoc.OutcomeOK, rundoc.OutcomeOK
		how := fmt.Sprintf("exited with status %d after SIGTERM", out.ExitCode)
		if out.Signal != "" {
			how = "ended by " + out.Signal
			if out.Signal == "SIGKILL" {
				how += " (SIGTERM was not heeded within the grace period)"
			}
		}
		row.Notes = append(row.Notes, fmt.Sprintf("ended at --for=%v as asked: %s", cfg.For, how))
	case out.Err != nil:
		msg := out.Err.Error()
		row.Error, pr.Error = &msg, &msg
	}
	if row.Outcome.IsError() {
		row.Output = tailOutput(out)
	}
	row.Processes = []rundoc.ProcessResult{pr}
	return row
}

// tailOutput is the end of what the program wrote to stderr (stdout
// when stderr is empty): the document's evidence of a failure.
func tailOutput(out sandbox.Outcome) string {
	b := out.Stderr.Tail
	if len(bytes.TrimSpace(b)) == 0 {
		b = out.Stdout.Tail
	}
	const max = 4 << 10
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return strings.TrimRight(string(b), "\n")
}

// programPath is the executable to run: program itself when it is a file,
// else the main package it names built with go build into tmp.
func programPath(ctx context.Context, program, dir, tmp string) (string, error) {
	if program == "" {
		return "", errors.New("no program to record")
	}
	p := program
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return filepath.Abs(p)
	}
	out := filepath.Join(tmp, "program")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, program)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("building %s: %s", program, msg)
	}
	return out, nil
}

// recordDrain gives a test binary's child a shared region and starts
// draining it; nil (and the child runs without one) when none can be
// made, which a warning says.
func (s *supervisor) recordDrain(cfg *sandbox.Config) *spanDrain {
	reg, err := newRecordRegion()
	if err != nil {
		s.regionOnce.Do(func() {
			fmt.Fprintf(s.cfg.Warnings, "recordings of tests and workloads are not collected: %v\n", err)
		})
		return nil
	}
	d, err := newSpanDrain(reg, record.Config{})
	if err != nil { // the zero Config is valid
		reg.close()
		return nil
	}
	cfg.RecordFile = reg.f
	go d.run()
	return d
}

// collectRecordings drains the child's region once it has exited and
// keeps its recordings. Their source is the package and the test whose
// goroutine started the recorder (example.com/p.TestServer), else the
// benchmark a benchmark's process ran, else the package alone.
func (s *supervisor) collectRecordings(d *spanDrain, req protocol.Request) {
	if d == nil {
		return
	}
	defer d.reg.close()
	pkg := req.Identity.Package
	recs, notes, err := d.finish(func(si record.SharedIdentity) string {
		switch {
		case si.Test != "":
			return pkg + "." + si.Test
		case req.Mode == protocol.ModeBenchmark && req.Identity.Name != "":
			return pkg + "." + req.Identity.Name
		}
		return pkg
	})
	for _, n := range notes {
		fmt.Fprintf(s.cfg.Warnings, "recordings of %s: %s\n", pkg, n)
	}
	if err != nil || len(recs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Several processes of one source (a benchmark's repetitions, a test
	// child started again after a crash) record the same identities: each
	// process's recording is its own, the later ones' source numbered #2, #3...
	taken := map[[2]string]bool{}
	for _, r := range s.recordings {
		taken[[2]string{r.Source, r.Identity}] = true
	}
	for _, r := range recs {
		src := r.Source
		for k := 2; taken[[2]string{src, r.Identity}]; k++ {
			src = fmt.Sprintf("%s #%d", r.Source, k)
		}
		r.Source = src
		taken[[2]string{src, r.Identity}] = true
		s.recordings = append(s.recordings, r)
	}
}

// takeRecordings returns what the children recorded, by source and
// identity.
func (s *supervisor) takeRecordings() []rundoc.Recording {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := s.recordings
	slices.SortStableFunc(recs, func(a, b rundoc.Recording) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Identity, b.Identity))
	})
	return recs
}
