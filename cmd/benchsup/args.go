package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
)

// The command line is rewritten before the flag library sees it, so that
// it reads as go test's does: the flag library stops at the first package
// pattern, requires a value for --bench, and knows none of go test's own
// names. normalizeArgs
//
//   - moves every flag before the package patterns (go test accepts
//     `go test ./... -bench=X`);
//   - writes every flag as --name or --name=value, single or double dash
//     alike, a value given as the next argument joined to it;
//   - reads go test's flags: -json (bare) is --format=test2json, go test
//     -json's event stream (--json=FILE is the run document), -benchmem is
//     accepted (allocations are always measured), -cpu=N sets GOMAXPROCS
//     in the children; the rest of
//     go test's flags that have no meaning here are refused with the reason
//     (refusedFlags);
//   - decides what follows a bare -bench (see benchValue);
//   - takes everything after -args, uninterpreted, for the test binaries
//     (testArgsOf), as go test does.
//
// Flags of the command's own (and their aliases) win over go test's
// meaning of the same name.

// refusedFlags are go test flags benchsup does not take, with the reason
// and what to do instead. A flag the command defines is never refused here.
var refusedFlags = map[string]string{
	"list":                 "benchsup list [packages] lists every test and benchmark (select with --run and --bench)",
	"shuffle":              "tests run in source order, each package's in children of their own; reordering is not supported",
	"c":                    "benchsup builds and runs the test binaries itself; use go test -c to keep one",
	"o":                    "benchsup builds and runs the test binaries itself; use go test -c -o to keep one",
	"exec":                 "benchsup runs the test binaries itself, in its sandbox",
	"x":                    "benchsup runs the go command itself; -x is not passed on",
	"n":                    "benchsup runs the go command itself; -n is not passed on",
	"work":                 "benchsup runs the go command itself; -work is not passed on",
	"cpuprofile":           "a profile is of one process and benchsup runs many; profile with go test",
	"memprofile":           "a profile is of one process and benchsup runs many; profile with go test",
	"memprofilerate":       "a profile is of one process and benchsup runs many; profile with go test",
	"blockprofile":         "a profile is of one process and benchsup runs many; profile with go test",
	"blockprofilerate":     "a profile is of one process and benchsup runs many; profile with go test",
	"mutexprofile":         "a profile is of one process and benchsup runs many; profile with go test",
	"mutexprofilefraction": "a profile is of one process and benchsup runs many; profile with go test",
	"trace":                "a trace is of one process and benchsup runs many; trace with go test",
	"outputdir":            "benchsup writes no profiles",
	"fuzz":                 "fuzzing is go test -fuzz's; benchsup runs the seed corpus as tests",
	"fuzztime":             "fuzzing is go test -fuzz's",
	"fuzzminimizetime":     "fuzzing is go test -fuzz's",
	"fullpath":             "failure lines are printed as testing prints them",
}

// packagesOf are the commands whose arguments are package patterns and
// whose flags are go test's.
var packagesOf = map[string]bool{"run": true, "list": true}

// flagSpec says, for each name (aliases included) a command defines,
// whether the flag takes a value.
type flagSpec map[string]bool

func specOf(flags []cli.Flag) flagSpec {
	spec := flagSpec{"help": false, "h": false}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			spec[n] = !isBool
		}
	}
	return spec
}

// normalizeArgs rewrites args (args[0] is the program) as described above,
// for the commands of app. A command line it cannot make unambiguous is a
// usage error that says how to write it.
func normalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		i++ // the application's own flags: --help, --version
	}
	if i == len(args) {
		return args, nil
	}
	if args[i] == "help" || args[i] == "h" {
		// The flag library's help command (added when the app runs) prints
		// nothing for an unknown topic.
		for _, topic := range args[i+1:] {
			if !strings.HasPrefix(topic, "-") && topic != "help" && topic != "h" && app.Command(topic) == nil {
				return nil, usagef("help: unknown command %q (commands: run, list, record, compare, merge, report, list-metrics, clean, version, help)", topic)
			}
		}
		return args, nil
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args, nil
	}
	out := append([]string{}, args[:i+1]...)
	own := args[i+1:]
	if packagesOf[cmd.Name] {
		var testArgs []string
		own, testArgs = splitTestArgs(own)
		if testArgs != nil {
			if app.Metadata == nil {
				app.Metadata = map[string]any{}
			}
			app.Metadata[testArgsKey] = testArgs
		}
	}
	rest, err := normalizeCommand(cmd.Name, specOf(cmd.Flags), own)
	if err != nil {
		return nil, err
	}
	return append(out, rest...), nil
}

// testArgsKey holds, in the app's Metadata, the arguments after -args.
const testArgsKey = "testArgs"

