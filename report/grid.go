package report

import (
	"bufio"
	"strings"
	"unicode/utf8"
)

// align is how a column's cells line up.
type align int

const (
	alignLeft    align = iota
	alignRight         // n, median/iter, spread: a trailing ±dev leaves no shared point
	alignDecimal       // min, max, metrics: the decimal points line up
)

// column is one table column.
type column struct {
	header string
	align  align
}

// grid is a table of plain-text cells, laid out by rune count. It does its
// own padding rather than using text/tabwriter because decimal alignment
// needs to split cells at the point, and widths are counted in runes (µ, ×,
// — and … are one column each but several bytes).
type grid struct {
	cols  []column
	cells [][]string // one slice of len(cols) per row
}

// sep separates adjacent columns.
const sep = "  "

// layout pads every cell of g so that each column has one width, and
// returns the padded header and rows. Only the last column is left without
// trailing padding when it is left-aligned, so lines carry no trailing
// blanks.
func (g *grid) layout() (header []string, rows [][]string) {
	header = make([]string, len(g.cols))
	rows = make([][]string, len(g.cells))
	for i := range rows {
		rows[i] = make([]string, len(g.cols))
	}
	for c, col := range g.cols {
		cells := make([]string, len(g.cells))
		for r, row := range g.cells {
			cells[r] = row[c]
		}
		var width int
		switch col.align {
		case alignDecimal:
			cells, width = alignPoints(cells)
		default:
			for _, s := range cells {
				width = max(width, runeLen(s))
			}
		}
		width = max(width, runeLen(col.header))
		last := c == len(g.cols)-1
		for r, s := range cells {
			rows[r][c] = pad(s, width, col.align, last)
		}
		header[c] = pad(col.header, width, col.align, last)
	}
	return header, rows
}

// pad widens s to width runes: on the right for left-aligned columns
// (except the last, which needs none), on the left otherwise.
func pad(s string, width int, a align, last bool) string {
	n := width - runeLen(s)
	if n <= 0 {
		return s
	}
	if a == alignLeft {
		if last {
			return s
		}
		return s + strings.Repeat(" ", n)
	}
	return strings.Repeat(" ", n) + s
}

// alignPoints pads cells so that their decimal points share one rune
// offset, and returns them with their common width. A cell without a point
// (an integer, an em dash) has its point just after its leading number.
func alignPoints(cells []string) ([]string, int) {
	var left, right int
	for _, s := range cells {
		p := pointOffset(s)
		left = max(left, p)
		right = max(right, runeLen(s)-p)
	}
	out := make([]string, len(cells))
	for i, s := range cells {
		p := pointOffset(s)
		out[i] = strings.Repeat(" ", left-p) + s + strings.Repeat(" ", right-(runeLen(s)-p))
	}
	return out, left + right
}

// pointOffset returns the rune offset of s's decimal point: the first '.',
// or else the end of the leading run of digits and signs, or else (an em
// dash, a word) the end of s. An estimate's leading ≈ stands before the
// number, so 1.5 and ≈2.5 share their point.
func pointOffset(s string) int {
	if rest, ok := strings.CutPrefix(s, estimated); ok && rest != "" {
		return 1 + pointOffset(rest)
	}
	n := 0
	for _, r := range s {
		switch {
		case r == '.':
			return n
		case r >= '0' && r <= '9', r == '-', r == '+', r == '−':
			n++
		default:
			if n > 0 {
				return n
			}
			return runeLen(s)
		}
	}
	return n
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// widths returns each column's width as layout would pad it.
func (g *grid) widths() []int {
	out := make([]int, len(g.cols))
	for c, col := range g.cols {
		w := runeLen(col.header)
		if col.align == alignDecimal {
			cells := make([]string, len(g.cells))
			for r, row := range g.cells {
				cells[r] = row[c]
			}
			_, cw := alignPoints(cells)
			w = max(w, cw)
		} else {
			for _, row := range g.cells {
				w = max(w, runeLen(row[c]))
			}
		}
		out[c] = w
	}
	return out
}

// fit narrows g's lines toward width runes: first the notes column (index
// notes, -1 for none), cut at its end down to minNoteWidth, then the name
// column (index name), elided in its middle down to minNameWidth. What
// still does not fit wraps; no other column is touched.
func (g *grid) fit(width, name, notes int) {
	over := func() int {
		ws := g.widths()
		total := runeLen(sep) * (len(ws) - 1)
		for _, w := range ws {
			total += w
		}
		return total - width
	}
	shrink := func(c, floor int, cut func(string, int) string) {
		excess := over()
		if excess <= 0 || c < 0 {
			return
		}
		to := max(floor, g.widths()[c]-excess)
		for _, row := range g.cells {
			row[c] = cut(row[c], to)
		}
	}
	shrink(notes, minNoteWidth, truncate)
	shrink(name, minNameWidth, shortenName)
}

// writeGrid writes g's header (in bold when p paints) and its rows, a
// line each.
func writeGrid(w *bufio.Writer, g *grid, p painter) {
	header, cells := g.layout()
	w.WriteString(p.paint(bold, joinCells(header)) + "\n")
	for _, row := range cells {
		w.WriteString(joinCells(row) + "\n")
	}
}

// writeNotes writes a block of notes, if any: a blank line, its title,
// then each note indented.
func writeNotes(w *bufio.Writer, title string, notes []string) {
	if len(notes) == 0 {
		return
	}
	w.WriteString("\n" + title + "\n")
	for _, n := range notes {
		w.WriteString("  " + n + "\n")
	}
}
