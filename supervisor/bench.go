package supervisor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// benchIdentity is one measurable leaf and what its processes produced.
type benchIdentity struct {
	plan  *pkgPlan
	build *build // the test binary its processes run
	// variant is the --against revision whose build it measures, "" for
	// the working tree; partners are, for a working-tree identity, the
	// same identity in each revision (nil where a revision lacks it),
	// run in a group with it (see group).
	variant  string
	partners []*benchIdentity
	name     string
	fullName string // the whole name when name is its protocol.ShortName
	workload bool   // measure.Workload: windows, not samples
	windows  []rundoc.Window
	row      *rundoc.Row // set by discovery when the function failed there
	procs    []rundoc.ProcessResult
	stopped  bool   // skipped or failed: no further repetitions
	notRun   string // why a repetition was not started

	// variantOf is the --vs group the leaf is a member of, if any: the
	// group's reference runs the whole group's rounds (see group).
	variantOf *variantGroup

	// n is the calibrated N every process measures; calibration its runs.
	n           int64
	calibration []rundoc.Sample
	sampleTime  time.Duration // the target N was calibrated for
	fixedNs     int64         // the fixed cost per run that lengthened it, if one did
	setupNs     int64         // what one call spent outside its timer (top-level leaves)
	// calibratedAfter is how many leaves ran before it in each calibration
	// run (protocol.Listed.AfterSiblings).
	calibratedAfter int64

	metrics     []string          // the selected catalog metrics
	absent      map[string]string // metric -> why a process had no value
	countIters  int64
	countMethod string

	notes      []string          // what the worker said about its processes (protocol.Log)
	unmeasured map[string]string // b.ReportMetric unit -> why a sample had no value (NaN, ±Inf)

	// left is what the first of its processes to leave something running
	// left (sandbox.Outcome.Leftover, DrainNote), and leftCount how many
	// processes did.
	left      string
	leftCount int
	// limited is what the limits did to the first of its processes they
	// touched (sandbox.Resources.Note), and limitedCount to how many.
	limited      []string
	limitedCount int
}

// benchmarks discovers every package's leaves (see discoverAll; no
// measurement runs yet), groups them by --vs if asked (planVariants, kept
// in s.variants for the comparison), then measures them serially. The
// error is a --vs that cannot be planned: nothing is measured then.
func (s *supervisor) benchmarks(ctx context.Context, plans []*pkgPlan, revs []*revision) ([]rundoc.Row, []rundoc.Window, error) {
	var ids []*benchIdentity
	found := s.discoverAll(ctx, plans, true)
	for _, f := range found {
		ids = append(ids, f...)
	}
	all := ids
	if len(revs) > 0 {
		unpaired := s.discoverRevisions(ctx, ids, revs)
		for _, id := range ids {
			for _, p := range id.partners {
				if p != nil {
					all = append(all, p)
				}
			}
		}
		ids = append(ids, unpaired...)
		all = append(all, unpaired...)
	}
	if s.cfg.Vs != "" {
		var err error
		if s.variants, err = s.planVariants(found); err != nil {
			return nil, nil, err
		}
		// A group runs through its reference (see group).
		ids = slices.DeleteFunc(slices.Clone(ids), func(id *benchIdentity) bool {
			return id.variantOf != nil && id.variantOf.members[0] != id
		})
	}
	s.measure(ctx, ids)
	rows := make([]rundoc.Row, 0, len(all))
	var windows []rundoc.Window
	for _, id := range all {
		rows = append(rows, id.result())
	}
	// Windows in measurement order: repetition-major, like the children.
	for rep := 0; rep < s.cfg.Repetitions; rep++ {
		for _, id := range all {
			for _, w := range id.windows {
				if w.Process == rep {
					windows = append(windows, w)
				}
			}
		}
	}
	return rows, windows, nil
}

// discoverAll discovers the leaves of every built package's benchmark
// functions (see discover), packages and functions in parallel: at most
// -p discovery children at a time over all packages. The result
// is by package, each in source order.
func (s *supervisor) discoverAll(ctx context.Context, plans []*pkgPlan, calibrate bool) [][]*benchIdentity {
	found := make([][]*benchIdentity, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		if b := p.main(); b.binary != "" {
			wg.Add(1)
			go func() {
				defer wg.Done()
				found[i] = s.discover(ctx, p, b, calibrate)
				ev := rundoc.Event{Kind: rundoc.EventDiscovery, Package: p.pkg.ImportPath, Build: b.variant, Identities: []string{}}
				for _, id := range found[i] {
					if id.name != "" { // "": the package's discovery failed; its result says why
						ev.Identities = append(ev.Identities, cmp.Or(id.fullName, id.name))
					}
				}
				s.emit(ev)
			}()
		}
	}
	wg.Wait()
	return found
}

