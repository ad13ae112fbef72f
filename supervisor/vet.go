package supervisor

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// DefaultVetChecks are the analyzers go test runs before a package's tests
// when -vet is not given (cmd/go's defaultVetFlags, Go 1.21 to 1.26).
var DefaultVetChecks = []string{"atomic", "bool", "buildtags", "directive", "errorsas",
	"ifaceassert", "nilfunc", "printf", "slog", "stringintconv", "tests"}

// checkVet reports what is wrong with a -vet value, as go test reads it:
// "" (the default checks), "off", "all", or a comma list of analyzers.
func checkVet(value string) error {
	switch {
	case value == "":
		return nil
	case strings.Contains(value, "="):
		return errors.New("cannot contain equal signs")
	case strings.Contains(value, " "):
		return errors.New("is a comma-separated list, cannot contain spaces")
	}
	list := strings.Split(value, ",")
	for _, a := range list {
		switch {
		case a == "":
			return errors.New("contains an empty list element")
		case (a == "off" || a == "all") && len(list) > 1:
			return fmt.Errorf("does not accept %q in a list with other analyzers", a)
		}
	}
	return nil
}

// checkVetAnalyzers refuses, before anything is built, a -vet list naming
// an analyzer this toolchain's vet does not have, in go test's words: go
// test asks vet for its flags (go tool vet -flags) and accepts only those.
// A vet that cannot be asked leaves the check to go vet itself.
func (s *supervisor) checkVetAnalyzers(ctx context.Context) error {
	switch s.cfg.Vet {
	case "", "off", "all":
		return nil
	}
	dir, q := s.answerDir(), []string{"tool", "vet", "-flags"}
	out, ok := s.answers.recall(dir, q)
	if !ok {
		asked := s.answers.clock()
		var err error
		if out, err = s.goCmd(ctx, q...).Output(); err != nil {
			return nil
		}
		s.answers.remember(dir, q, asked, out, envInputs(s.env)) // the toolchain's vet: the base inputs
	}
	known, err := vetAnalyzers(out)
	if err != nil {
		return nil
	}
	for _, a := range strings.Split(s.cfg.Vet, ",") {
		if !known[a] {
			return fmt.Errorf("-vet argument must be a supported analyzer or a distinguished value; found %s (go tool vet help lists this toolchain's)", a)
		}
	}
	return nil
}

// vetAnalyzers reads go tool vet -flags' JSON: the boolean flags, less
// those that are not analyzers, as cmd/go reads them.
func vetAnalyzers(flagsJSON []byte) (map[string]bool, error) {
	var flags []struct {
		Name string
		Bool bool
	}
	if err := json.Unmarshal(flagsJSON, &flags); err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, f := range flags {
		switch f.Name {
		case "V", "all", "c", "diff", "flags", "json", "source", "v", "fix":
			continue
		}
		if f.Bool && !strings.Contains(f.Name, ".") {
			known[f.Name] = true
		}
	}
	return known, nil
}

// vetFlags are the analyzer flags go vet runs with for Config.Vet, and
// whether vet runs at all: go test's choice for the same -vet value.
func (s *supervisor) vetFlags() ([]string, bool) {
	switch s.cfg.Vet {
	case "off":
		return nil, false
	case "all":
		return nil, true // go vet's own default: every analyzer
	case "":
		return prefixed(DefaultVetChecks), true
	}
	return prefixed(strings.Split(s.cfg.Vet, ",")), true
}

func prefixed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "-" + n
	}
	return out
}

