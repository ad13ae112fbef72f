package supervisor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
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
func (s *supervisor) vetAll(ctx context.Context, plans []*pkgPlan) map[string]error {
	flags, on := s.vetFlags()
	if !on {
		return nil
	}
	failed := map[string]error{}
	// A package go vet cannot load stops it before it vets any other:
	// the packages it said nothing of are vetted again without those it
	// named (a few rounds at most; each removes at least one package).
	for len(plans) > 0 && ctx.Err() == nil {
		found := s.vetOnce(ctx, flags, plans)
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

// vetOnce runs one go vet over plans' packages and returns the findings
// of each package go vet named (all of them, with its error, when its
// output names none).
func (s *supervisor) vetOnce(ctx context.Context, flags []string, plans []*pkgPlan) map[string]error {
	var paths []string
	for _, p := range plans {
		paths = append(paths, p.pkg.ImportPath)
	}
	// go vet takes the build flags but the coverage ones, which change
	// no finding (go test's own vet step is not instrumented either).
	var build []string
	for _, f := range s.buildFlags() {
		if name, _, _ := strings.Cut(f[1:], "="); !strings.HasPrefix(name, "cover") {
			build = append(build, f)
		}
	}
	args := slices.Concat([]string{"vet"}, build, flags, paths)
	out, err := s.goCmd(ctx, args...).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		return nil
	}
	dir, _ := filepath.Abs(cmp.Or(s.cfg.Dir, "."))
	lines := attributeVet(string(out), dir, plans)
	failed := map[string]error{}
	for _, p := range plans {
		mine := lines[p.pkg.ImportPath]
		if len(mine) == 0 {
			mine = lines[""] // go vet failed as a whole (a flag it does not know)
		}
		if len(mine) == 0 {
			continue
		}
		bf := describeBuildFailure(strings.Join(mine, "\n"), "", p.pkg.ImportPath)
		bf.msg = "vet: " + bf.msg
		failed[p.pkg.ImportPath] = bf
	}
	if len(failed) == 0 {
		// Nothing said which package: every one fails with the go
		// command's error, rather than passing unvetted.
		for _, p := range plans {
			failed[p.pkg.ImportPath] = fmt.Errorf("go vet: %w", err)
		}
	}
	return failed
}

// attributeVet splits go vet's output by package: a finding names its file
// (relative to dir, where the go command ran, or absolute), whose
// directory is its package's; a "# pkg" header names the package of the
// lines after it. Lines no package claims are under "" when no line was
// claimed at all. Each package's lines are kept once, in order.
func attributeVet(out, dir string, plans []*pkgPlan) map[string][]string {
	byDir := map[string]string{}
	known := map[string]bool{}
	for _, p := range plans {
		byDir[filepath.Clean(p.pkg.Dir)] = p.pkg.ImportPath
		known[p.pkg.ImportPath] = true
	}
	lines := map[string][]string{}
	add := func(pkg, l string) {
		if !slices.Contains(lines[pkg], l) {
			lines[pkg] = append(lines[pkg], l)
		}
	}
	current, claimed := "", false
	var loose []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if h, ok := strings.CutPrefix(l, "# "); ok {
			name := strings.Trim(strings.Fields(h + " x")[0], "[]")
			name = strings.TrimSuffix(name, "_test")
			current = "" // a dependency's lines are not a package's of the run
			if known[name] {
				current = name
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
		if pkg == "" {
			loose = append(loose, l)
			continue
		}
		claimed = true
		add(pkg, l)
	}
	if !claimed {
		for _, l := range loose {
			add("", l)
		}
	}
	return lines
}
