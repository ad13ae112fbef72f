package report

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/internal/stats"
	"github.com/benchsup/benchsup/internal/statsconv"
	"github.com/benchsup/benchsup/rundoc"
)

func TestWriteTableGolden(t *testing.T) {
	tests := []struct {
		name string
		doc  rundoc.Document
		opt  TableOptions
	}{
		{"green", rundoctest.GreenDoc(), TableOptions{}},
		{"errors", rundoctest.ErrorDoc(), TableOptions{}},
		{"counted", rundoctest.CountedDoc(), TableOptions{}},
		{"counted-verbose", rundoctest.CountedDoc(), TableOptions{Verbose: true}},
		{"narrow", longNamesDoc(), TableOptions{Width: 110}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteTable(&buf, tt.doc, tt.opt))
			rundoctest.Golden(t, tt.name+".table", buf.Bytes())
			assert.NotContains(t, buf.String(), "\x1b", "the zero TableOptions writes plain text")
		})
	}
}

// TestTableInvariants checks the shape every table must have, whatever its
// rows.
func TestTableInvariants(t *testing.T) {
	single := rundoctest.GreenDoc()
	single.Meta.Knobs.Repetitions = 1
	single.Rows = single.Rows[:1]
	single.Rows[0].Processes = single.Rows[0].Processes[:1]
	single.Rows[0].Summary = rundoctest.Summarize(single.Rows[0].Processes)

	tests := []struct {
		name      string
		doc       rundoc.Document
		wantNotes bool
	}{
		{"green", rundoctest.GreenDoc(), false},
		{"errors", rundoctest.ErrorDoc(), true},
		{"single process", single, false},
		{"counted", rundoctest.CountedDoc(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := tableOrder(tt.doc.Rows)
			g, notesCol := gridOf(tt.doc, rows, TableOptions{})
			header, cells := g.layout()

			assert.Equal(t, tt.wantNotes, notesCol >= 0, "notes column only with error or skip rows")
			if notesCol >= 0 {
				assert.Equal(t, len(g.cols)-1, notesCol, "notes is the trailing column")
			}

			seenError := false
			for i, r := range rows {
				if r.IsError() {
					seenError = true
				} else {
					assert.False(t, seenError, "row %q sorts after an error row", r.Name)
				}
				if !measured(r) {
					for c, col := range g.cols {
						if c > 0 && col.header != "notes" {
							assert.Equal(t, dash, strings.TrimSpace(cells[i][c]),
								"%s: numeric cell %q of an unmeasured row", r.Name, col.header)
						}
					}
				}
			}

			for c, col := range g.cols {
				width := runeLen(header[c])
				point := -1
				for i := range cells {
					cell := cells[i][c]
					if !(col.align == alignLeft && c == len(g.cols)-1) {
						assert.Equal(t, width, runeLen(cell), "column %q: every cell has the column's width", col.header)
					}
					if col.align != alignDecimal {
						continue
					}
					trimmed := strings.TrimSpace(cell)
					p := runeLen(cell) - runeLen(strings.TrimLeft(cell, " ")) + pointOffset(trimmed)
					if point < 0 {
						point = p
					}
					assert.Equal(t, point, p, "column %q: cell %q has its decimal point at rune %d, others at %d", col.header, cell, p, point)
				}
			}
		})
	}
}

