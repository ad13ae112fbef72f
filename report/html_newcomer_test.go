package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// linkedComparison is the comparison fixture over the green run's own
// identities, so that its rows have benchmark sections to link to.
func linkedComparison(doc rundoc.Document) rundoc.Comparison {
	c := htmlComparisonFixture()
	var ids []rundoc.Row
	for _, r := range doc.Rows {
		if r.Kind == rundoc.KindBenchmark {
			ids = append(ids, r)
		}
	}
	for i := range c.Rows {
		c.Rows[i].Package, c.Rows[i].Name = ids[i%len(ids)].Package, ids[i%len(ids)].Name
	}
	return c
}

// TestWriteHTMLAnswerFirst: a comparison comes right after the summary,
// before the benchmarks, and each of its rows links to its identity's
// section, in the page.
func TestWriteHTMLAnswerFirst(t *testing.T) {
	green := rundoctest.GreenDoc()
	page := renderHTML(t, HTMLReport{Run: &green, Old: olderGreen(), Comparisons: []rundoc.Comparison{linkedComparison(green)}})
	cmpAt, benchAt := strings.Index(page, `<section class="comparison">`), strings.Index(page, `<section class="benchmark"`)
	require.Positive(t, cmpAt)
	require.Positive(t, benchAt)
	assert.Less(t, cmpAt, benchAt, "the answer first")
	assert.Less(t, strings.Index(page, `id="summary"`), cmpAt, "after the summary")

	sections := map[string]string{} // id → identity
	for _, m := range regexp.MustCompile(`<section class="benchmark" id="([^"]+)" data-identity="([^"]*)">`).FindAllStringSubmatch(page, -1) {
		_, dup := sections[m[1]]
		assert.False(t, dup, "id %s repeats", m[1])
		sections[m[1]] = m[2]
	}
	links := regexp.MustCompile(`<td class="ident"><a href="#([^"]+)">([^<]*)</a></td>`).FindAllStringSubmatch(page, -1)
	require.Len(t, links, len(linkedComparison(green).Rows), "every compared identity links to its section")
	for _, l := range links {
		assert.Equal(t, l[2], sections[l[1]], "#%s is the section of %s", l[1], l[2])
	}
	// The only references are in the page: no external one.
	assert.NotRegexp(t, `(?i)(src=|href="[^#]|<link|<script|@import|url\(|https?://)`, page)
}

// TestWriteHTMLLanes: a plain run's lanes are p0, p1, ...; beside another
// build each lane names its side.
func TestWriteHTMLLanes(t *testing.T) {
	lane := regexp.MustCompile(`<g class="process"[^>]*><text [^>]*class="lane">([^<]*)</text>`)
	green := rundoctest.GreenDoc()
	for _, tc := range []struct {
		name string
		r    HTMLReport
		want string
	}{
		{"plain", HTMLReport{Run: &green}, `^p[0-9]+$`},
		{"compare", HTMLReport{Run: &green, Old: olderGreen()}, `^(old|new) · p[0-9]+$`},
		{"against", HTMLReport{Run: againstDoc()}, `^[^ ]+ · p[0-9]+$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lane.FindAllStringSubmatch(renderHTML(t, tc.r), -1)
			require.NotEmpty(t, got)
			for _, m := range got {
				assert.Regexp(t, tc.want, m[1])
			}
		})
	}
}

// TestWriteHTMLNoWordBreaks: the comparison's verdicts and numbers never
// wrap (the browser test checks the layout at 1280 px).
func TestWriteHTMLNoWordBreaks(t *testing.T) {
	green := rundoctest.GreenDoc()
	page := renderHTML(t, HTMLReport{Run: &green, Comparisons: []rundoc.Comparison{linkedComparison(green)}})
	assert.Contains(t, page, `td.verdict,td.word{white-space:nowrap}`)
	assert.NotContains(t, page, `th,td{text-align:left;padding:3px 10px 3px 0;vertical-align:top;border-bottom:1px solid #eceff3;overflow-wrap:anywhere}`,
		"break anywhere lets a table squeeze a word into pieces")
	assert.Regexp(t, `<td class="verdict">(faster|slower|equivalent|inconclusive)</td>`, page)
}
