package supervisor

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/rundoc"
)

// buildFlagKinds are the go build flags a run passes on to every go
// command of its build (go list and go test -c), as go test takes them.
// A boolean flag stands alone or takes =true or =false; the others take
// =value. Any other flag changes what go test would do in ways benchsup
// does not follow (-o, -c, -exec, -overlay, ...), so Validate refuses it.
var buildFlagKinds = map[string]bool{ // name -> takes a value
	"tags":      true,
	"race":      false,
	"msan":      false,
	"asan":      false,
	"cover":     false,
	"covermode": true,
	"coverpkg":  true,
	"gcflags":   true,
	"ldflags":   true,
	"asmflags":  true,
	"trimpath":  false,
	"mod":       true,
}

// validateBuildFlag reports what is wrong with one element of
// Config.BuildFlags, or nil.
func validateBuildFlag(f string) error {
	name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-"), "=")
	takesValue, known := buildFlagKinds[name]
	switch {
	case !strings.HasPrefix(f, "-") || !known:
		allowed := slices.Sorted(maps.Keys(buildFlagKinds))
		return &ConfigError{Field: "BuildFlags", Problem: fmt.Sprintf("%q is not a build flag benchsup passes to the go command (it passes -%s)", f, strings.Join(allowed, ", -"))}
	case takesValue && !hasValue:
		return &ConfigError{Field: "BuildFlags", Problem: fmt.Sprintf("%q needs a value: -%s=...", f, name)}
	case !takesValue && hasValue && value != "true" && value != "false":
		return &ConfigError{Field: "BuildFlags", Problem: fmt.Sprintf("%q: -%s takes no value (or true or false)", f, name)}
	}
	return nil
}

// buildFlags are the flags every go command of the build gets: the
// user's, with one dash, and -cover when a profile is asked for and no
// coverage flag says so already; ordered by name (a flag given twice
// keeps its order: the last wins), so that the same flags given in
// another order make the same fingerprint.
func (s *supervisor) buildFlags() []string {
	var out []string
	cover := false
	for _, f := range s.cfg.BuildFlags {
		name := flagName(f)
		cover = cover || name == "cover" || name == "covermode" || name == "coverpkg"
		out = append(out, "-"+strings.TrimLeft(f, "-"))
	}
	if s.cfg.CoverProfile != "" && !cover {
		out = append(out, "-cover")
	}
	slices.SortStableFunc(out, func(a, b string) int {
		an, _, _ := strings.Cut(a, "=")
		bn, _, _ := strings.Cut(b, "=")
		return strings.Compare(an, bn)
	})
	return out
}

// linkFlags are the flags benchsup adds to every link: -ldflags=-w, no
// DWARF, as go test links the binary it runs (it omits debug information
// unless it keeps the binary or writes a profile), where go test -c keeps
// it. Without it, writing the debug information is a sixth of a package's
// build after an edit (Masterminds/semver: 0.47 s against 0.41 s). The
// text is laid out alike either way, and the symbol table the layout
// comparison reads (layout.go) stays. None when the user gives -ldflags,
// on the command line or in GOFLAGS: a second -ldflags would replace
// theirs.
func (s *supervisor) linkFlags() []string {
	given := func(f string) bool { return flagName(f) == "ldflags" }
	if slices.ContainsFunc(s.buildFlags(), given) || slices.ContainsFunc(strings.Fields(s.env.GOFLAGS), given) {
		return nil
	}
	return []string{"-ldflags=-w"}
}

// flagName is the name of a go command flag as given: -x, --x, -x=v.
func flagName(f string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
	return name
}

// covering reports whether the build is instrumented for coverage: a
// coverage flag, or a profile asked for (which adds -cover).
func (s *supervisor) covering() bool {
	if s.cfg.CoverProfile != "" {
		return true
	}
	for _, f := range s.buildFlags() {
		name, value, _ := strings.Cut(f[1:], "=")
		if (name == "cover" && value != "false") || name == "covermode" || name == "coverpkg" {
			return true
		}
	}
	return false
}

// coverPkg is the build's -coverpkg, or "".
func (s *supervisor) coverPkg() string {
	pkgs := ""
	for _, f := range s.buildFlags() {
		if v, ok := strings.CutPrefix(f, "-coverpkg="); ok {
			pkgs = v
		}
	}
	return pkgs
}

// coverDir returns a fresh directory for the coverage counters of one
// child of package pkg (its -test.gocoverdir), or "" when the build is
// not instrumented. A package's children share a parent directory, so
// that its coverage is merged over them (packageCoverage).
func (s *supervisor) coverDir(pkg string) string {
	if !s.covering() {
		return ""
	}
	root := filepath.Join(s.tmp, "cover", url.PathEscape(pkg))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return ""
	}
	dir, err := os.MkdirTemp(root, "child-")
	if err != nil {
		return ""
	}
	return dir
}

