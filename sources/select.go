package sources

import (
	"cmp"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"
)

// Select parses a --metrics value. A value is a comma-separated list of
// selectors:
//
//	instructions      an exact catalog name
//	cache-*           a path.Match glob over the catalog's concrete names
//	all               every concrete catalog name
//	none              no metric: no counting pass at all
//	syscalls:read     one syscall's count; sc:read is the same selector
//	raw:r00c0         a raw PMU event code, in hexadecimal
//	? or help         ask for the catalog (help is true)
//
// It returns the selected metric names, canonical and without duplicates, in
// catalog order (instances of a family at the family's position, in the order
// named), and one warning per selector that matched nothing: the run goes on
// without it. An empty value selects the default set.
func Select(list string) (names []string, warnings []string, help bool) {
	if strings.TrimSpace(list) == "" {
		return defaultNames(), nil, false
	}
	picked := map[string]bool{}
	pick := func(n string) {
		if !picked[n] {
			picked[n] = true
			names = append(names, n)
		}
	}
	warn := func(sel, format string, args ...interface{}) {
		warnings = append(warnings, fmt.Sprintf("metrics selector %q: ", sel)+fmt.Sprintf(format, args...))
	}
	for _, sel := range strings.Split(list, ",") {
		sel = strings.TrimSpace(sel)
		switch {
		case sel == "", sel == "none":
		case sel == "?" || sel == "help":
			help = true
		case sel == "all":
			for _, d := range catalog {
				if !isPattern(d.Name) {
					pick(d.Name)
				}
			}
		case isConcrete(sel):
			pick(sel)
		case strings.ContainsAny(sel, "*?["):
			n, err := globCatalog(sel, pick)
			switch {
			case err != nil:
				warn(sel, "bad pattern: %v", err)
			case n == 0 && (strings.HasPrefix(sel, syscallPrefix) || strings.HasPrefix(sel, syscallAlias) || strings.HasPrefix(sel, "raw:")):
				warn(sel, "matched nothing (families are not globbed: name each syscalls:<name> or raw:r<hex>)")
			case n == 0:
				warn(sel, "matched nothing (see --metrics=help)")
			}
		default:
			if sc, ok := syscallInstance(sel); ok {
				if err := checkSyscall(sc); err != nil {
					warn(sel, "%v", err)
					continue
				}
				pick(syscallPrefix + sc)
				continue
			}
			if strings.HasPrefix(sel, rawPrefix) {
				if _, err := parseRawConfig(sel); err != nil {
					warn(sel, "%v", err)
					continue
				}
				pick(strings.ToLower(sel))
				continue
			}
			warn(sel, "matched nothing (see --metrics=help)")
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(catalogRank(a), catalogRank(b)) })
	return names, warnings, help
}

// defaultNames returns the catalog's default set, in catalog order.
func defaultNames() []string {
	var names []string
	for _, d := range catalog {
		if d.Default {
			names = append(names, d.Name)
		}
	}
	return names
}

// Defaults returns the metrics a run counts when --metrics is not given:
// the catalog's default set, less what this host cannot count (Probe with
// opts). A default whose source is unavailable here would only be an em
// dash in every row, and a counting pass for nothing; `benchsup
// list-metrics` says why it is missing.
func Defaults(opts Options) []string {
	return DefaultsOf(Probe(opts))
}

// DefaultsOf is Defaults from reports Probe already made.
func DefaultsOf(reports []Report) []string {
	return countable(defaultNames(), reports)
}

// DefaultSources returns the sources the catalog's default set draws on,
// whether or not this host can count them, in catalog order.
func DefaultSources() []string {
	var out []string
	for _, n := range defaultNames() {
		if d, ok := Describe(n); ok && !slices.Contains(out, d.Source) {
			out = append(out, d.Source)
		}
	}
	return out
}

// countable returns the names whose source one of reports says is
// available and that no absence of it names, in order.
func countable(names []string, reports []Report) []string {
	ok := map[string]bool{}
	absent := map[string]bool{}
	for _, r := range reports {
		ok[r.Source] = r.Available
		for _, a := range r.Absences {
			for _, m := range a.Metrics {
				absent[m] = true
			}
		}
	}
	var out []string
	for _, n := range names {
		d, known := Describe(n)
		if known && ok[d.Source] && !absent[d.Name] {
			out = append(out, n)
		}
	}
	return out
}

// globCatalog picks every concrete catalog name pattern matches and says how
// many it matched.
func globCatalog(pattern string, pick func(string)) (int, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return 0, err
	}
	n := 0
	for _, d := range catalog {
		if isPattern(d.Name) {
			continue
		}
		if ok, _ := path.Match(pattern, d.Name); ok {
			pick(d.Name)
			n++
		}
	}
	return n, nil
}

// checkSyscall validates a syscall name: its spelling always, and its
// existence where this build carries the architecture's syscall table.
func checkSyscall(sc string) error {
	if err := syntaxErr(sc); err != nil {
		return err
	}
	if syscallNumbers != nil {
		if _, ok := syscallNumbers[sc]; !ok {
			return fmt.Errorf("no syscall named %q on linux/%s", sc, runtime.GOARCH)
		}
	}
	return nil
}
