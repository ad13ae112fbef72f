package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

func TestNormalizeArgs(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "codec"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	tests := []struct {
		name string
		args []string
		want []string // after "benchsup"
		err  string   // a usage error matching this, instead
	}{
		{"nothing", []string{}, []string{}, ""},
		{"no command", []string{"--version"}, []string{"--version"}, ""},
		{"unknown command", []string{"frobnicate", "-x"}, []string{"frobnicate", "-x"}, ""},
		{"double dash", []string{"run", "--bench=TopN", "./..."}, []string{"run", "--bench=TopN", "./..."}, ""},
		{"single dash", []string{"run", "-bench=TopN", "./..."}, []string{"run", "--bench=TopN", "./..."}, ""},
		{"flags after packages", []string{"run", "./...", "-bench=TopN", "-v"}, []string{"run", "--bench=TopN", "--v", "./..."}, ""},
		{"flags between packages", []string{"run", "./a", "-run", "X", "./b"}, []string{"run", "--run=X", "./a", "./b"}, ""},
		{"space value", []string{"run", "-run", "TestX", "-count", "1", "."}, []string{"run", "--run=TestX", "--count=1", "."}, ""},
		{"alias", []string{"run", "-C", "sub", "-p", "2"}, []string{"run", "--C=sub", "--p=2"}, ""},
		{"bare bench last", []string{"run", "./...", "--bench"}, []string{"run", "--bench=.", "./..."}, ""},
		{"bare bench then flag", []string{"run", "--bench", "-v", "./..."}, []string{"run", "--bench=.", "--v", "./..."}, ""},
		{"bare bench then pattern", []string{"run", "--bench", "./..."}, []string{"run", "--bench=.", "./..."}, ""},
		{"bare bench then dot", []string{"run", "-bench", ".", "./sub"}, []string{"run", "--bench=.", "./sub"}, ""},
		{"bare bench then parent", []string{"run", "-bench", "../x"}, []string{"run", "--bench=.", "../x"}, ""},
		{"bare bench then import path", []string{"run", "-bench", "example.com/m/x"}, []string{"run", "--bench=.", "example.com/m/x"}, ""},
		{"bare bench then directory", []string{"run", "--bench", "codec"}, []string{"run", "--bench=.", "codec"}, ""},
		{"bare bench then regexp", []string{"run", "--bench", "TopN", "./..."}, nil, `^--bench TopN: a bare --bench selects every benchmark, and "TopN" is not a package pattern; write --bench=TopN`},
		{"bare bench then sub-benchmark path", []string{"run", "./...", "-bench", "Count/size=1K"}, nil, `write --bench=Count/size=1K`},
		{"bare bench then regexp in -C", []string{"run", "-C", dir, "--bench", "nocodec"}, nil, `"nocodec" is not a package pattern`},
		{"bare bench then directory in -C", []string{"run", "--bench", "codec", "-C", dir}, []string{"run", "--bench=.", "--C=" + dir, "codec"}, ""},
		{"empty bench", []string{"run", "--bench=", "."}, []string{"run", "--bench=", "."}, ""},
		{"go test json", []string{"run", "-json", "./..."}, []string{"run", "--format=test2json", "./..."}, ""},
		{"go test json, double dash", []string{"run", "--json", "./..."}, []string{"run", "--format=test2json", "./..."}, ""},
		{"json file", []string{"run", "--json=out.json", "./..."}, []string{"run", "--json=out.json", "./..."}, ""},
		{"json file, space form", []string{"run", "--json", "out.json", "./..."}, []string{"run", "--json=out.json", "./..."}, ""},
		{"compare keeps its json", []string{"compare", "a.json", "b.json", "--json", "c"}, []string{"compare", "--json=c", "a.json", "b.json"}, ""},
		{"benchmem", []string{"run", "-bench=.", "-benchmem"}, []string{"run", "--bench=."}, ""},
		{"vet off", []string{"run", "-vet=off", "."}, []string{"run", "--vet=off", "."}, ""},
		{"vet list", []string{"run", ".", "-vet", "atomic,printf"}, []string{"run", "--vet=atomic,printf", "."}, ""},
		{"cpu", []string{"run", "-cpu=4", "-bench=."}, []string{"run", "--env-set=GOMAXPROCS=4", "--bench=."}, ""},
		{"cpu list", []string{"run", "-cpu", "1,2,4"}, nil, `^-cpu=1,2,4: benchsup runs each benchmark at one GOMAXPROCS`},
		{"failfast", []string{"run", "-failfast"}, []string{"run", "--failfast"}, ""},
		{"short", []string{"run", "-short", "."}, []string{"run", "--short", "."}, ""},
		{"benchtime", []string{"run", "-benchtime", "100x", "-bench=."}, []string{"run", "--benchtime=100x", "--bench=."}, ""},
		{"bool with value", []string{"run", "-v=false"}, []string{"run", "--v=false"}, ""},
		{"list", []string{"run", "-list", "."}, nil, `^-list is not supported: benchsup list`},
		{"shuffle", []string{"run", "-shuffle=on"}, nil, `^-shuffle is not supported`},
		{"cpuprofile", []string{"run", "-cpuprofile", "cpu.out"}, nil, `^-cpuprofile is not supported: a profile is of one process`},
		{"fuzz", []string{"list", "-fuzz=F"}, nil, `^-fuzz is not supported`},
		{"unknown flag left to the flag library", []string{"run", "-frob", "."}, []string{"run", "-frob", "."}, ""},
		{"missing value left to the flag library", []string{"run", ".", "-run"}, []string{"run", "--run", "."}, ""},
		{"after --", []string{"run", "-v", "--", "-odd"}, []string{"run", "--v", "--", "-odd"}, ""},
		{"list flags after packages", []string{"list", "./...", "-run=X"}, []string{"list", "--run=X", "./..."}, ""},
		{"skip", []string{"run", "./...", "-skip", "TestSlow/big"}, []string{"run", "--skip=TestSlow/big", "./..."}, ""},
		{"parallel is t.Parallel's", []string{"run", "-parallel", "1", "-p=2"}, []string{"run", "--parallel=1", "--p=2"}, ""},
		{"args cut off", []string{"run", "./...", "-run", "TestGolden", "-args", "-update", "-v"}, []string{"run", "--run=TestGolden", "./..."}, ""},
		{"args after --", []string{"run", "--", "-args"}, []string{"run", "--", "-args"}, ""},
		{"help topic", []string{"help", "run"}, []string{"help", "run"}, ""},
		{"help unknown topic", []string{"help", "nope"}, nil, `^help: unknown command "nope"`},
	}
	app := newApp(io.Discard, io.Discard)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := normalizeArgs(app, append([]string{"benchsup"}, tt.args...))
			if tt.err != "" {
				var ue usageError
				if !errors.As(err, &ue) || !regexp.MustCompile(tt.err).MatchString(err.Error()) {
					t.Fatalf("normalizeArgs(%q) = %q, %v; want a usage error matching %s", tt.args, got, err, tt.err)
				}
				return
			}
			want := append([]string{"benchsup"}, tt.want...)
			delete(app.Metadata, testArgsKey)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("normalizeArgs(%q) = %q, %v; want %q", tt.args, got, err, want)
			}
		})
	}
}

