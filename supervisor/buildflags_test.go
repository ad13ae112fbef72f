package supervisor

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
)

func TestValidateBuildFlag(t *testing.T) {
	tests := []struct {
		flag string
		want string // "" for a flag benchsup passes on; else part of the problem
	}{
		{"-tags=integration,slow", ""},
		{"--tags=x", ""},
		{"-race", ""},
		{"-race=false", ""},
		{"-cover", ""},
		{"-covermode=atomic", ""},
		{"-coverpkg=./...", ""},
		{"-gcflags=all=-N -l", ""},
		{"-ldflags=-X main.v=1", ""},
		{"-trimpath", ""},
		{"-mod=mod", ""},
		{"-tags", "needs a value"},
		{"-race=yes", "takes no value"},
		{"-o=x.test", "is not a build flag benchsup passes"},
		{"-overlay=o.json", "is not a build flag benchsup passes"},
		{"-exec=sudo", "is not a build flag benchsup passes"},
		{"tags=x", "is not a build flag benchsup passes"},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			err := validateBuildFlag(tt.flag)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
			assert.True(t, errors.Is(err, ErrInvalidConfig))
			var ce *ConfigError
			if assert.ErrorAs(t, err, &ce) {
				assert.Equal(t, "BuildFlags", ce.Field)
			}
		})
	}
	assert.ErrorContains(t, Config{BuildFlags: []string{"-race", "-x"}}.Validate(), `"-x" is not a build flag`)
	assert.NoError(t, Config{BuildFlags: []string{"-race", "-tags=a"}}.Validate())
}

func TestBuildFlags(t *testing.T) {
	tests := []struct {
		name    string
		flags   []string
		profile string
		want    []string
		mode    string
	}{
		{"none", nil, "", nil, "set"},
		{"one dash each, by name", []string{"--tags=a", "-race"}, "", []string{"-race", "-tags=a"}, "atomic"},
		{"a flag given twice keeps its order", []string{"-tags=b", "-race", "-tags=a"}, "", []string{"-race", "-tags=b", "-tags=a"}, "atomic"},
		{"a profile implies -cover", []string{"-tags=a"}, "c.out", []string{"-cover", "-tags=a"}, "set"},
		{"a coverage flag says so already", []string{"-covermode=count"}, "c.out", []string{"-covermode=count"}, "count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &supervisor{cfg: Config{BuildFlags: tt.flags, CoverProfile: tt.profile}}
			assert.Equal(t, tt.want, s.buildFlags())
			assert.Equal(t, tt.mode, s.coverMode())
		})
	}
}

func TestLinkFlags(t *testing.T) {
	tests := []struct {
		name    string
		flags   []string
		goflags string
		want    []string
	}{
		{"no -ldflags: no DWARF, as go test links what it runs", nil, "", []string{"-ldflags=-w"}},
		{"other flags leave it", []string{"-tags=a", "-race"}, "-mod=mod -trimpath", []string{"-ldflags=-w"}},
		{"the user's -ldflags stay theirs alone", []string{"-ldflags=-X main.v=1"}, "", nil},
		{"with two dashes too", []string{"--ldflags=-s"}, "", nil},
		{"and from GOFLAGS, which a second -ldflags would replace", nil, "-mod=mod -ldflags=-X=main.v=1", nil},
		{"GOFLAGS' two-dash form", nil, "--ldflags=-s", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &supervisor{cfg: Config{BuildFlags: tt.flags}, env: goEnv{GOFLAGS: tt.goflags}}
			assert.Equal(t, tt.want, s.linkFlags())
		})
	}
}

func TestCoverDir(t *testing.T) {
	s := &supervisor{tmp: t.TempDir()}
	assert.Empty(t, s.coverDir("example.com/m"), "no profile, no directory")
	s.cfg.CoverProfile = "c.out"
	a, b := s.coverDir("example.com/m"), s.coverDir("example.com/m")
	assert.NotEmpty(t, a)
	assert.NotEqual(t, a, b, "one directory per child")
	assert.DirExists(t, a)
	s.cfg.CoverProfile = ""
	s.cfg.BuildFlags = []string{"-cover"}
	c := s.coverDir("example.com/m/sub")
	assert.NotEmpty(t, c, "-cover alone instruments the children")
	for _, d := range []string{a, c} {
		assert.NoError(t, os.WriteFile(filepath.Join(d, "covcounters.x"), nil, 0o644))
	}
	assert.Equal(t, []string{a}, s.coverDirs("example.com/m"), "a package's children only, with files")
	assert.Len(t, s.coverDirs(""), 2, "every package's")
}

func TestCoverageOf(t *testing.T) {
	tests := []struct {
		name, profile string
		want          rundoc.Coverage
		text          string
	}{
		{"none", "mode: set\n", rundoc.Coverage{}, "[no statements]"},
		{"some", "mode: set\na.go:3.20,4.11 1 1\na.go:4.11,6.3 1 0\na.go:7.2,7.10 1 1\na.go:9.14,9.24 1 0\n", rundoc.Coverage{Statements: 4, Covered: 2}, "50.0% of statements"},
		{"a block twice, counted once", "mode: count\na.go:3.20,4.11 2 0\na.go:3.20,4.11 2 5\nb.go:1.1,2.2 1 0\n", rundoc.Coverage{Statements: 3, Covered: 2}, "66.7% of statements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := coverageOf(tt.profile)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.text, got.String())
		})
	}
}