// coverDirs returns the children's counter directories that hold files:
// those of package pkg, or of every package when pkg is "". A child that
// crashed wrote none, as under go test.
func (s *supervisor) coverDirs(pkg string) []string {
	pattern := filepath.Join(s.tmp, "cover", "*", "child-*")
	if pkg != "" {
		pattern = filepath.Join(s.tmp, "cover", url.PathEscape(pkg), "child-*")
	}
	matched, _ := filepath.Glob(pattern)
	var dirs []string
	for _, dir := range matched {
		if files, _ := os.ReadDir(dir); len(files) > 0 {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// packageCoverage is the coverage go test -cover reports for package pkg,
// merged over every child of the package: `go tool covdata textfmt` joins
// the children's counters, and the statements of each block are counted
// as testing counts them (covered when its count is not zero). Nil when
// the build is not instrumented or no child was started.
func (s *supervisor) packageCoverage(ctx context.Context, pkg string) (*rundoc.Coverage, error) {
	if !s.covering() {
		return nil, nil
	}
	dirs := s.coverDirs(pkg)
	if len(dirs) == 0 {
		// Children ran and none wrote a file: the coverage runtime writes
		// its meta-data as a child starts (GOCOVERDIR), so the package
		// has no instrumented statement, go test's "[no statements]".
		if spawned, _ := filepath.Glob(filepath.Join(s.tmp, "cover", url.PathEscape(pkg), "child-*")); len(spawned) > 0 {
			return &rundoc.Coverage{Packages: s.coverPkg()}, nil
		}
		return nil, nil
	}
	f, err := os.CreateTemp(s.tmp, "cover-*.txt")
	if err != nil {
		return nil, err
	}
	f.Close()
	defer os.Remove(f.Name())
	out, err := s.goCmd(ctx, "tool", "covdata", "textfmt", "-i="+strings.Join(dirs, ","), "-o="+f.Name()).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go tool covdata textfmt: %w: %s", err, firstLines(string(out), 10))
	}
	text, err := os.ReadFile(f.Name())
	if err != nil {
		return nil, err
	}
	c := coverageOf(string(text))
	c.Packages = s.coverPkg()
	return &c, nil
}

// coverageOf counts the statements of a text coverage profile: each block
// once (the largest count of its lines, should a block be listed twice),
// as testing sums its units' statements for its "coverage:" line.
func coverageOf(profile string) rundoc.Coverage {
	type block struct{ stmts, count int64 }
	blocks := map[string]block{}
	for line := range strings.Lines(profile) {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(line, "mode:") {
			continue
		}
		stmts, err1 := strconv.ParseInt(f[1], 10, 64)
		count, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		b := blocks[f[0]]
		blocks[f[0]] = block{stmts, max(b.count, count)}
	}
	var c rundoc.Coverage
	for _, b := range blocks {
		c.Statements += b.stmts
		if b.count != 0 {
			c.Covered += b.stmts
		}
	}
	return c
}

// mergeCoverage writes the profile of every child's coverage counters, as
// go test -coverprofile writes it: `go tool covdata textfmt` over every
// child's directory. A child that crashed wrote none, as under go test.
func (s *supervisor) mergeCoverage(ctx context.Context) error {
	if s.cfg.CoverProfile == "" {
		return nil
	}
	dirs := s.coverDirs("")
	profile := s.cfg.CoverProfile
	if !filepath.IsAbs(profile) {
		// go test writes a relative profile where it runs.
		base, err := filepath.Abs(s.cfg.Dir)
		if err != nil {
			return err
		}
		profile = filepath.Join(base, profile)
	}
	// The profile is written in the run's private scratch directory, then
	// placed: the user's path may be in a directory others can write.
	merged := filepath.Join(s.tmp, "coverprofile")
	if len(dirs) == 0 {
		// No child left counters: an empty profile, as go test writes
		// for packages whose tests never ran.
		if err := os.WriteFile(merged, []byte("mode: "+s.coverMode()+"\n"), 0o644); err != nil {
			return err
		}
	} else {
		out, err := s.goCmd(ctx, "tool", "covdata", "textfmt", "-i="+strings.Join(dirs, ","), "-o="+merged).CombinedOutput()
		if err != nil {
			return fmt.Errorf("go tool covdata textfmt: %w: %s", err, firstLines(string(out), 10))
		}
	}
	return placeFile(merged, profile)
}

// placeFile puts a copy of src, a file in the run's private scratch
// directory, at dst (mode 0644), by renaming a temporary file created in
// dst's directory: in a directory other users can write (/tmp), a link or
// file another user planted at dst is refused (host.ResolveShared), and
// one planted after that check is replaced, never followed or truncated.
func placeFile(src, dst string) error {
	target, err := host.ResolveShared(dst)
	if err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	dir, base := filepath.Split(target)
	tmp, err := os.CreateTemp(dir, "."+base+".benchsup-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// coverMode is the coverage mode the build uses: -covermode's, else
// atomic with -race and set without, as go test decides it.
func (s *supervisor) coverMode() string {
	mode := "set"
	for _, f := range s.buildFlags() {
		name, value, _ := strings.Cut(f[1:], "=")
		switch {
		case name == "covermode":
			return value
		case name == "race" && value != "false":
			mode = "atomic"
		}
	}
	return mode
}
