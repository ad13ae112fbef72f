package supervisor

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchsup/benchsup/host"
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
		f = "-" + strings.TrimLeft(f, "-")
		name, _, _ := strings.Cut(f[1:], "=")
		cover = cover || name == "cover" || name == "covermode" || name == "coverpkg"
		out = append(out, f)
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

// coverDir returns a fresh directory for one child's coverage counters
// (its -test.gocoverdir), or "" when the run collects no profile.
func (s *supervisor) coverDir() string {
	if s.cfg.CoverProfile == "" {
		return ""
	}
	root := filepath.Join(s.tmp, "cover")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return ""
	}
	dir, err := os.MkdirTemp(root, "child-")
	if err != nil {
		return ""
	}
	return dir
}

// mergeCoverage writes the profile of every child's coverage counters, as
// go test -coverprofile writes it: `go tool covdata textfmt` over every
// child's directory. A child that crashed wrote none, as under go test.
func (s *supervisor) mergeCoverage(ctx context.Context) error {
	if s.cfg.CoverProfile == "" {
		return nil
	}
	entries, _ := os.ReadDir(filepath.Join(s.tmp, "cover"))
	var dirs []string
	for _, e := range entries {
		dir := filepath.Join(s.tmp, "cover", e.Name())
		if files, _ := os.ReadDir(dir); len(files) > 0 {
			dirs = append(dirs, dir)
		}
	}
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
