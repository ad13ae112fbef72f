package supervisor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// startFunc starts one child with its configuration and request, calls
// observe with every message the child sends, in order, and returns its
// outcome once the child has been reaped.
type startFunc func(ctx context.Context, cfg sandbox.Config, req protocol.Request, observe func(protocol.Message)) sandbox.Outcome

// supervisor is the state of one Run.
type supervisor struct {
	cfg Config
	tmp string

	env     goEnv     // the go command's environment in the run's directory
	plain   *listing  // the packages as go test builds them
	inj     *injector // the worker and entry points, as one overlay
	overlay string    // the overlay file every build and the measured listing use
	// cache is the per-user cache, held (bincache.go); nil builds in tmp
	// alone. bins is the run's own directory of test binaries.
	cache *userCache
	bins  runBins
	// answers are the go command's answers remembered (answers.go); nil
	// remembers nothing.
	answers *answers
	// cacheMax is the size the cache is trimmed to after the builds, and
	// began when this run began: binaries used since are never trimmed.
	cacheMax int64
	began    time.Time
	// vetted waits for go test's vet step of the builds buildAll runs and
	// returns the packages' findings (vet.go); nil outside buildAll.
	vetted func() map[string]error
	// start starts one child: sandbox.RunContext, or a scripted child in
	// tests of the schedule and of how results are collected.
	start startFunc

	// discoverySlots bounds the discovery children running at once, over
	// every package (slots).
	slotsOnce      sync.Once
	discoverySlots chan struct{}

	placement *rundoc.Placement // Config.CPUs as checked (placement.go); nil: not pinned
	cpus      []int             // the CPUs watched and claimed (watchedCPUs); nil: every CPU

	variants []*variantGroup // the --vs groups, once discovery planned them

	regionOnce sync.Once // the warning that no shared region could be made

	mu         sync.Mutex // guards what children report below
	recordings []rundoc.Recording
	hello      *protocol.Hello
	first      *sandbox.Outcome // the first spawned child: environment and containment facts
}

// pkgPlan is one package to run: what the plan phase found, and the builds
// the build phase makes of it.
type pkgPlan struct {
	pkg      *goPackage
	internal testFuncs
	external testFuncs
	route    string // routeOverlay or routeModule
	// builds are the test binaries of the package: the working tree's
	// first, then any other variant a run compares it with.
	builds []*build
}

// build is one test binary of a package.
type build struct {
	variant string      // "" for the working tree
	binary  string      // the run's own link to the test binary; "" until built
	file    *os.File    // binary, checked and held open: what every child executes
	cached  string      // the test binary in the per-user cache, when kept there
	failure *rundoc.Row // why it could not be built, if so
	layout  string      // where the package's code sits against go test's binary (layout.go)
}

// main is the working tree's build.
func (p *pkgPlan) main() *build { return p.builds[0] }

func (p *pkgPlan) benchmarks() []string {
	return append(append([]string(nil), p.internal.Benchmarks...), p.external.Benchmarks...)
}

// tests are the package's tests in the order go test runs them: Test
// functions, then fuzz targets (their seed corpora), then the examples it
// checks (each internal, then external).
func (p *pkgPlan) tests() []string {
	return slices.Concat(p.internal.Tests, p.external.Tests, p.internal.Fuzz, p.external.Fuzz,
		p.internal.exampleNames(), p.external.exampleNames())
}