// vetAll runs go test's vet step for every package of plans at once: one
// go vet with the same analyzers and build flags, on the packages as the
// user wrote them (no overlay: the injected worker is not the user's
// code, and go test vets none of it). One go command loads the packages
// once, where one per package would load them again each time; the go
// command caches each clean package's result as it caches go test's, so an
// unchanged package costs nothing more. The result has an error for each
// package with a finding: a *buildFailure, as go test reports it ("[build
// failed]"), its lines once each (go vet checks a package's files in both
// its plain and its test variant, go test in the test variant only).
//
// A dependency's failure (go vet's "# dep" block for a package not under
// test: it does not compile, or vet could not compute its facts) fails no
// package, as go test fails none for it: go test prints it apart, vets
// the packages that import it without its facts and reports them ok, and
// a package that cannot compile with it fails its build, which the
// measured build repeats. It is one warning, naming the packages of the
// run that import it; those are not remembered as clean.
func (s *supervisor) vetAll(ctx context.Context, plans []*pkgPlan) map[string]error {
	flags, on := s.vetFlags()
	if !on {
		return nil
	}
	dir := s.vetCacheDir() // once: both ends of the step use it
	cached, keys := s.vetCached(dir, plans, flags)
	var todo []*pkgPlan
	for _, p := range plans {
		if !cached[p.pkg.ImportPath] {
			todo = append(todo, p)
		}
	}
	failed := map[string]error{}
	deps := map[string][]string{} // a dependency's failure, its lines
	defer func() {
		if ctx.Err() == nil {
			s.vetRemember(dir, todo, failed, s.importers(todo, deps), keys)
			s.warnVetDeps(todo, deps)
		}
	}()
	plans = todo
	// A package go vet cannot load stops it before it vets any other:
	// the packages it said nothing of are vetted again without those it
	// named (a few rounds at most; each removes at least one package).
	for len(plans) > 0 && ctx.Err() == nil {
		found, theirs := s.vetOnce(ctx, flags, plans)
		for d, lines := range theirs {
			if _, ok := deps[d]; !ok {
				deps[d] = lines
			}
		}
		if len(found) == 0 {
			break
		}
		var rest []*pkgPlan
		for _, p := range plans {
			if err, ok := found[p.pkg.ImportPath]; ok {
				failed[p.pkg.ImportPath] = err
			} else {
				rest = append(rest, p)
			}
		}
		plans = rest
	}
	return failed
}

// importers returns, for each dependency of deps, the packages of plans
// whose test binary links it; a package the listing cannot tell about
// imports every one.
func (s *supervisor) importers(plans []*pkgPlan, deps map[string][]string) map[string][]string {
	by := map[string][]string{}
	for _, p := range plans {
		var linked []string
		if s.plain != nil {
			if main := s.plain.testMain(p.pkg); main != nil {
				linked = main.Deps
			}
		}
		for d := range deps {
			if linked == nil || slices.Contains(linked, d) {
				by[d] = append(by[d], p.pkg.ImportPath)
			}
		}
	}
	return by
}

// warnVetDeps writes one warning per dependency whose vet failed.
func (s *supervisor) warnVetDeps(plans []*pkgPlan, deps map[string][]string) {
	if s.cfg.Warnings == nil {
		return
	}
	by := s.importers(plans, deps)
	for _, d := range slices.Sorted(maps.Keys(deps)) {
		users, who := by[d], "the packages vetted"
		if len(users) > 0 {
			who = strings.Join(users[:min(len(users), 3)], ", ")
		}
		if len(users) > 3 {
			who += fmt.Sprintf(" and %d more", len(users)-3)
		}
		lines := deps[d]
		said := strings.Join(lines[:min(len(lines), 3)], "; ")
		if len(lines) > 3 {
			said += fmt.Sprintf(" (and %d more lines)", len(lines)-3)
		}
		fmt.Fprintf(s.cfg.Warnings, "go vet: %s, a dependency of %s, failed; as under go test, that fails no package (one that cannot compile with it fails its build): %s\n",
			d, who, said)
	}
}

// coverBuild reports whether the build flags ask for coverage, which go
// vet leaves out (vetOnce).
func (s *supervisor) coverBuild() bool {
	return slices.ContainsFunc(s.buildFlags(), isCoverFlag)
}

// isCoverFlag reports whether f, one of buildFlags, is a coverage flag
// (-cover, -covermode, -coverpkg).
func isCoverFlag(f string) bool {
	return strings.HasPrefix(flagName(f), "cover")
}