func TestTableColumns(t *testing.T) {
	t.Run("metric columns come in a fixed order, then sorted", func(t *testing.T) {
		doc := rundoctest.GreenDoc()
		g, _ := gridOf(doc, tableOrder(doc.Rows), TableOptions{})
		var headers []string
		for _, c := range g.cols {
			headers = append(headers, c.header)
		}
		assert.Equal(t, []string{"benchmark", "n", "median/iter", "interval", "±within",
			"B/op", "allocs/op", "MB/s", "hit-ratio", "rows/op"}, headers)
	})
	t.Run("one sample per process: no ±within column", func(t *testing.T) {
		doc := rundoctest.GreenDoc()
		for i := range doc.Rows {
			for j := range doc.Rows[i].Processes {
				p := &doc.Rows[i].Processes[j]
				if len(p.Samples) > 0 {
					p.Samples = p.Samples[:1]
					st, _ := (stats.Process{Samples: statsconv.Samples(p.Samples)}).NsPerOp()
					ds := statsconv.DocStats(st)
					p.NsPerOp = &ds
				}
			}
			doc.Rows[i].Summary = rundoctest.Summarize(doc.Rows[i].Processes)
		}
		g, _ := gridOf(doc, doc.Rows, TableOptions{})
		for _, c := range g.cols {
			assert.NotEqual(t, "±within", c.header)
		}
	})
	t.Run("no interval column for single-process runs", func(t *testing.T) {
		doc := rundoctest.GreenDoc()
		doc.Meta.Knobs.Repetitions = 1
		for i := range doc.Rows {
			doc.Rows[i].Processes = doc.Rows[i].Processes[:1]
			doc.Rows[i].Summary = rundoctest.Summarize(doc.Rows[i].Processes)
		}
		g, _ := gridOf(doc, doc.Rows, TableOptions{})
		for _, c := range g.cols {
			assert.NotEqual(t, "interval", c.header)
		}
	})
	t.Run("unavailable metric is an em dash, never 0", func(t *testing.T) {
		doc := rundoctest.GreenDoc()
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
		var scan string
		for _, l := range strings.Split(buf.String(), "\n") {
			if strings.HasPrefix(l, "store.BenchmarkScan") {
				scan = l
			}
		}
		require.NotEmpty(t, scan)
		fields := strings.Fields(scan)
		// B/op, allocs/op, MB/s and hit-ratio are unavailable.
		assert.Equal(t, []string{dash, dash, dash, dash, "128"}, fields[len(fields)-5:])
	})
	t.Run("names carry the package only for multi-package runs", func(t *testing.T) {
		doc := rundoctest.GreenDoc()
		doc.Rows = doc.Rows[:2]
		g, _ := gridOf(doc, doc.Rows, TableOptions{})
		assert.Equal(t, "BenchmarkEncode/size=1K", g.cells[0][0])
		doc = rundoctest.GreenDoc()
		g, _ = gridOf(doc, doc.Rows, TableOptions{})
		assert.Equal(t, "codec.BenchmarkEncode/size=1K", g.cells[0][0])
	})
	t.Run("notes are capped", func(t *testing.T) {
		doc := rundoctest.ErrorDoc()
		g, notesCol := gridOf(doc, tableOrder(doc.Rows), TableOptions{NoteWidth: 20})
		for _, row := range g.cells {
			assert.LessOrEqual(t, runeLen(row[notesCol]), 20)
		}
	})
}

func TestSamplesCell(t *testing.T) {
	three := rundoctest.SamplesOf(10, nil, nil, nil, 1, 2, 3)
	four := rundoctest.SamplesOf(10, nil, nil, nil, 1, 2, 3, 4)
	tests := []struct {
		name        string
		row         rundoc.Row
		repetitions int
		want        string
	}{
		{"one process", rundoctest.BenchRow("p", "B", three), 1, "3"},
		{"repetitions asked for", rundoctest.BenchRow("p", "B", three, three, three), 3, "3×3"},
		{"one process of several measured", rundoctest.BenchRow("p", "B", three), 5, "1×3"},
		{"uneven processes", rundoctest.BenchRow("p", "B", three, four), 2, "2×3–4"},
		{"no per-process detail", rundoc.Row{Summary: &rundoc.Summary{Processes: 2, Samples: 8}}, 2, "2×4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, samplesCell(tt.row, tt.repetitions))
		})
	}
}