// Run executes one run and returns its document. The error is non-nil only
// when the run could not happen at all (no package matched, the go command
// failed); every failure of a package, benchmark or test becomes a row.
func Run(ctx context.Context, cfg Config) (*rundoc.Document, error) {
	s, err := newSupervisor(cfg)
	if err != nil {
		return nil, err
	}
	defer s.close()
	// The host claim comes first, before any build (hostclaim.go).
	claim, err := claimHost(ctx, s.cfg, s.cpus)
	if err != nil {
		return nil, err
	}
	defer claim.Release()

	// Plan: packages as go test resolves them, their functions, the
	// overlay, and the builds each package needs.
	// A package none of whose top-level functions the pattern selects
	// runs nothing, as under go test; the plan lists it as such.
	keep := func(p *pkgPlan) bool {
		return slices.ContainsFunc(p.tests(), func(t string) bool { return s.runsTest(t) })
	}
	if s.cfg.Mode == ModeBench {
		keep = func(p *pkgPlan) bool {
			return slices.ContainsFunc(p.benchmarks(), func(b string) bool { return s.runsBenchmark(p, b) })
		}
	}
	plans, rows, err := s.plan(ctx, keep)
	if err != nil {
		return nil, err
	}
	doc := &rundoc.Document{Schema: rundoc.SchemaVersion, Meta: s.meta(plans), Columns: s.columns()}
	doc.Meta.Claim = claimReport(claim)

	// Build: every build of every package, once, in parallel; the proof
	// that each measured build is go test's.
	measured := s.listMeasured(ctx, plans) // in parallel with the builds
	s.buildAll(ctx, plans)
	if s.cfg.Mode == ModeTest {
		s.checkUntested(ctx, rows)
	}
	doc.Meta.Provenance = s.provenance(plans, measured)
	for _, p := range plans {
		for _, b := range p.builds {
			if b.failure != nil {
				rows = append(rows, *b.failure)
			}
		}
	}
	s.results(rows) // the package rows (nothing to run, not built) are final
	// The same packages at each --against revision (against.go).
	var revs []*revision
	if s.cfg.Mode == ModeBench && len(s.cfg.Against) > 0 {
		var revRows []rundoc.Row
		if revs, revRows, err = s.buildRevisions(ctx, keep); err != nil {
			return nil, err
		}
		rows = append(rows, revRows...)
		s.results(revRows)
	}
	s.trimCache()
	// The preflight, once our own builds are over and before anything
	// measures (hostclaim.go).
	if doc.Meta.Quiescence, err = waitQuiet(ctx, s.cfg, s.cpus, nil); err != nil {
		return nil, err
	}
	// Discover and calibrate, schedule, execute and summarize (benchmarks:
	// bench.go), or run each package's tests in as many children as its
	// crashes take (tests.go).
	if s.cfg.Mode == ModeBench {
		var benchRows []rundoc.Row
		if benchRows, doc.Windows, err = s.benchmarks(ctx, plans, revs); err != nil {
			return nil, err
		}
		s.finishWindows(doc, benchRows)
		s.results(benchRows)
		rows = append(rows, benchRows...)
		doc.Sweeps = analysis.Sweeps(benchRows)
	} else {
		rows = append(rows, s.testPackages(ctx, plans)...)
		s.packageOrder(rows)
	}
	doc.Rows = rows
	if err := s.mergeCoverage(ctx); err != nil {
		fmt.Fprintf(s.cfg.Warnings, "writing the coverage profile %s: %v\n", s.cfg.CoverProfile, err)
	}
	s.finishMeta(&doc.Meta)
	doc.Recordings = s.takeRecordings()
	if len(revs) > 0 {
		doc.Comparisons = s.compareRevisions(rows, revs, doc.Meta.Fingerprint())
	}
	if len(s.variants) > 0 {
		if doc.Comparisons, err = s.compareVariants(rows, s.variants); err != nil {
			return nil, err
		}
		fp := doc.Meta.Fingerprint()
		for i := range doc.Comparisons {
			doc.Comparisons[i].Old.Fingerprint, doc.Comparisons[i].New.Fingerprint = fp, fp
		}
	}
	return doc, nil
}

// newSupervisor applies cfg's defaults and makes the run's scratch
// directory (generated files, the worker's source, binaries); close removes
// it.
func newSupervisor(cfg Config) (*supervisor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: fresh-process children need Linux (process groups, PR_SET_PDEATHSIG, cgroup v2); this is %s", ErrUnsupported, runtime.GOOS)
	}
	cfg.applyDefaults()
	placement, err := placementOf(&cfg) // refused before anything is built
	if err != nil {
		return nil, err
	}
	cache, note, err := openRunCache()
	if err != nil {
		return nil, err
	}
	if note != "" {
		fmt.Fprintln(cfg.Warnings, note)
	}
	tmp, err := sandbox.MkdirTemp() // named after its owner: a later run removes it if this one is killed
	if err != nil {
		cache.close()
		return nil, err
	}
	cacheMax, _ := CacheMax() // openRunCache checked it
	s := &supervisor{cfg: cfg, tmp: tmp, cache: cache, cacheMax: cacheMax, began: time.Now(), start: sandbox.RunContext,
		answers:   newAnswers(cache, cfg.GoCommand),
		placement: placement, cpus: thisHost.watchedCPUs(cfg.CPUs)}
	if cfg.Watch != nil {
		s.start = startWatched(cfg.Watch)
	}
	return s, nil
}

func (s *supervisor) close() {
	s.bins.close()
	s.cache.close()
	os.RemoveAll(s.tmp)
}

// startWatched is sandbox.RunContext passing each child to watch (Config.Watch).
func startWatched(watch func(*sandbox.Child) func()) startFunc {
	return func(ctx context.Context, cfg sandbox.Config, req protocol.Request, observe func(protocol.Message)) sandbox.Outcome {
		var end func()
		out := sandbox.RunWatched(ctx, cfg, req, observe, func(c *sandbox.Child) { end = watch(c) })
		if end != nil {
			end()
		}
		return out
	}
}