// splitTestArgs splits a command's arguments at go test's -args (or
// --args): what follows it goes to every test binary unchanged. A -args
// after "--" is a package pattern's business, not a flag.
func splitTestArgs(args []string) (own, testArgs []string) {
	for i, a := range args {
		switch a {
		case "--":
			return args, nil
		case "-args", "--args":
			return args[:i], append([]string{}, args[i+1:]...)
		}
	}
	return args, nil
}

// testArgsOf returns the arguments given after -args, or nil.
func testArgsOf(c *cli.Context) []string {
	if c.App == nil || c.App.Metadata == nil {
		return nil
	}
	args, _ := c.App.Metadata[testArgsKey].([]string)
	return args
}

// normalizeCommand rewrites the arguments after the command name cmd.
func normalizeCommand(cmd string, spec flagSpec, args []string) ([]string, error) {
	goTest := packagesOf[cmd]
	var flags, positional []string
	dir := ""
	var candidates []int // in positional, the arguments that followed a bare --bench
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		takesValue, defined := spec[name]
		if goTest && !defined {
			switch name {
			case "json":
			case "benchmem":
				continue // allocations are always measured
			case "cpu":
				if !hasValue && i+1 < len(args) {
					i++
					value, hasValue = args[i], true
				}
				if !hasValue || strings.Contains(value, ",") || value == "" {
					return nil, usagef("-cpu=%s: benchsup runs each benchmark at one GOMAXPROCS; give one value (-cpu=N sets GOMAXPROCS=N in the children)", value)
				}
				flags = append(flags, "--env-set=GOMAXPROCS="+value)
				continue
			default:
				if reason, ok := refusedFlags[name]; ok {
					return nil, usagef("-%s is not supported: %s", name, reason)
				}
			}
		}
		if goTest && name == "json" && spec["format"] {
			// go test's -json is a bool, its event stream on stdout;
			// benchsup's --json=FILE writes the run document to a file. A
			// bare -json followed by a file name ending in .json keeps
			// the older space form (no package pattern ends so).
			switch {
			case hasValue:
			case i+1 < len(args) && strings.HasSuffix(args[i+1], ".json"):
				i++
				value, hasValue = args[i], true
			default:
				flags = append(flags, "--format=test2json")
				continue
			}
			flags = append(flags, "--json="+value)
			continue
		}
		if !defined {
			flags = append(flags, a) // the flag library names it
			continue
		}
		if name == "dir" || name == "C" {
			dir = value
		}
		switch {
		case hasValue:
			flags = append(flags, "--"+name+"="+value)
		case name == "bench":
			// A bare --bench selects every benchmark; what follows it is a
			// package pattern, a flag, or an error (see benchValue).
			if i+1 < len(args) && args[i+1] == "." {
				i++ // go test's -bench . (every benchmark)
			} else if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				candidates = append(candidates, len(positional))
			}
			flags = append(flags, "--bench=.")
		case takesValue:
			if i+1 == len(args) {
				flags = append(flags, "--"+name) // the flag library says a value is missing
				continue
			}
			i++
			if name == "dir" || name == "C" {
				dir = args[i]
			}
			flags = append(flags, "--"+name+"="+args[i])
		default:
			flags = append(flags, "--"+name)
		}
	}
	for _, k := range candidates {
		if p := positional[k]; !isPackagePattern(dir, p) {
			return nil, usagef("--bench %s: a bare --bench selects every benchmark, and %q is not a package pattern; "+
				"write --bench=%s to select benchmarks, or put package patterns after it (--bench ./...)", p, p, p)
		}
	}
	for _, p := range positional {
		if strings.HasPrefix(p, "-") {
			// Only after a "--": keep it a package pattern.
			flags = append(flags, "--")
			break
		}
	}
	return append(flags, positional...), nil
}

// isPackagePattern reports whether arg, following a bare --bench, is a
// package pattern rather than a benchmark regexp: a relative or absolute
// path (., .., ./x, ../x, /x), a pattern with "...", an import path whose
// first element has a dot (example.com/x), or an existing directory
// (relative to dir, the -C directory, when set).
func isPackagePattern(dir, arg string) bool {
	switch {
	case arg == "." || arg == "..",
		strings.HasPrefix(arg, "./"), strings.HasPrefix(arg, "../"), strings.HasPrefix(arg, "/"),
		strings.Contains(arg, "..."):
		return true
	}
	if first, _, ok := strings.Cut(arg, "/"); ok && strings.Contains(first, ".") {
		return true
	}
	path := arg
	if dir != "" && !filepath.IsAbs(arg) {
		path = filepath.Join(dir, arg)
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
