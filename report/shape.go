package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/benchsup/benchsup/analysis"
	"github.com/benchsup/benchsup/rundoc"
)

// A Shape projects a benchmark table as benchstat's -row and -col do
// (golang.org/x/perf/benchproc): each key reads one part of a benchmark's
// name, parsed by analysis.ParseName.
//
//   - .name is the function ("BenchmarkHash");
//   - .fullname is the whole name, less the elements other keys of the
//     shape take (written "key=*", as a family is);
//   - /key is the value of the name's first element keyed key (impl in
//     BenchmarkHash/impl=fnv/n=8), labeled "impl=fnv"; a name without
//     the key is labeled "(no impl)".
//
// The zero Shape is the table as it always was.
type Shape struct {
	// Row and Col are the keys of the table's lines and of its columns;
	// nil Row is .fullname, nil Col one column (the median).
	Row, Col []Key
	// Sort orders the lines within each group: "" (measurement order),
	// SortName or SortMedian.
	Sort string
}

// Shape.Sort values.
const (
	SortName   = "name"
	SortMedian = "median"
)

// Key is one projection key.
type Key struct {
	// Field is ".name", ".fullname", or "" for a name element (Sub).
	Field string
	Sub   string
}

func (k Key) String() string {
	if k.Field != "" {
		return k.Field
	}
	return "/" + k.Sub
}

// ParseKeys reads a projection as --row and --col take it: keys
// separated by commas or spaces (".name", ".fullname", "/key").
func ParseKeys(spec string) ([]Key, error) {
	var keys []Key
	for _, f := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch {
		case f == ".name" || f == ".fullname":
			keys = append(keys, Key{Field: f})
		case strings.HasPrefix(f, "/") && len(f) > 1 && !strings.ContainsAny(f[1:], "/="):
			keys = append(keys, Key{Sub: f[1:]})
		default:
			return nil, fmt.Errorf("%q is not a key: want .name, .fullname or /key (a name element's key, as in /impl)", f)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no key in %q: want .name, .fullname or /key", spec)
	}
	return keys, nil
}

// ParseSort reads --sort: "", name or median.
func ParseSort(s string) (string, error) {
	switch s {
	case "", SortName, SortMedian:
		return s, nil
	}
	return "", fmt.Errorf("%q: want name or median", s)
}

// Projected reports whether s changes the table's lines or columns (not
// only their order).
func (s Shape) Projected() bool { return len(s.Row) > 0 || len(s.Col) > 0 }

// IsZero reports whether s is the default table.
func (s Shape) IsZero() bool { return !s.Projected() && s.Sort == "" }

// CheckShape says, for a key of s that no name of names has, which keys
// they have: a one-line error, nil when every key is present.
func CheckShape(s Shape, names []string) error {
	present := map[string]bool{}
	var subs []string
	for _, name := range names {
		for _, e := range analysis.ParseName(name).Elements {
			if e.Key != "" && !present[e.Key] {
				present[e.Key] = true
				subs = append(subs, "/"+e.Key)
			}
		}
	}
	for _, k := range append(slices.Clone(s.Row), s.Col...) {
		if k.Field == "" && !present[k.Sub] {
			return fmt.Errorf("no benchmark name has the key %s (keys present: %s)", k, strings.Join(append([]string{".name", ".fullname"}, subs...), ", "))
		}
	}
	return nil
}

// projectedName is a name seen through a shape.
type projectedName struct {
	group, row, col string
}

// project reads name through s: its group (what no key of s takes, in
// the name's own form with the taken elements written "key=*" and a taken
// function "*"; "" when .fullname is a row key), its row label and its
// column label.
func (s Shape) project(name string) projectedName {
	n := analysis.ParseName(name)
	taken := n
	taken.Elements = slices.Clone(n.Elements)
	fullRow := len(s.Row) == 0
	for _, k := range append(slices.Clone(s.Row), s.Col...) {
		switch k.Field {
		case ".name":
			taken.Function = "*"
		case ".fullname":
			fullRow = true
		default:
			if i := n.Index(k.Sub); i >= 0 {
				taken.Elements[i] = analysis.Element{Key: k.Sub, Value: "*"}
			}
		}
	}
	// .fullname is the name less what the columns take.
	full := n
	full.Elements = slices.Clone(n.Elements)
	for _, k := range s.Col {
		switch k.Field {
		case ".name":
			full.Function = "*"
		case "":
			if i := n.Index(k.Sub); i >= 0 {
				full.Elements[i] = analysis.Element{Key: k.Sub, Value: "*"}
			}
		}
	}
	label := func(keys []Key) string {
		var parts []string
		for _, k := range keys {
			switch k.Field {
			case ".name":
				parts = append(parts, n.Function)
			case ".fullname":
				parts = append(parts, full.String())
			default:
				if v, ok := n.Value(k.Sub); ok {
					parts = append(parts, k.Sub+"="+v)
				} else {
					parts = append(parts, "(no "+k.Sub+")")
				}
			}
		}
		return strings.Join(parts, " ")
	}
	p := projectedName{col: label(s.Col)}
	if len(s.Row) == 0 {
		p.row = full.String()
	} else {
		p.row = label(s.Row)
	}
	if !fullRow {
		p.group = taken.String()
	}
	return p
}

