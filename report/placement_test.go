package report_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/report"
)

func TestPlacementFingerprint(t *testing.T) {
	unpinned := report.MetaOf("bench", 5)
	pinned := report.MetaOf("bench", 5)
	pinned.Placement = &report.Placement{CPUs: "0-1,4", Note: "children's GOMAXPROCS follows the affinity: 3"}
	assert.Equal(t, "none", unpinned.Fingerprint().Placement)
	assert.Equal(t, "0-1,4", pinned.Fingerprint().Placement)
	assert.Equal(t, []report.FieldDiff{{Field: "placement", Old: "none", New: "0-1,4"}}, unpinned.Fingerprint().Diff(pinned.Fingerprint()))

	other := report.MetaOf("bench", 5)
	other.Placement = &report.Placement{CPUs: "0"}
	assert.Equal(t, []report.FieldDiff{{Field: "placement", Old: "0-1,4", New: "0"}}, pinned.Fingerprint().Diff(other.Fingerprint()))
	// The note and the siblings describe a placement; they do not make
	// another one.
	noted := report.MetaOf("bench", 5)
	noted.Placement = &report.Placement{CPUs: "0-1,4", UnreservedSiblings: "5"}
	assert.Empty(t, pinned.Fingerprint().Diff(noted.Fingerprint()))
}