// TestTestArgs: what follows -args is kept, unchanged, for the children.
func TestTestArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"none", []string{"run", "./..."}, nil},
		{"flags and values", []string{"run", "./...", "-args", "-update", "-golden", "x y", "pos"}, []string{"-update", "-golden", "x y", "pos"}},
		{"double dash form", []string{"run", "--args", "-v"}, []string{"-v"}},
		{"empty", []string{"run", "-args"}, []string{}},
		{"not for compare", []string{"compare", "a.json", "b.json"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(io.Discard, io.Discard)
			if _, err := normalizeArgs(app, append([]string{"benchsup"}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			got, _ := app.Metadata[testArgsKey].([]string)
			if !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Errorf("test args of %q = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

// TestNormalizedArgsParse checks that what normalizeArgs writes is what
// the flag library reads: every rewritten form parses to the same flags.
func TestNormalizedArgsParse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // the usage error run prints, which names the parsed --format value
	}{
		{"json after packages", []string{"run", "./...", "-json", "-format=xml"}, "--format must be table, markdown, benchfmt, json, csv or test2json"},
		{"format after packages", []string{"run", "./...", "-format", "xml"}, `--format must be table, markdown, benchfmt, json, csv or test2json, got "xml"`},
		{"count in test mode", []string{"run", ".", "-count=3"}, "-count=3: test mode runs each test once"},
		{"count and repetitions", []string{"run", ".", "-bench=.", "-count=3", "--repetitions=4"}, "-count=3 and --repetitions=4 disagree"},
		{"benchtime", []string{"run", "-bench=.", "-benchtime=fast"}, "-benchtime=fast: want a positive duration"},
		{"benchtime zero x", []string{"run", "-bench=.", "-benchtime=0x"}, "-benchtime=0x: want a duration"},
		{"benchtime and sample time", []string{"run", "-bench=.", "-benchtime=1s", "--sample-time=2s"}, "-benchtime=1s and --sample-time=2s disagree"},
		{"args collide", []string{"run", ".", "-args", "-update", "-test.run=X"}, "-args -test.run=X: -test.run is set by benchsup"},
		{"args collide, two dashes", []string{"list", ".", "-args", "--test.v"}, "-args --test.v: -test.v is set by the worker"},
		{"vet list with off", []string{"run", ".", "-vet=printf,off"}, `-vet does not accept "off" in a list with other analyzers`},
		{"parallel zero", []string{"run", ".", "-parallel=0"}, "-parallel must be at least 1, got 0"},
		{"skip does not compile", []string{"run", ".", "-skip=("}, `-skip pattern "(" does not compile`},
		{"timeout zero", []string{"run", ".", "-timeout=0"}, "--timeout must be positive, got 0s (every child is bounded: give a long one, such as --timeout=24h)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := run(append([]string{"benchsup"}, tt.args...), io.Discard, &stderr); got != exitUsage {
				t.Fatalf("run(%q) = %d, want %d (stderr %q)", tt.args, got, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, stderr.String(), tt.want)
			}
		})
	}
}

// TestHelpOneDefault: every flag's help line names at most one default.
func TestHelpOneDefault(t *testing.T) {
	for _, cmd := range []string{"run", "list", "compare", "list-metrics", "version"} {
		t.Run(cmd, func(t *testing.T) {
			var stdout bytes.Buffer
			if got := run([]string{"benchsup", "help", cmd}, &stdout, io.Discard); got != exitOK {
				t.Fatalf("help %s exited %d", cmd, got)
			}
			lines := 0
			for _, line := range strings.Split(stdout.String(), "\n") {
				if !strings.HasPrefix(strings.TrimSpace(line), "--") {
					continue
				}
				lines++
				if n := strings.Count(line, "(default"); n > 1 {
					t.Errorf("%d defaults: %s", n, line)
				}
				if strings.Contains(line, "(default: false)") || strings.Contains(line, "(default: 0s)") {
					t.Errorf("a default that says nothing: %s", line)
				}
			}
			if lines == 0 {
				t.Errorf("no flag lines in:\n%s", stdout.String())
			}
		})
	}
}

func TestDescribeBuild(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/benchsup/benchsup", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"stamped", info, true, "benchsup v0.3.0 go1.26.0\nrevision abc123 (2026-11-30T10:00:00Z), with uncommitted changes\n"},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, true, "benchsup (devel) go1.26.0\n"},
		{"no build info", nil, false, "benchsup: no build information in this binary\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeBuild(tt.info, tt.ok); got != tt.want {
				t.Errorf("describeBuild = %q, want %q", got, tt.want)
			}
		})
	}
}
