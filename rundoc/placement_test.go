package rundoc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

func TestPlacementFingerprint(t *testing.T) {
	unpinned := rundoctest.MetaOf("bench", 5)
	pinned := rundoctest.MetaOf("bench", 5)
	pinned.Placement = &rundoc.Placement{CPUs: "0-1,4", Note: "children's GOMAXPROCS follows the affinity: 3"}
	assert.Equal(t, "none", unpinned.Fingerprint().Placement)
	assert.Equal(t, "0-1,4", pinned.Fingerprint().Placement)
	assert.Equal(t, []rundoc.FieldDiff{{Field: "placement", Old: "none", New: "0-1,4"}}, unpinned.Fingerprint().Diff(pinned.Fingerprint()))

	other := rundoctest.MetaOf("bench", 5)
	other.Placement = &rundoc.Placement{CPUs: "0"}
	assert.Equal(t, []rundoc.FieldDiff{{Field: "placement", Old: "0-1,4", New: "0"}}, pinned.Fingerprint().Diff(other.Fingerprint()))
	// The note and the siblings describe a placement; they do not make
	// another one.
	noted := rundoctest.MetaOf("bench", 5)
	noted.Placement = &rundoc.Placement{CPUs: "0-1,4", UnreservedSiblings: "5"}
	assert.Empty(t, pinned.Fingerprint().Diff(noted.Fingerprint()))
}