func TestPackagePrefixes(t *testing.T) {
	rows := func(pkgs ...string) []rundoc.Row {
		var rs []rundoc.Row
		for _, p := range pkgs {
			rs = append(rs, rundoc.Row{Package: p})
		}
		return rs
	}
	assert.Nil(t, packagePrefixes(rows("a/codec", "a/codec")))
	assert.Equal(t, map[string]string{
		"a/v1/codec": "v1/codec",
		"a/v2/codec": "v2/codec",
		"a/store":    "store",
	}, packagePrefixes(rows("a/v1/codec", "a/v2/codec", "a/store")))
	assert.Equal(t, map[string]string{"codec": "codec", "x/codec": "x/codec"},
		packagePrefixes(rows("codec", "x/codec")))
	// A module's root package at a major version is named by the element
	// before the version, as its package clause names it.
	assert.Equal(t, map[string]string{
		"github.com/cespare/xxhash/v2":        "xxhash/v2",
		"github.com/cespare/xxhash/v2/xxhsum": "xxhsum",
	}, packagePrefixes(rows("github.com/cespare/xxhash/v2", "github.com/cespare/xxhash/v2/xxhsum")))
	assert.Equal(t, map[string]string{"v2": "v2", "a/v0": "v0", "a/v1": "v1", "a/v02": "v02"},
		packagePrefixes(rows("v2", "a/v0", "a/v1", "a/v02")), "v0, v1, v02 are no major version suffixes; a path of one element is its own prefix")
}

func TestWriteTableColor(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, rundoctest.ErrorDoc(), TableOptions{Color: true}))
	out := buf.String()
	assert.Contains(t, out, "\x1b[1mbenchmark")
	assert.Contains(t, out, "\x1b[31mexecution-timeout: ")
	assert.NotContains(t, out, "\x1b[31mskipped", "a skip is not an error")
}

func TestWriteTableErrors(t *testing.T) {
	t.Run("test-mode document", func(t *testing.T) {
		err := WriteTable(&bytes.Buffer{}, rundoctest.TestsDoc(), TableOptions{})
		assert.ErrorContains(t, err, `mode "test"`)
	})
	t.Run("NaN is refused, naming the field", func(t *testing.T) {
		doc := rundoctest.GreenDoc()
		doc.Rows[1].Summary.MedianNs = math.NaN()
		err := WriteTable(&bytes.Buffer{}, doc, TableOptions{})
		assert.ErrorIs(t, err, rundoc.ErrNonFinite)
		assert.ErrorContains(t, err, "rows[1].summary.medianNs")
	})
	t.Run("write error", func(t *testing.T) {
		err := WriteTable(rundoctest.FailWriter{}, rundoctest.GreenDoc(), TableOptions{})
		assert.ErrorIs(t, err, rundoctest.ErrWrite)
	})
	t.Run("empty run", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, rundoc.Document{Meta: rundoc.Meta{Mode: rundoc.ModeBench}}, TableOptions{}))
		assert.Contains(t, buf.String(), "no benchmark results")
	})
}

// gridOf builds the grid WriteTable would lay out for doc's rows in the
// given order.
func gridOf(doc rundoc.Document, rows []rundoc.Row, opt TableOptions) (*grid, int) {
	quantitative, _ := splitColumns(doc.Columns)
	return benchGrid(rows, packagePrefixes(doc.Rows), doc.Meta.Knobs.Repetitions, quantitative, opt)
}

// The fixtures' summaries must agree with measure, or the goldens would
// show numbers the supervisor cannot produce.
func TestFixtureSummary(t *testing.T) {
	r := rundoctest.GreenDoc().Rows[0]
	var per []stats.Stats
	for _, p := range r.Processes {
		per = append(per, statsconv.Stats(*p.NsPerOp))
	}
	a, ok := stats.Combine(per)
	require.True(t, ok)
	assert.Equal(t, a.Median, r.Summary.MedianNs)
	assert.Equal(t, 9, r.Summary.Samples)
}

