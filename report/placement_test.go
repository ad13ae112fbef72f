package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlacementFingerprint(t *testing.T) {
	unpinned := MetaOf("bench", 5)
	pinned := MetaOf("bench", 5)
	pinned.Placement = &Placement{CPUs: "0-1,4", Note: "children's GOMAXPROCS follows the affinity: 3"}
	assert.Equal(t, "none", unpinned.Fingerprint().Placement)
	assert.Equal(t, "0-1,4", pinned.Fingerprint().Placement)
	assert.Equal(t, []FieldDiff{{Field: "placement", Old: "none", New: "0-1,4"}}, unpinned.Fingerprint().Diff(pinned.Fingerprint()))

	other := MetaOf("bench", 5)
	other.Placement = &Placement{CPUs: "0"}
	assert.Equal(t, []FieldDiff{{Field: "placement", Old: "0-1,4", New: "0"}}, pinned.Fingerprint().Diff(other.Fingerprint()))
	// The note and the siblings describe a placement; they do not make
	// another one.
	noted := MetaOf("bench", 5)
	noted.Placement = &Placement{CPUs: "0-1,4", UnreservedSiblings: "5"}
	assert.Empty(t, pinned.Fingerprint().Diff(noted.Fingerprint()))
}