// plan resolves the packages as go test does, finds their functions and
// writes the overlay that links the worker into each package's test
// binary. A package with no test files, or one keep rejects (nothing to
// run), is a skipped package row saying so, as go test prints
// "? pkg [no test files]" and "ok pkg [no tests to run]".
func (s *supervisor) plan(ctx context.Context, keep func(*pkgPlan) bool) ([]*pkgPlan, []rundoc.Row, error) {
	if err := checkDir(s.cfg.Dir); err != nil {
		return nil, nil, err
	}
	var err error
	if s.env, err = s.readGoEnv(ctx); err != nil {
		return nil, nil, err
	}
	if err := s.checkVetAnalyzers(ctx); err != nil {
		return nil, nil, err
	}
	if s.plain, err = s.listPackages(ctx, nil, s.cfg.Packages); err != nil {
		return nil, nil, err
	}
	if err := s.noModule(); err != nil {
		return nil, nil, err
	}
	if s.inj, err = newInjector(filepath.Join(s.tmp, "gen"), benchsupVersion()); err != nil {
		return nil, nil, err
	}
	var plans []*pkgPlan
	var rows []rundoc.Row
	fail := func(pkg *goPackage, msg, output string) {
		rows = append(rows, packageRow(pkg.ImportPath, rundoc.OutcomeBuildFailure, msg, output))
	}
	nothing := func(pkg *goPackage, reason string) {
		rows = append(rows, rundoc.Row{Package: pkg.ImportPath, Kind: rundoc.KindPackage, Outcome: rundoc.OutcomeSkipped, Skipped: ptr(reason)})
	}
	for _, pkg := range s.plain.roots {
		if pkg.Error != nil {
			// The first line is the row's error, the rest its output:
			// the go command's line printed once.
			fail(pkg, firstLine(pkg.Error.Err), restLines(pkg.Error.Err))
			continue
		}
		if !pkg.hasTests() {
			nothing(pkg, rundoc.NoTestFiles)
			continue
		}
		p := &pkgPlan{pkg: pkg, builds: []*build{{}}}
		if p.internal, err = scanTestFiles(pkg.Dir, pkg.TestGoFiles); err == nil {
			p.external, err = scanTestFiles(pkg.Dir, pkg.XTestGoFiles)
		}
		if err != nil {
			fail(pkg, err.Error(), "")
			continue
		}
		if !keep(p) {
			if s.cfg.Mode == ModeBench {
				nothing(pkg, rundoc.NoBenchmarksToRun)
			} else {
				nothing(pkg, rundoc.NoTestsToRun)
			}
			continue
		}
		worker, err := s.workerFor(p)
		if err == nil {
			err = s.inj.entryPoints(p, len(plans), worker)
		}
		if err != nil {
			fail(pkg, err.Error(), "")
			continue
		}
		plans = append(plans, p)
	}
	if s.overlay, err = s.inj.writeOverlay(s.env.GOFLAGS, s.cfg.Dir); err != nil {
		return nil, nil, err
	}
	return plans, rows, nil
}

// packageOrder sorts rows by package in the order go test reports
// packages (the patterns' order), keeping each package's rows in order.
func (s *supervisor) packageOrder(rows []rundoc.Row) {
	index := map[string]int{}
	for i, p := range s.plain.roots {
		index[p.ImportPath] = i
	}
	slices.SortStableFunc(rows, func(a, b rundoc.Row) int { return index[a.Package] - index[b.Package] })
}

// workerFor decides how the worker gets into p's test binary and returns
// the worker's import path. A test binary that already links benchsup
// (the module uses the measure API, or is benchsup) uses that version's
// worker, so the two agree on the hooks between them; any other gets a
// copy injected into its module, and so do the packages the worker is
// made of (benchsup's own worker, protocol, ...), whose tests would
// otherwise import themselves through it.
func (s *supervisor) workerFor(p *pkgPlan) (string, error) {
	if m := p.pkg.Module; m != nil && (m.Path == benchsupModule || s.plain.links(p.pkg, benchsupModule)) && !s.inj.ofWorker(p.pkg.ImportPath) {
		p.route = routeModule
		return benchsupModule + "/worker", nil
	}
	p.route = routeOverlay
	return s.inj.inject(p.pkg.Module, s.env)
}