// discover lists the leaves of p's benchmark functions, each top-level
// function in children of its own, with its own deadline: one function's
// time, crash or late panic is never charged to another, and each lists
// its leaves in a process where no neighbour ran first (an os.Chdir, a
// changed global). A function whose child dies becomes that function's
// error row; every other function is still discovered. The result is in
// source order.
//
// The first selected function's child goes first: once it has reached its
// function, the package's children evidently start (its TestMain and init
// ran), and the other functions' children start alongside it. If it ends
// before reaching its function, the package cannot be discovered at all:
// that is one package row, and no further child is started.
//
// With calibrate, every benchmark leaf is also calibrated there (see
// listed); listing alone does not need it.
func (s *supervisor) discover(ctx context.Context, p *pkgPlan, b *build, calibrate bool) []*benchIdentity {
	funcs := p.benchmarks()
	var sel []int // the functions the -bench pattern selects
	patterns := make([]string, len(funcs))
	for i, fn := range funcs {
		if slices.Index(funcs, fn) < i {
			continue // the same name in the external test package: the pattern selects both at once
		}
		if pat, ok := onlyFunction(s.cfg.Bench, fn); ok && s.cfg.Shard.Owns(p.pkg.ImportPath, fn) {
			sel, patterns[i] = append(sel, i), pat
		}
	}
	if len(sel) == 0 {
		return nil
	}
	found := make([][]*benchIdentity, len(funcs))
	first := sel[0]
	reached := make(chan struct{})
	var once sync.Once
	var firstFailed *sandbox.Outcome
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		found[first], firstFailed = s.discoverFunction(ctx, p, b, funcs, first, patterns[first], calibrate,
			func() { once.Do(func() { close(reached) }) })
	}()
	select {
	case <-reached: // it started, so firstFailed stays nil
	case <-firstDone:
	}
	if failed := func() *sandbox.Outcome {
		select {
		case <-firstDone:
			return firstFailed
		default:
			return nil
		}
	}(); failed != nil {
		row := errorRow(p.pkg.ImportPath, "", "package", *failed)
		row.Error = ptr("discovery failed before any benchmark function started: " + *row.Error)
		return []*benchIdentity{{plan: p, build: b, row: &row}}
	}
	var wg sync.WaitGroup
	for _, i := range sel[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var failed *sandbox.Outcome
			found[i], failed = s.discoverFunction(ctx, p, b, funcs, i, patterns[i], calibrate, nil)
			if failed != nil { // it never reached its function, though the first one did
				row := errorRow(p.pkg.ImportPath, funcs[i], "benchmark", *failed)
				row.Error = ptr("before the function started: " + *row.Error)
				if failed.Class == sandbox.ClassCanceled {
					// The user ended the run before it reached this
					// function: not run, as if never spawned.
					row = rundoc.Row{Package: p.pkg.ImportPath, Name: funcs[i], Kind: "benchmark",
						Outcome: rundoc.OutcomeNotRun, Error: ptr(interruptedBeforeStart)}
				}
				found[i] = []*benchIdentity{{plan: p, build: b, name: funcs[i], row: &row}}
			}
		}()
	}
	wg.Wait()
	<-firstDone
	var ids []*benchIdentity
	for _, f := range found {
		ids = append(ids, f...)
	}
	return ids
}

// discoverFunction lists (and with calibrate, calibrates) the leaves of
// funcs[i], the only function the -bench pattern given to its children
// selects. Its first child starts right after funcs[i-1] in the registry;
// reached, if set, is called once that child has reached funcs[i].
//
// The worker lists a function's leaves before it calibrates them, one at a
// time: a child that dies while calibrating a leaf is charged to that leaf
// alone, and the function is resumed in a new child, skipping the leaves
// already done. A child that dies at any other time after reaching the
// function (in its listing run, or after it, from a goroutine it left) is
// charged to the function: nothing else ran there. The function's leaves
// are then one error row.
//
// The Outcome is non-nil only when the first child ended before it
// reached the function (TestMain, an init, the startup): nothing of the
// function is known.
func (s *supervisor) discoverFunction(ctx context.Context, p *pkgPlan, b *build, funcs []string, i int, pattern string,
	calibrate bool, reached func()) ([]*benchIdentity, *sandbox.Outcome) {
	fn := funcs[i]
	after := ""
	if i > 0 {
		after = funcs[i-1]
	}
	target := int64(0)
	if calibrate && s.cfg.Iterations == 0 { // a fixed N (-benchtime=Nx) needs no calibration
		target = int64(s.cfg.SampleTime)
	}
	var ids []*benchIdentity
	byName := map[string]*benchIdentity{}
	var skip []string   // leaves already calibrated or charged, when resumed
	left := ""          // what a child of the function left running
	var limits []string // the resource limits the function changed, as the worker said
	for attempt := 0; ctx.Err() == nil; attempt++ {
		started, past := false, false // reached fn; went past it
		leaf := int64(-1)
		var leaves []string // as listed, in the order calibration indexes them
		req := protocol.Request{Mode: protocol.ModeDiscover, Identity: protocol.Identity{Package: p.pkg.ImportPath},
			Config: protocol.RequestConfig{Bench: pattern, After: after, MinSampleNs: target, Skip: skip, SkipPattern: s.cfg.Skip}}
		s.slots() <- struct{}{}
		who := rundoc.Event{Package: p.pkg.ImportPath, Name: fn, Build: b.variant}
		s.processStart(who, req)
		out := s.run(ctx, s.childConfig(p, b), req, func(m protocol.Message) {
			switch m := m.(type) {
			case protocol.Progress:
				switch {
				case m.Phase == protocol.PhaseDiscovery && !started:
					started = true
					if reached != nil {
						reached()
					}
				case m.Phase == protocol.PhaseDiscovery: // a later function, which the pattern does not select
					past, leaf = true, -1
				case m.Phase == protocol.PhaseCalibration && started && !past:
					leaf = m.Done
				}
			case protocol.Log:
				// A Log while a leaf calibrates is about that leaf (the
				// worker ran it after its siblings); one from the listing
				// run is about no one leaf.
				if started && !past && leaf >= 0 && leaf < int64(len(leaves)) {
					if id := byName[leaves[leaf]]; id != nil && !slices.Contains(id.notes, m.Text) {
						id.notes = append(id.notes, m.Text)
					}
				} else if started && !past && m.Limit != "" && !slices.Contains(limits, "in discovery: "+m.Text) {
					limits = append(limits, "in discovery: "+m.Text) // the function's own (docs/design.md#containment)
				}
			case protocol.Listing:
				if !started || past {
					return
				}
				for _, l := range m.Identities {
					if l.Iterations == 0 && len(l.Calibration) == 0 && l.Problem == "" && l.Skipped == "" {
						leaves = append(leaves, l.Name)
					}
					if id, ok := byName[l.Name]; ok {
						s.update(id, l)
						continue
					}
					id := s.listed(p, l)
					id.build = b
					byName[l.Name] = id
					ids = append(ids, id)
				}
			}
		})
		<-s.slots()
		s.processEnd(who, req, out)
		if note := leftNote(out); note != "" {
			left = "in discovery: " + note
		}
		switch {
		case out.Class == sandbox.ClassSuccess:
			noteLeft(ids, left)
			noteEnded(ids, limits)
			// What the limits did to the child that listed and
			// calibrated them is theirs, though it ended well; a child
			// that did not has an error row that says so.
			for _, n := range resourceNotes(out) {
				noteLeft(ids, "in discovery: "+n)
			}
			return ids, nil
		case !started && attempt == 0:
			return nil, &out
		case started && leaf >= 0 && leaf < int64(len(leaves)):
			// The child died calibrating one leaf: that leaf's row, and
			// the function again from the next leaf on.
			id := byName[leaves[leaf]]
			row := errorRow(p.pkg.ImportPath, id.name, id.kind(), out)
			row.Error = ptr("while calibrating: " + *row.Error)
			id.row = &row
			skip = append(skip[:0], leaves[:leaf+1]...)
			continue
		}
		// Anything else ends the function: its leaves become one row.
		row := errorRow(p.pkg.ImportPath, fn, "benchmark", out)
		if past {
			row.Error = ptr("after the function returned: " + *row.Error)
		}
		ids = []*benchIdentity{{plan: p, build: b, name: fn, row: &row}}
		noteLeft(ids, left)
		noteEnded(ids, limits)
		return ids, nil
	}
	noteLeft(ids, left)
	noteEnded(ids, limits)
	return ids, nil
}

