package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// GitHub-flavored markdown, for a job summary ($GITHUB_STEP_SUMMARY) or a
// pull-request comment: the tables of WriteTable and
// WriteComparisonTable as markdown tables, their notes as lists, and the
// blocks that are not one table (windows, sweeps, recordings, failures)
// as the text tables inside fences, where alignment survives.

// WriteMarkdown writes a benchmark run as markdown: its header lines as a
// list, the benchmark table (shaped by opt.Shape, as WriteTable shapes
// it; the diagnostic columns and opt.Width do not apply), its notes as a
// list, then the windows, sweeps and recordings blocks and each failure's
// block as fenced text.
func WriteMarkdown(w io.Writer, doc rundoc.Document, opt TableOptions) error {
	doc = escaped(doc)
	if doc.Meta.Mode != rundoc.ModeBench {
		return fmt.Errorf("report: WriteMarkdown renders a %q document, not mode %q", rundoc.ModeBench, doc.Meta.Mode)
	}
	if err := rundoc.CheckFinite(doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	opt.Color, opt.Width = false, 0
	bw := bufio.NewWriter(w)
	bw.WriteString("### benchmarks\n\n")

	var head bytes.Buffer
	hw := bufio.NewWriter(&head)
	writeMetaHeader(hw, doc.Meta, false)
	hw.Flush()
	header := lines(strings.TrimRight(head.String(), "\n"))

	rows := tableOrder(doc.Rows)
	projected := opt.Shape.Projected() && len(rows) > 0
	if !projected {
		rows = sortRows(rows, opt.Shape.Sort)
	}
	prefixes := packagePrefixes(tablePackages(doc.Rows, doc.Windows))
	quantitative, _ := splitColumns(doc.Columns)
	var hidden []string
	if !opt.Verbose {
		hidden = hiddenColumns(rows, doc.Columns)
		quantitative = withoutColumns(quantitative, hidden)
	}
	d := discloseCounting(doc, rows, prefixes, hidden, opt.Verbose)
	header = append(header, d.header...)
	if l := intervalLine(rows); l != "" && !projected {
		header = append(header, l)
	}
	if projected {
		header = append(header, shapeLine)
	}
	if !opt.Shape.IsZero() && (len(doc.Windows) > 0 || len(doc.Sweeps) > 0 || len(doc.Recordings) > 0) {
		header = append(header, shapeOnlyLine)
	}
	writeMarkdownList(bw, header)

	notes := d.notes
	switch {
	case len(rows) == 0 && len(doc.Windows) == 0:
		bw.WriteString("no benchmark results\n\n")
	case len(rows) == 0:
	case projected:
		g, shapeNotes := shapedBench(rows, prefixes, opt.Shape)
		writeMarkdownGrid(bw, g, nil)
		notes = append(notes, shapeNotes...)
	default:
		// The notes cell is the whole first line, not cut: a markdown
		// table wraps in the page.
		opt.NoteWidth = 1 << 20
		g, _ := benchGrid(rows, prefixes, doc.Meta.Knobs.Repetitions, quantitative, opt)
		writeMarkdownGrid(bw, g, nil)
	}
	for _, r := range rows {
		for _, n := range r.Notes {
			notes = append(notes, displayName(r, prefixes)+": "+oneLine(n))
		}
	}
	if len(notes) > 0 {
		bw.WriteString("**notes**\n\n")
		writeMarkdownList(bw, notes)
	}

	if len(doc.Windows) > 0 {
		writeMarkdownBlock(bw, "windows", func(b *bufio.Writer) { writeWindows(b, doc, prefixes, opt, false) })
	}
	if len(doc.Sweeps) > 0 {
		writeMarkdownBlock(bw, "sweeps", func(b *bufio.Writer) { writeSweeps(b, doc.Sweeps, prefixes, opt, false) })
	}
	if len(doc.Recordings) > 0 {
		writeMarkdownBlock(bw, "recordings", func(b *bufio.Writer) { writeRecordings(b, doc.Recordings, opt, false) })
	}
	writeMarkdownBlock(bw, "failures", func(b *bufio.Writer) { writeErrorBlocks(b, rows, prefixes) })
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing markdown: %w", err)
	}
	return nil
}

// WriteComparisonMarkdown writes c as markdown, shaped by s as
// WriteShapedComparisonTable shapes the text: the header lines as a
// list, a table per metric section, each verdict with its marker
// (verdictMarkers; a slowdown in bold) and a legend below, then the
// scaling changes as fenced text and the notes as a list.
func WriteComparisonMarkdown(w io.Writer, c rundoc.Comparison, s Shape) error {
	c = escaped(c)
	v := comparisonLayoutOf(c, s)
	bw := bufio.NewWriter(w)
	bw.WriteString("### benchmark comparison\n\n")
	writeMarkdownList(bw, v.header)
	for _, g := range v.sections {
		writeMarkdownGrid(bw, g, markVerdict)
	}
	if len(v.sections) > 0 {
		bw.WriteString("markers: " + markerLegend + "\n\n")
	}
	if len(v.unchanged) > 0 {
		fmt.Fprintf(bw, "the same for every identity: %s\n\n", markdownEscape(strings.Join(v.unchanged, ", ")))
	}
	if len(v.uncompared) > 0 {
		fmt.Fprintf(bw, "%s\n\n", markdownEscape(uncomparedLine(v.uncompared)))
	}
	if len(c.Sweeps) > 0 {
		writeMarkdownBlock(bw, "scaling changes", func(b *bufio.Writer) { writeSweepChanges(b, c.Sweeps) })
	}
	if len(v.notes) > 0 {
		bw.WriteString("**notes**\n\n")
		writeMarkdownList(bw, v.notes)
	}
	return bw.Flush()
}