// buildAll compiles every package's test binary once, in parallel.
func (s *supervisor) buildAll(ctx context.Context, plans []*pkgPlan) {
	type job struct {
		p *pkgPlan
		b *build
	}
	var jobs []job
	for _, p := range plans {
		for _, b := range p.builds {
			jobs = append(jobs, job{p, b})
		}
	}
	// go test's vet step for every package (vet.go), before the builds
	// or beside them. To vet a package's external tests, go vet compiles its internal test
	// package, "p [p.test]", which the measured build compiles from the
	// same files (inject.go's entryPoints), so the builds take it from the
	// go command's cache. Beside the builds, both go commands compiled it
	// at once. Without external tests go vet compiles nothing of the
	// package (it type-checks from source), and a coverage build compiles
	// its own (go vet leaves the -cover flags out): then the vet step runs
	// beside the builds.
	vetDone := make(chan map[string]error, 1)
	s.vetted = sync.OnceValue(func() map[string]error { return <-vetDone })
	if s.coverBuild() || !slices.ContainsFunc(plans, func(p *pkgPlan) bool { return len(p.pkg.XTestGoFiles) > 0 }) {
		go func() { vetDone <- s.vetAll(ctx, plans) }()
		defer s.vetted() // the go vet command ends before the builds' results are read
	} else {
		vetDone <- s.vetAll(ctx, plans)
	}
	parallel(s.cfg.Parallel, len(jobs), func(i int) {
		j := jobs[i]
		ev := rundoc.Event{Kind: rundoc.EventBuild, Package: j.p.pkg.ImportPath, Build: j.b.variant, Outcome: rundoc.OutcomeOK}
		if err := s.build(ctx, j.p, j.b, i); err != nil {
			// The compiler's lines appear once: the first as the error,
			// the others as the output after it.
			msg, rest := firstLine(err.Error()), ""
			if bf, ok := err.(*buildFailure); ok {
				msg, rest = bf.msg, bf.rest
			}
			j.b.failure = ptr(packageRow(j.p.pkg.ImportPath, rundoc.OutcomeBuildFailure, msg, rest))
			ev.Outcome, ev.Error = rundoc.OutcomeBuildFailure, ptr(msg)
		}
		s.emit(ev)
	})
}

// trimCache trims the per-user cache once the run's builds, the working
// tree's and every --against revision's, are over: what they added counts,
// and what they use stays (see pruneBinCache, pruneRevExports).
func (s *supervisor) trimCache() {
	if s.cache == nil {
		return
	}
	pruneBinCache(s.cache.bin, time.Now(), s.cacheMax, s.began)
	if len(s.cfg.Against) > 0 {
		pruneRevExports(revExportDir(s.cache), time.Now())
	}
}

// build compiles p's test binary as go test would, with the overlay as
// the only addition, and fails it on a finding of go test's vet step,
// which buildAll runs before the builds (vet.go).
// -vet=off on the build: vet would try to enter the injected directory,
// which exists only in the overlay.
//
// The go command builds it in the run's own directory, from the per-user
// cache's binary (see bincache.go), which it finds up to date when nothing
// changed; the binary is checked there and held open for every child.
func (s *supervisor) build(ctx context.Context, p *pkgPlan, b *build, index int) error {
	name := fmt.Sprintf("%d-%s.test", index, filepath.Base(p.pkg.ImportPath))
	key := ""
	if s.cache != nil {
		dir, _ := filepath.Abs(cmp.Or(s.cfg.Dir, "."))
		// The build flags make another binary: another name, so that a
		// run with other flags never relinks a binary this one executes.
		variant := b.variant + "\x00" + strings.Join(s.buildFlags(), "\x00")
		key = binCacheKey(dir, p.pkg.ImportPath, variant, s.env.raw, s.inj.digest)
	}
	bin, err := s.goTestCurrent(ctx, p, key, name)
	if err == nil && b.variant == "" && s.vetted != nil {
		// go test's vet step, which ran before the builds (vet.go); a
		// compile error says more than vet's. The working tree's build
		// only: a revision of --against is measured, not tested.
		err = s.vetted()[p.pkg.ImportPath]
	}
	if err != nil {
		return err
	}
	if s.cfg.Mode == ModeBench {
		// Benchmarks only: where code sits moves what short loops measure.
		bin, b.layout = s.alignLayout(ctx, p, b, index, bin)
	}
	b.binary, b.file, b.cached = bin.path, bin.file, bin.cached
	return nil
}