// noteEnded adds notes to the rows of the identities of ids that ended in
// discovery: a measured one's processes say the same of themselves.
func noteEnded(ids []*benchIdentity, notes []string) {
	for _, id := range ids {
		if id.row != nil {
			id.row.Notes = append(id.row.Notes, notes...)
		}
	}
}

// noteLeft adds the notes that are not empty to the notes of ids (or, for
// an identity that ended in discovery, of its row).
func noteLeft(ids []*benchIdentity, notes ...string) {
	for _, note := range notes {
		if note == "" {
			continue
		}
		for _, id := range ids {
			if id.row != nil {
				id.row.Notes = append(id.row.Notes, note)
			} else {
				id.notes = append(id.notes, note)
			}
		}
	}
}

// slots is the semaphore of discovery children: -p of them at a
// time over the whole run.
func (s *supervisor) slots() chan struct{} {
	s.slotsOnce.Do(func() {
		n := s.cfg.Parallel
		if n <= 0 {
			n = runtime.NumCPU()
		}
		s.discoverySlots = make(chan struct{}, n)
	})
	return s.discoverySlots
}

// onlyFunction returns the -test.bench pattern that selects what pattern
// selects under the top-level function fn and nothing under any other
// function, and whether pattern selects fn at all. It splits pattern as
// testing does (alternatives at a top-level "|", levels at a top-level
// "/", brackets and parentheses respected), keeps the alternatives whose
// first level matches fn, and anchors that level to fn exactly. Like
// testing, it matches that level after rewriting it as names are (a space
// becomes "_"); the deeper levels are the child's testing's to rewrite.
// Which leaves under fn are selected is decided in the child by the same
// rules (worker's benchMatcher).
func onlyFunction(pattern, fn string) (string, bool) {
	if pattern == "" {
		pattern = "."
	}
	exact := "^" + regexp.QuoteMeta(fn) + "$"
	var alts []string
	for _, levels := range protocol.SplitBenchPattern(pattern) {
		if ok, err := regexp.MatchString(protocol.RewritePatternLevel(levels[0]), fn); err != nil || !ok {
			continue
		}
		alts = append(alts, strings.Join(append([]string{exact}, levels[1:]...), "/"))
	}
	return strings.Join(alts, "|"), len(alts) > 0
}

// update applies a leaf's calibration, listed after the leaf itself.
func (s *supervisor) update(id *benchIdentity, l protocol.Listed) {
	if l.Iterations == 0 && len(l.Calibration) == 0 && l.Problem == "" && l.Skipped == "" {
		return // listed again (a resumed function), nothing new
	}
	fresh := s.listed(id.plan, l)
	id.n, id.calibration, id.row, id.sampleTime, id.fixedNs, id.setupNs = fresh.n, fresh.calibration, fresh.row, fresh.sampleTime, fresh.fixedNs, fresh.setupNs
	id.calibratedAfter = fresh.calibratedAfter
}