// vetOnce runs one go vet over plans' packages and returns the findings
// of each package go vet named (all of them, with its error, when its
// output names no package, the run's or a dependency), and the lines of
// each dependency that failed.
func (s *supervisor) vetOnce(ctx context.Context, flags []string, plans []*pkgPlan) (map[string]error, map[string][]string) {
	var paths []string
	for _, p := range plans {
		paths = append(paths, p.pkg.ImportPath)
	}
	// go vet takes the build flags but the coverage ones, which change
	// no finding (go test's own vet step is not instrumented either).
	build := slices.DeleteFunc(s.buildFlags(), isCoverFlag)
	args := slices.Concat([]string{"vet"}, build, flags, paths)
	out, err := s.goCmd(ctx, args...).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		return nil, nil
	}
	dir, _ := filepath.Abs(cmp.Or(s.cfg.Dir, "."))
	v := attributeVet(string(out), dir, plans)
	failed := map[string]error{}
	for _, p := range plans {
		mine := v.own[p.pkg.ImportPath]
		if len(mine) == 0 {
			mine = v.own[""] // go vet failed as a whole (a flag it does not know)
		}
		if len(mine) == 0 {
			continue
		}
		bf := describeBuildFailure(strings.Join(mine, "\n"), "", p.pkg.ImportPath)
		bf.msg = "vet: " + bf.msg
		failed[p.pkg.ImportPath] = bf
	}
	if len(failed) == 0 && len(v.deps) == 0 {
		// Nothing said which package: every one fails with the go
		// command's error, rather than passing unvetted.
		for _, p := range plans {
			failed[p.pkg.ImportPath] = fmt.Errorf("go vet: %w", err)
		}
	}
	return failed, v.deps
}

// vetLines is go vet's output split by package (attributeVet).
type vetLines struct {
	// own holds the lines of each package of the run, and under "" the
	// lines no package claims when none was claimed at all.
	own map[string][]string
	// deps holds the lines of each dependency (a package not under
	// test) whose "# dep" block go vet printed: its compile or its vet
	// failed.
	deps map[string][]string
}

// attributeVet splits go vet's output by package: a finding names its file
// (relative to dir, where the go command ran, or absolute), whose
// directory is its package's; a "# pkg" header names the package of the
// lines after it, one of the run's or a dependency. Lines no package
// claims are under own[""] when no line was claimed at all. Each
// package's lines are kept once, in order.
func attributeVet(out, dir string, plans []*pkgPlan) vetLines {
	byDir := map[string]string{}
	known := map[string]bool{}
	for _, p := range plans {
		byDir[filepath.Clean(p.pkg.Dir)] = p.pkg.ImportPath
		known[p.pkg.ImportPath] = true
	}
	v := vetLines{own: map[string][]string{}, deps: map[string][]string{}}
	add := func(to map[string][]string, pkg, l string) {
		if !slices.Contains(to[pkg], l) {
			to[pkg] = append(to[pkg], l)
		}
	}
	current, dep, claimed := "", "", false
	var loose []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if h, ok := strings.CutPrefix(l, "# "); ok {
			name := strings.Trim(strings.Fields(h + " x")[0], "[]")
			name = strings.TrimSuffix(name, "_test")
			current, dep = "", ""
			if known[name] {
				current = name
			} else {
				dep = name // only a block of the go command's actions has one: its build ran
			}
			continue
		}
		pkg := current
		file, _, hasPos := strings.Cut(strings.TrimPrefix(l, "vet: "), ":")
		if hasPos && strings.HasSuffix(file, ".go") {
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			if p, ok := byDir[filepath.Dir(file)]; ok {
				pkg = p
			}
		}
		switch {
		case pkg != "":
			add(v.own, pkg, l)
		case dep != "":
			add(v.deps, dep, l)
		default:
			loose = append(loose, l)
			continue
		}
		claimed = true
	}
	if !claimed {
		for _, l := range loose {
			add(v.own, "", l)
		}
	}
	return v
}

// vetCached returns the packages of plans whose vet step found nothing
// before with exactly the same inputs, and each package's key of those
// inputs. The go command caches a clean vet of a package, but only after
// loading every package again, which costs a run more than go test's
// whole vet step (docs/design.md#vet); the key holds what the go command's
// would: the analyzers and build flags, the go environment (toolchain,
// GOFLAGS, GOOS, ...), and for the package and every package its test
// binary links, the contents of every file in its directory, or, for the
// standard library and module-cache packages, which cannot change, its
// name and version. No key (no cache directory dir) caches nothing.
func (s *supervisor) vetCached(dir *heldDir, plans []*pkgPlan, flags []string) (map[string]bool, map[string]string) {
	if dir == nil || s.plain == nil {
		return nil, nil
	}
	dirs := map[string]string{} // directory -> hash of its files
	cached, keys := map[string]bool{}, map[string]string{}
	for _, p := range plans {
		key, ok := s.vetKey(p, flags, dirs)
		if !ok {
			continue
		}
		keys[p.pkg.ImportPath] = key
		// A hit's time becomes now: records are removed by when they
		// were last used (vetRecordAge).
		if now := time.Now(); dir.root.Chtimes(key, now, now) == nil {
			cached[p.pkg.ImportPath] = true
		}
	}
	return cached, keys
}