// goTestCurrent makes name, in the run's directory of binaries, p's
// current measured test binary, through the cache's binary key ("": none):
// the go command builds it (buildVia), unless it said before that the
// cached binary was current and none of the build's inputs changed since
// (answers.go). The question names the cache's binary, the same every
// run; the binary it is asked of is the one seeded into the run, read
// through its descriptor.
func (s *supervisor) goTestCurrent(ctx context.Context, p *pkgPlan, key, name string) (*testBinary, error) {
	cached := s.cachePath(key)
	if cached == "" {
		return s.buildVia(ctx, p, "", name, s.overlay)
	}
	dir, q := s.answerDir(), s.question(s.testCArgs(p, cached, s.overlay))
	bins, err := s.scratchBins()
	if err != nil {
		return nil, err
	}
	seeded := s.seed(bins, key, name)
	if seeded != nil {
		if tb, err := s.hold(bins, name, key, seeded); err == nil {
			if _, ok := s.answers.recallOf(dir, q, tb.file); ok {
				s.bins.keep(tb.file)
				return tb, nil
			}
			tb.file.Close()
		}
	}
	asked := s.answers.clock()
	tb, err := s.buildSeeded(ctx, p, bins, key, name, s.overlay, seeded)
	if err != nil {
		return nil, err
	}
	main := s.plain.testMain(p.pkg)
	if tb.cached == "" || main == nil || !s.answersFollow(s.env.GOFLAGS) {
		return tb, nil
	}
	linked := append(slices.Clone(main.Deps), p.pkg.ImportPath, main.ImportPath)
	if s.plain.usesCgo(linked) {
		return tb, nil
	}
	in, ok := s.listingInputs(s.plain, nil, linked)
	if ok {
		in = append(in, input{path: tb.cached, binary: tb.file})
		s.answers.remember(dir, q, asked, []byte("current"), in)
	}
	return tb, nil
}

// goTestC builds p's test binary into target as go test would, with
// overlay as the only addition ("" for none: go test's own build).
func (s *supervisor) goTestC(ctx context.Context, p *pkgPlan, target, overlay string) error {
	out, err := s.goCmd(ctx, s.testCArgs(p, target, overlay)...).CombinedOutput()
	if err != nil {
		if len(out) == 0 { // the go command did not run, or said nothing
			return fmt.Errorf("go test -c: %w", err)
		}
		return describeBuildFailure(string(out), s.inj.name, p.pkg.ImportPath)
	}
	return nil
}

// testCArgs are goTestC's go command arguments.
func (s *supervisor) testCArgs(p *pkgPlan, target, overlay string) []string {
	args := []string{"test", "-c", "-vet=off", "-o", target}
	if overlay != "" {
		args = append(args, "-overlay="+overlay)
	}
	return slices.Concat(args, s.buildFlags(), s.linkFlags(), []string{p.pkg.ImportPath})
}

// buildFailure is a test binary that did not build: whose code failed and
// the compiler's own first lines.
type buildFailure struct {
	msg  string // whose code failed and the compiler's first line
	rest string // the compiler's next lines, bounded
}

func (e *buildFailure) Error() string { return strings.TrimSuffix(e.msg+"\n"+e.rest, "\n") }

// maxCompilerLines bounds the compiler output a build failure keeps.
const maxCompilerLines = 20

// checkUntested compiles the packages without test files, as go test does
// before it prints "? pkg [no test files]", and the test binaries of those
// with nothing to run ("[no tests to run]"): one that does not compile is
// a build failure there, with the compiler's lines, not a skipped row. The
// builds are cached by the go command and run in parallel with nothing
// written (-o to the null device). Test mode only: a benchmark run builds
// only packages with benchmarks to run.
func (s *supervisor) checkUntested(ctx context.Context, rows []rundoc.Row) {
	var idx []int
	for i, r := range rows {
		if r.Kind == rundoc.KindPackage && r.Build == "" && r.Skipped != nil &&
			(*r.Skipped == rundoc.NoTestFiles || *r.Skipped == rundoc.NoTestsToRun) {
			idx = append(idx, i)
		}
	}
	parallel(s.cfg.Parallel, len(idx), func(k int) {
		r := &rows[idx[k]]
		// A package with test files but nothing to run has its test
		// binary compiled (go test builds it, then runs nothing).
		args := []string{"build", "-o", os.DevNull}
		if *r.Skipped == rundoc.NoTestsToRun {
			// No overlay here, so go test's own vet step runs with it.
			args = []string{"test", "-c", "-o", os.DevNull}
			if s.cfg.Vet != "" {
				args = append(args, "-vet="+s.cfg.Vet)
			}
		}
		args = slices.Concat(args, s.buildFlags(), s.linkFlags(), []string{r.Package})
		out, err := s.goCmd(ctx, args...).CombinedOutput()
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			s.emit(rundoc.Event{Kind: rundoc.EventBuild, Package: r.Package, Outcome: rundoc.OutcomeOK})
			return
		}
		bf := describeBuildFailure(string(out), "", r.Package)
		if strings.TrimSpace(string(out)) == "" {
			bf = &buildFailure{msg: "go build: " + err.Error()}
		}
		*r = packageRow(r.Package, rundoc.OutcomeBuildFailure, bf.msg, bf.rest)
		s.emit(rundoc.Event{Kind: rundoc.EventBuild, Package: r.Package, Outcome: rundoc.OutcomeBuildFailure, Error: ptr(bf.msg)})
	})
}