// listed makes the identity of one discovered leaf: calibrated (its N and
// the runs it came from), or already ended by calibration (a failure or a
// skip, which no process needs to repeat).
func (s *supervisor) listed(p *pkgPlan, l protocol.Listed) *benchIdentity {
	id := &benchIdentity{plan: p, name: l.Name, fullName: l.FullName, metrics: s.cfg.Metrics, workload: l.Kind == protocol.ListedWorkload,
		n: l.Iterations, calibration: samples(l.Calibration), sampleTime: s.cfg.SampleTime, fixedNs: l.FixedNs, setupNs: l.SetupNs,
		calibratedAfter: l.AfterSiblings}
	if s.cfg.Iterations > 0 && !id.workload {
		id.n = s.cfg.Iterations // go test's -benchtime=Nx: every sample runs exactly N
	}
	if l.SampleNs > 0 {
		id.sampleTime = time.Duration(l.SampleNs)
	}
	switch {
	case l.Problem != "":
		id.row = &rundoc.Row{Package: p.pkg.ImportPath, Name: l.Name, Kind: id.kind(), Outcome: outcomeOf(sandbox.ClassFailure),
			Error: ptr(firstLine(l.Problem)), Processes: []rundoc.ProcessResult{}}
		if strings.Contains(strings.TrimSpace(l.Problem), "\n") {
			id.row.Output = l.Problem // the rest of what it said
		}
	case l.Skipped != "":
		id.row = &rundoc.Row{Package: p.pkg.ImportPath, Name: l.Name, Kind: id.kind(), Outcome: outcomeOf(sandbox.ClassSkipped),
			Skipped: ptr(l.Skipped), Processes: []rundoc.ProcessResult{}}
	}
	return id
}

// job is one child of a schedule: repetition rep of an identity, run with
// the identity's build.
type job struct {
	id  *benchIdentity
	rep int
}

// interleave is the schedule of ids over reps processes each: repetition k
// of every identity before repetition k+1 of any, so that slow drift of
// the machine (thermal state, background load) spreads over every
// identity instead of biasing whichever ran last. Identities that already
// ended (in discovery or calibration) get no job.
//
// An identity with partners (other builds of it, --against) runs as a
// group: its builds back to back, in an order rotated every repetition.
// So does a --vs group: its members back to back, one round per
// repetition, in the schedule's order; ids then holds only the group's
// reference, which stands for the group. A round is never split: an
// interference retake or pause happens inside one process, and the
// quiescence preflight runs before the first.
func interleave(ids []*benchIdentity, reps int) []job {
	rounds := reps
	for _, id := range ids {
		if g := id.variantOf; g != nil {
			rounds = max(rounds, len(g.schedule))
		}
	}
	var jobs []job
	for rep := 0; rep < rounds; rep++ {
		for _, id := range ids {
			if id.variantOf == nil && rep >= reps {
				continue // a --vs group may run more rounds than the repetitions of the rest
			}
			for _, b := range id.group(rep) {
				if b.row == nil {
					jobs = append(jobs, job{b, rep})
				}
			}
		}
	}
	return jobs
}

// measure executes the schedule, one child at a time. An identity that
// fails or skips gets no further process; with --fail-fast nothing starts
// after the first failure; a canceled run starts nothing more.
func (s *supervisor) measure(ctx context.Context, ids []*benchIdentity) {
	jobs := interleave(ids, s.cfg.Repetitions)
	failed := false
	for k, j := range jobs {
		id, rep := j.id, j.rep
		switch {
		case id.stopped:
			continue
		case ctx.Err() != nil:
			id.notRun = interruptedBeforeStart
			continue
		case failed && s.cfg.FailFast:
			id.notRun = "--fail-fast stopped the run after an earlier failure"
			continue
		}
		s.cfg.Progress(id.plan.pkg.ImportPath+"."+id.name, k+1, len(jobs))
		if s.runJob(ctx, id, rep) {
			failed = true
		}
	}
}

// runJob runs one process of id and records it; true when it failed.
func (s *supervisor) runJob(ctx context.Context, id *benchIdentity, rep int) bool {
	var result *protocol.Result
	var windows []rundoc.Window
	mode := protocol.ModeBenchmark
	if id.workload {
		mode = protocol.ModeWorkload
	}
	req := protocol.Request{
		Mode:       mode,
		Identity:   protocol.Identity{Package: id.plan.pkg.ImportPath, Name: id.name},
		Repetition: rep,
		Seed:       seed(id.plan.pkg.ImportPath, id.name, rep),
		FullName:   id.fullName,
		Config: protocol.RequestConfig{
			MinSampleNs:   int64(s.cfg.SampleTime),
			Iterations:    id.n, // calibrated once, in discovery
			SkipProbe:     id.skipProbe(),
			Samples:       s.cfg.Samples,
			Metrics:       s.cfg.Metrics,
			PerfIters:     s.cfg.PerfIters,
			PerfBatch:     s.cfg.PerfBatch,
			PerfScaled:    s.cfg.PerfScaled,
			WindowMetrics: s.cfg.WindowMetrics, // read at workload windows' edges
			SkipPattern:   s.cfg.Skip,          // siblings run before a leaf skip as discovery did
		},
	}
	if !id.workload {
		req.Config.Interference = s.cfg.Interference.request(s.cpus)
		// The pattern discovery ran the function under: a leaf that never
		// runs alone runs after the leaves it selects before it
		// (docs/design.md#leaves-that-need-their-siblings).
		req.Config.Bench, _ = onlyFunction(s.cfg.Bench, analysis.FunctionOf(cmp.Or(id.fullName, id.name)))
	}
	who := rundoc.Event{Package: id.plan.pkg.ImportPath, Name: cmp.Or(id.fullName, id.name), Build: id.variant, Process: &rep}
	s.processStart(who, req)
	out := s.run(ctx, s.childConfig(id.plan, id.build), req, func(m protocol.Message) {
		switch m := m.(type) {
		case protocol.Result:
			result = &m
		case protocol.Window:
			windows = append(windows, window(id.plan.pkg.ImportPath, id.name, rep, m))
		case protocol.Log:
			if !slices.Contains(id.notes, m.Text) {
				id.notes = append(id.notes, m.Text)
			}
		}
	})
	s.processEnd(who, req, out)
	id.windows = append(id.windows, windows...)
	id.leftBehind(out)
	proc := rundoc.ProcessResult{Index: rep, PID: out.PID, Outcome: outcomeOf(out.Class), WallNs: int64(out.Elapsed)}
	proc.PeakMemoryBytes, _ = peakMemory(out)
	if notes := resourceNotes(out); len(notes) > 0 {
		if id.limitedCount == 0 {
			id.limited = notes
		}
		id.limitedCount++
	}
	if out.Hello != nil {
		proc.StartupNs = ptr(int64(out.StartupDuration))
	}
	if out.Err != nil {
		proc.Error = ptr(describe(out))
	}
	if out.Skip != nil {
		proc.Error = ptr(out.Skip.Reason)
	}
	if result != nil && out.Class == sandbox.ClassSuccess {
		proc.AfterSiblings = result.AfterSiblings
		proc.Samples = samples(result.Samples)
		watched(proc.Samples, result.Samples)
		proc.Interference, proc.Retaken = processInterference(result)
		if note := droppedExtraNote(*result); note != "" && !slices.Contains(id.notes, note) {
			id.notes = append(id.notes, note)
		}
		for _, s := range result.Samples {
			for _, e := range s.Extra {
				if e.Unmeasured != "" {
					if id.unmeasured == nil {
						id.unmeasured = map[string]string{}
					}
					id.unmeasured[e.Unit] = e.Unmeasured
				}
			}
		}
		if s.cfg.Iterations == 0 { // a fixed N (-benchtime=Nx) has no time to fall short of
			markShort(proc.Samples, id.sampleTime)
			markShort(proc.Retaken, id.sampleTime)
		}
		addThroughput(proc.Samples, result.BytesPerOp)
		addThroughput(proc.Retaken, result.BytesPerOp) // shown as the kept ones are, in no statistic
		if st, ok := analysis.NsPerOp(proc.Samples); ok {
			proc.NsPerOp = st
		}
		id.counted(&proc, result)
	}
	id.procs = append(id.procs, proc)
	switch out.Class {
	case sandbox.ClassSuccess:
		return false
	case sandbox.ClassSkipped:
		id.stopped = true
		return false
	}
	id.stopped = true
	if id.row == nil {
		row := errorRow(id.plan.pkg.ImportPath, id.name, id.kind(), out)
		id.row = &row
	}
	return true
}

