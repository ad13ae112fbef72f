package rundoc_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

func TestSweepsRoundTrip(t *testing.T) {
	doc := rundoctest.GreenDoc()
	doc.Sweeps = rundoctest.SweepsFixture()
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, doc))
	for _, want := range []string{
		`"sweeps": [`, `"status": "fitted"`, `"selected": "linear"`, `"status": "unavailable"`,
		`"selected": null`, `"models": []`, `"valueExact": "18446744073709551617"`, `"maxExact": "18446744073709551617"`,
		`"observedExponent": null`,
	} {
		assert.Contains(t, buf.String(), want)
	}
	back, _, err := rundoc.ReadDocument(&buf)
	require.NoError(t, err)
	want := rundoctest.SweepsFixture()
	want[1].Models = []rundoc.ModelFit{} // written [], read back empty, not nil
	assert.Equal(t, want, back.Sweeps)

	buf.Reset()
	require.NoError(t, rundoc.WriteJSON(&buf, rundoctest.GreenDoc()))
	assert.NotContains(t, buf.String(), `"sweeps"`, "a document without sweeps keeps its shape")
}

func TestSweepChangesRoundTrip(t *testing.T) {
	c := rundoctest.ComparisonFixture()
	c.Sweeps = rundoctest.SweepChangesFixture()
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteComparisonJSON(&buf, c))
	assert.Contains(t, buf.String(), `"text": "linear → n log n over 1KiB–1MiB"`)
	back, _, err := rundoc.ReadComparison(&buf)
	require.NoError(t, err)
	assert.Equal(t, c.Sweeps, back.Sweeps)
}

func TestModelAndStatusDomains(t *testing.T) {
	for _, m := range rundoc.AllModels {
		assert.True(t, m.Known(), m)
	}
	assert.False(t, rundoc.Model("exponential").Known())
	assert.Equal(t, "n log n", rundoc.ModelNLogN.Text())
	for _, s := range []rundoc.SweepStatus{rundoc.SweepFitted, rundoc.SweepAmbiguous, rundoc.SweepPoorFit, rundoc.SweepUnavailable} {
		assert.True(t, s.Known(), s)
	}
	assert.False(t, rundoc.SweepStatus("").Known())
}