// describeBuildFailure says whose code failed to build: the package's
// own (the compiler's first lines, as go test shows them), benchsup's
// generated entry point, or benchsup's injected worker. The go command's
// "# pkg [pkg.test]" headers for pkg itself are dropped (the row names the
// package), as are its FAIL status lines; a header naming another package
// stays, as it says where the error is. The first remaining line is the
// message, the rest follows it once.
func describeBuildFailure(out, injectedDir, pkg string) *buildFailure {
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if h, ok := strings.CutPrefix(l, "# "); ok {
			name, _, _ := strings.Cut(h, " ")
			if name == pkg || name == pkg+"_test" || strings.HasPrefix(h, "[") {
				continue
			}
		}
		if l == "FAIL" || strings.HasPrefix(l, "FAIL\t"+pkg+" ") || strings.HasPrefix(l, "go: downloading ") {
			// The go command's status lines ([setup failed]), which the
			// row's outcome says, and its progress.
			continue
		}
		kept = append(kept, l)
	}
	text := firstLines(strings.Join(kept, "\n"), maxCompilerLines)
	first, rest, _ := strings.Cut(text, "\n")
	switch {
	case injectedDir != "" && strings.Contains(out, injectedDir):
		first = "benchsup's injected worker does not build here (a benchsup bug, please report it): " + first
	case strings.Contains(out, genInternal) || strings.Contains(out, genExternal):
		first = "benchsup's generated entry point does not compile with this package (a name it declares collides?): " + first
	}
	return &buildFailure{msg: first, rest: rest}
}

// listMeasured starts listing plans' packages as the measured builds see
// them (with the overlay) and returns a function that waits for the
// listing.
func (s *supervisor) listMeasured(ctx context.Context, plans []*pkgPlan) func() (*listing, error) {
	var paths []string
	for _, p := range plans {
		paths = append(paths, p.pkg.ImportPath)
	}
	if len(paths) == 0 {
		return func() (*listing, error) { return nil, ErrNoPackages }
	}
	type result struct {
		l   *listing
		err error
	}
	done := make(chan result, 1)
	go func() {
		l, err := s.listPackages(ctx, []string{"-overlay=" + s.overlay}, paths)
		done <- result{l, err}
	}()
	return func() (*listing, error) {
		r := <-done
		return r.l, r.err
	}
}

// provenance compares each built package's measured build with the one
// go test makes, and warns about any difference.
func (s *supervisor) provenance(plans []*pkgPlan, measuredListing func() (*listing, error)) rundoc.Provenance {
	pv := rundoc.Provenance{Toolchain: s.env.GOVERSION, Workers: s.inj.importPaths(), Builds: []rundoc.BuildCompare{}}
	var routes []string
	for _, p := range plans {
		if !slices.Contains(routes, p.route) {
			routes = append(routes, p.route)
		}
	}
	slices.Sort(routes)
	pv.Injection = strings.Join(routes, ",")
	measured, err := measuredListing()
	for _, p := range plans {
		if p.main().binary == "" {
			continue
		}
		bc := rundoc.BuildCompare{Package: p.pkg.ImportPath, Plain: listedFacts(s.plain, p.pkg, s.env.GOVERSION), Binary: p.main().cached, Layout: p.main().layout}
		if err != nil {
			bc.Note = "listing the measured build: " + firstLine(err.Error())
		} else {
			var note string
			bc.Measured, note = measuredFacts(measured, p.pkg, p.main().binary)
			bc.Same, bc.Note = compareBuilds(bc.Plain, bc.Measured)
			if note != "" {
				bc.Same, bc.Note = false, strings.TrimPrefix(bc.Note+"; "+note, "; ")
			}
		}
		if !bc.Same {
			fmt.Fprintf(s.cfg.Warnings, "the measured build of %s is not the one go test makes: %s\n", bc.Package, bc.Note)
		}
		pv.Builds = append(pv.Builds, bc)
	}
	return pv
}