// leftBehind records what a child of id left running when it exited, or
// left holding its output past the drain window.
func (id *benchIdentity) leftBehind(out sandbox.Outcome) {
	note := leftNote(out)
	if note == "" {
		return
	}
	if id.leftCount == 0 {
		id.left = note
	}
	id.leftCount++
}

// leftNote is the sentence a row's notes get for what a child left
// running (killed) or holding its output (escaped); "" when nothing.
func leftNote(out sandbox.Outcome) string {
	var parts []string
	for _, p := range []string{out.Leftover, out.DrainNote} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

// seed derives a stable per-process seed from the identity and repetition.
func seed(pkg, name string, rep int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(pkg + "\x00" + name))
	return h.Sum64() + uint64(rep)
}

// markShort flags the samples shorter than half the sample target.
func markShort(samples []rundoc.Sample, target time.Duration) {
	for i := range samples {
		samples[i].Short = time.Duration(samples[i].ElapsedNs) < target/2
	}
}

// addThroughput derives MB/s from exact totals and the b.SetBytes value,
// as testing computes it (bytes per iteration times N over the elapsed
// time, in 10^6 bytes per second) but unrounded; samples rebuilt from the
// printed line keep the MB/s testing printed.
func addThroughput(samples []rundoc.Sample, bytesPerOp int64) {
	if bytesPerOp <= 0 {
		return
	}
	for i := range samples {
		s := &samples[i]
		if !s.Exact || s.ElapsedNs <= 0 {
			continue
		}
		if s.Extra == nil {
			s.Extra = map[string]float64{}
		}
		s.Extra["MB/s"] = float64(bytesPerOp) * float64(s.Iterations) / float64(s.ElapsedNs) * 1e3
	}
}

// droppedExtraNote is the note a row gets when a process's samples left
// custom metrics out, beyond the protocol's bound; "" when none.
func droppedExtraNote(r protocol.Result) string {
	if r.ExtraDropped <= 0 {
		return ""
	}
	what, were := "custom metrics", "were"
	if r.ExtraDropped == 1 {
		what, were = "custom metric", "was"
	}
	s := fmt.Sprintf("%d %s (b.ReportMetric units) beyond the bound of %d per sample %s dropped", r.ExtraDropped, what, protocol.MaxExtraPerSample, were)
	kept := 0
	for _, smp := range r.Samples {
		kept = max(kept, len(smp.Extra))
	}
	if kept < protocol.MaxExtraPerSample {
		// The worker kept fewer, for the Result to fit one frame.
		s = fmt.Sprintf("%d %s (b.ReportMetric units) %s dropped, beyond the %d per sample that one result of %d samples carries",
			r.ExtraDropped, what, were, kept, len(r.Samples))
	}
	if len(r.ExtraDroppedUnits) > 0 {
		s += ": " + strings.Join(r.ExtraDroppedUnits, ", ")
		if more := r.ExtraDropped - int64(len(r.ExtraDroppedUnits)); more > 0 {
			s += fmt.Sprintf(" and %d more", more)
		}
	}
	return s
}

func samples(in []protocol.Sample) []rundoc.Sample {
	if len(in) == 0 {
		return nil
	}
	out := make([]rundoc.Sample, len(in))
	for i, s := range in {
		out[i] = rundoc.Sample{Iterations: s.Iterations, ElapsedNs: s.ElapsedNs, AllocBytes: s.AllocBytes, Allocs: s.Allocs, Exact: s.Exact}
		if len(s.Extra) > 0 {
			out[i].Extra = make(map[string]float64, len(s.Extra))
			for _, e := range s.Extra {
				if e.Unmeasured == "" { // no number: the row's absences say why
					out[i].Extra[e.Unit] = e.Value
				}
			}
		}
	}
	return out
}