// verdictMarkers are the markers the markdown comparison puts before a
// verdict: a direction for a change established beyond the threshold,
// = and ? for equivalence and doubt, ✗ for an identity a side lacks.
var verdictMarkers = map[rundoc.Verdict]string{
	rundoc.VerdictSlower:       "▲",
	rundoc.VerdictIncreased:    "▲",
	rundoc.VerdictFaster:       "▼",
	rundoc.VerdictDecreased:    "▼",
	rundoc.VerdictEquivalent:   "=",
	rundoc.VerdictInconclusive: "?",
	rundoc.VerdictFailed:       "✗",
	rundoc.VerdictOnlyOld:      "✗",
}

const markerLegend = "▲ slower or increased, ▼ faster or decreased, = equivalent, ? inconclusive, ✗ failed or missing on a side; a slowdown is in bold"

// markVerdict gives a comparison cell that is a verdict ("slower") or
// ends in one ("+5.43% (slower)") its marker, a slowdown in bold; other
// cells stay as they are. It returns markdown.
func markVerdict(cell string) string {
	for v, m := range verdictMarkers {
		if cell != string(v) && !strings.HasSuffix(cell, "("+string(v)+")") {
			continue
		}
		out := m + " " + markdownEscape(cell)
		if v == rundoc.VerdictSlower {
			out = "**" + out + "**"
		}
		return out
	}
	return markdownEscape(cell)
}

// writeMarkdownGrid writes g as a markdown table: left-aligned text
// columns, right-aligned numbers. A row whose cells after the first are
// all empty is a group's heading (a package, a projection's group) and
// is written in bold; the indentation of the rows under it is dropped.
// cell renders each cell after the first (nil: escaped as it is).
func writeMarkdownGrid(w *bufio.Writer, g *grid, cell func(string) string) {
	if cell == nil {
		cell = markdownEscape
	}
	var b strings.Builder
	b.WriteString("|")
	for _, c := range g.cols {
		b.WriteString(" " + markdownEscape(c.header) + " |")
	}
	b.WriteString("\n|")
	for _, c := range g.cols {
		if c.align == alignLeft {
			b.WriteString(" :--- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	w.WriteString(b.String() + "\n")
	for _, row := range g.cells {
		heading := true
		for _, c := range row[1:] {
			heading = heading && c == ""
		}
		first := markdownEscape(strings.TrimSpace(row[0]))
		if heading && len(row) > 1 && first != "" {
			first = "**" + first + "**"
		}
		b.Reset()
		b.WriteString("| " + first + " |")
		for _, c := range row[1:] {
			b.WriteString(" " + cell(c) + " |")
		}
		w.WriteString(b.String() + "\n")
	}
	w.WriteString("\n")
}

// writeMarkdownBlock writes what write writes, without blank lines at
// either end, as a fence under title; nothing when that is empty.
func writeMarkdownBlock(w *bufio.Writer, title string, write func(*bufio.Writer)) {
	var buf bytes.Buffer
	b := bufio.NewWriter(&buf)
	write(b)
	b.Flush()
	if text := strings.Trim(buf.String(), "\n"); text != "" {
		writeMarkdownFence(w, title, text)
	}
}

// writeMarkdownList writes items as a list, each escaped, and a blank
// line; nothing for none.
func writeMarkdownList(w *bufio.Writer, items []string) {
	if len(items) == 0 {
		return
	}
	for _, it := range items {
		w.WriteString("- " + markdownItem(it) + "\n")
	}
	w.WriteString("\n")
}

// writeMarkdownFence writes text under a bold title in a text fence long
// enough that no run of backticks in text closes it.
func writeMarkdownFence(w *bufio.Writer, title, text string) {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	w.WriteString("**" + markdownEscape(title) + "**\n\n" + fence + "text\n" + text + "\n" + fence + "\n\n")
}

// markdownReplacer escapes what GitHub's markdown would read in a name or
// a note: a pipe would end a table cell, a backtick open code, *, _, ~,
// [, ], and a backslash mark up; <, > and & are entities, so that no
// HTML tag or entity forms. Control characters are already Go escapes
// (escapeText): the document is escaped before it is rendered.
var markdownReplacer = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "~", `\~`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "\n", " ",
)

func markdownEscape(s string) string { return markdownReplacer.Replace(s) }

// markdownItem escapes s as markdownEscape does and, since a list item
// holds blocks, the character that would open one at its start (a
// heading's #, a nested list's -, + or 1., a rule's =; a quote's > is
// already an entity), so that a name leading a note stays text.
func markdownItem(s string) string {
	s = markdownEscape(s)
	if s != "" && strings.ContainsRune("#-+=", rune(s[0])) {
		return `\` + s
	}
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	if digits > 0 && digits < len(s) && (s[digits] == '.' || s[digits] == ')') {
		return s[:digits] + `\` + s[digits:]
	}
	return s
}

// WriteVariantMarkdown writes the variant tables of cs (--vs) as
// WriteVariantTables writes them, in a text fence under a title: their
// groups, matrices and legends are laid out for a fixed-width font.
func WriteVariantMarkdown(w io.Writer, rows []rundoc.Row, cs []rundoc.Comparison) error {
	var buf bytes.Buffer
	if err := WriteVariantTables(&buf, rows, cs); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	writeMarkdownFence(bw, "variants", strings.Trim(buf.String(), "\n"))
	return bw.Flush()
}
