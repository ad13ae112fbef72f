package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

func TestWriteMarkdownGolden(t *testing.T) {
	tests := []struct {
		name string
		doc  rundoc.Document
		opt  TableOptions
	}{
		{"green", rundoctest.GreenDoc(), TableOptions{}},
		{"errors", rundoctest.ErrorDoc(), TableOptions{}},
		{"shape-col-impl", shapeDoc(), TableOptions{Shape: Shape{Col: []Key{{Sub: "impl"}}, Sort: SortName}}},
		{"windows", rundoctest.Summarized(rundoctest.WindowDoc()), TableOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteMarkdown(&buf, tt.doc, tt.opt))
			assertMarkdownTables(t, buf.String())
			rundoctest.Golden(t, "markdown/"+tt.name+".md", buf.Bytes())
		})
	}
}

func TestWriteComparisonMarkdownGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    Shape
	}{
		{"comparison", Shape{}},
		{"comparison-col-name", Shape{Col: []Key{{Field: ".name"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteComparisonMarkdown(&buf, rundoctest.ComparisonFixture(), tt.s))
			out := buf.String()
			assertMarkdownTables(t, out)
			assert.Contains(t, out, "**▲ ", "a slowdown is marked and bold")
			assert.Contains(t, out, "markers: ")
			rundoctest.Golden(t, "markdown/"+tt.name+".md", buf.Bytes())
		})
	}
}

// TestMarkdownEscapesNames: a pipe or a backtick in a name neither ends a
// cell nor opens code.
func TestMarkdownEscapesNames(t *testing.T) {
	doc := rundoctest.GreenDoc()
	doc.Rows[0].Name = "BenchmarkParse/in=a|b/q=`x`/*y*"
	doc.Rows[1].Notes = []string{"held | stdout `open`"}
	var buf bytes.Buffer
	require.NoError(t, WriteMarkdown(&buf, doc, TableOptions{}))
	out := buf.String()
	assertMarkdownTables(t, out)
	assert.Contains(t, out, "BenchmarkParse/in=a\\|b/q=\\`x\\`/\\*y\\*")
	assert.Contains(t, out, "held \\| stdout \\`open\\`")
}

// unescapedPipe is a pipe not preceded by a backslash.
var unescapedPipe = regexp.MustCompile(`(^|[^\\])\|`)

// assertMarkdownTables checks every table of out: a header, a delimiter
// row, and the same number of cells in every row.
func assertMarkdownTables(t *testing.T, out string) {
	t.Helper()
	tables, cells := 0, -1
	inFence := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(l, "|") {
			cells = -1
			continue
		}
		n := len(unescapedPipe.FindAllString(l, -1))
		if cells < 0 {
			tables++
			cells = n
			continue
		}
		assert.Equal(t, cells, n, "row with another number of cells: %q", l)
	}
	assert.Positive(t, tables, "no table in:\n%s", out)
}

func TestMarkdownRefusesTestMode(t *testing.T) {
	err := WriteMarkdown(&bytes.Buffer{}, rundoctest.TestsDoc(), TableOptions{})
	require.Error(t, err)
}