// TestTableLongNamesAndUnmeasured: a name of any length is cut in its
// middle so no row is padded to its width (the JSON keeps it whole); a
// metric reported as NaN is an em dash in its column with its reason in
// the notes, as are the row's notes.
func TestTableLongNamesAndUnmeasured(t *testing.T) {
	doc := rundoctest.GreenDoc()
	long := "BenchmarkLong/" + strings.Repeat("x", 5000) + "/end"
	doc.Rows[0].Name = long
	doc.Rows[0].Summary.Metrics["ratio"] = nil
	doc.Rows[0].Absences = append(doc.Rows[0].Absences, rundoc.MetricAbsence{Metric: "ratio", Reason: "the benchmark reported NaN (b.ReportMetric)"})
	doc.Rows[0].Notes = []string{"a process the benchmark started was still running"}
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
	out := buf.String()
	for _, l := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, len([]rune(l)), 400, "no line carries the long name whole: %.80q", l)
	}
	assert.Contains(t, out, "BenchmarkLong/xxx")
	assert.Contains(t, out, "…")
	assert.Contains(t, out, "xxx/end", "the end of the name stays visible")
	assert.Contains(t, out, "ratio: the benchmark reported NaN (b.ReportMetric)")
	assert.Contains(t, out, ": a process the benchmark started was still running")
	header := strings.Split(out, "\n")
	for _, l := range header {
		if strings.Contains(l, "median/iter") {
			assert.Contains(t, l, "ratio", "the unmeasured unit has its column")
		}
	}

	buf.Reset()
	require.NoError(t, rundoc.WriteJSON(&buf, doc))
	assert.Contains(t, buf.String(), long, "the JSON keeps the whole name")
	assert.Contains(t, buf.String(), `"ratio": null`)
}

// longNamesDoc is ErrorDoc with names too long for a 100-column terminal.
func longNamesDoc() rundoc.Document {
	doc := rundoctest.ErrorDoc()
	for i, r := range doc.Rows {
		switch r.Name {
		case "BenchmarkEncode/size=1K":
			doc.Rows[i].Name = "BenchmarkEncode/codec=protobuf-with-long-options/payload=nested/size=1KiB"
		case "BenchmarkStream":
			doc.Rows[i].Name = "BenchmarkStream/transport=unix-socket/framing=length-prefixed/window=64KiB"
		}
	}
	return doc
}

// TestTableWidth: with a terminal width, every line of the benchmark
// table fits it (notes first cut to their floor, then names elided in the
// middle, keeping the function and the last level); below what the floors
// allow, names stop at minNameWidth and lines wrap; without a width, names
// are cut at nameWidth only.
func TestTableWidth(t *testing.T) {
	doc := longNamesDoc()
	for _, width := range []int{110, 120, 160} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteTable(&buf, doc, TableOptions{Width: width}))
			lines := tableLines(t, buf.String(), "benchmark ")
			for _, l := range lines {
				assert.LessOrEqual(t, runeLen(l), width, "%q", l)
			}
			assert.True(t, strings.HasPrefix(lines[1], "codec.BenchmarkEncod"), "the function stays: %q", lines[1])
			assert.Contains(t, lines[1], "size=1KiB", "the last level stays")
			if width < 160 {
				assert.Contains(t, lines[1], "…", "elided in the middle")
			} else {
				assert.Contains(t, lines[1], "BenchmarkEncode/codec=protobuf-with-long-options/payload=nested/size=1KiB", "a name that fits stays whole")
			}
		})
	}
	t.Run("piped output keeps whole names up to nameWidth", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
		assert.Contains(t, buf.String(), "BenchmarkEncode/codec=protobuf-with-long-options/payload=nested/size=1KiB")
	})
	t.Run("names stop at their floor", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, WriteTable(&buf, doc, TableOptions{Width: 10}))
		lines := tableLines(t, buf.String(), "benchmark ")
		name, _, _ := strings.Cut(lines[1], "  ")
		assert.Equal(t, minNameWidth, runeLen(strings.TrimSpace(name)))
	})
}