// result assembles the identity's row: the first failure decides the
// outcome, and whatever processes produced samples are summarized.
// interruptedBeforeStart is the error of a not-run row a signal left
// unstarted.
const interruptedBeforeStart = "the run was interrupted before it started"

func (id *benchIdentity) result() rundoc.Row {
	var row rundoc.Row
	switch {
	case id.row != nil:
		row = *id.row
	case len(id.procs) > 0 && id.procs[0].Outcome == outcomeOf(sandbox.ClassSkipped):
		row = rundoc.Row{Package: id.plan.pkg.ImportPath, Name: id.name, Kind: id.kind(),
			Outcome: outcomeOf(sandbox.ClassSkipped), Skipped: id.procs[0].Error}
	case len(id.procs) == 0:
		row = rundoc.Row{Package: id.plan.pkg.ImportPath, Name: id.name, Kind: id.kind(),
			Outcome: rundoc.OutcomeNotRun, Error: ptr(id.notRun)}
	default:
		row = rundoc.Row{Package: id.plan.pkg.ImportPath, Name: id.name, Kind: id.kind(), Outcome: outcomeOf(sandbox.ClassSuccess)}
	}
	row.Build = id.variant
	row.Processes = id.procs
	if row.Processes == nil {
		row.Processes = []rundoc.ProcessResult{}
	}
	if len(id.calibration) > 0 {
		row.Calibration = &rundoc.Calibration{N: id.n, TargetNs: int64(id.sampleTime), FixedNs: id.fixedNs,
			SetupNs: id.setupNs, ProbeSkipped: id.skipProbe(), AfterSiblings: id.calibratedAfter, Runs: id.calibration}
	}
	row.Summary = analysis.Summarize(id.procs)
	row.Interference = rundoc.SumInterference(id.procs)
	if id.fullName != "" {
		row.Name = id.fullName // the JSON keeps the whole name; the table shortens it
	}
	own := row.Notes // an error row's own (what the limits did to its child)
	row.Notes = id.notes
	limited := id.limited
	if id.limitedCount > 1 {
		limited = slices.Clone(limited)
		limited[len(limited)-1] += fmt.Sprintf(" (in the first of the %d processes it happened to)", id.limitedCount)
	}
	for _, n := range append(slices.Clip(own), limited...) {
		if !slices.Contains(row.Notes, n) {
			row.Notes = append(slices.Clip(row.Notes), n)
		}
	}
	if note := row.Interference.Note(); note != "" {
		row.Notes = append(slices.Clip(row.Notes), note)
	}
	if id.left != "" {
		note := id.left
		if id.leftCount > 1 {
			note += fmt.Sprintf(" (%d of its processes left something running)", id.leftCount)
		}
		row.Notes = append(slices.Clip(row.Notes), note)
	}
	if row.Summary != nil {
		for _, unit := range slices.Sorted(maps.Keys(id.unmeasured)) {
			if row.Summary.Metrics[unit] != nil {
				continue
			}
			if row.Summary.Metrics == nil {
				row.Summary.Metrics = map[string]*float64{}
			}
			row.Summary.Metrics[unit] = nil // an em dash in its column, with the reason
			row.Absences = append(row.Absences, rundoc.MetricAbsence{Metric: unit, Reason: id.unmeasured[unit]})
		}
	}
	if row.Summary != nil && len(id.metrics) > 0 {
		id.summarizeCounted(&row)
	}
	return row
}

// skipProbe says whether the identity's setup is expensive enough (a
// quarter of a sample or more) that testing's probe run before each sample
// should be skipped: it would run the setup twice per process for the
// warm-up the probe gives.
func (id *benchIdentity) skipProbe() bool {
	return id.setupNs > 0 && time.Duration(id.setupNs) >= id.sampleTime/4
}

// kind is the row kind of the identity.
func (id *benchIdentity) kind() rundoc.Kind {
	if id.workload {
		return rundoc.KindWorkload
	}
	return "benchmark"
}

// window converts one measured window for the document.
func window(pkg, workload string, process int, m protocol.Window) rundoc.Window {
	w := rundoc.Window{Package: pkg, Workload: workload, Name: m.Name, Process: process, Reps: m.Reps,
		WallNs: m.WallNs, Scope: m.Scope, OnCPUUserNs: m.OnCPUUserNs, OnCPUKernelNs: m.OnCPUKernelNs,
		OffCPURunqueueNs: m.OffCPURunqueueNs, OffCPUDiskNs: m.OffCPUDiskNs, OffCPUOtherNs: m.OffCPUOtherNs,
		OtherThreadsCPUNs: m.OtherThreadsCPUNs, Totals: map[string]float64{}, Note: m.Note}
	for _, t := range m.Totals {
		w.Totals[t.Name] = t.Value
	}
	if p := m.PSI; p != nil {
		w.PSI = &rundoc.WindowPSI{Scope: "system", IOSomeNs: p.IOSomeNs, IOFullNs: p.IOFullNs,
			MemSomeNs: p.MemSomeNs, MemFullNs: p.MemFullNs, CPUSomeNs: p.CPUSomeNs}
	}
	if r := m.Regime; r != nil {
		w.Regime = &rundoc.WindowRegime{Requested: r.Requested, Effective: r.Effective,
			ResidentBefore: r.ResidentBefore, ResidentAfter: r.ResidentAfter, TotalBytes: r.TotalBytes, Note: r.Note}
	}
	return w
}