// childConfig is the sandbox configuration of one child of p's build b.
func (s *supervisor) childConfig(p *pkgPlan, b *build) sandbox.Config {
	// -test.timeout=0: the sandbox owns the deadlines. -test.paniconexit0:
	// as under go test, os.Exit(0) inside a test is a failure.
	args := []string{"-test.run=^TestBenchsupWorker$", "-test.timeout=0", "-test.paniconexit0", "-test.count=1"}
	if s.cfg.Short {
		args = append(args, "-test.short")
	}
	if s.cfg.TestParallel > 0 {
		// go test's -parallel: testing reads it as each call of RunTests
		// starts, so it holds for the tests the worker runs.
		args = append(args, "-test.parallel="+strconv.Itoa(s.cfg.TestParallel))
	}
	return sandbox.Config{
		Path:           b.binary,
		Executable:     b.file,
		Args:           args,
		Dir:            p.pkg.Dir, // go test runs a package's tests in its directory
		Env:            s.cfg.Env,
		StartupTimeout: s.cfg.StartupTimeout,
		TotalTimeout:   s.cfg.Timeout,
		CPUs:           s.cfg.CPUs, // every child: discovery, benchmark, test
		MemoryLimit:    s.cfg.MemoryLimit,
		PidsLimit:      s.cfg.PidsLimit,
		Shim:           s.cfg.Shim,
	}
}

// run starts one child and records the facts every child shares.
func (s *supervisor) run(ctx context.Context, cfg sandbox.Config, req protocol.Request, observe func(protocol.Message)) sandbox.Outcome {
	if dir := s.coverDir(req.Identity.Package); dir != "" {
		// This child's coverage counters, merged at the end (buildflags.go).
		cfg.Args = append(slices.Clip(cfg.Args), "-test.gocoverdir="+dir)
		// As go test sets it too: the coverage runtime then also writes
		// the counters of a child that calls os.Exit, so the tests it ran
		// before still count (docs/design.md#coverage).
		cfg.Env.Set = append(slices.Clip(cfg.Env.Set), "GOCOVERDIR="+dir)
	}
	// Every child gets a shared region: a test or a workload that records
	// spans delivers them through it, crash or not (record.go).
	drain := s.recordDrain(&cfg)
	// go test's -args, after every flag benchsup sets (Config.Validate
	// refused any that would override one of them).
	cfg.Args = append(slices.Clip(cfg.Args), s.cfg.TestArgs...)
	out := s.start(ctx, cfg, req, observe)
	s.collectRecordings(drain, req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil && out.PID != 0 {
		s.first = &out
	}
	if s.hello == nil && out.Hello != nil {
		s.hello = out.Hello
	}
	return out
}

// runsBenchmark reports whether the run measures the benchmark function
// fn of p: the -bench pattern selects it and it is in the run's shard.
func (s *supervisor) runsBenchmark(p *pkgPlan, fn string) bool {
	return matches(s.cfg.Bench, fn) && !skipsTop(s.cfg.Skip, fn) && s.cfg.Shard.Owns(p.pkg.ImportPath, fn)
}

// emit passes ev to Config.Events, if set.
func (s *supervisor) emit(ev rundoc.Event) {
	if s.cfg.Events != nil {
		s.cfg.Events(ev)
	}
}

// processStart announces a child about to be spawned for req; who names
// it (package, name, build, repetition).
func (s *supervisor) processStart(who rundoc.Event, req protocol.Request) {
	who.Kind, who.Phase = rundoc.EventProcessStart, string(req.Mode)
	s.emit(who)
}

// processEnd announces the outcome of the child processStart announced;
// an Error already in who (a caller's better account) is kept.
func (s *supervisor) processEnd(who rundoc.Event, req protocol.Request, out sandbox.Outcome) {
	who.Kind, who.Phase, who.PID, who.Outcome = rundoc.EventProcessEnd, string(req.Mode), out.PID, outcomeOf(out.Class)
	if out.PID != 0 { // spawned: its wall time is a measurement
		who.WallNs = ptr(int64(out.Elapsed))
	}
	if (out.Err != nil || out.Failure != nil) && who.Error == nil {
		who.Error = ptr(describe(out))
	}
	if out.Skip != nil {
		who.Skipped = ptr(out.Skip.Reason)
	}
	s.emit(who)
}

// results announces rows that are final.
func (s *supervisor) results(rows []rundoc.Row) {
	if s.cfg.Events == nil {
		return // no copy of every row for nobody
	}
	for _, r := range rows {
		s.emit(rundoc.ResultEvent(r))
	}
}

func (s *supervisor) meta(plans []*pkgPlan) rundoc.Meta {
	hostname, _ := os.Hostname()
	m := rundoc.Meta{
		Date:            time.Now().UTC().Format(time.RFC3339),
		Hostname:        hostname,
		OS:              runtime.GOOS,
		Arch:            runtime.GOARCH,
		CPU:             cpuModel(),
		BenchsupVersion: benchsupVersion(),
		Mode:            "test",
		BuildFlags:      s.buildFlags(),
		Placement:       s.placement,
		Knobs: rundoc.Knobs{
			Bench:            s.cfg.Bench,
			Run:              s.cfg.Run,
			SampleTimeNs:     int64(s.cfg.SampleTime),
			Iterations:       s.cfg.Iterations,
			Short:            s.cfg.Short,
			SampleCount:      s.cfg.Samples,
			Repetitions:      s.cfg.Repetitions,
			TimeoutNs:        int64(s.cfg.Timeout),
			StartupTimeoutNs: int64(s.cfg.StartupTimeout),
			Order:            s.order(),
			Metrics:          append([]string{}, s.cfg.Metrics...),
			PerfIters:        s.cfg.PerfIters,
			PerfBatch:        s.cfg.PerfBatch,
			PerfScaled:       s.cfg.PerfScaled,
		},
	}
	if s.cfg.Mode == ModeBench {
		m.Mode = "bench"
		m.Warnings = rundoc.BuildFlagWarnings(m.BuildFlags)
		m.Sources = s.sourceReports()
		m.Interference = s.cfg.Interference.Policy() // nil when off
		if m.Interference != nil && s.cpus != nil {
			m.Interference.CPUs = host.FormatCPUList(s.cpus)
		}
	}
	if sh := s.cfg.Shard; sh.Active() {
		m.Shard = &rundoc.ShardInfo{Index: sh.Index, Count: sh.Count, Method: sh.Method()}
		for _, p := range plans {
			for _, fn := range slices.Compact(slices.Sorted(slices.Values(p.benchmarks()))) {
				if s.runsBenchmark(p, fn) {
					m.Shard.Functions++
				}
			}
		}
	}
	for _, p := range plans {
		if p.pkg.Module != nil {
			m.Module = p.pkg.Module.Path
			break
		}
	}
	return m
}

// finishMeta adds what only the children could tell.
func (s *supervisor) finishMeta(m *rundoc.Meta) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hello != nil {
		m.GoVersion = s.hello.GoVersion
		m.GOMAXPROCS = s.hello.GOMAXPROCS
	}
	if s.first != nil {
		m.Environment = rundoc.Environment{Policy: s.first.EnvPolicy, NamesHash: s.first.EnvNamesHash}
		m.Containment = string(s.first.Containment)
		m.ContainmentNote = s.first.ContainmentNote
		m.Limits = limitsMeta(s.cfg, s.first.Resources)
	}
}