// vetRemember records, in the vet cache directory dir, the packages of
// plans vet found nothing in, less the importers of a failed dependency.
func (s *supervisor) vetRemember(dir *heldDir, plans []*pkgPlan, failed map[string]error, importers map[string][]string, keys map[string]string) {
	if dir == nil {
		return
	}
	// One that imports a failed dependency passed, as under go test, but
	// is vetted again: go test does not remember that dependency's
	// failure either, and says it again.
	unclean := map[string]bool{}
	for _, users := range importers {
		for _, u := range users {
			unclean[u] = true
		}
	}
	for _, p := range plans {
		if key := keys[p.pkg.ImportPath]; key != "" && failed[p.pkg.ImportPath] == nil && !unclean[p.pkg.ImportPath] {
			_ = dir.root.WriteFile(key, nil, 0o600)
		}
	}
	// Every edit leaves a record behind; those unused for vetRecordAge go.
	_, _ = removeVetRecords(dir, time.Now().Add(-vetRecordAge))
}

// vetRecordAge is how long a remembered clean vet step unused is kept.
const vetRecordAge = 14 * 24 * time.Hour

// vetRecordName is the name vetKey gives: only such files are removed.
var vetRecordName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// removeVetRecords removes the vet records in dir last used before
// (all with the zero time), as the test-binary cache is trimmed: only
// regular files with vetKey's names, never through a link, in the
// cache's held directory. A nil dir holds none.
func removeVetRecords(dir *heldDir, before time.Time) (n int, err error) {
	return removeRecords(dir, vetRecordName, before)
}

// removeRecords removes the records in dir whose names match name, last
// used before (all with the zero time): the vet records, the remembered
// answers (answers.go).
func removeRecords(dir *heldDir, name *regexp.Regexp, before time.Time) (n int, err error) {
	if dir == nil {
		return 0, nil
	}
	records, err := listCached(dir.root, name)
	if err != nil {
		return 0, err
	}
	if !before.IsZero() {
		// Least recently used first: the rest were used later still.
		if k := slices.IndexFunc(records, func(rec cachedBinary) bool { return !rec.used.Before(before) }); k >= 0 {
			records = records[:k]
		}
	}
	n, _, err = removeEntries(dir.path, records, nil, dir.root.Remove)
	return n, err
}

// vetCacheDir is where clean vet steps are recorded: in the cache, held
// as it is (userCache); nil for none.
func (s *supervisor) vetCacheDir() *heldDir {
	if s.cache == nil {
		return nil
	}
	return s.cache.vet
}

// vetKey hashes the inputs of p's vet step (see vetCached); dirs memoizes
// the directories' hashes over a run's packages.
func (s *supervisor) vetKey(p *pkgPlan, flags []string, dirs map[string]string) (string, bool) {
	main := s.plain.testMain(p.pkg)
	if main == nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "vet\x00%q\x00%q\x00", flags, s.buildFlags())
	h.Write(s.env.raw)
	deps := slices.Sorted(slices.Values(append(slices.Clone(main.Deps), p.pkg.ImportPath)))
	for _, path := range slices.Compact(deps) {
		d := s.plain.byPath[path]
		if d == nil {
			return "", false
		}
		switch m := d.Module; {
		case d.Standard:
			fmt.Fprintf(h, "std %s\n", path)
		case m != nil && s.env.GOMODCACHE != "" && strings.HasPrefix(d.Dir, s.env.GOMODCACHE+string(filepath.Separator)):
			v := m
			if m.Replace != nil {
				v = m.Replace
			}
			fmt.Fprintf(h, "mod %s %s@%s\n", path, v.Path, v.Version)
		default:
			sum, ok := dirs[d.Dir]
			if !ok {
				var err error
				if sum, err = hashDirFiles(d.Dir); err != nil {
					return "", false
				}
				dirs[d.Dir] = sum
			}
			goVersion := ""
			if m != nil {
				goVersion = m.GoVersion
			}
			fmt.Fprintf(h, "dir %s %s go%s %s\n", path, d.Dir, goVersion, sum)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// hashDirFiles hashes the names and contents of the build files directly
// in dir (buildFile): every file a package's vet may read (those its build
// constraints exclude too, which the buildtags check reads), and none of
// what else a directory holds (a run's --json written beside the sources
// would make every vet answer stale, and be read whole each run).
func hashDirFiles(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries {
		if !e.Type().IsRegular() || !buildFile(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