// rowHeader is the header of the line labels' column.
func (s Shape) rowHeader() string {
	if len(s.Row) == 0 {
		return "benchmark"
	}
	var parts []string
	for _, k := range s.Row {
		parts = append(parts, k.String())
	}
	return strings.Join(parts, " ")
}

// shapedLine is one line of a projected table: its label and a cell per
// column, with the value --sort=median orders it by.
type shapedLine struct {
	label  string
	cells  map[string]string
	values map[string]*float64 // by column, what --sort=median reads
	key    *float64            // the leftmost column's value; nil when none
}

// shapedGroup is the lines of one group, in order of first appearance.
type shapedGroup struct {
	label string
	lines []*shapedLine
	at    map[string]*shapedLine
}

// shapedTable is a projection's groups and columns.
type shapedTable struct {
	cols       []string
	groups     []*shapedGroup
	collisions int // cells that more than one identity fell in
}

// shapedEntry is one identity to place.
type shapedEntry struct {
	pkg, build, name string
	cell             string
	value            *float64 // what --sort=median reads
}

// buildShaped places entries by s: groups are the package (with its
// prefix in a multi-package table), the build and the projection's
// group, in order of first appearance; columns likewise.
func buildShaped(s Shape, entries []shapedEntry, prefixes map[string]string) *shapedTable {
	t := &shapedTable{}
	at := map[string]*shapedGroup{}
	for _, e := range entries {
		p := s.project(e.name)
		var parts []string
		if pre, ok := prefixes[e.pkg]; ok {
			parts = append(parts, pre)
		}
		if p.group != "" {
			parts = append(parts, p.group)
		}
		if e.build != "" {
			parts = append(parts, "@"+e.build)
		}
		gl := strings.Join(parts, " ")
		g := at[gl]
		if g == nil {
			g = &shapedGroup{label: gl, at: map[string]*shapedLine{}}
			at[gl] = g
			t.groups = append(t.groups, g)
		}
		l := g.at[p.row]
		if l == nil {
			l = &shapedLine{label: p.row, cells: map[string]string{}, values: map[string]*float64{}}
			g.at[p.row] = l
			g.lines = append(g.lines, l)
		}
		if !slices.Contains(t.cols, p.col) {
			t.cols = append(t.cols, p.col)
		}
		if _, dup := l.cells[p.col]; dup {
			t.collisions++
			continue
		}
		l.cells[p.col], l.values[p.col] = e.cell, e.value
	}
	// The sort value of a line is that of its leftmost column with one.
	for _, g := range t.groups {
		for _, l := range g.lines {
			for _, c := range t.cols {
				if v := l.values[c]; v != nil {
					l.key = v
					break
				}
			}
		}
		sortLines(g.lines, s.Sort)
	}
	return t
}

// sortLines orders a group's lines by --sort: by name (element values
// that are both numbers compare as numbers, so n=8 comes before n=64),
// or by median ascending, lines without one last; stable, so "" keeps
// measurement order.
func sortLines(lines []*shapedLine, by string) {
	switch by {
	case SortName:
		slices.SortStableFunc(lines, func(a, b *shapedLine) int { return compareNames(a.label, b.label) })
	case SortMedian:
		slices.SortStableFunc(lines, func(a, b *shapedLine) int { return compareValues(a.key, b.key) })
	}
}

// compareValues orders present values ascending and absent ones last.
func compareValues(a, b *float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return cmp.Compare(*a, *b)
}

// compareNames compares two names element by element ('/', '=' and ' '
// separate them), numerically where both elements are numbers.
func compareNames(a, b string) int {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '=' || r == ' ' })
	}
	as, bs := split(a), split(b)
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errX := strconv.ParseFloat(as[i], 64)
		y, errY := strconv.ParseFloat(bs[i], 64)
		if errX == nil && errY == nil {
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
			continue
		}
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// grid lays the table out: a column of line labels headed rowHeader, one
// column per column label (or one headed single when the shape has no
// column keys), and a heading line per group when there are several
// groups or a group has a label, its lines indented under it.
func (t *shapedTable) grid(rowHeader, single string) *grid {
	g := &grid{cols: []column{{rowHeader, alignLeft}}}
	for _, c := range t.cols {
		h := c
		if h == "" {
			h = single
		}
		g.cols = append(g.cols, column{h, alignDecimal})
	}
	headings := len(t.groups) > 1 || (len(t.groups) == 1 && t.groups[0].label != "")
	for _, gr := range t.groups {
		indent := ""
		if headings {
			indent = "  "
			g.cells = append(g.cells, append([]string{gr.label}, make([]string, len(t.cols))...))
		}
		for _, l := range gr.lines {
			row := []string{indent + shortenName(l.label, nameWidth)}
			for _, c := range t.cols {
				cell, ok := l.cells[c]
				if !ok {
					cell = dash
				}
				row = append(row, cell)
			}
			g.cells = append(g.cells, row)
		}
	}
	return g
}