// counted records a process's counting-pass cells and absences.
func (id *benchIdentity) counted(proc *rundoc.ProcessResult, r *protocol.Result) {
	if r.CountIterations > 0 {
		id.countIters, id.countMethod = r.CountIterations, r.CountMethod
	}
	for _, c := range r.Metrics {
		if proc.Counted == nil {
			proc.Counted = map[string]float64{}
		}
		proc.Counted[c.Name] = c.Value
		if c.Estimated {
			proc.Estimated = append(proc.Estimated, c.Name)
		}
		if c.Uncertainty > 0 {
			if proc.Uncertainty == nil {
				proc.Uncertainty = map[string]float64{}
			}
			proc.Uncertainty[c.Name] = c.Uncertainty
		}
		if c.Note != "" {
			if proc.CountedNotes == nil {
				proc.CountedNotes = map[string]string{}
			}
			proc.CountedNotes[c.Name] = c.Note
		}
	}
	if id.absent == nil {
		id.absent = map[string]string{}
	}
	for _, a := range r.Absences {
		if _, ok := id.absent[a.Name]; !ok {
			id.absent[a.Name] = a.Reason
		}
	}
}

// summarizeCounted sets the row's counted medians over the processes that
// produced samples; a metric some of them lack is nil, with the reason.
func (id *benchIdentity) summarizeCounted(row *rundoc.Row) {
	sum := row.Summary
	sum.Counted = map[string]*float64{}
	for _, m := range id.metrics {
		var vals, uncs []float64
		estimated := false
		for _, p := range row.Processes {
			if p.NsPerOp == nil {
				continue
			}
			v, ok := p.Counted[m]
			if !ok {
				vals = nil
				break
			}
			vals = append(vals, v)
			uncs = append(uncs, p.Uncertainty[m])
			estimated = estimated || slices.Contains(p.Estimated, m)
		}
		v, u, ok := stats.CountedAcross(vals, uncs)
		if !ok {
			sum.Counted[m] = nil
			why := id.absent[m]
			if why == "" {
				why = "not counted in every process"
			}
			row.Absences = append(row.Absences, rundoc.MetricAbsence{Metric: m, Reason: why})
			continue
		}
		sum.Counted[m] = ptr(v)
		if u > 0 {
			if sum.Uncertainty == nil {
				sum.Uncertainty = map[string]float64{}
			}
			sum.Uncertainty[m] = u
		}
		if estimated {
			sum.EstimatedMetrics = append(sum.EstimatedMetrics, m)
		}
	}
	if id.countIters > 0 {
		row.CountIterations = ptr(id.countIters)
		row.CountMethod = id.countMethod
	}
}

// errorRow describes an identity (or a package, when name is "") whose
// child ended badly. A child that timed out and printed its goroutine
// stacks when asked says where in pkg it was.
func errorRow(pkg, name string, kind rundoc.Kind, out sandbox.Outcome) rundoc.Row {
	msg := describe(out)
	if where := hungAt(out.Stacks.Head, pkg); where != "" {
		msg += "; " + where
	}
	return rundoc.Row{Package: pkg, Name: name, Kind: kind, Outcome: outcomeOf(out.Class),
		Error: ptr(msg), Output: output(out), Processes: []rundoc.ProcessResult{}, Notes: resourceNotes(out)}
}

// hungAt says where a timed-out child was, from the head of the goroutine
// dump it printed (sandbox.Outcome.Stacks): the first goroutine with a frame
// in pkg or its external test package, other than the injected worker's
// entry point, with its state and its topmost such frame, as "goroutine 7
// [sync.Mutex.Lock] at example.com/p.BenchmarkX (x_test.go:12)". It is ""
// when no goroutine was in pkg.
func hungAt(stacks []byte, pkg string) string {
	if pkg == "" {
		return ""
	}
	lines := strings.Split(string(stacks), "\n")
	header := ""
	for i, line := range lines {
		if strings.HasPrefix(line, "goroutine ") && strings.HasSuffix(line, ":") {
			header = line // "goroutine 7 gp=0xc000 m=nil [sync.Mutex.Lock]:"
			continue
		}
		if header == "" || !(strings.HasPrefix(line, pkg+".") || strings.HasPrefix(line, pkg+"_test.")) ||
			strings.Contains(line, ".TestBenchsupWorker(") { // the worker's goroutine, waiting on the benchmark's
			continue
		}
		fn := line
		if j := strings.LastIndexByte(fn, '('); j > 0 {
			fn = fn[:j] // the arguments
		}
		id := strings.Join(strings.Fields(header)[:2], " ")
		if j, k := strings.IndexByte(header, '['), strings.LastIndexByte(header, ']'); j >= 0 && k > j {
			id += " " + header[j:k+1]
		}
		where := id + " at " + fn
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			if f := strings.Fields(lines[i+1]); len(f) > 0 {
				where += " (" + f[0][strings.LastIndexByte(f[0], '/')+1:] + ")"
			}
		}
		return where
	}
	return ""
}

