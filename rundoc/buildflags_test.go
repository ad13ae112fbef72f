package rundoc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
)

// Builds with other flags (-race, -gcflags=-N) are other code: their
// numbers do not compare without --allow-mismatch.
func TestFingerprintBuildFlags(t *testing.T) {
	plain := rundoc.Meta{OS: "linux"}.Fingerprint()
	race := rundoc.Meta{OS: "linux", BuildFlags: []string{"-race", "-tags=x"}}.Fingerprint()
	assert.Equal(t, "-race -tags=x", race.BuildFlags)
	assert.Empty(t, plain.Diff(plain))
	assert.Equal(t, []rundoc.FieldDiff{{Field: "buildFlags", Old: "", New: "-race -tags=x"}}, plain.Diff(race))
}