// benchsupVersion is the version of the module that built this binary.
func benchsupVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if info.Main.Path == benchsupModule {
		return info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == benchsupModule {
			return d.Version
		}
	}
	return "unknown"
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// parallel runs f(0..n-1) on at most limit goroutines.
func parallel(limit, n int, f func(i int)) {
	if limit <= 0 {
		limit = runtime.NumCPU()
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}(i)
	}
	wg.Wait()
}

func packageRow(pkg string, outcome rundoc.Outcome, msg, output string) rundoc.Row {
	return rundoc.Row{Package: pkg, Kind: "package", Outcome: outcome, Error: ptr(msg), Output: output}
}

func ptr[T any](v T) *T { return &v }

// restLines is s after its first line.
func restLines(s string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return rest
}

// checkDir refuses a -C directory that is not one, saying which: missing,
// or something else.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s: no such directory", dir)
	case err != nil:
		return fmt.Errorf("directory %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("directory %s: not a directory", dir)
	}
	return nil
}

// noModule says what to do when the go command runs in module mode
// outside any module (go env GOMOD is the null device) and so found none
// of the packages: go test's "directory prefix . does not contain main
// module" never names go.mod.
func (s *supervisor) noModule() error {
	if s.env.GOMOD != os.DevNull || len(s.plain.roots) == 0 {
		return nil
	}
	for _, pkg := range s.plain.roots {
		if pkg.Error == nil {
			return nil // a standard library package resolves without a module
		}
	}
	dir, _ := filepath.Abs(cmp.Or(s.cfg.Dir, "."))
	return fmt.Errorf("go.mod not found in %s or any parent directory: run benchsup in a module (-C DIR), or make one here with go mod init MODULE", dir)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// outcomeOf is the document's outcome of a sandbox class.
func outcomeOf(c sandbox.Class) rundoc.Outcome { return rundoc.Outcome(c.String()) }