// describe is the one-line account of a child's outcome. It is built from
// the outcome's typed error: the row already names the class, so the
// sandbox's own words are taken without its prefix (sandbox.Detailer).
func describe(out sandbox.Outcome) string {
	msg := ""
	switch {
	case out.Failure != nil:
		msg = firstLine(out.Failure.Message)
	case out.Err != nil:
		var ve *protocol.VersionError
		var te *sandbox.TimeoutError
		var ce *sandbox.CanceledError
		var ioe *sandbox.IOError
		var nde *sandbox.NoDoneError
		// The sandbox's own words, when out.Err is its error as it is.
		d, own := out.Err.(sandbox.Detailer)
		switch {
		case errors.As(out.Err, &ve):
			msg = versionMismatch(ve)
		case errors.As(out.Err, &nde):
			// A sandbox error that is a protocol violation whose cause is
			// the code, not the wire: in its own words.
			msg = firstLine(nde.Detail())
		case errors.Is(out.Err, protocol.ErrMalformed):
			msg = "the child sent what benchsup's protocol does not allow (a benchsup bug, or code under test " +
				"that wrote to the protocol's descriptor): " + malformedDetail(out.Err)
		case errors.As(out.Err, &ioe):
			msg = "benchsup's own side of the child failed (" + ioe.Op + "): " + ioe.Err.Error()
		case errors.As(out.Err, &te) && te.Phase == sandbox.PhaseStartup:
			// Test mode has no startup deadline of its own: --timeout
			// bounds the child's start there.
			msg = fmt.Sprintf("startup timeout: the child had not started benchsup's worker after %v (--startup-timeout with --bench; --timeout in test mode): "+
				"it was still in the package's initialization or its TestMain", te.Limit)
		case errors.As(out.Err, &te):
			msg = fmt.Sprintf("execution timeout: the child was still running after %v (--timeout bounds each child)", te.Limit)
		case errors.As(out.Err, &ce):
			// The context's cause says more than "context canceled" only
			// when the canceler gave one.
			msg = "the run was canceled while this child ran"
			if ce.Cause != nil && ce.Cause != context.Canceled {
				msg += " (" + ce.Cause.Error() + ")"
			}
		case errors.Is(out.Err, sandbox.ErrCanceled):
			msg = "the run was canceled while this child ran"
		case own:
			msg = firstLine(d.Detail())
		default:
			msg = firstLine(out.Err.Error())
		}
	}
	// A crash's own words are on stderr: the panic or fatal error line.
	if out.Class == sandbox.ClassExit || out.Class == sandbox.ClassSignal {
		for _, line := range strings.Split(string(out.Stderr.Tail), "\n") {
			if strings.HasPrefix(line, "runtime: failed to create new OS thread") && strings.Contains(line, "errno=11") {
				// EAGAIN: the host's limit on tasks (a pids cgroup, ulimit
				// -u, threads-max) ended the child, wherever it was.
				return "the host refused the child a thread, not the code under test: " + strings.TrimSpace(line) +
					": resource temporarily unavailable (a pids cgroup's pids.max, ulimit -u or threads-max); " + msg
			}
		}
		for _, line := range strings.Split(string(out.Stderr.Tail), "\n") {
			if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
				msg += ": " + strings.TrimSpace(line)
				break
			}
		}
	}
	return msg
}

// malformedDetail is a protocol violation's own words, without the
// "malformed protocol" the sentence around it already says
// (protocol.MalformedError.Detail); any other error as it reads.
func malformedDetail(err error) string {
	if me, ok := errors.AsType[*protocol.MalformedError](err); ok {
		return firstLine(me.Detail())
	}
	return firstLine(err.Error())
}

// versionMismatch says why a child's worker and this supervisor cannot talk:
// the test binary links the benchsup its module requires (for the measure
// API), whose worker speaks another protocol version.
func versionMismatch(ve *protocol.VersionError) string {
	this := benchsupVersion()
	run := "run the benchsup version the module requires"
	if strings.HasPrefix(ve.WorkerVer, "v") {
		run += " (go run " + benchsupModule + "/cmd/benchsup@" + ve.WorkerVer + ")"
	}
	require := "make the module require this one"
	if strings.HasPrefix(this, "v") {
		require += " (go get " + benchsupModule + "@" + this + ")"
	}
	return fmt.Sprintf("protocol version mismatch: the test binary's worker (benchsup %s, linked by the package's module) "+
		"speaks version %d and this benchsup (%s) speaks version %d: %s, or %s and run again so that the test binary is rebuilt",
		ve.WorkerVer, ve.Worker, this, ve.Supervisor, run, require)
}

// output is the diagnostic tail of an error row: the failure's stack, or
// the child's stderr (and stdout when stderr is empty). For a child asked
// for its goroutine stacks at a timeout, the stderr from before the request,
// then the head of the dump, which the stderr tail would have cut.
func output(out sandbox.Outcome) string {
	var b strings.Builder
	if out.Failure != nil && out.Failure.Stack != "" {
		b.WriteString(out.Failure.Message + "\n\n" + out.Failure.Stack)
		return b.String()
	}
	if st := out.Stacks; st.Requested {
		before := out.Stderr.Total - st.Total                // bytes written before the request
		kept := max(0, int64(len(out.Stderr.Tail))-st.Total) // of which the tail holds the last
		if kept > 0 {
			if before > kept {
				b.WriteString("[stderr: " + strconv.FormatInt(before-kept, 10) + " earlier bytes omitted]\n")
			}
			b.Write(out.Stderr.Tail[:kept])
			if !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
		}
		if len(st.Head) == 0 {
			b.WriteString("[no goroutine stacks: the child printed nothing when sent SIGQUIT]\n")
			return b.String()
		}
		b.Write(st.Head)
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		if st.Omitted > 0 {
			b.WriteString("[goroutine stacks: " + strconv.FormatInt(st.Omitted, 10) + " later bytes omitted]\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		name string
		cap  sandbox.Capture
	}{{"stderr", out.Stderr}, {"stdout", out.Stdout}} {
		if len(c.cap.Tail) == 0 {
			continue
		}
		if c.cap.Omitted > 0 {
			b.WriteString("[" + c.name + ": " + strconv.FormatInt(c.cap.Omitted, 10) + " earlier bytes omitted]\n")
		}
		b.Write(c.cap.Tail)
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		if c.name == "stderr" {
			break
		}
	}
	return b.String()
}
