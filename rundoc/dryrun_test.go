package rundoc_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// A dry run's document keeps what ran and how each process ended, and no
// number: it reads back as written, and one that holds a number is refused.
func TestDryRunDocument(t *testing.T) {
	dry := func() rundoc.Document {
		d := rundoctest.GreenDoc()
		d.Sweeps = rundoctest.SweepsFixture()
		rundoc.MarkDryRun(&d)
		return d
	}
	d := dry()
	assert.True(t, d.Meta.DryRun)
	assert.Empty(t, d.Sweeps)
	for _, r := range d.Rows {
		assert.Nil(t, r.Summary, r.Name)
		assert.NotEmpty(t, r.Processes, "%s: its processes stay, with their outcomes", r.Name)
		for _, p := range r.Processes {
			assert.Empty(t, p.Samples)
			assert.Nil(t, p.NsPerOp)
			assert.Empty(t, p.Counted)
		}
	}
	var buf bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&buf, d))
	assert.Contains(t, buf.String(), `"dryRun": true`)
	back, _, err := rundoc.ReadDocument(&buf)
	require.NoError(t, err)
	assert.True(t, back.Meta.DryRun)

	for _, tc := range []struct {
		name string
		edit func(*rundoc.Document)
		want string
	}{
		{"a summary", func(d *rundoc.Document) { d.Rows[1].Summary = rundoctest.GreenDoc().Rows[1].Summary },
			"rows[1].summary: is set, but a dry run (meta.dryRun) has no numbers"},
		{"samples", func(d *rundoc.Document) {
			d.Rows[0].Processes[2].Samples = rundoctest.GreenDoc().Rows[0].Processes[2].Samples
		},
			"rows[0].processes[2].samples: is set, but a dry run"},
		{"sweeps", func(d *rundoc.Document) { d.Sweeps = rundoctest.SweepsFixture() },
			"sweeps: is set, but a dry run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := dry()
			tc.edit(&d)
			var buf bytes.Buffer
			// The writer does not judge; the reader refuses.
			if err := rundoc.WriteJSON(&buf, d); err != nil {
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			_, _, err := rundoc.ReadDocument(&buf)
			require.Error(t, err)
			assert.ErrorIs(t, err, rundoc.ErrInvalidValue)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
