package supervisor

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/sources"
)

// TestSourceReportsOfDefaults: a run of the default set (less what this
// host cannot count) reports every source the default set draws on, so
// that the table and the JSON document can name what went missing; a
// chosen set reports only the sources it needs, and no set none.
func TestSourceReportsOfDefaults(t *testing.T) {
	names := func(cfg Config) []string {
		var out []string
		for _, r := range (&supervisor{cfg: cfg}).sourceReports() {
			out = append(out, r.Source)
		}
		return out
	}
	defaults := sources.Defaults(sources.Options{})
	if len(defaults) == 0 {
		t.Skip("this host counts none of the default set")
	}
	assert.ElementsMatch(t, sources.DefaultSources(), names(Config{Metrics: defaults}))
	assert.Equal(t, []string{"tier0"}, names(Config{Metrics: []string{"minflt"}}))
	assert.Empty(t, names(Config{}))
}