func TestTerminalWidth(t *testing.T) {
	assert.Zero(t, TerminalWidth(&bytes.Buffer{}), "not a file")
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	assert.Zero(t, TerminalWidth(f), "a file is not a terminal: piped output keeps its width")
}

// TestTableAllocations: B/op and allocs/op as go test prints them, with
// what its integer division hides marked: one setup allocation spread over
// a million iterations is a trace (<0.01), not "0.0001511" read as a real
// allocation, and half an allocation per iteration still shows. The JSON
// document keeps the exact values.
func TestTableAllocations(t *testing.T) {
	row := func(name string, bytes, allocs float64) rundoc.Row {
		r := rundoctest.BenchRow("example.com/p", name,
			rundoctest.SamplesOf(1000, rundoctest.U64(0), rundoctest.U64(0), nil, 12.5, 12.6, 12.4),
			rundoctest.SamplesOf(1000, rundoctest.U64(0), rundoctest.U64(0), nil, 12.5, 12.6, 12.4),
			rundoctest.SamplesOf(1000, rundoctest.U64(0), rundoctest.U64(0), nil, 12.5, 12.6, 12.4))
		// The summary's values as a real run gives them: the samples'
		// totals over N, one allocation of setup spread over all of them.
		r.Summary.Metrics = map[string]*float64{"B/op": &bytes, "allocs/op": &allocs}
		return r
	}
	doc := rundoc.Document{Schema: rundoc.SchemaVersion, Meta: rundoctest.MetaOf(rundoc.ModeBench, 3), Rows: []rundoc.Row{
		row("BenchmarkTrace", 0.0001511, 0.000005665),
		row("BenchmarkHalf", 8.5, 0.5),
		row("BenchmarkWhole", 48.9, 1.9),
		row("BenchmarkZero", 0, 0),
	}}
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
	out := buf.String()
	line := func(name string) []string {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == name {
				return f
			}
		}
		t.Fatalf("no line for %s in:\n%s", name, out)
		return nil
	}
	for _, tt := range []struct {
		name          string
		bytes, allocs string
	}{
		{"BenchmarkTrace", "<0.01", "<0.01"},
		{"BenchmarkHalf", "8", "0.5"},
		{"BenchmarkWhole", "48", "1"}, // go test's integer division
		{"BenchmarkZero", "0", "0"},
	} {
		f := line(tt.name)
		assert.Equal(t, []string{tt.bytes, tt.allocs}, f[len(f)-2:], "%s's B/op and allocs/op", tt.name)
	}
	assert.Equal(t, 1, strings.Count(out, "<0.01 is a trace"), "what <0.01 means is said once")
	rundoctest.Golden(t, "allocations.table", buf.Bytes())

	var js bytes.Buffer
	require.NoError(t, rundoc.WriteJSON(&js, doc))
	read, _, err := rundoc.ReadDocument(&js)
	require.NoError(t, err)
	assert.Equal(t, 0.0001511, *read.Rows[0].Summary.Metrics["B/op"], "the document keeps the exact value")
	assert.Equal(t, 0.000005665, *read.Rows[0].Summary.Metrics["allocs/op"])
}

// A build flag warning is a header line of its own, under the host's.
func TestWriteTableWarnings(t *testing.T) {
	doc := rundoctest.GreenDoc()
	doc.Meta.BuildFlags = []string{"-race"}
	doc.Meta.Warnings = rundoc.BuildFlagWarnings(doc.Meta.BuildFlags)
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, doc, TableOptions{}))
	assert.Contains(t, buf.String(), "\nwarning: built with -race: the race detector instruments every memory access; these numbers are not those of the code users run\n")

	buf.Reset()
	require.NoError(t, WriteTable(&buf, rundoctest.GreenDoc(), TableOptions{}))
	assert.NotContains(t, buf.String(), "warning: built with")
}
