package supervisor

import (
	"context"
	"errors"
	"fmt"
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

// vet runs go test's vet step for p: go vet with the same analyzers and
// build flags, on the package as the user wrote it (no overlay: the
// injected worker is not the user's code, and go test vets none of it).
// The go command caches a clean result as it caches go test's, so an
// unchanged package costs one go command's start. A finding is a
// *buildFailure, as go test reports it ("[build failed]"), its lines once
// each (go vet checks a package's files in both its plain and its test
// variant, go test in the test variant only).
func (s *supervisor) vet(ctx context.Context, p *pkgPlan) error {
	flags, on := s.vetFlags()
	if !on {
		return nil
	}
	args := slices.Concat([]string{"vet"}, s.buildFlags(), flags, []string{p.pkg.ImportPath})
	out, err := s.goCmd(ctx, args...).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		return nil
	}
	if len(out) == 0 {
		return fmt.Errorf("go vet: %w", err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	bf := describeBuildFailure(strings.Join(lines, "\n"), "", p.pkg.ImportPath)
	bf.msg = "vet: " + bf.msg
	return bf
}