// sortRows orders a run's table rows by --sort within each package (in
// order of first appearance), error rows last as always.
func sortRows(rows []rundoc.Row, by string) []rundoc.Row {
	if by == "" {
		return rows
	}
	var pkgs []string
	for _, r := range rows {
		pkgs = appendNew(pkgs, r.Package+"\x00"+r.Build)
	}
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b rundoc.Row) int {
		if ae, be := a.IsError(), b.IsError(); ae != be {
			if ae {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(slices.Index(pkgs, a.Package+"\x00"+a.Build), slices.Index(pkgs, b.Package+"\x00"+b.Build)); c != 0 {
			return c
		}
		if by == SortName {
			return compareNames(a.Name, b.Name)
		}
		var x, y *float64
		if measured(a) {
			x = &a.Summary.MedianNs
		}
		if measured(b) {
			y = &b.Summary.MedianNs
		}
		return compareValues(x, y)
	})
	return out
}

// shapedBench is a run's benchmark table through a projecting shape:
// each cell the median per iteration, or the outcome of a row with no
// numbers. It returns the grid and the notes the projection owes: rows
// it cannot place (a package row has no name), and cells that more than
// one identity fell in.
func shapedBench(rows []rundoc.Row, prefixes map[string]string, s Shape) (*grid, []string) {
	var entries []shapedEntry
	var notes []string
	for _, r := range rows {
		if r.Name == "" {
			notes = append(notes, fmt.Sprintf("%s: %s, not in the table (it has no benchmark name)", displayName(r, prefixes), r.Outcome))
			continue
		}
		if r.Outcome != rundoc.OutcomeOK {
			notes = append(notes, displayName(r, prefixes)+": "+note(r))
		}
		e := shapedEntry{pkg: r.Package, build: r.Build, name: r.Name, cell: string(r.Outcome)}
		if measured(r) {
			e.cell = formatDuration(r.Summary.MedianNs)
			e.value = &r.Summary.MedianNs
		}
		entries = append(entries, e)
	}
	t := buildShaped(s, entries, prefixes)
	if t.collisions > 0 {
		notes = append(notes, fmt.Sprintf("%d %s more than one benchmark (testing's #NN duplicates, or keys that do not tell names apart): the first is shown; the JSON has every one",
			t.collisions, plural(t.collisions, "cell held", "cells held")))
	}
	return t.grid(s.rowHeader(), "median/iter"), notes
}

// shapeLine says what a projected table's cells are, once, above it.
const shapeLine = "cells: median/iter (the median of the process medians); the other columns are in the JSON"

// shapeOnlyLine says, once, which blocks a shape leaves as they are.
const shapeOnlyLine = "--row, --col and --sort shape the benchmark table only; windows, sweeps and recordings are shown as always"

// shapedComparison is one metric's comparison rows through a projecting
// shape: each cell the change with its verdict ("+5.43% (slower)"), or
// the verdict alone where there is no ratio; lines sorted by the new
// side's center. Groups are always headed by their package, as the
// comparison table heads them.
func shapedComparison(c rundoc.Comparison, metric string, s Shape) (*grid, []string) {
	prefixes := map[string]string{}
	var entries []shapedEntry
	for _, r := range c.Rows {
		if r.Metric != metric {
			continue
		}
		prefixes[r.Package] = r.Package
		e := shapedEntry{pkg: r.Package, name: r.Name, cell: string(r.Verdict)}
		if r.Ratio != nil {
			e.cell = formatChange(*r.Ratio) + " (" + string(r.Verdict) + ")"
		}
		if r.New != nil {
			e.value = r.New.Center
		}
		entries = append(entries, e)
	}
	t := buildShaped(s, entries, prefixes)
	var notes []string
	if t.collisions > 0 {
		notes = append(notes, fmt.Sprintf("%s: %d %s more than one identity: the first is shown", metric,
			t.collisions, plural(t.collisions, "cell held", "cells held")))
	}
	header := metric
	if len(s.Row) > 0 {
		header = metric + " by " + s.rowHeader()
	}
	return t.grid(header, "change"), notes
}

// sortComparisonRows orders one metric's rows by --sort within each
// package (in order of first appearance): by name, or by the new side's
// center, rows without one last.
func sortComparisonRows(rows []rundoc.ComparisonRow, by string) []rundoc.ComparisonRow {
	if by == "" {
		return rows
	}
	var pkgs []string
	for _, r := range rows {
		pkgs = appendNew(pkgs, r.Package)
	}
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b rundoc.ComparisonRow) int {
		if c := cmp.Compare(slices.Index(pkgs, a.Package), slices.Index(pkgs, b.Package)); c != 0 {
			return c
		}
		if by == SortName {
			return compareNames(a.Name, b.Name)
		}
		var x, y *float64
		if a.New != nil {
			x = a.New.Center
		}
		if b.New != nil {
			y = b.New.Center
		}
		return compareValues(x, y)
	})
	return out
}
