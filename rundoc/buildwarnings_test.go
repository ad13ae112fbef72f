package rundoc_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
)

// A build whose code is not the code users run (instrumented, or compiled
// without optimizations or inlining) is warned about, once per cause;
// every other build flag is not.
func TestBuildFlagWarnings(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		want  []string // a substring of each warning, in order
	}{
		{"none", nil, nil},
		{"harmless flags", []string{"-tags=x", "-trimpath", "-ldflags=-s -w", "-mod=mod", "-gcflags=-d=checkptr=0"}, nil},
		{"race", []string{"-race"}, []string{"-race"}},
		{"race false", []string{"-race=false"}, nil},
		{"sanitizers", []string{"-msan", "-asan"}, []string{"-msan", "-asan"}},
		{"cover once", []string{"-cover", "-covermode=atomic", "-coverpkg=./..."}, []string{"-cover:"}},
		{"covermode alone", []string{"-covermode=count"}, []string{"-covermode:"}},
		{"gcflags -N", []string{"-gcflags=-N"}, []string{"-N disables optimizations"}},
		{"gcflags all=-N -l", []string{"-gcflags=all=-N -l"}, []string{"-gcflags=all=-N -l: -N disables optimizations, -l disables inlining"}},
		{"gcflags -l with a pattern", []string{"-gcflags=example.com/x=-l"}, []string{"-l disables inlining"}},
		{"gcflags without -N or -l", []string{"-gcflags=-m"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rundoc.BuildFlagWarnings(tt.flags)
			if assert.Len(t, got, len(tt.want), "%q", got) {
				for i, w := range tt.want {
					assert.Contains(t, got[i], w)
					assert.True(t, strings.HasSuffix(got[i], "these numbers are not those of the code users run"), got[i])
				}
			}
		})
	}
}
